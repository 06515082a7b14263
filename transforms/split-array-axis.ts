/**
 * Splitting an array axis in two (loopy's split_array_axis, transform/data.py): the new shape and
 * strides, and every index on the axis rewritten as a quotient and a remainder, simplified where
 * the instruction's domain bounds the remainder. Pure Kernel -> Kernel; a bad request throws
 * TransformError.
 */
import { LoomError, TransformError } from "../src/errors.js";
import {
  affToExpr, arith, axisStrides, c, effectiveDimTags, exprToAff, exprToString, iterationDomain, mapExpr, mulExpr, reductionInames, withKernel,
  type DimTag, type Expr, type Instruction, type Kernel, mapInsnExprs,
} from "../src/ir/index.js";
import {
  aff, affSub, affToString, intersect, isEmpty, isEmptyWith, parseConstraints, type Aff, type BasicSet,
} from "../src/poly/index.js";
import { checkInt, checkKernel, checkOptions } from "./common.js";
import { dataNames, findData, shapeOf, updateData } from "./layout.js";

// ---- index rewriting ------------------------------------------------------------------------

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
      && isEmptyWith(context, affSub(aff({}, -1), rest)) // r <= -1 impossible
      && isEmptyWith(context, affSub(rest, aff({}, count)))); // r >= count impossible
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
  return { extent: exact ? affToExpr(divideAff(a, count), AFTER) : arith("//", extent, c(count)), exact: true };
}

/** `a / count` for an `a` whose every coefficient `count` divides: divided, not multiplied by 1/count (49 * (1/49) is 0.999…). */
function divideAff(a: Aff, count: number): Aff {
  const terms: Record<string, number> = {};
  for (const [n, x] of Object.entries(a.terms)) terms[n] = x / count;
  return { terms, constant: a.constant / count };
}
