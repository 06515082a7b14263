/**
 * Whether accesses of two instructions can touch one cell from different work-groups or
 * work-items: an emptiness question on pairs of points, asked by the cross-group dependency check
 * (kernel-boundaries.ts) and by barrier placement (barriers.ts).
 */
import { exprToAff, iterationDomain, type Expr, type Instruction, type Kernel } from "../ir/index.js";
import { addConstraints, aff, affAdd, affSub, intersect, isEmpty, rename, type Aff } from "../poly/index.js";

const TWIN = "__meet_twin";

/**
 * Whether some instance of `a` (accessing one variable with subscripts `ia`) and some instance of
 * `b` (with `ib`) that differ in one of the hardware inames `axes` touch the
 * same cell: two work-groups (g inames) or two work-items (l inames) meeting in memory; an
 * instruction outside one of `axes` runs for every agent along it, so any common cell meets. Any other
 * iname may differ too (another iteration of a sequential loop). Subscripts out of the affine
 * model constrain nothing (so they may meet), nor does a whole-variable access (`undefined`); a
 * parameter that is no value argument (a bound read from a temporary) proves nothing. The inames
 * `same` (both run inside them) are equal at both ends: host loops of one launch, the group of a
 * local barrier.
 */
export function mayMeetAcross(
  k: Kernel, a: Instruction, ia: readonly Expr[] | undefined, b: Instruction, ib: readonly Expr[] | undefined, axes: readonly string[], same: readonly string[],
): boolean {
  const values = new Set(k.args.filter((x) => x.kind === "value").map((x) => x.name));
  const aSet = new Set(a.withinInames);
  const bSet = new Set(b.withinInames);
  const twin = (n: string) => (bSet.has(n) ? n + TWIN : n);
  let da = iterationDomain(k, a.withinInames);
  const db0 = iterationDomain(k, b.withinInames);
  if ([...da.params, ...db0.params].some((p) => !values.has(p))) return true;
  const renames: Record<string, string> = {};
  for (const n of db0.dims) if (bSet.has(n)) renames[n] = twin(n);
  const db = rename(db0, renames);
  let pairs = intersect(da, db);
  if (k.assumptions.constraints.length > 0) pairs = intersect(pairs, k.assumptions);
  const rows: { aff: Aff; eq: boolean }[] = same.filter((h) => aSet.has(h) && bSet.has(h)).map((h) => ({ aff: affSub(aff({ [h]: 1 }), aff({ [twin(h)]: 1 })), eq: true }));
  if (ia && ib && ia.length === ib.length) {
    ia.forEach((e, x) => {
      const fa = exprToAff(e, (n) => aSet.has(n) || values.has(n));
      const fb = exprToAff(ib[x]!, (n) => bSet.has(n) || values.has(n));
      if (!fa || !fb) return;
      const fbT: Aff = { terms: Object.fromEntries(Object.entries(fb.terms).map(([n, c]) => [twin(n), c])), constant: fb.constant };
      rows.push({ aff: affSub(fa, fbT), eq: true });
    });
  }
  da = addConstraints(pairs, rows);
  // An instruction outside an axis runs for every agent along it: they differ freely there.
  if (axes.some((g) => !aSet.has(g) || !bSet.has(g))) return !isEmpty(da);
  // Different agents: some shared axis iname differs (either way).
  return axes.some((g) => {
    const apart = (sign: 1 | -1) => ({ aff: affAdd(affSub(aff({ [twin(g)]: sign }), aff({ [g]: sign })), aff({}, -1)), eq: false });
    return !isEmpty(addConstraints(da, [apart(1)])) || !isEmpty(addConstraints(da, [apart(-1)]));
  });
}

