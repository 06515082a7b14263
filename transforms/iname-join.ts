/**
 * Joining and tiling inames (loopy's join_inames; Halide-style tile = split each + reorder).
 */
import { TransformError } from "../src/errors.js";
import { affToExpr, arith, c, domainIndexOf, freeVariables, uniqueName, v, withKernel, type Expr, type Kernel } from "../src/ir/index.js";
import {
  addConstraints, aff, affAdd, affIsConstant, affScale, affSub, dimBounds, intersect, projectOut, removeRedundancies, reorderDims, universe,
  type Aff, type BasicSet, type Constraint,
} from "../src/poly/index.js";
import { checkIname, checkInt, matchInsns, takenNames, type InsnMatch, checkKernel, checkOptions } from "./common.js";
import { duplicateInames, removeUnusedInames } from "./iname-rename.js";
import { prioritizeLoops, splitIname, tagInames } from "./iname.js";
import { checkIdentifier, nameList, reductionsOf, rewriteKernel } from "./rewrite.js";

export interface JoinOptions {
  /** Tag of the new iname, as in tagInames. */
  readonly tag?: string;
  /**
   * Only the instructions this match expression (or list) selects loop over the joined iname
   * (loopy's within); the others keep the old inames, which stay while something uses them.
   */
  readonly within?: InsnMatch;
}

export const JOIN_OPTIONS: Readonly<Record<keyof JoinOptions, true>> = { tag: true, within: true };

/** One joined iname: `x = lower + (new // stride) % length` (no `% length` for the slowest). */
interface Axis {
  readonly iname: string;
  readonly lower: Aff;
  readonly length: number | undefined;
  readonly stride: number;
}

/**
 * The single lower bound of `x` in the parameters and the `outer` dims (loops around every
 * instruction that uses the joined inames), and, if constant, its extent. Other dims of the domain
 * are projected out first: the joined iname's value may not depend on an iname that is not a loop
 * around its uses (a reduction iname, or an unrelated loop).
 */
function axisBounds(d: BasicSet, x: string, outer: readonly string[], who: string): { lower: Aff; length: number | undefined } {
  const b = dimBounds(d, x, outer);
  if (b.lower.length !== 1 || b.lower[0]!.denom !== 1) {
    throw new TransformError(`${who}: iname "${x}" needs a single affine lower bound in the parameters and outer inames (as in 0 <= ${x} < 16); its domain is not rectangular enough to join`);
  }
  const lower = b.lower[0]!.aff;
  let length: number | undefined;
  for (const u of b.upper) {
    if (u.denom !== 1) continue;
    const size = affSub(u.aff, lower);
    if (affIsConstant(size)) length = Math.min(length ?? Infinity, size.constant + 1);
  }
  return { lower, length };
}

/** Row of constraint `con` without column `col`, as an affine expression over the set's names. */
function restAff(d: BasicSet, con: Constraint, col: number, sign: number): Aff {
  const names = [...d.params, ...d.dims, ...d.exists];
  const terms: Record<string, number> = {};
  con.coeffs.forEach((x, k) => {
    if (k !== col && x !== 0) terms[names[k]!] = sign * x;
  });
  return aff(terms, sign * con.constant);
}

/**
 * A box in the joined inames (each bounded by one lower and one upper constraint in nothing but
 * itself, parameters and other inames): the joined iname has the plain range
 * `0 <= new < stride_first * extent_first`. Undefined when the domain is not such a box.
 */
