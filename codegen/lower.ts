/**
 * Schedule -> AST, once for every target. Per device kernel, in order:
 *   1. hardware inames become `base + gid(N)` / `base + lid(N)`, their ranges the first context;
 *   2. each loop gets bounds from its instructions' domains, gisted against the assumptions and
 *      what enclosing loops and guards already enforce (`n mod 16 = 0` drops remainder guards);
 *   3. guards hoisted to the outermost point where their variables are known;
 *   4. unr/ilp loops unrolled, single-iteration loops become `int const i = …;`, slabs peeled;
 *   5. instructions become assignments (reductions not yet realized get an accumulator loop).
 */
import { assertNever, CodegenError } from "../src/errors.js";
import {
  allInames, atomicUpdateOf, axisStrides, effectiveDimTags, exprToString, findArg, findTemporary, INDEX_DTYPE,
  iterationDomain, kernelTypeEnv, uniqueName, blockLocals, blockTypeEnv, checkBlock, forAsWhile, freeVariables, insnExprs, insnWrites, lowerExits, mapBlockExprs, renameVars,
  type Assignment, type BlockInsn, type BlockStmt, type Dtype, type Expr, type Kernel, type Reduce,
} from "../src/ir/index.js";
import {
  addConstraints, aff, affAdd, affIsConstant, affScale, affSub, dimBounds, eliminateExact, extendSet, factorOf, gist, intersect, isEmptyWith, universe,
  type Aff, type BasicSet, type Bound,
} from "../src/poly/index.js";
import { axisRows, eliminateExistentials, preferUnitBounds, type DeviceKernel, type HwAxis, type Schedule, type ScheduleNode } from "../src/schedule/index.js";
import { block, evar, ibin, ilit, type Ex, type Stmt } from "./ast.js";
import { lowerCond, lowerExpr, lowerIndex, sizeEx, typeOf, type ExprScope } from "./expr.js";
import { untieExistentials } from "../src/poly/lattice.js";

/** What a target asks of the lowering beyond the AST itself. */
export interface LowerOptions {
  /** Hardware axes allowed (GPU targets); CPU targets get schedules without them. */
  readonly hwAxes: boolean;
  /** Pragmas for an `unr_hint` loop (`#pragma unroll`), if the target has them. */
  readonly unrollHint?: (max: number | undefined) => string;
  /** Pragmas for the outermost loop over a group iname (OpenMP), given the private variables. */
  readonly parallelLoop?: (privates: readonly string[]) => string;
  /** How `atomic` updates are written: natively, as `#pragma omp atomic`, or plainly (sequential). */
  readonly atomics: "native" | "omp" | "plain";
}

export interface LoweredArg {
  readonly name: string;
  readonly kind: "array" | "value";
  readonly dtype: Dtype;
  readonly written: boolean;
}

/** One device kernel as AST: declarations, body and launch information. */
export interface LoweredKernel {
  readonly name: string;
  readonly args: readonly LoweredArg[];
  readonly decls: readonly Stmt[];
  readonly body: readonly Stmt[];
  /** Work-groups per axis and work-items per axis, as exact index expressions of the parameters. */
  readonly groupSize: readonly Ex[];
  /** Work-items per axis: constants, or index expressions of the parameters (sized at launch). */
  readonly localSize: readonly (number | Ex)[];
}

const MAX_UNROLL = 4096;

/** `a.localeCompare(b)` without building a collator per call (ICU makes that the slow part). */
const collate = new Intl.Collator().compare;

/** Lower every device kernel of `s`. */
export function lowerSchedule(s: Schedule, opts: LowerOptions, groupInames: ReadonlySet<string> = new Set()): LoweredKernel[] {
  if (opts.hwAxes) for (const dk of s.deviceKernels) checkAxisCount(dk);
  return s.deviceKernels.map((dk) => new KernelLowering(s.kernel, dk, opts, groupInames).lower());
}

/** GPU grids and work-groups have three axes: a g.3 or l.3 would index a fourth (`blockIdx.w` does not exist). */
function checkAxisCount(dk: DeviceKernel): void {
  const over = [...dk.groupAxes, ...dk.localAxes].find((ax) => ax.axis > 2);
  if (over) {
    throw new CodegenError(`device kernel "${dk.name}": iname "${over.iname}" is tagged ${over.tag}.${over.axis}, but grids and work-groups have three axes (${over.tag}.0, ${over.tag}.1, ${over.tag}.2); ` +
      `join inames (joinInames) or leave some sequential; the CPU targets accept any axis`);
  }
}

type Row = { readonly aff: Aff; readonly eq: boolean };

/** Rows made by `rowsOf` remember their key (computed on first use). */
type KeyedRow = { readonly aff: Aff; readonly eq: boolean; key?: string };

/** A key equal for two rows exactly when they have the same relation, terms and constant. */
function rowKey(r: Row): string {
  const kr = r as KeyedRow;
  if (kr.key !== undefined) return kr.key;
  const t = r.aff.terms;
  const ns = Object.keys(t);
  if (ns.length > 1) ns.sort();
  let k = `${r.eq ? "=" : ">"}${r.aff.constant}|`;
  for (const n of ns) k += `${n},${t[n]};`;
  if (Object.isExtensible(kr)) kr.key = k;
  return k;
}

/** The rows of a set without existentials, each row's variables, and the set's dims. */
interface SetRows {
  readonly rows: readonly Row[];
  readonly existential: boolean;
  readonly vars: readonly (readonly string[])[];
  readonly dims: ReadonlySet<string>;
}

/** Sets are frozen values: their rows are computed once per set. */
const rowsMemo = new WeakMap<BasicSet, SetRows>();

/** The constraints of `s` as affine rows; rows with existentials are returned apart. */
function rowsOf(s: BasicSet): SetRows {
  let r = rowsMemo.get(s);
  if (!r) {
    const { rows, existential } = computeRowsOf(s);
    r = Object.freeze({ rows, existential, vars: rows.map((x) => Object.keys(x.aff.terms)), dims: new Set(s.dims) });
    rowsMemo.set(s, r);
  }
  return r;
}

function computeRowsOf(s: BasicSet): { rows: readonly Row[]; existential: boolean } {
  const names = [...s.params, ...s.dims];
  const rows: Row[] = [];
  let existential = false;
  for (const c of s.constraints) {
    if (c.coeffs.slice(names.length).some((x) => x !== 0)) {
      existential = true;
      continue;
    }
    const terms: Record<string, number> = {};
    names.forEach((n, k) => {
      if (c.coeffs[k] !== 0) terms[n] = c.coeffs[k]!;
    });
    const row: KeyedRow = { aff: aff(terms, c.constant), eq: c.eq, key: undefined };
    rows.push(row);
  }
  return { rows: Object.freeze(rows), existential };
}

class KernelLowering {
  private readonly env;
  private readonly subst = new Map<string, Ex>();
  private readonly decls: Stmt[] = [];
  private readonly taken: Set<string>;
  private readonly domains = new Map<string, BasicSet>();
  private readonly domainsOf = new WeakMap<readonly string[], BasicSet>();
  private readonly insnById: ReadonlyMap<string, Kernel["instructions"][number]>;
  private readonly insnsMemo = new WeakMap<readonly ScheduleNode[], readonly string[]>();
  /** The variables and arrays the scheduled instructions use, for `usesName`. */
  private usedNames: ReadonlySet<string> | undefined;
  private readonly params: Set<string>;
  private readonly usedParams = new Set<string>();
  private parallelDone = false;
  private readonly inameRank: ReadonlyMap<string, number>;

