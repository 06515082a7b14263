/**
 * Shapes from accesses: the bounding box of the indices an array is accessed with, over the
 * iteration domain of each access (loopy's shape guessing for arguments and `<> t[i]`
 * temporaries). Indices must be affine in inames and parameters.
 */
import { iterationDomain } from "../ir/domain.js";
import type { Kernel } from "../ir/kernel.js";
import { addConstraints, aff, affAdd, affScale, dimBounds, intersect, universe, type Aff, type Bound } from "../poly/index.js";

export { exprToAff, affToReadableExpr as affToExpr } from "../ir/index.js";

/** The range of an affine index over the domain of `inames`: for `i + 1` with `0 <= i < n`, lower [1], upper [n]. */
export function indexBounds(k: Kernel, inames: ReadonlySet<string>, index: Aff): { lower: readonly Bound[]; upper: readonly Bound[] } {
  const used = Object.keys(index.terms).filter((n) => inames.has(n));
  const dom = iterationDomain(k, used);
  const idx = "__lp_index";
  const withIdx = intersect(dom, universe([], [idx]));
  const s = addConstraints(withIdx, [{ aff: affAdd(aff({ [idx]: 1 }, 0), affScale(index, -1)), eq: true }]);
  return dimBounds(s, idx, []);
}

const isConst = (b: Bound): boolean => Object.keys(b.aff.terms).length === 0;
const affKey = (a: Aff): string => JSON.stringify(Object.entries(a.terms).sort());

/**
 * The largest value of the index as a single affine form (`[n - 1]` → n - 1; `[7, n]` → 7), or
 * undefined when it is not one (several symbolic upper bounds, a division, no upper bound).
 */
export function maxOf(upper: readonly Bound[]): Aff | undefined {
  const consts = upper.filter(isConst).map((b) => Math.floor(b.aff.constant / b.denom));
  if (consts.length > 0) return aff({}, Math.min(...consts));
  const exact = upper.filter((b) => b.denom === 1);
  if (exact.length !== 1 || upper.length !== 1) return undefined;
  return exact[0]!.aff;
}

/** A constant the index is at least (`[0, 2]` → 2), or undefined when no lower bound is constant. */
export function constMin(lower: readonly Bound[]): number | undefined {
  const consts = lower.filter(isConst).map((b) => Math.ceil(b.aff.constant / b.denom));
  return consts.length > 0 ? Math.max(...consts) : undefined;
}

/**
 * Combine the largest indices of several accesses along one axis: `n - 1` and `n` give `n`
 * (same form, larger constant); `n` and `m` have no single bound (undefined).
 */
export function joinMax(a: Aff | undefined, b: Aff | undefined): Aff | undefined {
  if (!a || !b) return undefined;
  if (affKey(a) !== affKey(b)) return undefined;
  return a.constant >= b.constant ? a : b;
}
