/**
 * The predicates that keep a fetch (transforms/fetch-store.ts) inside the array it reads: each
 * bound of the array's shape that the store's domain, within the context of its outer loops, does
 * not imply.
 *
 * Most bounds are implied by a face of the footprint's box, which is proved here without a set
 * operation: every point of the store's domain is a point of the footprint (shifted to start at
 * the box's base) or of its box, so it satisfies every face of the box (`BoxAxis.lowers`/`uppers`
 * hold in every piece and bound the box set). The index along axis r is the box dimension itself
 * (`base + a_dim_j`, or `base` for an axis of extent 1), so `index >= 0` holds when a lower face
 * is a constant >= 0, and `index <= extent - 1` when `extent - 1 - U` is a constant >= 0 for an
 * upper face U. Only the bounds no face proves are asked of the domain exactly (an emptiness test
 * on the domain within its context), as before: the predicates are the same, in the same order.
 */
import { exprToAff, type BoxAxis } from "../src/analysis/index.js";
import type { Expr, Kernel } from "../src/ir/index.js";
import { aff, affAdd, affIsConstant, affSub, intersect, isEmptyWith, type Aff, type BasicSet } from "../src/poly/index.js";
import { constraintExpr } from "./fetch-widen.js";

/** Whether `index >= 0` (lower) or `index <= extent - 1` (upper) follows from a face of `b` alone. */
export function boundByFace(b: Pick<BoxAxis, "lowers" | "uppers">, side: "lower" | "upper", ext: Aff): boolean {
  if (side === "lower") return b.lowers.some((L) => affIsConstant(L) && L.constant >= 0);
  return b.uppers.some((U) => {
    const slack = affSub(affSub(ext, aff({}, 1)), U);
    return affIsConstant(slack) && slack.constant >= 0;
  });
}

/** The names the shape's bounds may use as integers: the kernel's inames (`kernelInames`, always allInames(k)) and its domains' parameters. */
export function clipIntNames(k: Kernel, kernelInames: ReadonlySet<string>): ReadonlySet<string> {
  const known = intNamesOf.get(k);
  if (known !== undefined) return known;
  const out = new Set(kernelInames);
  for (const d of k.domains) for (const p of d.params) out.add(p);
  if (Object.isFrozen(k) && Object.isFrozen(k.domains)) intNamesOf.set(k, out);
  return out;
}

/**
 * Whether `n` is one of `clipIntNames(k, kernelInames)`, asked without building that set (a fetch
 * of a tile asks of a few names of the shape, in a kernel it sees once).
 */
export function isClipIntName(k: Kernel, kernelInames: ReadonlySet<string>, n: string): boolean {
  if (kernelInames.has(n)) return true;
  for (const d of k.domains) if (d.params.includes(n)) return true;
  return false;
}

/** clipIntNames by frozen kernel (`kernelInames` is always its inames): asked by each fetch's clip and memo key. */
const intNamesOf = new WeakMap<Kernel, ReadonlySet<string>>();

/**
 * The clip predicates of a store over `dom` (its new inames `dimNames`, one per stored axis
 * `stored[j]`), within `ctx` (its outer loops and the parameters' constraints), reading an array
 * of shape `shape` through the footprint box `box`.
 */
export function clipPredicates(
  k: Kernel, shape: readonly Expr[], box: readonly BoxAxis[], stored: readonly number[], dimNames: readonly string[],
  dom: BasicSet, ctx: BasicSet | undefined, kernelInames: ReadonlySet<string>,
): Expr[] {
  const clip: Expr[] = [];
  let where: BasicSet | undefined;
  const whereSet = (): BasicSet => {
    if (where !== undefined) return where;
    where = ctx === undefined ? dom : intersect(dom, ctx);
    if (k.assumptions.constraints.length > 0) where = intersect(where, k.assumptions);
    return where;
  };
  const intNames = clipIntNames(k, kernelInames);
  box.forEach((b, r) => {
    const ext = exprToAff(shape[r]!, (n) => intNames.has(n));
    if (!ext) return;
    const j = stored.indexOf(r);
    const idx = j >= 0 ? affAdd(b.baseAff, aff({ [dimNames[j]!]: 1 })) : b.baseAff;
    const conds: [Aff, "lower" | "upper"][] = [[idx, "lower"], [affSub(affSub(ext, idx), aff({}, 1)), "upper"]];
    for (const [cond, side] of conds) {
      if (boundByFace(b, side, ext)) continue;
      // Implied when no point of the domain has cond < 0.
      if (!isEmptyWith(whereSet(), affSub(aff({}, -1), cond))) clip.push(constraintExpr(cond, false));
    }
  });
  return clip;
}
