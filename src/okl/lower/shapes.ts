/**
 * Shapes of OKL pointer arguments from their access footprints: `a[i]` over `0 <= i < N` gives
 * `[N]`. The largest index over each access's iteration domain, where the conditions guarding the
 * access hold, must be one form in the parameters, else the argument stays unsized (run asks for
 * its length). The largest index is an integer one: `vec[32 * b + t]` over `0 <= t < 32`,
 * `0 <= b < (n + 31) / 32` touches `32 * ((n + 31) // 32)` elements, not the `n + 31` of the
 * rational relaxation (each iname at its integer maximum, `floor(U / d)`, where their bounds are
 * independent and no guard couples them).
 */
import { c, iterationDomain, type Expr, type Kernel } from "../../ir/index.js";
import { addConstraints, aff, affAdd, affScale, dimBounds, intersect, universe, type Aff, type Bound } from "../../poly/index.js";

export { exprToAff, affToReadableExpr as affToExpr } from "../../ir/index.js";
import { affToReadableExpr as affToExpr, exprToAff } from "../../ir/index.js";

/** The largest value of `index` (floor(aff / denom)) over the domain of `inames` and the guards, or undefined. */
function maxIndex(k: Kernel, inames: readonly string[], index: Aff, guards: readonly Aff[]): Bound | undefined {
  const used = [...new Set([...Object.keys(index.terms), ...guards.flatMap((g) => Object.keys(g.terms))])].filter((n) => inames.includes(n));
  const dom = iterationDomain(k, used);
  const idx = "__okl_index";
  const extra = [...Object.keys(index.terms), ...guards.flatMap((g) => Object.keys(g.terms))].filter((n) => !dom.dims.includes(n) && !dom.params.includes(n) && n !== idx);
  const s = addConstraints(intersect(dom, universe([...new Set(extra)], [idx])), [
    { aff: affAdd(aff({ [idx]: 1 }, 0), affScale(index, -1)), eq: true },
    ...guards.map((g) => ({ aff: g, eq: false })),
  ]);
  const upper: readonly Bound[] = dimBounds(s, idx, []).upper;
  const consts = upper.filter((b) => Object.keys(b.aff.terms).length === 0).map((b) => Math.floor(b.aff.constant / b.denom));
  if (consts.length > 0) return { aff: aff({}, Math.min(...consts)), denom: 1 };
  if (upper.length !== 1) return undefined;
  return upper[0]!;
}

/** A largest index: `constant + Σ coef * floor(aff / denom)` over parameter forms. */
interface MaxIndex {
  readonly terms: readonly { readonly coef: number; readonly aff: Aff; readonly denom: number }[];
  readonly constant: number;
}

/** A rational bound's floor as a MaxIndex (a denominator of 1 keeps its constant apart). */
function fromBound(b: Bound): MaxIndex {
  if (b.denom !== 1) return { terms: [{ coef: 1, aff: b.aff, denom: b.denom }], constant: 0 };
  const rest = aff(b.aff.terms, 0);
  return { terms: Object.keys(rest.terms).length > 0 ? [{ coef: 1, aff: rest, denom: 1 }] : [], constant: b.aff.constant };
}

/**
 * The integer maximum of `index` with each of its inames at its own integer extreme, where the
 * domain is a box (no constraint ties two inames): then it is exact. Undefined for other domains
 * and where an iname's extreme is not one form in the parameters.
 */