function rectangularJoin(d: BasicSet, axes: readonly Axis[], name: string, pos: number): BasicSet | undefined {
  const cols = axes.map((a) => d.params.length + d.dims.indexOf(a.iname));
  const exCols = d.exists.map((_, k) => d.params.length + d.dims.length + k);
  const lowers = new Map<string, Aff>();
  const uppers = new Map<string, Aff>();
  for (const con of d.constraints) {
    const hits = cols.filter((col) => con.coeffs[col] !== 0);
    if (hits.length === 0) continue;
    const col = hits[0]!;
    const a = con.coeffs[col]!;
    if (hits.length > 1 || con.eq || Math.abs(a) !== 1 || exCols.some((e) => con.coeffs[e] !== 0)) return undefined;
    const x = axes[cols.indexOf(col)]!.iname;
    const bounds = a === 1 ? lowers : uppers;
    if (bounds.has(x)) return undefined;
    // x + rest >= 0 gives x >= -rest; -x + rest >= 0 gives x <= rest.
    bounds.set(x, restAff(d, con, col, a === 1 ? -1 : 1));
  }
  for (const [n, ax] of axes.entries()) {
    const [lo, hi] = [lowers.get(ax.iname), uppers.get(ax.iname)];
    if (lo === undefined || hi === undefined || !affIsConstant(affSub(lo, ax.lower))) return undefined;
    if (n > 0 && affSub(hi, lo).constant + 1 !== ax.length) return undefined;
  }
  const first = axes[0]!;
  const extent = affAdd(affSub(uppers.get(first.iname)!, first.lower), aff({}, 1));
  const rest = projectOut(d, axes.map((a) => a.iname));
  const dims = [...rest.dims];
  dims.splice(pos, 0, name);
  return removeRedundancies(addConstraints(intersect(universe(rest.params, dims), rest), [
    { aff: aff({ [name]: 1 }), eq: false },
    { aff: affSub(affScale(extent, first.stride), aff({ [name]: 1 }, 1)), eq: false },
  ]));
}

/** Any other domain: `new = Σ stride·(x - lower)` added, the joined inames projected out exactly. */
function generalJoin(d: BasicSet, axes: readonly Axis[], name: string, pos: number): BasicSet {
  let joint = aff({ [name]: -1 });
  for (const a of axes) joint = affAdd(joint, affScale(affSub(aff({ [a.iname]: 1 }), a.lower), a.stride));
  const withNew = addConstraints(intersect(d, universe(d.params, [...d.dims, name])), [{ aff: joint, eq: true }]);
  const projected = projectOut(withNew, axes.map((a) => a.iname));
  const order = projected.dims.filter((x) => x !== name);
  order.splice(pos, 0, name);
  return reorderDims(projected, order);
}

/**
 * Fuse inames of one domain into one (loopy's join_inames): with `inames = [i, j]` (fastest
 * last), `new = (i - lo_i)*len_j + (j - lo_j)`; uses of i become `new // len_j + lo_i` and of j
 * `new % len_j + lo_j`. Every iname but the first needs a constant extent; the first may be
 * parametric. The default name follows loopy: the inames fastest first, joined by `_and_`.
 *
 *   joinInames(k, ["i", "j"], "ij", { tag: "g.0" })   // 0 <= i < n, 0 <= j < 4: 0 <= ij < 4*n
 */