  constructor(
    private readonly k: Kernel, private readonly dk: DeviceKernel, private readonly opts: LowerOptions,
    private readonly groupInames: ReadonlySet<string>,
  ) {
    this.env = kernelTypeEnv(k);
    this.taken = new Set([...k.args.map((a) => a.name), ...k.temporaries.map((t) => t.name), ...k.domains.flatMap((d) => [...d.dims])]);
    this.params = new Set(k.args.filter((a) => a.kind === "value").map((a) => a.name));
    this.inameRank = new Map(allInames(k).map((n, r) => [n, r]));
    const byId = new Map<string, Kernel["instructions"][number]>();
    // The first instruction of an id wins, as a search from the front finds it.
    for (const i of k.instructions) if (!byId.has(i.id)) byId.set(i.id, i);
    this.insnById = byId;
  }

  lower(): LoweredKernel {
    const { k, dk } = this;
    if (!this.opts.hwAxes && (dk.groupAxes.length > 0 || dk.localAxes.length > 0)) {
      throw new CodegenError(`kernel "${k.name}": this target has no group/local hardware axes; inames ${[...dk.groupAxes, ...dk.localAxes].map((a) => a.iname).join(", ")} are tagged g/l`);
    }
    const known: string[] = [];
    const ranges: Row[] = [];
    // Every iname on a hardware axis is bound, not only the one the axis is named after: loopy's
    // prefetch puts `a_dim_1` on l.0 beside `j_inner`. The scheduler checks that the inames of one
    // axis share base and size; each instruction is guarded by its own iname's domain.
    for (const ax of [...dk.groupAxes, ...dk.localAxes]) {
      for (const iname of [ax.iname, ...this.axisSharers(ax)]) {
        const a = { ...ax, iname };
        const base = sizeEx(a.base, (n) => evar(n));
        this.subst.set(iname, ibin("+", base, { k: "hw", tag: a.tag, axis: a.axis }));
        known.push(iname);
        ranges.push(...axisRows(a, a.iname));
      }
    }
    // The hardware ranges in one step, in the space the intersections one axis at a time build.
    const dims = [...new Set([...k.assumptions.dims, ...known])];
    const params = [...new Set([...k.assumptions.params, ...names(ranges)])].filter((n) => !dims.includes(n));
    const ctx = known.length > 0 ? extendSet(k.assumptions, params, dims, ranges) : k.assumptions;
    for (const t of k.temporaries) this.declareTemporary(t.name);
    const body = this.withHoistedGuards(dk.body, known, ctx, (c) => this.nodes(dk.body, known, c));
    const groupSize = [0, 1, 2].slice(0, Math.max(dk.groupAxes.length, 0)).map((_, n) => {
      const ax = dk.groupAxes.find((a) => a.axis === n);
      return ax ? sizeEx(ax.size, (p) => evar(p)) : ilit(1);
    });
    const nLocal = dk.localAxes.length === 0 ? 0 : Math.max(...dk.localAxes.map((a) => a.axis)) + 1;
    const localSize = Array.from({ length: nLocal }, (_, n) => {
      const ax = dk.localAxes.find((a) => a.axis === n);
      if (!ax) return 1;
      // A parametric work-group size (`n`, `max(n, 4)`) is evaluated at launch, as group counts are.
      return ax.size.kind === "const" ? ax.size.value : sizeEx(ax.size, (p) => evar(p));
    });
    const nGroup = dk.groupAxes.length === 0 ? 0 : Math.max(...dk.groupAxes.map((a) => a.axis)) + 1;
    const gsize = Array.from({ length: nGroup }, (_, n) => groupSize[n] ?? (() => {
      const ax = dk.groupAxes.find((a) => a.axis === n);
      return ax ? sizeEx(ax.size, (p) => evar(p)) : ilit(1);
    })());
    const written = new Set(k.instructions.flatMap((i) => insnWrites(i)));
    const wanted = new Set([...dk.args, ...this.usedParams]);
    const order = [...k.args.map((a) => a.name), ...k.temporaries.map((t) => t.name)];
    const args = order.filter((n) => wanted.has(n)).map((name): LoweredArg => {
      const a = findArg(k, name);
      const t = a ? undefined : findTemporary(k, name);
      const dtype = a?.dtype ?? t?.dtype;
      if (!dtype) throw new CodegenError(`kernel "${k.name}": the dtype of "${name}" is unknown; add dtypes (lp.addDtypes) before generating code`);
      return { name, kind: a?.kind ?? "array", dtype, written: written.has(name) };
    });
    // Declarations by name, as loopy orders its temporaries.
    const decls = [...this.decls].sort((x, y) => collate(declName(x), declName(y)));
    return { name: dk.name, args, decls, body, groupSize: gsize, localSize };
  }

  /** The inames other than `ax.iname` that instructions of this device kernel run within on `ax`'s axis. */
  private axisSharers(ax: HwAxis): string[] {
    const out = new Set<string>();
    for (const id of this.insnsUnder(this.dk.body)) {
      for (const i of this.insnOf(id).withinInames) {
        const t = this.k.inameTags[i];
        if (i !== ax.iname && t && t.kind === ax.tag && t.axis === ax.axis) out.add(i);
      }
    }
    return [...out].sort();
  }

  // ---- the schedule tree -------------------------------------------------------------------

  private nodes(nodes: readonly ScheduleNode[], known: readonly string[], ctx: BasicSet): Stmt[] {
    // Between barriers, each run of nodes gets its own hoisted guard (loopy's `if (e < n) for (j …)`
    // after the fetch and its barrier), not only the whole body.
    if (nodes.length > 1 && nodes.some((n) => n.kind === "barrier")) {
      const out: Stmt[] = [];
      let run: ScheduleNode[] = [];
      const flush = () => {
        const r = run;
        if (r.length > 0) out.push(...this.withHoistedGuards(r, known, ctx, (c) => this.nodeList(r, known, c)));
        run = [];
      };
      for (const n of nodes) {
        if (n.kind === "barrier") {
          flush();
          out.push(...this.nodeList([n], known, ctx));
        } else run.push(n);
      }
      flush();
      return out;
    }
    return this.nodeList(nodes, known, ctx);
  }

  private nodeList(nodes: readonly ScheduleNode[], known: readonly string[], ctx: BasicSet): Stmt[] {
    return nodes.flatMap((n): Stmt[] => {
      switch (n.kind) {
        case "barrier": return [{ k: "barrier", comment: n.comment }];
        case "insn": return this.insn(n.id, known, ctx);
        case "loop": return this.loop(n.iname, n.body, known, ctx);
      }
    });
  }

  private insnOf(id: string) {
    const insn = this.insnById.get(id);
    if (!insn) throw new CodegenError(`kernel "${this.k.name}": the schedule names instruction "${id}", which the kernel does not have`);
    return insn;
  }

  private insnsUnder(nodes: readonly ScheduleNode[]): readonly string[] {
    let ids = this.insnsMemo.get(nodes);
    if (!ids) this.insnsMemo.set(nodes, (ids = nodes.flatMap((n) => (n.kind === "loop" ? this.insnsUnder(n.body) : n.kind === "insn" ? [n.id] : []))));
    return ids;
  }

