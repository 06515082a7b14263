/**
 * Data-layout transformations (loopy/transform/data.py, padding.py, privatize.py): axis tags and
 * nesting order of arrays, splitting an array axis in two, and giving a temporary one slot per
 * iteration of some inames. Pure Kernel -> Kernel; a bad request throws TransformError.
 */
import { LoomError, TransformError } from "../src/errors.js";
import {
  affToExpr, arith, axisStrides, c, effectiveDimTags, exprToString, iterationDomain, mapExpr, mulExpr, parseDimTags, reductionInames, v, withKernel,
  type ArrayArg, type DimTag, type Expr, type Instruction, type Kernel, type KernelArg, type Temporary, mapInsnExprs,
} from "../src/ir/index.js";
import {
  affToString, dimBounds, intersect, isEmpty, isEmptyWith, parseConstraints, type Aff, type BasicSet,
} from "../src/poly/index.js";
import { checkIname, checkInt, takenNames, checkKernel, checkOptions } from "./common.js";
import { kernelParameters } from "./parameters.js";

type DataVar = ArrayArg | Temporary;

/** Names from `"a"`, `"a, b"` or `["a", "b"]`; each must be an array argument or a temporary. */
function dataNames(k: Kernel, arrays: string | readonly string[], who: string): string[] {
  const names = typeof arrays === "string" ? arrays.split(",").map((s) => s.trim()).filter((s) => s !== "") : arrays;
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== "string")) {
    throw new TransformError(`${who}: expected an array name, a comma-separated list or an array of names; got ${JSON.stringify(arrays)}`);
  }
  for (const n of names) findData(k, n, who);
  return names;
}

function findData(k: Kernel, name: string, who: string): DataVar {
  const arg = k.args.find((a) => a.name === name);
  if (arg?.kind === "array") return arg;
  const temp = k.temporaries.find((t) => t.name === name);
  if (temp) return temp;
  const all = [...k.args.filter((a) => a.kind === "array"), ...k.temporaries].map((a) => a.name).join(", ") || "(none)";
  const why = arg ? `"${name}" is a value argument, not an array` : `no array or temporary "${name}" in kernel "${k.name}"`;
  throw new TransformError(`${who}: ${why}; arrays and temporaries are ${all}`);
}

function shapeOf(a: DataVar, who: string): readonly Expr[] {
  if (!a.shape) throw new TransformError(`${who}: the shape of "${a.name}" is not known yet; declare it (globalArg("${a.name}", dtype, [...]) or "${a.name}: float32[n]")`);
  return a.shape;
}

/** `k` with the array argument or temporary `name` replaced by `f(it)`. */
function updateData(k: Kernel, name: string, f: (a: DataVar) => DataVar): Kernel {
  const isTemp = k.temporaries.some((t) => t.name === name);
  return isTemp
    ? withKernel(k, { temporaries: k.temporaries.map((t) => (t.name === name ? f(t) as Temporary : t)) })
    : withKernel(k, { args: k.args.map((a) => (a.name === name && a.kind === "array" ? f(a) as ArrayArg : a)) });
}

/** What loopy's tag syntax adds to Loom's: `stride:auto`, `(pad=K)` and `->K` per tag. */
interface TagExtras {
  readonly auto: boolean;
  readonly pad: number | undefined;
}

/**
 * Read loopy's suffixes off each tag: `?` (kept, for parseDimTags), `->K` (the target axis: only
 * 0 exists for arrays), `(pad=K)` on c/f/N tags, and `stride:auto`. Returns the tags parseDimTags
 * reads, after dropping optional tags as it does, and the extras of the tags that remain.
 */