function boxMax(k: Kernel, inames: readonly string[], index: Aff): MaxIndex | undefined {
  const used = Object.keys(index.terms).filter((n) => inames.includes(n));
  const dom = iterationDomain(k, used);
  // Only a box: a constraint tying two inames (a tile's `4 * i_tile + i_in < n`) can keep them from their extremes together.
  const np = dom.params.length;
  if (dom.constraints.some((r) => r.coeffs.slice(np).filter((x) => x !== 0).length > 1)) return undefined;
  const terms: { coef: number; aff: Aff; denom: number }[] = [];
  let constant = index.constant;
  for (const [name, coef] of Object.entries(index.terms)) {
    if (!used.includes(name)) {
      terms.push({ coef, aff: aff({ [name]: 1 }, 0), denom: 1 });
      continue;
    }
    const b = dimBounds(dom, name, []);
    const side = coef > 0 ? b.upper : b.lower;
    const consts = side.filter((x) => Object.keys(x.aff.terms).length === 0).map((x) => (coef > 0 ? Math.floor : Math.ceil)(x.aff.constant / x.denom));
    if (consts.length > 0) {
      constant += coef * (coef > 0 ? Math.min(...consts) : Math.max(...consts));
      continue;
    }
    if (side.length !== 1) return undefined;
    const x = side[0]!;
    // ceil(L / d) = -floor(-L / d)
    const [c0, a0] = coef > 0 ? [coef, x.aff] : [-coef, affScale(x.aff, -1)];
    if (x.denom === 1) {
      constant += c0 * a0.constant;
      terms.push({ coef: c0, aff: aff(a0.terms, 0), denom: 1 });
    } else terms.push({ coef: c0, aff: a0, denom: x.denom });
  }
  // The terms without a floor as one affine form (`t + 32 * b` over boxes of n: one `n`-form).
  let flat = aff({}, 0);
  const floors = terms.filter((t) => {
    if (t.denom !== 1) return true;
    flat = affAdd(flat, affScale(t.aff, t.coef));
    return false;
  });
  const linear = Object.values(flat.terms).some((x) => x !== 0) ? [{ coef: 1, aff: flat, denom: 1 }] : [];
  return { terms: [...linear, ...floors], constant };
}

const isConstant = (m: MaxIndex): boolean => m.terms.length === 0;
const maxKey = (m: MaxIndex): string => JSON.stringify(m.terms.map((t) => [t.coef, t.denom, Object.entries(t.aff.terms).sort(), t.aff.constant]));

/** The keys of `terms` in order: most indices have one or two (no sort's scratch array for those, once per access). */
function sortedNames(terms: Readonly<Record<string, number>>): string[] {
  const names = Object.keys(terms);
  if (names.length === 2) {
    if (names[0]! > names[1]!) return [names[1]!, names[0]!];
  } else if (names.length > 2) names.sort();
  return names;
}

/** One access of a flat array: its index and the inames it runs within. */
export interface FlatAccess {
  readonly index: Expr;
  readonly within: readonly string[];
  /** Affine guards `g >= 0` (from enclosing `if`s) that hold where the access runs. */
  readonly guards: readonly Aff[];
}

/**
 * `[max index + 1]` over all accesses, when every index is affine and their maxima share one
 * symbolic form (constants compare; `n - 1` and `n` give `n + 1`); undefined otherwise.
 */