  private domainOf(inames: readonly string[]): BasicSet {
    // The kernel's iname lists are frozen: remembered by identity, then by content.
    let s = Object.isFrozen(inames) ? this.domainsOf.get(inames) : undefined;
    if (s) return s;
    const key = [...inames].sort().join(",");
    s = this.domains.get(key);
    if (!s) this.domains.set(key, (s = iterationDomain(this.k, [...inames])));
    if (Object.isFrozen(inames)) this.domainsOf.set(inames, s);
    return s;
  }

  /**
   * Wrap `make(ctx')` in an `if` for the domain constraints over `known` that every instruction
   * under `nodes` has and `ctx` does not imply: guards as far out as their variables allow.
   */
  private withHoistedGuards(nodes: readonly ScheduleNode[], known: readonly string[], ctx: BasicSet, make: (c: BasicSet) => Stmt[]): Stmt[] {
    const ids = this.insnsUnder(nodes);
    if (ids.length === 0) return make(ctx);
    // A guard around a barrier must not depend on the local id (work-items would disagree on
    // reaching it); one over parameters, group ids and loops is the same for the whole group.
    const barrier = hasBarrier(nodes);
    const uniform = (r: Row) => Object.keys(r.aff.terms).every((n) => this.k.inameTags[n]?.kind !== "l");
    let common: Map<string, Row> | undefined;
    for (const id of ids) {
      const d = this.domainOf(this.insnOf(id).withinInames);
      const mine = new Map(this.originalRowsOver(d, known).filter((r) => !barrier || uniform(r)).map((r) => [rowKey(r), r]));
      common = common ? new Map([...common].filter(([key]) => mine.has(key))) : mine;
      if (common.size === 0) return make(ctx);
    }
    const rows = this.notImplied([...common!.values()], known, ctx);
    if (rows.length === 0) return make(ctx);
    const inner = withRowsSet(ctx, known, rows);
    const body = make(inner);
    if (body.length === 0) return [];
    return [{ k: "if", cond: this.condOf(rows), then: block(body) }];
  }

  /** Rows of `d` (as written, no projection artifacts) whose variables are parameters or `known`. */
  private originalRowsOver(d: BasicSet, known: readonly string[]): Row[] {
    const { rows, vars, dims } = rowsOf(d);
    const out: Row[] = [];
    for (let j = 0; j < rows.length; j++) {
      // Each variable known, or a parameter of d that is not one of its dims.
      if (vars[j]!.every((n) => known.includes(n) || (!dims.has(n) && d.params.includes(n)))) out.push(rows[j]!);
    }
    return out;
  }

  /** The rows not implied by `ctx` (and each other). */
  private notImplied(rows: readonly Row[], known: readonly string[], ctx: BasicSet): readonly Row[] {
    if (rows.length === 0) return [];
    const s = addConstraints(universe(names(rows).filter((n) => !known.includes(n)), [...known]), rows);
    // Rows over inames need only the context's factors of those inames; a row over parameters
    // alone may follow from any factor (a loop `0 <= i < n` implies `n >= 1`): the whole context.
    const overInames = rows.every((r) => Object.keys(r.aff.terms).some((n) => known.includes(n)));
    return rowsOf(gist(s, overInames ? factorOf(ctx, names(rows)) : ctx)).rows;
  }

  private loop(iname: string, body: readonly ScheduleNode[], known: readonly string[], ctx: BasicSet): Stmt[] {
    const tag = this.k.inameTags[iname];
    if (tag && (tag.kind === "g" || tag.kind === "l") && this.opts.hwAxes) {
      throw new CodegenError(`kernel "${this.k.name}": iname "${iname}" is tagged ${tag.kind}.${tag.axis} but scheduled as a loop`);
    }
    const inner = [...known, iname];
    const ids = this.insnsUnder(body);
    // Bounds from each instruction's domain, projected onto the known inames and this one.
    let whole: BasicSet | undefined;
    const perInsn = ids.map((id) => {
      let d = this.domainOf(this.insnOf(id).withinInames);
      // An instruction that does not run within the loop's iname (the CPU lowering's loop over a
      // group axis around a fetch that ignores that axis) runs at every iteration of it.
      if (!d.dims.includes(iname)) d = intersect(d, this.domainOf([iname]));
      // Only the iname's own factor of the domain bounds it, and only the factors of the context
      // over the same inames can imply those bounds: smaller problems, and ones that a sweep of
      // tile sizes asks again whenever this iname's tile size repeats.
      const f = factorOf(d, iname);
      const drop = [...f.dims.filter((n) => !inner.includes(n)), ...f.exists];
      const p = drop.length > 0 ? eliminateExact(f, drop).set : f;
      whole ??= p;
      const c = factorOf(ctx, p.dims);
      return gist(this.unitBounds(p, iname, c), c);
    });
    const keyed = new Map(perInsn.map((g) => [rowsOf(g).rows.filter((r) => r.aff.terms[iname]).map(rowKey).sort().join("&"), g]));
    const body1 = (c: BasicSet) => this.withHoistedGuards(body, inner, c, (c2) => this.nodes(body, inner, c2));
    if (keyed.size === 1) {
      const g = perInsn[0]!;
      const b = dimBounds(g, iname, known.filter((n) => g.dims.includes(n)));
      return this.emitRange(iname, b.lower, b.upper, known, ctx, body1, whole);
    }
    // Instructions with different ranges: the union of the ranges; each instruction guards itself.
    const los: Ex[] = [];
    const his: Ex[] = [];
    for (const g of keyed.values()) {
      const b = dimBounds(g, iname, known.filter((n) => g.dims.includes(n)));
      los.push(this.boundEx(b.lower, "lower", ctx));
      his.push(this.boundEx(b.upper, "upper", ctx));
    }
    const lo = los.reduce((a, x) => ({ k: "bin", op: "min", l: a, r: x, dtype: "idx" }));
    const hi = his.reduce((a, x) => ({ k: "bin", op: "max", l: a, r: x, dtype: "idx" }));
    const c = withRowsSet(ctx, [iname], []);
    return [this.forStmt(iname, lo, hi, block(body1(c)), known)];
  }

  /** `p` within `ctx` with `iname`'s non-unit bounds replaced by implied constant ones where possible. */
  private unitBounds(p: BasicSet, iname: string, ctx: BasicSet): BasicSet {
    if (!rowsOf(p).rows.some((r) => Math.abs(r.aff.terms[iname] ?? 0) > 1)) return p;
    if (p.exists.length > 0 || ctx.exists.length > 0) return p;
    return preferUnitBounds(intersect(p, ctx), [iname]);
  }