function readTagSuffixes(dimTags: string | readonly string[], nAxes: number, name: string, who: string): { tags: string[]; extras: TagExtras[] } {
  const items = (typeof dimTags === "string" ? dimTags.split(",") : [...dimTags]).map((t) => t.trim()).filter((t) => t !== "");
  let parsed = items.map((raw) => {
    let t = raw;
    const optional = t.endsWith("?");
    if (optional) t = t.slice(0, -1).trim();
    const target = /->\s*(\S+)$/.exec(t);
    if (target) {
      if (target[1] !== "0") {
        throw new TransformError(`${who}: tag "${raw}" of "${name}" maps the axis to target axis ${target[1]}; only OpenCL images have more than one target axis (loopy's ImageArg), and Loom has no image arrays, so the only target axis is 0 (->0)`);
      }
      t = t.slice(0, target.index).trim();
    }
    let pad: number | undefined;
    const padded = /^([^(]*)\(\s*pad\s*=\s*([^)]*)\)$/.exec(t);
    if (padded) {
      t = padded[1]!.trim();
      if (!/^(c|C|f|F|N\d)$/.test(t)) throw new TransformError(`${who}: tag "${raw}" of "${name}": (pad=…) goes on c, f or N0…N9, as in c(pad=16)`);
      pad = Number(padded[2]!.trim());
      if (!/^\d+$/.test(padded[2]!.trim()) || pad < 1) throw new TransformError(`${who}: tag "${raw}" of "${name}": the padding must be an integer >= 1 (elements), as in c(pad=16); got "${padded[2]!.trim()}"`);
    }
    const auto = /^stride:\s*auto$/.test(t);
    if (auto) t = "stride:0";
    return { tag: optional ? `${t}?` : t, optional, extras: { auto, pad } };
  });
  // parseDimTags drops optional tags left-first while there are too many: the same ones here.
  while (parsed.length > nAxes) {
    const k = parsed.findIndex((p) => p.optional);
    if (k < 0) break;
    parsed = [...parsed.slice(0, k), ...parsed.slice(k + 1)];
  }
  return { tags: parsed.map((p) => (p.optional ? p.tag.slice(0, -1) : p.tag)), extras: parsed.map((p) => p.extras) };
}

/** `s` rounded up to a multiple of `pad`. */
function roundUp(s: Expr, pad: number): Expr {
  if (pad === 1) return s;
  if (s.kind === "const") return c(Math.ceil(s.value / pad) * pad);
  return arith("*", arith("//", arith("+", s, c(pad - 1)), c(pad)), c(pad));
}

/**
 * The strides of nested axes with padding (loopy's convert_computed_to_fixed_dim_tags): going
 * from the fastest level out, each level's stride is the previous one times its extent, rounded
 * up to a multiple of the pad of the axis below it. Every nested axis becomes a `stride` tag.
 */
function padStrides(tags: readonly DimTag[], shape: readonly Expr[], pads: readonly (number | undefined)[]): DimTag[] {
  const byLevel = new Map<number, number>();
  tags.forEach((t, x) => { if (t.kind === "nest") byLevel.set(t.level, x); });
  const out = [...tags];
  let stride: Expr = c(1);
  for (let l = 0; byLevel.has(l); l++) {
    const x = byLevel.get(l)!;
    out[x] = { kind: "stride", stride };
    stride = mulExpr(stride, shape[x]!);
    if (pads[x] !== undefined) stride = roundUp(stride, pads[x]!);
  }
  return out;
}

/**
 * Set the data-axis tags of arrays and temporaries (loopy's tag_array_axes): `c`/`f` nest an axis
 * outside/inside the following ones, `N0…N9` give nesting levels (N0 fastest), `stride:EXPR`,
 * `sep`, `vec`; `?` marks a tag dropped when there are more tags than axes. As in loopy:
 * `stride:auto` makes the stride a new int32 argument `${array}_stride${axis}` (arrays only: a
 * temporary has no caller to choose it); `c(pad=K)`, `f(pad=K)`, `N1(pad=K)` round the stride of
 * the next axis out up to a multiple of K elements (the nested axes then get explicit strides);
 * `->0` names the target axis, the only one arrays have (more exist only for OpenCL images).
 *
 *   tagArrayAxes(k, "a, b", "f,f")            // column-major: a[i,j] at i + j*n
 *   tagArrayAxes(k, "a", "c,c(pad=16)")       // rows of a[n, 10] 16 elements apart
 *   tagArrayAxes(k, "a", "stride:auto,c")     // a[i,j] at i*a_stride0 + j; a_stride0 is passed
 */