export function joinInames(k: Kernel, inames: string | readonly string[], newIname?: string, opts: JoinOptions = {}): Kernel {
  const who = "joinInames";
  checkKernel(k, who);
  opts = checkOptions(opts, who, JOIN_OPTIONS);
  const list = nameList(inames, `${who}: inames`);
  for (const i of list) checkIname(k, i, who);
  if (opts.within !== undefined) return joinWithin(k, list, newIname, opts, who);
  const idx = domainIndexOf(k, list[0]!);
  const other = list.find((i) => domainIndexOf(k, i) !== idx);
  if (other !== undefined) throw new TransformError(`${who}: inames ${list.join(", ")} must be in one domain; "${other}" is in another`);
  const name = newIname === undefined ? uniqueName([...list].reverse().join("_and_"), takenNames(k)) : checkIdentifier(newIname, `${who}: newIname`);
  if (newIname !== undefined && takenNames(k).has(name)) throw new TransformError(`${who}: newIname "${name}" is already a name in kernel "${k.name}"; choose another`);
  const dependent = k.domains.findIndex((d) => d.params.some((p) => list.includes(p)));
  if (dependent >= 0) throw new TransformError(`${who}: domain ${dependent} depends on ${list.filter((p) => k.domains[dependent]!.params.includes(p)).join(", ")}, which a join cannot express affinely`);
  for (const insn of k.instructions) {
    for (const used of [insn.withinInames, ...reductionsOf(insn)]) {
      const hit = list.filter((i) => used.includes(i));
      if (hit.length > 0 && hit.length < list.length) {
        throw new TransformError(`${who}: instruction "${insn.id}" uses ${hit.join(", ")} but not ${list.filter((i) => !hit.includes(i)).join(", ")} (in its loops or one reduction); joining would change how often it runs`);
      }
    }
  }

  const d = k.domains[idx]!;
  // Dims the joined inames' bounds may refer to: loops (not reductions) around every use.
  const users = k.instructions.filter((insn) => [insn.withinInames, ...reductionsOf(insn)].some((used) => used.some((i) => list.includes(i))));
  const outer = d.dims.filter((y) => !list.includes(y) && users.every((insn) => insn.withinInames.includes(y) && !reductionsOf(insn).some((r) => r.includes(y))));
  const axes: Axis[] = [];
  let stride = 1;
  for (let p = list.length - 1; p >= 0; p--) {
    const x = list[p]!;
    const { lower, length } = axisBounds(d, x, outer, who);
    if (p > 0 && length === undefined) throw new TransformError(`${who}: iname "${x}" must have a constant extent (only the first, slowest iname may be parametric)`);
    axes.unshift({ iname: x, lower, length: p > 0 ? length : undefined, stride });
    if (p > 0) stride *= length!;
  }

  const pos = Math.min(...list.map((i) => d.dims.indexOf(i)));
  const nd = rectangularJoin(d, axes, name, pos) ?? generalJoin(d, axes, name, pos);

  const values = new Map<string, Expr>(axes.map((a) => {
    let e: Expr = a.stride === 1 ? v(name) : arith("//", v(name), c(a.stride));
    if (a.length !== undefined) e = arith("%", e, c(a.length));
    const lo = affToExpr(a.lower, { order: "natural", coefficientAfter: true });
    return [a.iname, lo.kind === "const" && lo.value === 0 ? e : arith("+", e, lo)];
  }));
  const out = rewriteKernel(k, { values, inames: new Map(list.map((i) => [i, [name]])) });
  const joined = withKernel(out, { domains: k.domains.map((dd, i) => (i === idx ? nd : dd)) });
  return opts.tag === undefined ? joined : tagInames(joined, { [name]: opts.tag });
}

/**
 * joinInames for the instructions `within` selects: they get their own copies of the inames
 * (duplicateInames), the copies are joined, and an old iname nothing uses any more is removed.
 */
function joinWithin(k: Kernel, list: readonly string[], newIname: string | undefined, opts: JoinOptions, who: string): Kernel {
  const ids = matchInsns(k, opts.within!, who);
  const users = k.instructions.filter((insn) => ids.has(insn.id) && [insn.withinInames, ...reductionsOf(insn)].some((used) => used.some((i) => list.includes(i))));
  if (users.length === 0) {
    throw new TransformError(`${who}: no instruction that within ${JSON.stringify(opts.within)} selects (${[...ids].join(", ")}) uses ${list.join(", ")}`);
  }
  const rule = k.substitutions.find((r) => list.some((i) => !r.params.includes(i) && freeVariables(r.expr).has(i)));
  if (rule) throw new TransformError(`${who}: substitution rule "${rule.name}" uses ${list.filter((i) => freeVariables(rule.expr).has(i)).join(", ")}; with within, expand it first (expandSubst)`);
  const name = newIname === undefined ? uniqueName([...list].reverse().join("_and_"), takenNames(k)) : checkIdentifier(newIname, `${who}: newIname`);
  if (newIname !== undefined && takenNames(k).has(name)) throw new TransformError(`${who}: newIname "${name}" is already a name in kernel "${k.name}"; choose another`);
  const copies = list.map((i) => uniqueName(`${i}_${name}`, new Set([...takenNames(k), name])));
  const dup = duplicateInames(k, [...list], users.map((u) => u.id), copies);
  const joined = joinInames(dup, copies, name, { ...(opts.tag === undefined ? {} : { tag: opts.tag }) });
  const unused = list.filter((i) => !inameUsedAnywhere(joined, i));
  return unused.length > 0 ? removeUnusedInames(joined, unused) : joined;
}