  /**
   * A loop over `iname` from max(lower) to min(upper), as the iname's tag asks: unrolled, a single
   * `int const`, peeled slabs, or a plain loop. `make` builds the body for a context.
   */
  private emitRange(
    iname: string, lower: readonly Bound[], upper: readonly Bound[], known: readonly string[], ctx: BasicSet,
    make: (c: BasicSet) => Stmt[], whole?: BasicSet,
  ): Stmt[] {
    const tag = this.k.inameTags[iname];
    if (lower.length === 0 || upper.length === 0) throw new CodegenError(`kernel "${this.k.name}": iname "${iname}" is unbounded ${lower.length === 0 ? "below" : "above"}`);
    const boundRows = (lo: readonly Bound[], up: readonly Bound[], shiftLo = 0, shiftHi = 0): Row[] => [
      ...lo.map((b) => ({ aff: affSub(affScale(affAdd(aff({ [iname]: 1 }), aff({}, -shiftLo)), b.denom), b.aff), eq: false })),
      ...up.map((b) => ({ aff: affSub(b.aff, affScale(affAdd(aff({ [iname]: 1 }), aff({}, shiftHi)), b.denom)), eq: false })),
    ];
    const withRows = (rows: readonly Row[]) => withRowsSet(ctx, [...known, iname], rows);

    if (tag && (tag.kind === "unr" || tag.kind === "ilp")) {
      // Constant bounds: from the loop's own bounds, else from the domain with the outer inames
      // projected out too (a triangle `j <= i < 8` unrolls j over 0..7, guarding j <= i).
      const all = whole ? dimBounds(intersectCtx(whole, ctx), iname, []) : undefined;
      let clo = lower.filter((b) => affIsConstant(b.aff));
      let chi = upper.filter((b) => affIsConstant(b.aff));
      if (clo.length === 0 && all) clo = all.lower.filter((b) => affIsConstant(b.aff));
      if (chi.length === 0 && all) chi = all.upper.filter((b) => affIsConstant(b.aff));
      if (clo.length === 0 || chi.length === 0) {
        throw new CodegenError(`kernel "${this.k.name}": cannot unroll iname "${iname}" (tag ${tag.kind}): its trip count is not a constant`);
      }
      const lo = Math.max(...clo.map((b) => Math.ceil(b.aff.constant / b.denom)));
      const hi = Math.min(...chi.map((b) => Math.floor(b.aff.constant / b.denom)));
      if (hi - lo + 1 > MAX_UNROLL) throw new CodegenError(`kernel "${this.k.name}": unrolling "${iname}" would copy its body ${hi - lo + 1} times (at most ${MAX_UNROLL})`);
      const out: Stmt[] = [];
      for (let v = lo; v <= hi; v++) {
        this.subst.set(iname, ilit(v));
        // Each copy knows the iname's value: `16*j_outer + j_inner < m` is no guard of copy 0.
        out.push(...make(withRows([{ aff: aff({ [iname]: 1 }, -v), eq: true }])));
      }
      this.subst.delete(iname);
      return out;
    }
    const lo = this.boundEx(lower, "lower", ctx);
    const hi = this.boundEx(upper, "upper", ctx);
    if (JSON.stringify(lo) === JSON.stringify(hi)) {
      const c = withRows(boundRows(lower, upper));
      return [block([{ k: "decl", dtype: "int32", name: iname, init: lo, isConst: true }, ...make(c)])];
    }
    const slabs = this.k.inameSlabs?.[iname];
    if (slabs && (slabs[0] > 0 || slabs[1] > 0)) {
      const [a, b] = slabs;
      const out: Stmt[] = [];
      const mainLo = a > 0 ? ibin("+", lo, ilit(a)) : lo;
      if (a > 0) {
        out.push({ k: "comment", text: `initial slab for '${iname}'` });
        out.push(this.forStmt(iname, lo, { k: "bin", op: "min", l: ibin("+", lo, ilit(a - 1)), r: hi, dtype: "idx" }, block(make(withRows(boundRows(lower, upper)))), known));
      }
      out.push({ k: "comment", text: `bulk slab for '${iname}'` });
      out.push(this.forStmt(iname, mainLo, b > 0 ? ibin("-", hi, ilit(b)) : hi, block(make(withRows(boundRows(lower, upper, a, b)))), known));
      if (b > 0) {
        out.push({ k: "comment", text: `final slab for '${iname}'` });
        out.push(this.forStmt(iname, { k: "bin", op: "max", l: ibin("+", hi, ilit(1 - b)), r: mainLo, dtype: "idx" }, hi, block(make(withRows(boundRows(lower, upper)))), known));
      }
      return out;
    }
    return [this.forStmt(iname, lo, hi, block(make(withRows(boundRows(lower, upper)))), known)];
  }

  private forStmt(iname: string, lo: Ex, hi: Ex, body: Stmt, known: readonly string[]): Stmt {
    const tag = this.k.inameTags[iname];
    const pragmas: string[] = [];
    if (tag?.kind === "unr_hint" && this.opts.unrollHint) pragmas.push(this.opts.unrollHint(tag.max));
    if (this.opts.parallelLoop && !this.parallelDone && this.isGroupIname(iname) && known.every((n) => !this.isGroupIname(n))) {
      this.parallelDone = true;
      pragmas.push(this.opts.parallelLoop(this.privateNames()));
    }
    return { k: "for", v: iname, lo, hi, body, pragmas };
  }

  private isGroupIname(n: string): boolean {
    return this.groupInames.has(n) || this.k.inameTags[n]?.kind === "g";
  }

  private privateNames(): string[] {
    return this.decls.flatMap((d) => (d.k === "decl" ? [d.name] : []));
  }

  /** max of lower bounds `ceil(aff/denom)` or min of upper bounds `floor(aff/denom)`. */
  private boundEx(bounds: readonly Bound[], side: "lower" | "upper", ctx: BasicSet): Ex {
    const exs = bounds.map((b) => {
      const num = side === "lower" && b.denom > 1 ? affAdd(b.aff, aff({}, b.denom - 1)) : b.aff;
      if (b.denom === 1) return this.affEx(num);
      if (affIsConstant(num)) return ilit(Math.floor(num.constant / b.denom));
      return { k: "bin", op: "//", l: this.affEx(num), r: ilit(b.denom), dtype: "idx", nonneg: this.impliedNonneg(num, ctx) } as Ex;
    });
    // Constant bounds fold into one.
    const consts = exs.filter((e): e is Ex & { k: "lit" } => e.k === "lit");
    const rest: Ex[] = exs.filter((e) => e.k !== "lit");
    const op = side === "lower" ? "max" : "min";
    if (consts.length > 0) rest.push(ilit((side === "lower" ? Math.max : Math.min)(...consts.map((c) => c.value))));
    return rest.reduce((a, x) => ({ k: "bin", op, l: a, r: x, dtype: "idx" }));
  }

  private impliedNonneg(a: Aff, ctx: BasicSet): boolean {
    try {
      return isEmptyWith(ctx, affSub(aff({}, -1), a));
    } catch {
      return false;
    }
  }

  /** An affine expression as code: positive terms, then negative ones, then the constant. */
  affEx(a: Aff): Ex {
    let constant = a.constant;
    const terms: [Ex, number][] = [];
    for (const [n, coef] of Object.entries(a.terms)) {
      const ex = this.subst.get(n) ?? evar(n);
      if (ex.k === "lit") constant += coef * ex.value;
      else terms.push([ex, coef]);
    }
    terms.sort((x, y) => (y[1] > 0 ? 1 : 0) - (x[1] > 0 ? 1 : 0));
    let out: Ex | undefined;
    for (const [ex, coef] of terms) {
      const mag = Math.abs(coef);
      const t = mag === 1 ? ex : ibin("*", ilit(mag), ex);
      out = out === undefined ? (coef > 0 ? t : ibin("-", ilit(0), t)) : ibin(coef > 0 ? "+" : "-", out, t);
    }
    if (out === undefined) return ilit(constant);
    if (out.k === "bin" && out.op === "-" && out.l.k === "lit" && out.l.value === 0) out = { k: "neg", e: out.r, dtype: "idx" };
    return constant > 0 ? ibin("+", out, ilit(constant)) : constant < 0 ? ibin("-", out, ilit(-constant)) : out;
  }