export function tagArrayAxes(k: Kernel, arrays: string | readonly string[], dimTags: string | readonly string[]): Kernel {
  const who = "tagArrayAxes";
  checkKernel(k, who);
  if (typeof dimTags !== "string" && !(Array.isArray(dimTags) && dimTags.every((t) => typeof t === "string"))) {
    throw new TransformError(`${who}: expected tags such as "f,c" or ["N1", "N0"]; got ${JSON.stringify(dimTags)}`);
  }
  const params = kernelParameters(k);
  let out = k;
  for (const name of dataNames(k, arrays, who)) {
    const a = findData(k, name, who);
    const shape = shapeOf(a, who);
    const { tags: clean, extras } = readTagSuffixes(dimTags, shape.length, name, who);
    let tags: DimTag[];
    try {
      tags = parseDimTags(clean, shape.length);
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      throw new TransformError(`${who}: "${name}" (${shape.length} axes): ${e.message}`);
    }
    if (tags.filter((t) => t.kind === "vec").length > 1) throw new TransformError(`${who}: "${name}" may have at most one vec axis; got ${JSON.stringify(dimTags)}`);
    tags.forEach((t, x) => {
      if ((t.kind === "vec" || t.kind === "sep") && shape[x]!.kind !== "const") {
        throw new TransformError(`${who}: axis ${x} of "${name}" is tagged ${t.kind}, which needs a constant extent; the extent is not a number`);
      }
      if (t.kind === "stride" && !extras[x]!.auto) {
        const vars = [...collectVars(t.stride)].filter((n) => !params.includes(n));
        if (vars.length > 0) throw new TransformError(`${who}: the stride of axis ${x} of "${name}" uses ${vars.join(", ")}, which ${vars.length > 1 ? "are not parameters" : "is not a parameter"}; strides are integers and parameters (${params.join(", ") || "none"}), or stride:auto for a stride passed as an argument`);
      }
    });
    // stride:auto: a new argument per axis (loopy adds one for each auto stride).
    const newArgs: KernelArg[] = [];
    const isArg = k.args.some((x) => x.name === name);
    extras.forEach((ex, x) => {
      if (!ex.auto) return;
      if (!isArg) throw new TransformError(`${who}: axis ${x} of temporary "${name}" is tagged stride:auto, which makes the stride an argument; a temporary's layout is the kernel's own, so give its stride (stride:EXPR) or a nesting (c, f, N)`);
      const argName = `${name}_stride${x}`;
      const existing = out.args.find((y) => y.name === argName);
      if (existing === undefined) {
        if (takenNames(out).has(argName)) throw new TransformError(`${who}: stride:auto on axis ${x} of "${name}" needs the argument name "${argName}", which is already a name in kernel "${k.name}"`);
        newArgs.push({ kind: "value", name: argName, dtype: "int32" });
      } else if (existing.kind !== "value") {
        throw new TransformError(`${who}: stride:auto on axis ${x} of "${name}" needs the value argument "${argName}", but "${argName}" is an array`);
      }
      tags[x] = { kind: "stride", stride: v(argName) };
    });
    const pads = extras.map((ex) => ex.pad);
    if (pads.some((p) => p !== undefined)) {
      if (tags.some((t) => t.kind === "vec")) throw new TransformError(`${who}: "${name}" has a vec axis; padding a vector array is not supported (its strides count vectors, not elements)`);
      tags = padStrides(tags, shape, pads);
    }
    if (newArgs.length > 0) out = withKernel(out, { args: [...out.args, ...newArgs] });
    out = updateData(out, name, (d) => ({ ...d, dimTags: tags }));
  }
  return out;
}