/** Whether an instruction loops or reduces over `iname`, or a domain depends on it. */
function inameUsedAnywhere(k: Kernel, iname: string): boolean {
  return k.domains.some((d) => d.params.includes(iname)) || k.instructions.some((insn) => [insn.withinInames, ...reductionsOf(insn)].some((u) => u.includes(iname)));
}

export interface TileOptions {
  /** Tags of the outer inames, one per iname (or `{i: "g.0"}`). */
  readonly outerTags?: readonly (string | undefined)[] | Readonly<Record<string, string>>;
  /** Tags of the inner inames, one per iname (or `{i: "l.0"}`). */
  readonly innerTags?: readonly (string | undefined)[] | Readonly<Record<string, string>>;
}

export const TILE_OPTIONS: Readonly<Record<keyof TileOptions, true>> = { outerTags: true, innerTags: true };

/**
 * Tile a loop nest: split each iname by its size and prefer all outer loops before all inner
 * ones (`i_outer, j_outer, i_inner, j_inner`).
 *
 *   tile(k, ["i", "j"], [16, 16], { outerTags: ["g.1", "g.0"], innerTags: ["l.1", "l.0"] })
 */
export function tile(k: Kernel, inames: string | readonly string[], sizes: number | readonly number[], opts: TileOptions = {}): Kernel {
  const who = "tile";
  checkKernel(k, who);
  opts = checkOptions(opts, who, TILE_OPTIONS);
  const list = nameList(inames, `${who}: inames`);
  for (const i of list) checkIname(k, i, who);
  const sizeList = typeof sizes === "number" ? list.map(() => sizes) : sizes;
  if (!Array.isArray(sizeList) || sizeList.length !== list.length) {
    throw new TransformError(`${who}: sizes must be a number or one size per iname (${list.length}); got ${JSON.stringify(sizes)}`);
  }
  sizeList.forEach((s, n) => checkInt(s, 1, `${who}: size of "${list[n]}"`));
  const tagOf = (tags: TileOptions["outerTags"], n: number, what: string): string | undefined => {
    if (tags === undefined || tags === null) return undefined;
    if (typeof tags !== "object") throw new TransformError(`${who}: ${what} must be a list of tags, one per iname, or an object {iname: tag}; got ${JSON.stringify(tags)}`);
    if (Array.isArray(tags)) {
      if (tags.length !== list.length) throw new TransformError(`${who}: ${what} must have one entry per iname (${list.length}); got ${tags.length}`);
      return tags[n] ?? undefined;
    }
    return (tags as Readonly<Record<string, string>>)[list[n]!];
  };
  let out = k;
  const outers: string[] = [];
  const inners: string[] = [];
  list.forEach((i, n) => {
    const taken = takenNames(out);
    const outerIname = uniqueName(`${i}_outer`, taken);
    const innerIname = uniqueName(`${i}_inner`, new Set([...taken, outerIname]));
    out = splitIname(out, i, sizeList[n]!, { outerIname, innerIname, outerTag: tagOf(opts.outerTags, n, "outerTags"), innerTag: tagOf(opts.innerTags, n, "innerTags") });
    outers.push(outerIname);
    inners.push(innerIname);
  });
  return prioritizeLoops(out, [...outers, ...inners]);
}