  /** `rows` as one condition: `128 * gid(0) + lid(0) < n` for `n - 1 - 128*gid(0) - lid(0) >= 0`. */
  private condOf(rows: readonly Row[]): Ex {
    const conds = rows.map((r): Ex => {
      const pos: Record<string, number> = {};
      const neg: Record<string, number> = {};
      for (const [n, c] of Object.entries(r.aff.terms)) (c > 0 ? pos : neg)[n] = Math.abs(c);
      const c = r.aff.constant;
      if (r.eq) return { k: "bin", op: "==", l: this.affEx(aff(neg, c < 0 ? -c : 0)), r: this.affEx(aff(pos, c > 0 ? c : 0)), dtype: "idx" };
      if (c < 0) return { k: "bin", op: "<", l: this.affEx(aff(neg, -c - 1)), r: this.affEx(aff(pos, 0)), dtype: "idx" };
      return { k: "bin", op: "<=", l: this.affEx(aff(neg, 0)), r: this.affEx(aff(pos, c)), dtype: "idx" };
    });
    return conds.reduce((a, x) => ({ k: "bin", op: "&&", l: a, r: x, dtype: "idx" }));
  }

  // ---- instructions ------------------------------------------------------------------------

  private insn(id: string, known: readonly string[], ctx: BasicSet): Stmt[] {
    const insn = this.insnOf(id);
    if (insn.kind === "nop") return [];
    if (insn.kind === "barrier") {
      if (insn.scope === "global") throw new CodegenError(`kernel "${this.k.name}": global barrier "${id}" inside a device kernel`);
      return [{ k: "barrier", comment: `for ${id}` }];
    }
    const d = this.domainOf(insn.withinInames);
    if (insn.kind === "block") return this.guarded(d, known, ctx, insn.id, (c) => this.block(insn, known, c));
    return this.guarded(d, known, ctx, insn.id, (c) => this.assign(insn, known, c));
  }

  /**
   * An opaque block as statements in its own braces: locals renamed away from the kernel's names
   * (a stride or bound may print a parameter inside), exits lowered to flags, `for` to `while`.
   */
  private block(insn: BlockInsn, known: readonly string[], ctx: BasicSet): Stmt[] {
    const problem = checkBlock(insn.body);
    if (problem) throw new CodegenError(`block "${insn.id}": ${problem}`);
    const avoid = new Set([...this.taken, ...this.params, "H"]);
    const declared = [...blockLocals(insn.body).keys()];
    const renames = new Map<string, string>();
    for (const n of declared) {
      if (!avoid.has(n)) continue;
      renames.set(n, uniqueName(n, new Set([...avoid, ...declared, ...renames.values()])));
    }
    let body = renames.size > 0 ? renameLocals(insn.body, renames) : insn.body;
    body = lowerExits(body, new Set([...avoid, ...blockLocals(body).keys()]));
    const locals = blockLocals(body);
    const pre: Stmt[] = [];
    const outer = this.scope(insn.id, known, ctx, pre);
    const scope: ExprScope = {
      ...outer,
      env: blockTypeEnv(outer.env, locals),
      varEx: (n) => (locals.has(n) ? { ex: evar(n), dtype: locals.get(n)! } : outer.varEx(n)),
      element: (e) => this.element(e, scope),
    };
    const stmts = (list: readonly BlockStmt[]): Stmt[] => list.flatMap((s): Stmt[] => {
      switch (s.kind) {
        case "decl": return [{ k: "decl", dtype: s.dtype, name: s.name, init: s.init ? lowerExpr(s.init, s.dtype, scope) : { k: "lit", value: 0, dtype: s.dtype } }];
        case "assign": {
          const lhs = s.lhs;
          if (lhs.kind === "var") {
            const dtype = locals.get(lhs.name) ?? this.dtypeOf(lhs.name, insn.id);
            return [{ k: "assign", name: lhs.name, dtype, rhs: lowerExpr(s.rhs, dtype, scope) }];
          }
          if (lhs.kind === "subscript" || lhs.kind === "linear") {
            const el = scope.element(lhs);
            return [{ k: "assign", array: el.array, index: el.index, dtype: el.dtype, rhs: lowerExpr(s.rhs, el.dtype, scope) }];
          }
          throw new CodegenError(`block "${insn.id}": cannot assign to ${exprToString(lhs)}`);
        }
        case "if": {
          const els = stmts(s.else);
          return [{ k: "if", cond: lowerCond(s.cond, scope), then: block(stmts(s.then)), ...(els.length > 0 ? { else: block(els) } : {}) }];
        }
        case "while": return [{ k: "while", cond: lowerCond(s.cond, scope), body: block(stmts(s.body)) }];
        case "doWhile": return [{ k: "doWhile", body: block(stmts(s.body)), cond: lowerCond(s.cond, scope) }];
        case "for": return [block(stmts(forAsWhile(s)))];
        case "break": case "continue": return [{ k: s.kind }];
        case "labeled": case "exit": throw new CodegenError(`block "${insn.id}": ${s.kind} left after lowering exits`);
        default: return assertNever(s, "block statement");
      }
    });
    const main = stmts(body);
    const preds = insn.predicates.map((p) => lowerCond(p, outer));
    const inner = [block([...pre, ...main])];
    if (preds.length === 0) return inner;
    const cond = preds.reduce((a, x) => ({ k: "bin", op: "&&", l: a, r: x, dtype: "bool" }));
    return [{ k: "if", cond, then: inner[0]! }];
  }

  /** `make` under the guard of the constraints of `d` that `ctx` does not imply. */
  private guarded(d: BasicSet, known: readonly string[], ctx: BasicSet, what: string, make: (c: BasicSet) => Stmt[]): Stmt[] {
    let g = gist(d, ctx);
    if (rowsOf(g).existential) {
      const flat = eliminateExistentials(g, ctx);
      if (flat) g = gist(flat, ctx);
    }
    let { rows } = rowsOf(g);
    let exConds: Ex[] = [];
    if (rowsOf(g).existential) {
      // What is left of the existentials becomes exact conditions: affine rows where a step is
      // exact, divisibility (`(i + 2) % 3 == 0`) and floor comparisons where it is not.
      const ex = this.existentialGuard(g, ctx, what);
      if (ex === false) return [];
      if (ex.rows.length > 0) {
        const have = new Set(rows.map(rowKey));
        const more = ex.rows.filter((r) => !have.has(rowKey(r)));
        if (more.length > 0) rows = rowsOf(gist(addConstraints(universe(g.params, g.dims), [...rows, ...more]), ctx)).rows;
      }
      exConds = ex.conds;
    }
    const live: Row[] = [];
    for (const r of rows) {
      const folded = this.foldRow(r);
      if (folded === true) continue;
      if (folded === false) return [];
      live.push(r);
    }
    const inner = live.length > 0 ? withRowsSet(ctx, known, live) : ctx;
    const body = make(inner);
    if ((live.length === 0 && exConds.length === 0) || body.length === 0) return body;
    const conds = live.length > 0 ? [this.condOf(live), ...exConds] : exConds;
    const cond = conds.reduce((a, x) => ({ k: "bin", op: "&&", l: a, r: x, dtype: "idx" }));
    return [{ k: "if", cond, then: block(body) }];
  }