function collectVars(e: Expr): Set<string> {
  const out = new Set<string>();
  mapExpr(e, (n) => {
    if (n.kind === "var") out.add(n.name);
    return undefined;
  });
  return out;
}

/**
 * Nest the axes of arrays as OKL's `@dimOrder`: `order` lists the axes from fastest-varying to
 * slowest, so for 2-D `[1, 0]` is row-major (C) and `[0, 1]` column-major (F). Axis `order[l]`
 * gets nest level `l` (`N{l}`).
 *
 *   dimOrder(k, "a", [0, 1])            // a[i,j] at i + j*n, as tagArrayAxes(k, "a", "N0,N1")
 */
export function dimOrder(k: Kernel, arrays: string | readonly string[], order: readonly number[]): Kernel {
  const who = "dimOrder";
  checkKernel(k, who);
  let out = k;
  for (const name of dataNames(k, arrays, who)) {
    const n = shapeOf(findData(k, name, who), who).length;
    const ok = Array.isArray(order) && order.length === n && order.every((x) => Number.isInteger(x) && x >= 0 && x < n) && new Set(order).size === n;
    if (!ok) {
      throw new TransformError(`${who}: order must list each axis of "${name}" once, fastest-varying first (a permutation of 0…${n - 1}, e.g. [${[...Array(n).keys()].reverse().join(", ")}] for row-major); got ${JSON.stringify(order)}`);
    }
    const tags: DimTag[] = Array.from({ length: n }, (_, x) => ({ kind: "nest", level: order.indexOf(x) }));
    out = updateData(out, name, (d) => ({ ...d, dimTags: tags }));
  }
  return out;
}

// ---- affine helpers for index rewriting -----------------------------------------------------

/** `e` as an affine form over its variables, or undefined when it is not affine with integer coefficients. */
function exprToAff(e: Expr): Aff | undefined {
  switch (e.kind) {
    case "const": return e.isFloat || !Number.isInteger(e.value) ? undefined : { terms: {}, constant: e.value };
    case "var": return { terms: { [e.name]: 1 }, constant: 0 };
    case "neg": {
      const a = exprToAff(e.operand);
      return a && scaleAff(a, -1);
    }
    case "arith": {
      const l = exprToAff(e.left);
      const r = exprToAff(e.right);
      if (!l || !r) return undefined;
      if (e.op === "+") return addAff(l, r, 1);
      if (e.op === "-") return addAff(l, r, -1);
      if (e.op === "*" && Object.keys(l.terms).length === 0) return scaleAff(r, l.constant);
      if (e.op === "*" && Object.keys(r.terms).length === 0) return scaleAff(l, r.constant);
      return undefined;
    }
    default: return undefined;
  }
}

function scaleAff(a: Aff, s: number): Aff {
  const terms: Record<string, number> = {};
  for (const [n, x] of Object.entries(a.terms)) if (x * s !== 0) terms[n] = x * s;
  return { terms, constant: a.constant * s };
}

function addAff(a: Aff, b: Aff, sign: 1 | -1): Aff {
  const terms: Record<string, number> = { ...a.terms };
  for (const [n, x] of Object.entries(b.terms)) {
    const y = (terms[n] ?? 0) + sign * x;
    if (y === 0) delete terms[n];
    else terms[n] = y;
  }
  return { terms, constant: a.constant + sign * b.constant };
}

/** Index expressions write a coefficient after its name: `i*4 + j`. */
const AFTER = { coefficientAfter: true } as const;

/**
 * `[idx // count, idx % count]`, simplified when `idx = count*q + r` with `0 <= r < count` known
 * (a constant `r`, or one the instruction's domain bounds): then it is `[q, r]`.
 */
