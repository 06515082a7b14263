/**
 * Where a split domain came from (transforms/iname.ts's splitIname, and a fetch's store split
 * alone): emptiness, which a split keeps, is asked of the domain it was split from, whose content
 * a sweep's variants share.
 */
import { intersect, isEmpty, splitDim, type BasicSet } from "../src/poly/index.js";

/**
 * `isEmpty(d)`, asked of the domain `d` was split from when it was: `i = factor*i_outer + i_inner`
 * with `0 <= i_inner < factor` maps each point of the old domain to exactly one point of the new,
 * so tagging a split iname asks the old domain, whose content a sweep's variants share, instead
 * of each variant's new one.
 */
export function isEmptyDomain(d: BasicSet): boolean {
  return isEmpty(unsplit(d));
}

/** The domain `d` was split from, through every split, or `d`. */
function unsplit(d: BasicSet): BasicSet {
  let x = d;
  for (let up = splitFrom.get(x); up !== undefined; up = splitFrom.get(x)) x = up;
  return x;
}

/**
 * Whether `d` has no point within `assumptions`, asked of the domain `d` was split from when it
 * was (a split maps the points of each parameter value one to one, so this holds under
 * any constraints on the parameters): a fetch of a sweep's variant asks the unsplit domain.
 */
export function isEmptyDomainUnder(d: BasicSet, assumptions: BasicSet): boolean {
  const x = unsplit(d);
  if (!Object.isFrozen(x) || !Object.isFrozen(assumptions)) return isEmpty(assumptions.constraints.length > 0 ? intersect(x, assumptions) : x);
  // The answer for the unsplit domain and the assumptions, by those objects (a sweep's variants
  // share both, and each fetch asks twice): an exact function of their content, kept no longer
  // than the objects.
  let byAssumptions = emptyUnder.get(x);
  if (byAssumptions === undefined) emptyUnder.set(x, (byAssumptions = new WeakMap()));
  let empty = byAssumptions.get(assumptions);
  if (empty === undefined) byAssumptions.set(assumptions, (empty = isEmpty(assumptions.constraints.length > 0 ? intersect(x, assumptions) : x)));
  return empty;
}

const emptyUnder = new WeakMap<BasicSet, WeakMap<BasicSet, boolean>>();

/**
 * `d` with `iname` split as splitIname splits it (splitDim), remembered as empty exactly when `d`
 * is: for a split made outside splitIname (a fetch's store tagged alone).
 */
export function splitDomain(d: BasicSet, iname: string, outer: string, inner: string, factor: number): BasicSet {
  const out = splitDim(d, iname, outer, inner, factor);
  if (out !== d) recordSplit(out, d);
  return out;
}

const splitFrom = new WeakMap<BasicSet, BasicSet>();

/** Record that the domain `out` was split from `from` (splitIname's domains, splitDomain's). */
export function recordSplit(out: BasicSet, from: BasicSet): void {
  splitFrom.set(out, from);
}