  /**
   * Exact conditions for the existentials of `g` (over its params and dims): affine rows, and
   * conditions an affine row cannot say, as ISL's code generation writes them. Existentials whose
   * Fourier–Motzkin step is exact are eliminated first; then each remaining existential `e` is
   * decided by its own rows: an equality `a·e + r = 0` is `r % a == 0` (and `e = -r/a` in its other
   * rows, exactly, scaled by `a`); bounds `a·e >= L`, `b·e <= U` admit an integer `e` exactly when
   * every pair does, `ceil(L/a) <= floor(U/b)`: an affine row when a or b is 1, `U % a <= U - L`
   * when a = b and U - L is a constant, else the floor comparison. false: no point at all.
   */
  private existentialGuard(g0: BasicSet, ctx: BasicSet, what: string): { rows: Row[]; conds: Ex[] } | false {
    let g = g0;
    for (let again = true; again && g.exists.length > 0;) {
      again = false;
      for (const e of g.exists) {
        const r = eliminateExact(g, [e]);
        if (r.exact) {
          g = r.set;
          again = true;
          break;
        }
      }
    }
    const names = [...g.params, ...g.dims];
    const np = names.length;
    const rows: Row[] = [];
    const conds: Ex[] = [];
    const per = new Map<number, { c: number; r: Aff; eq: boolean }[]>();
    for (const con of g.constraints) {
      const terms: Record<string, number> = {};
      names.forEach((n, k) => {
        if (con.coeffs[k] !== 0) terms[n] = con.coeffs[k]!;
      });
      const rest = aff(terms, con.constant);
      const ex: number[] = [];
      for (let k = np; k < con.coeffs.length; k++) if (con.coeffs[k] !== 0) ex.push(k);
      if (ex.length === 0) {
        rows.push({ aff: rest, eq: con.eq });
        continue;
      }
      if (ex.length > 1) {
        // Existentials tied together: a union of pieces that tie none (src/poly/lattice.ts), each
        // decided as below; the guard is the domain's own rows and the disjunction of the pieces.
        const pieces = untieExistentials(g, ctx);
        if (!pieces) throw new CodegenError(`kernel "${this.k.name}", instruction "${what}": its domain ties several unbounded existentials together in one constraint; code generation cannot guard that exactly`);
        const alts: Ex[] = [];
        for (const p of pieces) {
          const r = this.existentialGuard(p, ctx, what);
          if (r === false || r.rows.some((x) => affIsConstant(x.aff) && (x.eq ? x.aff.constant !== 0 : x.aff.constant < 0))) continue;
          const rs = r.rows.filter((x) => !affIsConstant(x.aff));
          const cs = rs.length > 0 ? [this.condOf(rs), ...r.conds] : r.conds;
          if (cs.length === 0) return { rows: [...rowsOf(g).rows], conds: [] };
          alts.push(cs.reduce((a, x) => ({ k: "bin", op: "&&", l: a, r: x, dtype: "idx" })));
        }
        if (alts.length === 0) return false;
        return { rows: [...rowsOf(g).rows], conds: [alts.reduce((a, x) => ({ k: "bin", op: "||", l: a, r: x, dtype: "idx" }))] };
      }
      const list = per.get(ex[0]!) ?? [];
      list.push({ c: con.coeffs[ex[0]!]!, r: rest, eq: con.eq });
      per.set(ex[0]!, list);
    }
    // The affine part of the domain within the context: pairs it already satisfies need no guard.
    let base: BasicSet | undefined;
    const implied = (a: Aff): boolean => {
      base ??= intersect(addConstraints(universe(g.params, g.dims), rows), ctx);
      if (base.exists.length > 0) return false;
      try {
        return isEmptyWith(base, affSub(aff({}, -1), a));
      } catch {
        return false;
      }
    };
    const idx = (op: "%" | "//" | "<=" | "==", l: Ex, r: Ex): Ex => ({ k: "bin", op, l, r, dtype: "idx" });
    for (const cs of per.values()) {
      const eq = cs.find((x) => x.eq);
      if (eq) {
        // a·e + r = 0 with a > 0: e = -r/a, an integer exactly when a divides r.
        const a = Math.abs(eq.c);
        const r = eq.c > 0 ? eq.r : affScale(eq.r, -1);
        if (a > 1) {
          if (affIsConstant(r)) {
            if (r.constant % a !== 0) return false;
          } else conds.push(idx("==", idx("%", this.affEx(r), ilit(a)), ilit(0)));
        }
        // c·e + r' (>= | =) 0 times a: -c·r + a·r'.
        for (const o of cs) if (o !== eq) rows.push({ aff: affAdd(affScale(r, -o.c), affScale(o.r, a)), eq: o.eq });
        continue;
      }
      for (const l of cs) {
        if (l.c <= 0) continue;
        for (const u of cs) {
          if (u.c >= 0) continue;
          // a·e >= L, b·e <= U.
          const a = l.c;
          const b = -u.c;
          const L = affScale(l.r, -1);
          const U = u.r;
          if (a === 1 || b === 1) {
            rows.push({ aff: affSub(affScale(U, a), affScale(L, b)), eq: false });
            continue;
          }
          if (a === b) {
            const D = affSub(U, L);
            if (affIsConstant(D)) {
              if (D.constant >= a - 1) continue;
              if (D.constant < 0) return false;
              // A multiple of a in [U - D, U].
              conds.push(idx("<=", idx("%", this.affEx(U), ilit(a)), ilit(D.constant)));
              continue;
            }
            if (implied(affAdd(D, aff({}, 1 - a)))) continue;
          }
          conds.push(idx("<=", this.floorEx(affAdd(L, aff({}, a - 1)), a), this.floorEx(U, b)));
        }
      }
    }
    return { rows, conds };
  }

  /** `floor(a / d)` as index code. */
  private floorEx(a: Aff, d: number): Ex {
    if (d === 1) return this.affEx(a);
    if (affIsConstant(a)) return ilit(Math.floor(a.constant / d));
    return { k: "bin", op: "//", l: this.affEx(a), r: ilit(d), dtype: "idx" };
  }

  /** true/false when the row's variables are all substituted constants, else undefined. */
  private foldRow(r: Row): boolean | undefined {
    let c = r.aff.constant;
    for (const [n, coef] of Object.entries(r.aff.terms)) {
      const ex = this.subst.get(n);
      if (ex?.k !== "lit") return undefined;
      c += coef * ex.value;
    }
    return r.eq ? c === 0 : c >= 0;
  }