function splitIndex(idx: Expr, count: number, context: BasicSet | undefined): [Expr, Expr] {
  const a = exprToAff(idx);
  if (a) {
    const qt: Record<string, number> = {};
    const rt: Record<string, number> = {};
    for (const [n, x] of Object.entries(a.terms)) (x % count === 0 ? (qt[n] = x / count) : (rt[n] = x));
    const quot: Aff = { terms: qt, constant: Math.floor(a.constant / count) };
    const rest: Aff = { terms: rt, constant: ((a.constant % count) + count) % count };
    const inRange = Object.keys(rt).length === 0 || (context !== undefined
      && isEmptyWith(context, addAff(scaleAff(rest, -1), { terms: {}, constant: -1 }, 1)) // r <= -1 impossible
      && isEmptyWith(context, addAff(rest, { terms: {}, constant: count }, -1))); // r >= count impossible
    if (inRange) return [affToExpr(quot, AFTER), affToExpr(rest, AFTER)];
  }
  return [arith("//", idx, c(count)), arith("%", idx, c(count))];
}

/** Rewrite every access of `name` in instructions (with their domain as context) and substitution rules. */
function mapAccesses(
  k: Kernel, name: string, f: (node: Expr, context: BasicSet | undefined, insn: Instruction | undefined) => Expr,
  contextOf: (insn: Instruction) => BasicSet | undefined,
): Kernel {
  const rewrite = (e: Expr, ctx: BasicSet | undefined, insn: Instruction | undefined): Expr =>
    mapExpr(e, (n) => {
      if ((n.kind === "subscript" || n.kind === "linear") && n.array === name) {
        const inner = n.kind === "subscript" ? { ...n, indices: n.indices.map((i) => rewrite(i, ctx, insn)) } : { ...n, index: rewrite(n.index, ctx, insn) };
        return f(inner, ctx, insn);
      }
      if (n.kind === "var" && n.name === name) return f(n, ctx, insn);
      return undefined;
    });
  const instructions = k.instructions.map((insn): Instruction => {
    const ctx = contextOf(insn);
    const g = (e: Expr) => rewrite(e, ctx, insn);
    return mapInsnExprs(insn, g);
  });
  const substitutions = k.substitutions.map((s) => ({ ...s, expr: rewrite(s.expr, undefined, undefined) }));
  return withKernel(k, { instructions, substitutions });
}

/** The inames an instruction uses: its loops and its reduction inames. */
function insnInames(insn: Instruction): string[] {
  const out = new Set(insn.withinInames);
  if (insn.kind === "assign") reductionInames(insn.rhs, out);
  return [...out];
}

// ---- splitArrayAxis ---------------------------------------------------------------------------

/** Options of `splitArrayAxis`. */
export interface SplitAxisOptions {
  /** The order of the two new axes in memory: "C" (default; the outer axis is the slower) or "F". */
  readonly order?: "C" | "F";
}

export const SPLIT_AXIS_OPTIONS: Readonly<Record<keyof SplitAxisOptions, true>> = { order: true };

/**
 * Split axis `axis` (extent E) of arrays into two axes of extents E/count and count (loopy's
 * split_array_axis): every index `i` on that axis becomes `i // count, i % count` (simplified to
 * `q, r` when `i = count*q + r` with `0 <= r < count`). With `order: "C"` (default) the outer axis
 * comes first, with `"F"` after the inner one. As in loopy the strides are kept: the inner axis
 * takes the old stride and the outer one `count` times it, so the flat storage is identical and an
 * argument's data is passed unchanged, only viewed in the new shape. When `count` does not divide
 * E (or the assumptions do not show it does), the outer extent is ceil(E/count), as in loopy: the
 * axes then get explicit strides (the old ones, the outer `count` times the inner), so every
 * element keeps its place and the array is padded at its end by less than one row of the split
 * axis. `sep`/`vec` axes and linear subscripts `a[[…]]` cannot be split, nor arrays with a `vec`
 * axis when E is not a multiple of `count`.
 *
 *   splitArrayAxis(k, "a", 0, 4)        // a: float32[16] -> float32[4, 4]; a[i] -> a[i // 4, i % 4]
 *   splitArrayAxis(k, "a", 0, 4)        // a: float32[10] -> float32[3, 4] with strides (4, 1)
 */
