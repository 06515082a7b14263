/**
 * Where a split domain came from (transforms/iname.ts's splitIname, and a fetch's store split
 * alone): questions whose answers a split keeps (emptiness; a factor without the split iname) are
 * asked of the domain it was split from, whose content a sweep's variants share.
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
  for (let up = splitOrigins.get(x); up !== undefined; up = splitOrigins.get(x)) x = up.from;
  return x;
}

/**
 * Whether `d` has no point within `assumptions`, asked of the domain `d` was split from when it
 * was (a split maps the points of each parameter value one to one, so this holds under
 * any constraints on the parameters): a fetch of a sweep's variant asks the unsplit domain.
 */
export function isEmptyDomainUnder(d: BasicSet, assumptions: BasicSet): boolean {
  const x = unsplit(d);
  return isEmpty(assumptions.constraints.length > 0 ? intersect(x, assumptions) : x);
}

/**
 * `d` with `iname` split as splitIname splits it (splitDim), remembered as empty exactly when `d`
 * is: for a split made outside splitIname (a fetch's store tagged alone).
 */
export function splitDomain(d: BasicSet, iname: string, outer: string, inner: string, factor: number): BasicSet {
  const out = splitDim(d, iname, outer, inner, factor);
  if (out !== d) recordSplit(out, { from: d, iname, outer, inner });
  return out;
}

/** A domain made by splitting `iname` of the domain `from` into `outer` and `inner` (splitDim). */
export interface SplitOrigin {
  readonly from: BasicSet;
  readonly iname: string;
  readonly outer: string;
  readonly inner: string;
}

const splitOrigins = new WeakMap<BasicSet, SplitOrigin>();

/** Record that `out` is `origin`'s split (splitIname's domains, splitDomain's). */
export function recordSplit(out: BasicSet, origin: SplitOrigin): void {
  splitOrigins.set(out, origin);
}

/**
 * The split `d` was made by (splitIname, splitDomain), or undefined. Every row of `d` without the
 * new inames is a row of `from` (splitDim rewrites only the rows of the split iname), so what a
 * question asks of a factor that the split iname is not in (factorOf) has the same answer there.
 */
export function splitOriginOf(d: BasicSet): SplitOrigin | undefined {
  return splitOrigins.get(d);
}