  private assign(insn: Assignment, known: readonly string[], ctx: BasicSet): Stmt[] {
    const pre: Stmt[] = [];
    const scope = this.scope(insn.id, known, ctx, pre);
    const lhs = insn.lhs;
    const preds = insn.predicates.map((p) => lowerCond(p, scope));
    let stmt: Stmt;
    if (lhs.kind === "var") {
      const dtype = this.dtypeOf(lhs.name, insn.id);
      stmt = { k: "assign", name: lhs.name, dtype, rhs: this.rhs(insn, dtype, scope) };
    } else if (lhs.kind === "subscript" || lhs.kind === "linear") {
      const el = scope.element(lhs);
      stmt = { k: "assign", array: el.array, index: el.index, dtype: el.dtype, rhs: this.rhs(insn, el.dtype, scope) };
    } else {
      throw new CodegenError(`instruction "${insn.id}": cannot assign to ${exprToString(lhs)}`);
    }
    if (insn.atomicity === "update") stmt = this.atomic(insn, stmt, scope);
    const body = [...pre, stmt];
    if (preds.length === 0) return body;
    const cond = preds.reduce((a, x) => ({ k: "bin", op: "&&", l: a, r: x, dtype: "bool" }));
    return [{ k: "if", cond, then: block(body) }];
  }

  private rhs(insn: Assignment, dtype: Dtype, scope: ExprScope): Ex {
    return lowerExpr(insn.rhs, dtype, scope);
  }

  /**
   * `x = x op v` (op + - & | ^ min max) or `x = v` as an atomic update or exchange. Private cells
   * are one work-item's own, so their update stays plain; OpenMP puts `#pragma omp atomic` (`write`
   * for an exchange) before a plain update, and a critical section around min/max.
   */
  private atomic(insn: Assignment, stmt: Stmt & { k: "assign" }, scope: ExprScope): Stmt {
    if (this.opts.atomics === "plain") return stmt;
    const u = atomicUpdateOf(insn.lhs, insn.rhs);
    if (!u) {
      throw new CodegenError(`instruction "${insn.id}": an atomic update must be x = x op v (op one of + - & | ^ min max) or an exchange x = v, got ${exprToString(insn.rhs)}`);
    }
    const space = this.spaceOf(stmt.array ?? stmt.name!);
    if (space === "private") return stmt;
    if (this.opts.atomics === "omp" && (u.op === "min" || u.op === "max")) return block([{ k: "raw", text: "#pragma omp critical" }, stmt]);
    const atomic = { ...stmt, rhs: lowerExpr(u.value, stmt.dtype, scope), atomic: { op: u.op, space } };
    if (this.opts.atomics === "omp") return block([{ k: "raw", text: u.op === "=" ? "#pragma omp atomic write" : "#pragma omp atomic" }, atomic]);
    return atomic;
  }

  /** Where variable `name` lives in the generated code: arguments and global temporaries are global. */
  private spaceOf(name: string): "global" | "local" | "private" {
    const t = findTemporary(this.k, name);
    return !t || t.addressSpace === "global" ? "global" : t.addressSpace === "local" ? "local" : "private";
  }

  private dtypeOf(name: string, insnId: string): Dtype {
    const d = findTemporary(this.k, name)?.dtype ?? findArg(this.k, name)?.dtype;
    if (!d) throw new CodegenError(`instruction "${insnId}": the dtype of "${name}" is unknown; add dtypes before generating code`);
    return d;
  }

  private scope(insnId: string, known: readonly string[], ctx: BasicSet, pre: Stmt[]): ExprScope {
    const self: ExprScope = {
      insnId,
      env: this.env,
      varEx: (name) => {
        const sub = this.subst.get(name);
        if (sub) return { ex: sub, dtype: INDEX_DTYPE };
        if (known.includes(name)) return { ex: evar(name), dtype: INDEX_DTYPE };
        if (this.taken.has(name) && !findArg(this.k, name) && !findTemporary(this.k, name)) {
          throw new CodegenError(`instruction "${insnId}" uses iname "${name}" outside the loops around it`);
        }
        return { ex: evar(name), dtype: this.dtypeOf(name, insnId) };
      },
      element: (e) => this.element(e, self),
      reduction: (e, dtype) => this.reduction(e, dtype, known, ctx, insnId, pre),
    };
    return self;
  }

  /** Flat index of `a[i, j]` from the strides of the array's axis tags: `a[n * i + j]`. */
  private element(e: Expr & { kind: "subscript" | "linear" }, scope: ExprScope): { array: string; index: Ex; dtype: Dtype } {
    const arg = findArg(this.k, e.array);
    const decl = arg?.kind === "array" ? arg : findTemporary(this.k, e.array);
    if (!decl) throw new CodegenError(`instruction "${scope.insnId}" subscripts "${e.array}", which is not an array of kernel "${this.k.name}"`);
    const dtype = this.dtypeOf(e.array, scope.insnId);
    if (e.kind === "linear") return { array: e.array, index: lowerIndex(e.index, scope, `linear index of "${e.array}"`), dtype };
    const shape = decl.shape;
    if (!shape) throw new CodegenError(`instruction "${scope.insnId}": "${e.array}" has no shape; give it one or use a linear subscript ${e.array}[[…]]`);
    if (shape.length !== e.indices.length) throw new CodegenError(`instruction "${scope.insnId}": "${e.array}" has ${shape.length} axes but is subscripted with ${e.indices.length} indices`);
    const tags = effectiveDimTags(decl);
    if (tags.some((t) => t.kind === "sep" || t.kind === "vec")) throw new CodegenError(`array "${e.array}": sep and vec axes are not supported by code generation yet`);
    const strides = axisStrides(shape, tags);
    let index: Ex = ilit(0);
    e.indices.forEach((ix, a) => {
      const stride = sizeEx(strides[a]!, (n) => this.param(n));
      index = ibin("+", index, ibin("*", stride, this.affineIndex(ix, scope) ?? lowerIndex(ix, scope, `index ${a} of "${e.array}"`)));
    });
    return { array: e.array, index, dtype };
  }

  /**
   * A reduction not realized by preprocessing: `acc = identity; for (…) acc = acc op body;`
   * before the instruction, and the accumulator in its place (loopy's `acc_k`).
   */
  private reduction(e: Reduce, dtype: Dtype, known: readonly string[], ctx: BasicSet, insnId: string, pre: Stmt[]): Ex {
    for (const r of e.inames) if (known.includes(r)) throw new CodegenError(`instruction "${insnId}": reduction iname "${r}" is already a loop around the instruction`);
    const acc = uniqueName(`acc_${e.inames.join("_")}`, this.taken);
    this.taken.add(acc);
    this.decls.push({ k: "decl", dtype, name: acc, space: "private" });
    const insn = this.insnOf(insnId);
    const inames = [...insn.withinInames, ...e.inames];
    const d = this.domainOf(inames);
    pre.push({ k: "assign", name: acc, dtype, rhs: { k: "lit", value: identity(e.op, dtype), dtype } });
    const nest = (m: number, kn: readonly string[], c: BasicSet): Stmt[] => {
      if (m === e.inames.length) {
        return this.guarded(d, kn, c, insnId, (c2) => {
          const innerPre: Stmt[] = [];
          const scope = this.scope(insnId, kn, c2, innerPre);
          const body = lowerExpr(e.body, dtype, scope);
          const a = evar(acc);
          const rhs: Ex = e.op === "sum" || e.op === "product"
            ? { k: "bin", op: e.op === "sum" ? "+" : "*", l: a, r: body, dtype, insn: insnId }
            : { k: "bin", op: e.op, l: a, r: body, dtype };
          return [...innerPre, { k: "assign", name: acc, dtype, rhs }];
        });
      }
      const r = e.inames[m]!;
      const inner = [...kn, r];
      const drop = [...d.dims.filter((n) => !inner.includes(n)), ...d.exists];
      const p = gist(drop.length > 0 ? eliminateExact(d, drop).set : d, c);
      const b = dimBounds(p, r, kn.filter((n) => p.dims.includes(n)));
      return this.emitRange(r, b.lower, b.upper, kn, c, (c2) => nest(m + 1, inner, c2), drop.length > 0 ? eliminateExact(d, drop).set : d);
    };
    pre.push(...nest(0, known, ctx));
    return evar(acc);
  }