export function splitArrayAxis(
  k: Kernel, arrays: string | readonly string[], axis: number, count: number, opts: SplitAxisOptions = {},
): Kernel {
  const who = "splitArrayAxis";
  checkKernel(k, who);
  opts = checkOptions(opts, who, SPLIT_AXIS_OPTIONS);
  checkInt(count, 1, `${who}: count`);
  const order = opts.order ?? "C";
  if (order !== "C" && order !== "F") throw new TransformError(`${who}: order must be "C" or "F"; got ${JSON.stringify(order)}`);
  let out = k;
  for (const name of dataNames(k, arrays, who)) {
    const a = findData(out, name, who);
    const shape = shapeOf(a, who);
    if (!Number.isInteger(axis) || axis < 0 || axis >= shape.length) {
      throw new TransformError(`${who}: "${name}" has ${shape.length} axes (0…${shape.length - 1}); got axis ${JSON.stringify(axis)}`);
    }
    if (count === 1) continue;
    const tags = effectiveDimTags(a);
    const tag = tags[axis]!;
    if (tag.kind === "sep" || tag.kind === "vec") throw new TransformError(`${who}: axis ${axis} of "${name}" is tagged ${tag.kind}; only nested (c, f, N) and stride axes can be split`);
    const { extent: outerLen, exact } = divideExtent(out, shape[axis]!, count);
    const at = order === "C" ? axis : axis + 1;
    const newShape = [...shape];
    newShape[axis] = c(count);
    newShape.splice(at, 0, outerLen);
    let newTags: DimTag[];
    if (exact) {
      // The inner axis keeps the level (or stride); the outer one sits right above it.
      const level = tag.kind === "nest" ? tag.level : Infinity;
      newTags = tags.map((t) => (t.kind === "nest" && t.level > level ? { ...t, level: t.level + 1 } : t));
      const outerTag: DimTag = tag.kind === "nest" ? { kind: "nest", level: level + 1 } : { kind: "stride", stride: arith("*", tag.stride, c(count)) };
      newTags.splice(at, 0, outerTag);
    } else {
      // Padded: nest levels would stretch the faster axes' strides; fixed strides keep every element in place.
      const bad = tags.find((t) => t.kind === "vec" || t.kind === "sep");
      if (bad) throw new TransformError(`${who}: axis ${axis} of "${name}" has extent ${exprToString(shape[axis]!)}, not a multiple of ${count}, and "${name}" has a ${bad.kind} axis; padding is only possible for arrays addressed by strides alone (choose a count that divides the extent)`);
      const old = axisStrides(shape, tags);
      newTags = old.map((st): DimTag => ({ kind: "stride", stride: st! }));
      newTags.splice(at, 0, { kind: "stride", stride: mulExpr(old[axis]!, c(count)) });
    }
    out = updateData(out, name, (d) => ({ ...d, shape: newShape, dimTags: newTags }));
    const contexts = new Map<string, BasicSet>();
    const contextOf = (insn: Instruction): BasicSet | undefined => {
      const inames = insnInames(insn);
      if (inames.length === 0) return undefined;
      if (!contexts.has(insn.id)) contexts.set(insn.id, intersect(iterationDomain(k, inames), k.assumptions));
      return contexts.get(insn.id);
    };
    out = mapAccesses(out, name, (n, ctx) => {
      if (n.kind === "var") throw new TransformError(`${who}: "${name}" is used without subscript; it has ${shape.length} axes`);
      if (n.kind === "linear") throw new TransformError(`${who}: "${name}" has a linear subscript ${name}[[…]], which addresses storage, not axes; splitArrayAxis cannot rewrite it`);
      if (n.kind !== "subscript") return n;
      if (n.indices.length !== shape.length) throw new TransformError(`${who}: an access of "${name}" has ${n.indices.length} indices, but "${name}" has ${shape.length} axes`);
      const [q, r] = splitIndex(n.indices[axis]!, count, ctx);
      const indices = [...n.indices];
      indices[axis] = r;
      indices.splice(at, 0, q);
      return { ...n, indices };
    }, contextOf);
  }
  return out;
}

