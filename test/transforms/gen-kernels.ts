/**
 * fast-check generators for the pipeline law: random kernels (elementwise, stencils with guards,
 * reductions, matmul-like, triangular and parametric domains, several instructions through
 * temporaries) and random LEGAL pipelines over the registry (splits, with peeled slabs, chunks, tags, priorities,
 * tiles, joins, renames, prefetches, array layouts), built move by move against the
 * kernel they will transform. A move that the transformation refuses (TransformError) is dropped
 * and counted, so `GEN_STATS` says what share of the generated moves was filtered.
 */
import fc from "fast-check";
import { LoomError, ScheduleError, TransformError } from "../../src/errors.js";
import { schedule } from "../../src/schedule/index.js";
import { allInames, exprToString, reductionInames, type Expr, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { saveAndReloadTemporaries, tagInames } from "../../transforms/index.js";
import { SCHEDULED_FAMILIES, refusalKind, scheduleVerdict, type KernelSource } from "./gen-families.js";
import { isRegistered, makeStepOf, pipeline, toJSON, type PipelineJSON, type Step } from "../../transforms/pipeline.js";

export type { KernelSource };

export interface GenKernel {
  readonly source: KernelSource;
  readonly kernel: Kernel;
  /** What the transformed kernel is compared with: the kernel, or its saved form (`source.saves`). */
  readonly ref: Kernel;
}

const cache = new Map<string, GenKernel>();
function build(source: KernelSource): GenKernel {
  const key = JSON.stringify(source);
  let gk = cache.get(key);
  if (gk === undefined) {
    const made = makeKernel([...source.domains], [...source.instructions], [...source.args], { name: source.family });
    const kernel = source.tags ? tagInames(made, { ...source.tags }) : made;
    gk = { source, kernel, ref: source.saves ? saveAndReloadTemporaries(kernel) : kernel };
    cache.set(key, gk);
  }
  return gk;
}

const N: readonly [number, number] = [0, 19];
const src = (family: string, domains: string[], instructions: string[], args: string[], params: Record<string, readonly [number, number]> = { n: N }): KernelSource =>
  ({ family, domains, instructions, args, params });

const unary = fc.constantFrom("2*a[i] + 1", "a[i]*a[i] - 3", "a[i] - i", "max(a[i], 0.25)");
const red = fc.constantFrom("sum", "max");

/** The kernel families, each a small arbitrary over its variants. */
export const FAMILIES: Readonly<Record<string, fc.Arbitrary<KernelSource>>> = {
  elementwise: unary.map((f) => src("elementwise", ["{[i]: 0<=i<n}"], [`out[i] = ${f}`], ["a, out: float64[n]", "n: int32"])),
  elementwise2d: fc.constantFrom("a[i,j]*2 + j", "a[i,j] - i*j").map((f) =>
    src("elementwise2d", ["{[i,j]: 0<=i<n and 0<=j<m}"], [`out[i,j] = ${f}`], ["a, out: float64[n,m]", "n, m: int32"], { n: N, m: [0, 7] })),
  stencil1d: fc.boolean().map((guard) => guard
    ? src("stencil1d", ["{[i]: 0<=i<n-1}"], ["out[i] = a[i-1] - 2*a[i] + a[i+1] {if=i >= 1}"], ["a, out: float64[n]", "n: int32"])
    : src("stencil1d", ["{[i]: 1<=i<n-1}"], ["out[i] = a[i-1] - 2*a[i] + a[i+1]"], ["a, out: float64[n]", "n: int32"])),
  stencil2d: fc.boolean().map((guard) =>
    src("stencil2d", [guard ? "{[i,j]: 1<=i<n-1 and 0<=j<m-1}" : "{[i,j]: 1<=i<n-1 and 1<=j<m-1}"],
      [`out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]${guard ? " {if=j >= 1}" : ""}`],
      ["a, out: float64[n,m]", "n, m: int32"], { n: N, m: [0, 8] })),
  reduction: red.map((r) => src(`reduction_${r}`, ["{[i,j]: 0<=i<n and 0<=j<m}"], [`out[i] = ${r}(j, a[i,j]*x[j])`],
    ["a: float64[n,m]", "x: float64[m]", "out: float64[n]", "n, m: int32"], { n: N, m: [1, 9] })),
  matmul: fc.constant(src("matmul", ["{[i,j,k]: 0<=i<n and 0<=j<m and 0<=k<p}"], ["c[i,j] = sum(k, a[i,k]*b[k,j])"],
    ["a: float64[n,p]", "b: float64[p,m]", "c: float64[n,m]", "n, m, p: int32"], { n: [0, 8], m: [0, 8], p: [0, 8] })),
  triangular: fc.boolean().map((nest) => nest
    ? src("triangular", ["{[i,j]: 0<=j<=i<n}"], ["out[i,j] = a[i,j] + j"], ["a, out: float64[n,n]", "n: int32"])
    : src("triangular", ["{[i,j]: 0<=j<=i<n}"], ["out[i] = sum(j, a[i,j]*(j + 1))"], ["a: float64[n,n]", "out: float64[n]", "n: int32"])),
  parametric: fc.constant(src("parametric", ["{[i]: m<=i<n}"], ["out[i] = a[i] + m"], ["a, out: float64[n]", "n, m: int32"], { n: N, m: [0, 6] })),
  // Parameters near the int32 limit: the loop bounds m and m + n stay below 2**31 (issue 16).
  nearInt32: fc.constant(src("nearInt32", ["{[i]: m<=i<m+n}"], ["out[i - m] = a[i - m]*2 + (i - m)"], ["a, out: float64[n]", "n, m: int32"],
    { n: N, m: [2 ** 31 - 41, 2 ** 31 - 21] })),
  // Issues 15 and 16: host loops, 0-d outputs, parametric temporaries, saved private values.
  ...SCHEDULED_FAMILIES,
  // A temporary array written then read: prefetches of temporaries (local into private).
  tempArray: fc.constant(src("tempArray", ["{[i,j]: 0<=i<n and 0<=j<4}"],
    ["<> t[j] = 2*x[j] + 1 {id=w}", "out[i] = sum(j, t[j]*a[i,j]) {id=r, dep=w}"], ["a: float64[n,4]", "x: float64[4]", "out: float64[n]", "n: int32"])),
  temporaries: fc.constant(src("temporaries", ["{[i]: 0<=i<n}"],
    ["<float64> t = 2*a[i] {id=s1}", "<float64> u = t*t - a[i] {id=s2}", "out[i] = t + u {id=s3}"], ["a, out: float64[n]", "n: int32"])),
  reduceToTemp: red.map((r) => src("reduceToTemp", ["{[i,j]: 0<=i<n and 0<=j<m}"],
    [`<float64> acc = ${r}(j, a[i,j]) {id=r}`, "out[i] = acc*acc + b[i] {id=w, dep=r}"],
    ["a: float64[n,m]", "b, out: float64[n]", "n, m: int32"], { n: N, m: [1, 7] })),
  twoStage: fc.constant(src("twoStage", ["{[i]: 0<=i<n}"], ["t[i] = 2*a[i] {id=first}", "out[i] = t[i] + a[i] {id=second, dep=first, nosync=first}"],
    ["a, t, out: float64[n]", "n: int32"])),
};

/** A random kernel from one of `families` (all by default), with values for its parameters. */
export const genKernelOf = (families: readonly string[] = Object.keys(FAMILIES)): fc.Arbitrary<{ gk: GenKernel; params: Record<string, number> }> =>
  fc.oneof(...families.map((f) => FAMILIES[f]!)).chain((source) => fc.record(Object.fromEntries(Object.entries(source.params).map(([p, [lo, hi]]) => [p, fc.integer({ min: lo, max: hi })])))
    .map((params) => ({ gk: build(source), params: params as Record<string, number> })));
export const genKernel = genKernelOf();

/** One move of a pipeline, as abstract choices; `buildPipeline` reads it against the current kernel. */
export interface Move {
  readonly family: "split" | "chunk" | "tag" | "prioritize" | "tile" | "join" | "rename" | "prefetch" | "layout" | "duplicate" | "save";
  readonly pick: number;
  readonly factor: number;
  readonly tagOuter: boolean;
  readonly tagInner: "none" | "l" | "unr" | "ilp" | "g" | "vec";
  readonly viaOpts: boolean;
  readonly order: readonly number[];
}

const FACTORS = [1, 2, 3, 4, 5, 7, 8, 16] as const;

/** The move families whose transformation is registered (joins, tiles, … come when they exist). */
export const MOVE_FAMILIES: readonly Move["family"][] = ([
  ["split", "splitIname"], ["split", "splitIname"], ["chunk", "chunkIname"], ["tag", "tagInames"], ["prioritize", "prioritizeLoops"],
  ["tile", "tile"], ["join", "joinInames"], ["rename", "renameIname"], ["prefetch", "addPrefetch"], ["layout", "tagArrayAxes"], ["layout", "dimOrder"],
  ["duplicate", "duplicateInames"], ["save", "saveAndReloadTemporaries"],
] as const).filter(([, op]) => isRegistered(op)).map(([f]) => f);

export const genMove: fc.Arbitrary<Move> = fc.record({
  family: fc.constantFrom(...MOVE_FAMILIES),
  pick: fc.nat({ max: 1000 }),
  factor: fc.constantFrom(...FACTORS),
  tagOuter: fc.boolean(),
  tagInner: fc.constantFrom("none", "l", "unr", "ilp", "g", "vec"),
  viaOpts: fc.boolean(),
  order: fc.array(fc.nat({ max: 1000 }), { minLength: 2, maxLength: 3 }),
});

/**
 * Counts over every built pipeline: moves tried, moves dropped because the transform refused them
 * (TransformError) or because the scheduler refused the kernel they made (ScheduleError, checked
 * for the scheduled families), by move family, by refusal kind, and by kernel family: cases built,
 * cases whose transformed kernel has a g or l tag, cases that reached autoTestVsRef (`checked`,
 * counted by the laws).
 */
export const GEN_STATS = {
  moves: 0, refused: 0, illegal: 0, schedRefused: 0,
  /** Moves dropped for a known bug (gen-families.ts names each; law-counterexamples.test.ts keeps them). */
  knownBugs: {} as Record<string, number>,
  byFamily: {} as Record<string, { tried: number; refused: number; notApplicable: number; schedRefused?: number }>,
  bySchedRefusal: {} as Record<string, number>,
  byKernel: {} as Record<string, { cases: number; parallel: number; saved: number; checked: number }>,
};

/** What the builder knows about the kernel as the pipeline grows. */
interface State {
  k: Kernel;
  /** Inames with a constant trip count (split inners, chunk outers): may take l, unr, ilp. */
  readonly constant: Set<string>;
  /** Inames of fetch instructions (and what they became): no hardware tags, which would split a fetch across work-items. */
  readonly noHw: Set<string>;
  /** Inames a local fetch runs within (and what they became): no l or ilp tags, which would race on the fetched tile. */
  readonly noL: Set<string>;
}

function reductionSet(k: Kernel): Set<string> {
  const out = new Set<string>();
  for (const insn of k.instructions) if (insn.kind === "assign") reductionInames(insn.rhs, out);
  return out;
}

const untagged = (k: Kernel) => allInames(k).filter((i) => k.inameTags[i] === undefined);
const nextAxis = (k: Kernel, kind: "g" | "l") => {
  const used = new Set(Object.values(k.inameTags).flatMap((t) => (t.kind === kind ? [t.axis] : [])));
  let a = 0;
  while (used.has(a)) a++;
  return a;
};
const MAX_AXES = 3;

/** The tag a move asks for `iname`, if it is legal there: hardware tags only on loop (not reduction) inames. */
function legalTag(s: State, iname: string, want: Move["tagInner"] | "gOuter", extra: Record<string, string> = {}): string | undefined {
  const parallelOk = !reductionSet(s.k).has(iname) && !s.noHw.has(iname) && (want !== "l" || !s.noL.has(iname));
  if ((want === "ilp" || want === "vec") && s.noL.has(iname)) return undefined;
  const taken = (kind: "g" | "l") => Object.values(extra).filter((t) => t.startsWith(`${kind}.`)).length;
  switch (want) {
    case "none": return undefined;
    case "gOuter":
    case "g": {
      const a = nextAxis(s.k, "g") + taken("g");
      return parallelOk && a < MAX_AXES ? `g.${a}` : undefined;
    }
    case "l": {
      const a = nextAxis(s.k, "l") + taken("l");
      return parallelOk && s.constant.has(iname) && a < MAX_AXES ? `l.${a}` : undefined;
    }
    case "unr": case "ilp": return s.constant.has(iname) ? want : undefined;
    // SIMD lanes run at once: only where work-items could (no reduction or fetch iname).
    case "vec": return parallelOk && s.constant.has(iname) ? want : undefined;
  }
}

/** Whether a kernel has what a parametric work-group size cannot serve: temporaries (CPU privatization) or reductions. */
function needsConstantLocal(k: Kernel): boolean {
  return k.temporaries.length > 0 || reductionSet(k).size > 0;
}

/** The step a move stands for in state `s`, or undefined when it does not apply here. */
function stepFor(s: State, m: Move): { step: Step; after?: (k: Kernel) => void } | undefined {
  const free = untagged(s.k);
  if (free.length === 0 && m.family !== "prioritize") return undefined;
  const iname = free[m.pick % Math.max(1, free.length)]!;
  switch (m.family) {
    case "split": case "chunk": {
      const outer = `${iname}_outer`;
      const inner = `${iname}_inner`;
      const names = new Set(allInames(s.k));
      if (names.has(outer) || names.has(inner)) return undefined;
      const tags: Record<string, string> = {};
      // A chunk's inner part has a parametric extent bounded by the outer (loopy's chunk_iname with
      // inner_tag="l.0"): the work-group spans the longest chunk (issue 15.12). Only where nothing
      // needs a constant work-group size (no temporaries to privatize, no local reductions).
      const wantInner = m.family === "split" ? m.tagInner : m.tagInner === "l" && !needsConstantLocal(s.k) ? "l" : "none";
      const constIname = m.family === "split" ? inner : outer;
      const constant = new Set([...s.constant, constIname, ...(s.constant.has(iname) ? [outer, inner] : [])]);
      const probe: State = { k: s.k, constant, noHw: s.noHw, noL: s.noL };
      const reduction = reductionSet(s.k).has(iname);
      if (!reduction) {
        const t = m.tagOuter ? legalTag(probe, iname, "gOuter") : undefined;
        if (t !== undefined) tags[outer] = t;
      }
      // Hardware tags need the split iname to be a loop iname; probe with the old name.
      const ti = reduction && (wantInner === "l" || wantInner === "g") ? undefined : legalTag({ k: s.k, constant: new Set([...constant, iname]), noHw: s.noHw, noL: s.noL }, iname, wantInner, tags);
      if (ti !== undefined) tags[inner] = ti;
      const op = m.family === "split" ? "splitIname" : "chunkIname";
      const count = m.family === "split" ? m.factor : 1 + (m.factor % 4);
      const after = (_k: Kernel) => {
        for (const x of [constIname, ...(s.constant.has(iname) ? [outer, inner] : [])]) s.constant.add(x);
      };
      // Peeled slabs of an untagged outer loop of a split (loopy's slabs): a bulk without
      // remainder guards and an initial/final slab with them.
      const slabs = m.family === "split" && tags[outer] === undefined ? ([undefined, [0, 1], [1, 1]] as const)[m.order[0]! % 3] : undefined;
      const peel = slabs ? { slabs: [...slabs] } : undefined;
      if (Object.keys(tags).length === 0) return { step: peel ? makeStepOf(op, iname, count, peel) : makeStepOf(op, iname, count), after };
      const opts = { outerTag: tags[outer], innerTag: tags[inner], ...peel };
      return {
        step: m.viaOpts ? makeStepOf(op, iname, count, opts) : pipeline(peel ? makeStepOf(op, iname, count, peel) : makeStepOf(op, iname, count), makeStepOf("tagInames", tags)),
        after,
      };
    }
    case "tag": {
      // Among the inames that can take the wanted tag, the move picks one.
      const want = m.tagInner === "none" ? "unr" : m.tagInner;
      const fits = free.filter((i) => legalTag(s, i, want) !== undefined);
      if (fits.length === 0) return undefined;
      const x = fits[m.pick % fits.length]!;
      const t = legalTag(s, x, want)!;
      return { step: makeStepOf("tagInames", m.viaOpts ? { [x]: t } : `${x}:${t}`) };
    }
    case "prioritize": {
      // Sequential loop inames only, in an order consistent with the priorities so far and the
      // domains (an iname whose bounds use another comes after it).
      const red = reductionSet(s.k);
      const loops = free.filter((i) => !red.has(i));
      const chosen = [...new Set(m.order.map((x) => loops[x % Math.max(1, loops.length)]!))].filter((x) => x !== undefined);
      if (chosen.length < 2) return undefined;
      const before = new Map<string, Set<string>>();
      const edge = (a: string, b: string) => (before.get(b) ?? before.set(b, new Set()).get(b)!).add(a);
      for (const p of s.k.loopPriority) for (let x = 0; x + 1 < p.length; x++) edge(p[x]!, p[x + 1]!);
      for (const d of s.k.domains) for (const dim of d.dims) for (const par of d.params) edge(par, dim);
      // The first order (rotating from the move's pick) that closes no cycle.
      const orders = permutations(chosen);
      for (let r = 0; r < orders.length; r++) {
        const order = orders[(m.pick + r) % orders.length]!;
        const g = new Map([...before].map(([x, ys]) => [x, new Set(ys)]));
        for (let x = 0; x + 1 < order.length; x++) (g.get(order[x + 1]!) ?? g.set(order[x + 1]!, new Set()).get(order[x + 1]!)!).add(order[x]!);
        if (!hasCycle(g)) return { step: makeStepOf("prioritizeLoops", m.viaOpts ? order : order.join(",")) };
      }
      return undefined;
    }
    case "tile": {
      const red = reductionSet(s.k);
      const loops = free.filter((i) => !red.has(i) && !s.constant.has(i) && !s.noHw.has(i) && !(m.tagInner === "l" && s.noL.has(i))).slice(0, 2);
      if (loops.length === 0 || loops.some((i) => allInames(s.k).includes(`${i}_inner`) || allInames(s.k).includes(`${i}_outer`))) return undefined;
      const sizes = loops.map((_, x) => FACTORS[(m.factor + x * 3) % FACTORS.length]!);
      const g = nextAxis(s.k, "g");
      const l = nextAxis(s.k, "l");
      const opts: Record<string, string[]> = {};
      if (m.tagOuter && g + loops.length <= MAX_AXES) opts.outerTags = loops.map((_, x) => `g.${g + loops.length - 1 - x}`);
      if (m.tagInner === "l" && l + loops.length <= MAX_AXES) opts.innerTags = loops.map((_, x) => `l.${l + loops.length - 1 - x}`);
      const after = () => loops.forEach((i) => s.constant.add(`${i}_inner`));
      return { step: Object.keys(opts).length > 0 ? makeStepOf("tile", loops, sizes, opts) : makeStepOf("tile", loops, m.viaOpts ? sizes : sizes[0]), after };
    }
    case "join": {
      // The first iname may be parametric; the second needs a constant extent (loopy's rule).
      const red = reductionSet(s.k);
      const loops = free.filter((i) => !red.has(i));
      const second = loops.filter((i) => s.constant.has(i));
      if (second.length === 0) return undefined;
      const y = second[m.pick % second.length]!;
      const firsts = loops.filter((i) => i !== y && s.k.domains.some((d) => d.dims.includes(i) && d.dims.includes(y)));
      if (firsts.length === 0) return undefined;
      const x = firsts[m.order[0]! % firsts.length]!;
      const name = `${x}_${y}_j`;
      if (allInames(s.k).includes(name)) return undefined;
      const t = m.tagOuter ? legalTag(s, x, "g") : undefined;
      const after = () => {
        if (s.constant.has(x)) s.constant.add(name);
      };
      return { step: makeStepOf("joinInames", [x, y], name, t === undefined ? undefined : { tag: t }), after };
    }
    case "rename": {
      const fresh = `${iname}_r${m.pick % 10}`;
      if (allInames(s.k).includes(fresh)) return undefined;
      const after = () => {
        if (s.constant.has(iname)) s.constant.add(fresh);
      };
      return { step: makeStepOf("renameIname", iname, fresh), after };
    }
    case "layout": {
      // A new layout for an array argument (or a global temporary): axis orders, Fortran order,
      // padded strides, or dimOrder's permutation. The meaning is unchanged: autoTestVsRef lays
      // the same logical values out for each kernel.
      const arrays: { name: string; shape: readonly Expr[] }[] = [];
      for (const x of [...s.k.args, ...s.k.temporaries.filter((t) => t.addressSpace === "global")]) {
        if ("shape" in x && x.shape !== undefined && x.shape.length > 0) arrays.push({ name: x.name, shape: x.shape });
      }
      // loopy's split_array_axis on a temporary (storage of the kernel's own: the meaning is
      // unchanged), on half the layout moves: its indices become `i // count, i % count`,
      // which the lowering prints as plain `/` and `%` where the loop context proves `i >= 0`.
      const temps = s.k.temporaries.filter((t) => t.shape !== undefined && t.shape.length > 0);
      if (m.order.length === 3 && temps.length > 0) {
        const t = temps[m.pick % temps.length]!;
        return { step: makeStepOf("splitArrayAxis", t.name, m.order[1]! % t.shape!.length, m.factor) };
      }
      if (arrays.length === 0) return undefined;
      const a = arrays[m.pick % arrays.length]!;
      const rank = a.shape.length;
      const perm = permutations([...Array(rank).keys()])[m.order[0]! % Math.max(1, permutations([...Array(rank).keys()]).length)]!;
      if (m.viaOpts) return { step: makeStepOf("dimOrder", a.name, perm) };
      const sizes = a.shape.map((e) => exprToString(e));
      const forms = [
        Array(rank).fill("c").join(","),
        Array(rank).fill("f").join(","),
        perm.map((p) => `N${p}`).join(","),
        // C order with every axis but the first padded by one element: strides (m+1, 1) for [n, m].
        sizes.map((_, x) => `stride:${x === rank - 1 ? "1" : sizes.slice(x + 1).map((e) => `(${e} + 1)`).join("*")}`).join(","),
      ];
      return { step: makeStepOf("tagArrayAxes", a.name, forms[m.factor % forms.length]!) };
    }
    case "duplicate": {
      // Some of the instructions that loop over an iname get their own copy of it; one that would
      // split a private scalar from its reader is refused (issue 16.5) and counted as refused.
      const users = s.k.instructions.filter((insn) => insn.withinInames.includes(iname) && !s.noHw.has(iname));
      // nosync promises no race between instructions in the same iteration; loops split apart break it.
      if (users.length === 0 || reductionSet(s.k).has(iname) || s.k.instructions.some((insn) => insn.noSyncWith.length > 0)) return undefined;
      const chosen = users.filter((_, x) => ((m.pick >> x) & 1) === 1 || x === m.order[0]! % users.length);
      const copy = `${iname}_d${m.pick % 10}`;
      if (allInames(s.k).includes(copy)) return undefined;
      const after = () => {
        if (s.constant.has(iname)) s.constant.add(copy);
      };
      return { step: makeStepOf("duplicateInames", iname, m.viaOpts ? chosen.map((insn) => insn.id) : chosen.map((insn) => `id:${insn.id}`).join(" or "), copy), after };
    }
    case "save": {
      // loopy's save_and_reload_temporaries, anywhere in the pipeline: a no-op without a private
      // or local value live across a global barrier.
      if (!s.k.instructions.some((insn) => insn.kind === "barrier" && insn.scope === "global")) return undefined;
      return { step: makeStepOf("saveAndReloadTemporaries") };
    }
    case "prefetch": {
      // Arguments no instruction writes, and temporaries (fetched after their writers, for their
      // readers: local into private); a private or local space, or loopy's default.
      const written = new Set(s.k.instructions.flatMap((insn) => (insn.kind === "assign" && insn.lhs.kind === "subscript" ? [JSON.stringify(insn.lhs)] : [])));
      const inputs = [
        ...s.k.args.filter((a) => a.kind === "array" && ![...written].some((w) => w.includes(`"${a.name}"`))),
        ...s.k.temporaries.filter((t) => t.shape.length > 0 && !t.name.endsWith("_fetch")),
      ];
      if (inputs.length === 0) return undefined;
      const name = inputs[m.pick % inputs.length]!.name;
      if (s.k.temporaries.some((t) => t.name === `${name}_fetch`)) return undefined;
      const all = allInames(s.k);
      // The readers' reduction inames are swept or not, as the move says (an unswept one puts the
      // fetch inside the reduction); guarded readers too (the footprint honours their predicates).
      const readers = s.k.instructions.filter((insn) => insn.kind === "assign" && JSON.stringify(insn.rhs).includes(`"array":"${name}"`));
      const reds = new Set<string>();
      if (m.viaOpts) for (const insn of readers) if (insn.kind === "assign") reductionInames(insn.rhs, reds);
      const extra = m.tagOuter ? m.order.slice(1).map((x) => all[x % all.length]!) : [];
      const sweep = [...new Set([...reds, ...extra])];
      // Private or local: a local fetch (l.auto tags) needs barriers, which the scheduler refuses
      // where they cannot be placed; such moves are refused, not wrong.
      const space = m.tagInner === "l" || m.tagInner === "g" ? "local" : m.tagInner === "unr" ? undefined : "private";
      const opts = space === undefined ? {} : { temporaryAddressSpace: space };
      const all2 = { ...(sweep.length > 0 ? { sweepInames: sweep } : {}), ...opts };
      return { step: Object.keys(all2).length > 0 ? makeStepOf("addPrefetch", name, all2) : makeStepOf("addPrefetch", name) };
    }
  }
}

/**
 * The scheduler gives a loop whose bounds use a local id work-group-uniform bounds when a barrier
 * is needed inside it; where the exact remainder cannot be written as guards (an existential ties
 * the loop to the local id) it still refuses with a ScheduleError — a documented limitation, not a
 * wrong result — and the move that leads there is dropped (and counted).
 */
function barriersPlaceable(k: Kernel): boolean {
  if (!k.temporaries.some((t) => t.addressSpace === "local")) return true;
  try {
    schedule(k);
    return true;
  } catch (e) {
    if (e instanceof LoomError && /barrier is needed inside loop/.test(e.message)) return false;
    throw e;
  }
}

/** The scheduler's refusal of lanes (ilp, ilp.seq, vec) that write one cell of a shared temporary different values (realizeIlp). */
const LANE_RACE = /within ilp iname .* the lanes are parallel and would race/;

/**
 * The lane race the scheduler finds in `k`, or undefined. Lanes of an ilp, ilp.seq or vec iname
 * are parallel; a fetch into a local temporary that work-items share (`l.auto` fetch inames),
 * within such a lane iname it does not sweep, has every lane store its own value into one cell: a
 * real race (the serial kernel fetches per lane). addPrefetch refuses it for ilp lanes only
 * (transforms/fetch-races.ts), so a vec tag on the inner part of a split followed by a local
 * prefetch (stencil1d: `splitIname i 3 {innerTag: vec}`, `addPrefetch a {local}`) reached the
 * scheduler, whose refusal escaped the generator of the unscheduled families: such a move is
 * dropped and counted as a scheduler refusal.
 */
export function laneRace(k: Kernel): string | undefined {
  const shared = k.temporaries.some((t) => t.addressSpace === "local" || t.addressSpace === "global");
  const lanes = Object.values(k.inameTags).some((t) => t.kind === "ilp" || t.kind === "ilp.seq" || t.kind === "vec");
  if (!shared || !lanes) return undefined;
  try {
    schedule(k);
    return undefined;
  } catch (e) {
    if (e instanceof ScheduleError && LANE_RACE.test(e.message)) return e.message;
    // Anything else is for the checks that follow (they schedule the same kernel, remembered).
    return undefined;
  }
}

/**
 * Copies of one iname (duplicateInames) are different inames to the cross-group race check, which
 * cannot always prove that two instructions touch a cell from the same group: a conservative
 * ScheduleError, not a wrong result; the move that leads there is dropped (and counted).
 */
function duplicated(k: Kernel): boolean {
  return allInames(k).some((i) => /_d\d$/.test(i));
}

/**
 * lowerForCpu cannot give a private temporary with explicit axis tags (splitArrayAxis,
 * tagArrayAxes) one slot per work-item where it lives across a barrier: a documented refusal, not
 * a wrong result. Kernels with such a temporary and a local one (whose fetch brings a barrier) are
 * dropped (and counted).
 */
function taggedPrivateWithBarrier(k: Kernel): boolean {
  return k.temporaries.some((t) => t.addressSpace === "local") &&
    k.temporaries.some((t) => t.addressSpace !== "local" && t.addressSpace !== "global" && t.dimTags !== undefined);
}

function schedulable(k: Kernel): boolean {
  try {
    schedule(k);
    return true;
  } catch (e) {
    if (e instanceof LoomError && /from different work-groups/.test(e.message)) return false;
    throw e;
  }
}

/**
 * loopy's rule for ilp: the loop is innermost, so no loop priority may put an ilp iname outside
 * a sequential one, nor may a sequential iname's bounds use it (a hardware-tagged iname is no loop).
 */
function ilpInnermost(k: Kernel): boolean {
  const isIlp = (i: string) => k.inameTags[i]?.kind === "ilp" || k.inameTags[i]?.kind === "ilp.seq" || k.inameTags[i]?.kind === "vec";
  const isHw = (i: string) => ["g", "l", "l.auto"].includes(k.inameTags[i]?.kind ?? "for");
  const byPriority = k.loopPriority.every((p) => p.every((x, at) => !isIlp(x) || p.slice(at + 1).every(isHw)));
  const byBounds = k.domains.every((d) => !d.params.some(isIlp) || d.dims.every(isHw));
  return byPriority && byBounds;
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

function hasCycle(before: Map<string, Set<string>>): boolean {
  const state = new Map<string, 1 | 2>();
  const visit = (x: string): boolean => {
    if (state.get(x) === 2) return false;
    if (state.get(x) === 1) return true;
    state.set(x, 1);
    for (const y of before.get(x) ?? []) if (visit(y)) return true;
    state.set(x, 2);
    return false;
  };
  return [...before.keys()].some(visit);
}

export interface Case {
  readonly source: KernelSource;
  readonly kernel: Kernel;
  readonly params: Record<string, number>;
  /** The kernel the law compares with (`kernel`, or its saved form). */
  readonly ref: Kernel;
  readonly pipeline: Step;
  readonly json: PipelineJSON;
  readonly transformed: Kernel;
}

/**
 * Build the pipeline of `moves` against `k`, dropping moves that do not apply or are refused. For
 * the scheduled families (`scheduled`), a move after which the scheduler refuses the kernel is
 * dropped and counted; for a family that `saves`, a kernel that schedules once
 * saveAndReloadTemporaries is applied is kept, and that step ends the pipeline where it is needed.
 */
export function buildPipeline(k: Kernel, moves: readonly Move[], opts: { scheduled?: boolean; saves?: boolean } = {}): { pipeline: Step; transformed: Kernel } {
  const s: State = { k, constant: new Set(), noHw: new Set(), noL: new Set() };
  const steps: Step[] = [];
  let needsSave = opts.saves === true;
  for (const m of moves) {
    GEN_STATS.moves++;
    const fam = (GEN_STATS.byFamily[m.family] ??= { tried: 0, refused: 0, notApplicable: 0 });
    fam.tried++;
    const st = stepFor(s, m);
    if (st === undefined) {
      GEN_STATS.illegal++;
      fam.notApplicable++;
      continue;
    }
    let next: Kernel;
    try {
      next = st.step(s.k);
    } catch (e) {
      if (!(e instanceof TransformError)) throw e;
      GEN_STATS.refused++;
      fam.refused++;
      continue;
    }
    let probe = next;
    let probeNeedsSave = false;
    const schedRefused = (why: string) => {
      GEN_STATS.schedRefused++;
      fam.schedRefused = (fam.schedRefused ?? 0) + 1;
      const kind = refusalKind(why);
      GEN_STATS.bySchedRefusal[kind] = (GEN_STATS.bySchedRefusal[kind] ?? 0) + 1;
    };
    if (opts.scheduled === true) {
      const verdict = scheduleVerdict(next, opts.saves === true);
      if (!verdict.ok) {
        schedRefused(verdict.why);
        continue;
      }
      probeNeedsSave = verdict.needsSave;
      if (verdict.needsSave) probe = saveAndReloadTemporaries(next);
    }
    // Any family: lanes racing on a shared fetch (the scheduler's refusal, a real race) drop the move.
    const lanes = opts.scheduled === true ? undefined : laneRace(next);
    if (lanes !== undefined) {
      schedRefused(lanes);
      continue;
    }
    // A barrier in a loop whose bounds use a local id (a split whose factor does not divide the
    // size, with a local prefetch) is legal: the scheduler gives such loops uniform bounds, except
    // in the case barriersPlaceable describes.
    if (!ilpInnermost(next) || !barriersPlaceable(probe) || (duplicated(next) && !schedulable(probe)) || taggedPrivateWithBarrier(next)) {
      GEN_STATS.illegal++;
      fam.notApplicable++;
      continue;
    }
    const before = new Set(allInames(s.k));
    const added = allInames(next).filter((i) => !before.has(i));
    const gone = [...before].filter((i) => !allInames(next).includes(i));
    if (m.family === "prefetch" || gone.some((i) => s.noHw.has(i))) for (const i of added) s.noHw.add(i);
    if (gone.some((i) => s.noL.has(i))) for (const i of added) s.noL.add(i);
    if (m.family === "prefetch") {
      const fetch = next.instructions.find((insn) => !s.k.instructions.some((o) => o.id === insn.id));
      const temp = next.temporaries.find((t) => !s.k.temporaries.some((o) => o.name === t.name));
      if (fetch && temp?.addressSpace === "local") for (const i of fetch.withinInames) if (before.has(i)) s.noL.add(i);
    }
    s.k = next;
    needsSave = probeNeedsSave;
    st.after?.(s.k);
    steps.push(st.step);
  }
  if (needsSave) {
    // The step a user adds once the scheduler names it (counted as a save move).
    const fam = (GEN_STATS.byFamily.save ??= { tried: 0, refused: 0, notApplicable: 0 });
    fam.tried++;
    GEN_STATS.moves++;
    const save = makeStepOf("saveAndReloadTemporaries");
    steps.push(save);
    s.k = save(s.k);
  }
  return { pipeline: pipeline(...steps), transformed: s.k };
}

const isParallel = (k: Kernel) => Object.values(k.inameTags).some((t) => t.kind === "g" || t.kind === "l");

/** A random kernel, values for its parameters, and a random legal pipeline (printed as JSON). */
export const genCaseOf = (families?: readonly string[]): fc.Arbitrary<Case> => fc.tuple(genKernelOf(families), fc.array(genMove, { minLength: 1, maxLength: 8 }))
  .map(([{ gk, params }, moves]) => {
    const scheduled = gk.source.family in SCHEDULED_FAMILIES;
    const { pipeline: p, transformed } = buildPipeline(gk.kernel, moves, { scheduled, saves: gk.source.saves === true });
    const c: Case = { source: gk.source, kernel: gk.kernel, ref: gk.ref, params, pipeline: p, json: toJSON(p), transformed };
    const stats = (GEN_STATS.byKernel[gk.source.family] ??= { cases: 0, parallel: 0, saved: 0, checked: 0 });
    stats.cases++;
    if (isParallel(transformed)) stats.parallel++;
    if (c.json.some((x) => x.op === "saveAndReloadTemporaries") && transformed.temporaries.some((t) => t.addressSpace === "global" && t.shape.length > 0) && isParallel(transformed)) stats.saved++;
    Object.defineProperty(c, fc.toStringMethod, {
      value: () => `{ kernel: ${JSON.stringify(gk.source)}, params: ${JSON.stringify(params)}, pipeline: ${JSON.stringify(c.json)} }`,
    });
    return c;
  });
export const genCase: fc.Arbitrary<Case> = genCaseOf();