  /**
   * An affine int32 subscript over inames and int32 parameters, terms in the kernel's iname order
   * (outer before inner, as loopy prints `128 * gid(0) + lid(0)`, not `lid(0) + gid(0) * 128`),
   * constants of unrolled inames folded; undefined for anything else.
   */
  private affineIndex(ix: Expr, scope: ExprScope): Ex | undefined {
    const a = exprAff(ix);
    if (!a || Object.keys(a.terms).length === 0 || typeOf(ix, scope).dtype !== "int32") return undefined;
    const rank = (n: string) => this.inameRank.get(n) ?? this.inameRank.size;
    for (const n of Object.keys(a.terms)) {
      if (this.inameRank.has(n)) {
        scope.varEx(n); // the "outside the loops around it" check
        continue;
      }
      if (!this.params.has(n) || findArg(this.k, n)?.dtype !== "int32") return undefined;
      this.usedParams.add(n);
    }
    const terms = Object.entries(a.terms).sort((x, y) => rank(x[0]) - rank(y[0]));
    return this.affEx({ terms: Object.fromEntries(terms), constant: a.constant });
  }

  private param(n: string): Ex {
    this.usedParams.add(n);
    return evar(n);
  }

  // ---- temporaries -------------------------------------------------------------------------

  private declareTemporary(name: string): void {
    const t = findTemporary(this.k, name)!;
    if (t.addressSpace === "global") return;
    if (!t.dtype) throw new CodegenError(`kernel "${this.k.name}": the dtype of temporary "${name}" is unknown; declare it (<float32> ${name} = …)`);
    const used = this.dk.body.length > 0 && this.usesName(name);
    if (!used) return;
    let size: number | undefined;
    if (t.shape.length > 0) {
      size = 1;
      for (const e of t.shape) {
        if (e.kind !== "const") throw new CodegenError(`temporary "${name}": its shape ${t.shape.map(exprToString).join(", ")} must be constant for code generation`);
        size *= e.value;
      }
      // Strides may skip (explicit stride tags): size from the layout's last element.
      const strides = axisStrides(t.shape, effectiveDimTags(t));
      if (strides.every((s) => s?.kind === "const")) {
        size = 1 + t.shape.reduce((acc, e, a) => acc + ((e as { value: number }).value - 1) * Math.abs((strides[a] as { value: number }).value), 0);
      }
    }
    this.decls.push({ k: "decl", dtype: t.dtype, name, size, space: t.addressSpace === "local" ? "local" : "private" });
  }

  private usesName(name: string): boolean {
    if (!this.usedNames) {
      const ids = new Set(this.insnsUnder(this.dk.body));
      const used = new Set<string>();
      for (const i of this.k.instructions) if (ids.has(i.id)) for (const e of insnExprs(i)) freeVariables(e, used);
      this.usedNames = used;
    }
    return this.usedNames.has(name);
  }
}

/** `body` with its locals renamed (declarations and uses). */
function renameLocals(body: readonly BlockStmt[], names: ReadonlyMap<string, string>): readonly BlockStmt[] {
  const renamed = mapBlockExprs(body, (e) => renameVars(e, names));
  const decls = (list: readonly BlockStmt[]): BlockStmt[] => list.map((s): BlockStmt => {
    switch (s.kind) {
      case "decl": return names.has(s.name) ? { ...s, name: names.get(s.name)! } : s;
      case "if": return { ...s, then: decls(s.then), else: decls(s.else) };
      case "while": case "doWhile": case "labeled": return { ...s, body: decls(s.body) };
      case "for": return { ...s, init: decls(s.init), body: decls(s.body), step: decls(s.step) };
      default: return s;
    }
  });
  return decls(renamed);
}

/** `ctx` with `dims` as dimensions and `rows` added; other names of the rows become parameters. */
function withRowsSet(ctx: BasicSet, dims: readonly string[], rows: readonly Row[]): BasicSet {
  const have = new Set([...ctx.params, ...ctx.dims]);
  if (dims.every((d) => ctx.dims.includes(d)) && names(rows).every((n) => have.has(n))) return rows.length > 0 ? addConstraints(ctx, rows) : ctx;
  const allDims = [...new Set([...ctx.dims, ...dims])];
  const params = [...new Set([...ctx.params, ...names(rows)])].filter((n) => !allDims.includes(n));
  return extendSet(ctx, params, allDims, rows);
}

/** `s` intersected with the context's constraints (same names aligned). */
function intersectCtx(s: BasicSet, ctx: BasicSet): BasicSet {
  return intersect(s, ctx);
}

function declName(s: Stmt): string {
  return s.k === "decl" ? s.name : "";
}

function hasBarrier(nodes: readonly ScheduleNode[]): boolean {
  return nodes.some((n) => n.kind === "barrier" || (n.kind === "loop" && hasBarrier(n.body)));
}

function identity(op: Reduce["op"], d: Dtype): number {
  if (op === "sum") return 0;
  if (op === "product") return 1;
  const lowest = op === "max";
  const ranges: Partial<Record<Dtype, [number, number]>> = {
    int8: [-128, 127], int16: [-32768, 32767], int32: [-2147483648, 2147483647], uint8: [0, 255], uint16: [0, 65535],
    uint32: [0, 4294967295], bool: [0, 1], int64: [-9223372036854775808, 9223372036854775807], uint64: [0, 18446744073709551615],
  };
  const r = ranges[d];
  if (!r) return lowest ? -Infinity : Infinity;
  return lowest ? r[0] : r[1];
}

// ---- affine helpers -------------------------------------------------------------------------

function names(rows: readonly { aff: Aff }[]): string[] {
  const out: string[] = [];
  for (const r of rows) for (const n in r.aff.terms) if (!out.includes(n)) out.push(n);
  return out;
}
/** An IR expression as an affine form over variables, or undefined when it is not affine. */
export function exprAff(e: Expr): Aff | undefined {
  switch (e.kind) {
    case "const": return Number.isInteger(e.value) ? aff({}, e.value) : undefined;
    case "var": return aff({ [e.name]: 1 });
    case "neg": {
      const a = exprAff(e.operand);
      return a && affScale(a, -1);
    }
    case "arith": {
      const l = exprAff(e.left);
      const r = exprAff(e.right);
      if (!l || !r) return undefined;
      if (e.op === "+") return affAdd(l, r);
      if (e.op === "-") return affSub(l, r);
      if (e.op === "*") {
        if (affIsConstant(l)) return affScale(r, l.constant);
        if (affIsConstant(r)) return affScale(l, r.constant);
      }
      return undefined;
    }
    default: return undefined;
  }
}