/**
 * `extent / count` as an expression, `exact` when `count` divides `extent` (a constant, or for all
 * parameters the assumptions allow); otherwise ceil(extent / count) (loopy's div_ceil).
 */
function divideExtent(k: Kernel, extent: Expr, count: number): { extent: Expr; exact: boolean } {
  const a = exprToAff(extent);
  if (a && Object.keys(a.terms).length === 0) return { extent: c(Math.ceil(a.constant / count)), exact: a.constant % count === 0 };
  let divisible = false;
  if (a) {
    try {
      const rem = parseConstraints(`(${affToString(a)}) mod ${count} >= 1`);
      divisible = isEmpty(intersect(k.assumptions, rem));
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
    }
  }
  if (!divisible || !a) return { extent: arith("//", arith("+", extent, c(count - 1)), c(count)), exact: false };
  const exact = Object.values(a.terms).every((x) => x % count === 0) && a.constant % count === 0;
  return { extent: exact ? affToExpr(scaleAff(a, 1 / count), AFTER) : arith("//", extent, c(count)), exact: true };
}

// ---- privatize --------------------------------------------------------------------------------

/**
 * Give the temporary `name` one slot per value of `inames` (loopy's
 * privatize_temporaries_with_inames): new leading axes of the inames' extents, and every access
 * indexed by `iname - lower`. Each iname needs a constant extent, and every access of the
 * temporary must be inside all of them (in their loops or reductions).
 *
 *   privatize(k, "acc", "i")            // <> acc = 0 ... acc = acc + a[i,j]  ->  acc[i] = 0 ... acc[i] = acc[i] + a[i,j]
 */
export function privatize(k: Kernel, name: string, inames: string | readonly string[]): Kernel {
  const who = "privatize";
  checkKernel(k, who);
  const temp = k.temporaries.find((t) => t.name === name);
  if (!temp) {
    const temps = k.temporaries.map((t) => t.name).join(", ") || "(none)";
    const isArg = k.args.some((a) => a.name === name);
    throw new TransformError(`${who}: ${isArg ? `"${name}" is an argument; only temporaries can be privatized` : `no temporary "${name}" in kernel "${k.name}"`}; temporaries are ${temps}`);
  }
  const list = typeof inames === "string" ? inames.split(",").map((s) => s.trim()).filter((s) => s !== "") : inames;
  if (!Array.isArray(list) || list.length === 0) throw new TransformError(`${who}: expected an iname, a comma-separated list or an array of inames; got ${JSON.stringify(inames)}`);
  for (const i of list) checkIname(k, i, who);
  if (new Set(list).size !== list.length) throw new TransformError(`${who}: inames ${list.join(", ")} name one iname twice`);
  if (k.domains.some((d) => d.params.includes(name))) throw new TransformError(`${who}: "${name}" is used in a loop bound; a temporary that bounds a loop cannot be privatized`);

  const ranges = list.map((i) => constantRange(k, i, who));
  const prefix = ranges.map((r, x) => (Object.keys(r.lower.terms).length === 0 && r.lower.constant === 0 ? v(list[x]!) : arith("-", v(list[x]!), affToExpr(r.lower, AFTER))));
  const p = list.length;
  const tags = temp.dimTags;
  const newTags: DimTag[] | undefined = tags && [
    ...Array.from({ length: p }, (_, x): DimTag => ({ kind: "nest", level: tags.filter((t) => t.kind === "nest").length + p - 1 - x })),
    ...tags,
  ];
  const shape = [...ranges.map((r) => c(r.size)), ...temp.shape];
  // F order puts the first axis fastest: keep the new axes outermost with explicit tags.
  const dimTags = newTags ?? (temp.order === "F" ? [
    ...Array.from({ length: p }, (_, x): DimTag => ({ kind: "nest", level: temp.shape.length + p - 1 - x })),
    ...temp.shape.map((_, x): DimTag => ({ kind: "nest", level: x })),
  ] : undefined);
  const out = withKernel(k, { temporaries: k.temporaries.map((t) => (t.name === name ? { ...t, shape, dimTags } : t)) });

  if (k.substitutions.some((s) => collectVars(s.expr).has(name) || mentionsArray(s.expr, name))) {
    throw new TransformError(`${who}: "${name}" is used in a substitution rule; expand the rules first (expandSubst)`);
  }
  return mapAccessesInScope(out, name, (n, scope, insn) => {
    const missing = list.filter((i) => !scope.has(i));
    if (missing.length > 0) {
      throw new TransformError(`${who}: instruction "${insn.id}" uses "${name}" outside the loop over ${missing.join(", ")}; every access of the temporary must be inside all of ${list.join(", ")}`);
    }
    if (n.kind === "linear") throw new TransformError(`${who}: instruction "${insn.id}" uses a linear subscript ${name}[[…]]; privatize cannot rewrite it`);
    if (n.kind === "var") return { kind: "subscript", array: name, indices: prefix };
    if (n.kind === "subscript") return { ...n, indices: [...prefix, ...n.indices] };
    return n;
  });
}