export function footprintShape(k: Kernel, accesses: readonly FlatAccess[], notParams: ReadonlySet<string>): Expr[] | undefined {
  let m: MaxIndex | undefined;
  // Accesses that differ only in the constant of their index (unrolled code: `A[base + 0]`,
  // `A[base + 1]`, …) reach their largest index at the same point: one bound per group, at the
  // largest constant, keeps the cost linear in the accesses.
  // Keyed by the identity of the within and guard lists (the log shares one per statement list:
  // equal lists of other identities only make more groups, same maximum) and the index's terms.
  const groups = new Map<string, { idx: Aff; within: readonly string[]; guards: readonly Aff[] }>();
  const ids = new Map<object, number>();
  const idOf = (x: object): number => {
    let n = ids.get(x);
    if (n === undefined) ids.set(x, (n = ids.size));
    return n;
  };
  for (const a of accesses) {
    const idx = exprToAff(a.index);
    if (!idx) return undefined;
    let key = `${idOf(a.within)} ${idOf(a.guards)}`;
    for (const n of sortedNames(idx.terms)) key += ` ${n}*${idx.terms[n]}`;
    const g = groups.get(key);
    if (!g || g.idx.constant < idx.constant) groups.set(key, { idx, within: a.within, guards: a.guards });
  }
  for (const a of groups.values()) {
    const idx = a.idx;
    let mx: MaxIndex | undefined;
    try {
      const bound = maxIndex(k, a.within, idx, a.guards);
      const rational = bound && fromBound(bound);
      // Guards can cut below every iname's own extreme: then the rational maximum under them is the one to keep.
      const box = a.guards.length === 0 && !(rational && isConstant(rational)) ? boxMax(k, a.within, idx) : undefined;
      mx = box ?? rational;
    } catch {
      return undefined;
    }
    if (!mx || mx.terms.some((t) => Object.keys(t.aff.terms).some((n) => notParams.has(n)))) return undefined;
    if (m === undefined) m = mx;
    else if (maxKey(m) === maxKey(mx)) m = m.constant >= mx.constant ? m : mx;
    else return undefined;
  }
  if (m === undefined) return undefined;
  // max + 1, each floor(aff / d) as aff // d
  let out: Expr | undefined;
  for (const t of m.terms) {
    const num = affToExpr(t.aff);
    const fl: Expr = t.denom === 1 ? num : { kind: "arith", op: "//", left: num, right: c(t.denom) };
    const term: Expr = t.coef === 1 ? fl : { kind: "arith", op: "*", left: c(t.coef), right: fl };
    out = out === undefined ? term : { kind: "arith", op: "+", left: out, right: term };
  }
  const k1 = m.constant + 1;
  if (out === undefined) return [c(k1)];
  const extent: Expr = k1 === 0 ? out : { kind: "arith", op: k1 > 0 ? "+" : "-", left: out, right: c(Math.abs(k1)) };
  // The form is the extent where the accesses run; where their loops are empty (`out[5 * b]` over
  // `b < N` at N = 0: `5 * N - 4`) nothing is touched and the extent is 0, not a negative number
  // a run would refuse. A form that cannot be negative for parameters >= 0 is kept as it is.
  return [nonNegative(m, k1) ? extent : { kind: "call", fn: "max", args: [extent, c(0)] }];
}

/** Whether `Σ coef * floor(aff / denom) + k1` is >= 0 wherever every parameter is >= 0 (its least value there, each part at its least). */
function nonNegative(m: MaxIndex, k1: number): boolean {
  let least = k1;
  for (const t of m.terms) {
    if (t.coef < 0 || Object.values(t.aff.terms).some((x) => x < 0)) return false;
    least += t.coef * Math.floor(t.aff.constant / t.denom);
  }
  return least >= 0;
}

/**
 * The integer range `[min, max]` of `index` over the domain of `inames` where `guards` hold, when
 * both ends are constants; undefined where the index is not affine in inames and parameters (it
 * reads memory or a private variable) or an end depends on a parameter.
 *
 *   indexRange(k, ["n"], n + 4, [])   // over 0 <= n < 8: { min: 4, max: 11 }
 */
export function indexRange(k: Kernel, inames: readonly string[], index: Expr, guards: readonly Aff[]): { readonly min: number; readonly max: number } | undefined {
  const a = exprToAff(index);
  if (!a) return undefined;
  if (Object.keys(a.terms).length === 0) return { min: a.constant, max: a.constant };
  try {
    const hi = maxIndex(k, inames, a, guards);
    const lo = hi && maxIndex(k, inames, affScale(a, -1), guards);
    const value = (b: Bound | undefined) => (b && Object.keys(b.aff.terms).length === 0 ? Math.floor(b.aff.constant / b.denom) : undefined);
    const [max, negMin] = [value(hi), value(lo)];
    return max === undefined || negMin === undefined ? undefined : { min: -negMin, max };
  } catch {
    return undefined;
  }
}