function mentionsArray(e: Expr, name: string): boolean {
  let found = false;
  mapExpr(e, (n) => {
    if ((n.kind === "subscript" || n.kind === "linear") && n.array === name) found = true;
    return undefined;
  });
  return found;
}

/** Like mapAccesses, tracking the inames in scope at each access: the loops around it and enclosing reductions. */
function mapAccessesInScope(k: Kernel, name: string, f: (node: Expr, scope: ReadonlySet<string>, insn: Instruction) => Expr): Kernel {
  const instructions = k.instructions.map((insn): Instruction => {
    const rewrite = (e: Expr, scope: ReadonlySet<string>): Expr => mapExpr(e, (n) => {
      if (n.kind === "reduce") return { ...n, body: rewrite(n.body, new Set([...scope, ...n.inames])) };
      if (n.kind === "subscript" && n.array === name) return f({ ...n, indices: n.indices.map((i) => rewrite(i, scope)) }, scope, insn);
      if (n.kind === "linear" && n.array === name) return f(n, scope, insn);
      if (n.kind === "var" && n.name === name) return f(n, scope, insn);
      return undefined;
    });
    const scope = new Set(insn.withinInames);
    const g = (e: Expr) => rewrite(e, scope);
    return mapInsnExprs(insn, g);
  });
  return withKernel(k, { instructions });
}

/** `lower … lower + size - 1` holding `iname`, with constant `size` and `lower` over parameters only. */
function constantRange(k: Kernel, iname: string, who: string): { lower: Aff; size: number } {
  const d = intersect(iterationDomain(k, [iname]), k.assumptions);
  const b = dimBounds(d, iname, []);
  let best: { lower: Aff; size: number } | undefined;
  for (const lo of b.lower) {
    if (lo.denom !== 1) continue;
    for (const hi of b.upper) {
      if (hi.denom !== 1) continue;
      const diff = addAff(hi.aff, lo.aff, -1);
      if (Object.keys(diff.terms).length > 0) continue;
      const size = Math.max(0, diff.constant + 1);
      if (!best || size < best.size) best = { lower: lo.aff, size };
    }
  }
  if (!best) throw new TransformError(`${who}: iname "${iname}" has no constant extent in kernel "${k.name}"; privatize needs one (split the iname and privatize over the inner part)`);
  return best;
}
