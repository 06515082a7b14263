/**
 * Shapes of OKL pointer arguments from their access footprints: `a[i]` over `0 <= i < N` gives
 * `[N]`. The largest index over each access's iteration domain must be one affine form in the
 * parameters, else the argument stays unsized (run asks for its length).
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

const affKey = (a: Aff): string => JSON.stringify(Object.entries(a.terms).sort());

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
  let m: Bound | undefined;
  for (const a of accesses) {
    const idx = exprToAff(a.index);
    if (!idx) return undefined;
    let mx: Bound | undefined;
    try {
      mx = maxIndex(k, a.within, idx, a.guards);
    } catch {
      return undefined;
    }
    if (!mx || Object.keys(mx.aff.terms).some((t) => notParams.has(t))) return undefined;
    if (m === undefined) m = mx;
    else if (affKey(m.aff) === affKey(mx.aff) && m.denom === mx.denom) m = m.aff.constant >= mx.aff.constant ? m : mx;
    else return undefined;
  }
  if (m === undefined) return undefined;
  // floor(aff / d) + 1 = (aff + d) // d
  const num = affToExpr(affAdd(m.aff, aff({}, m.denom)));
  return [m.denom === 1 ? num : { kind: "arith", op: "//", left: num, right: c(m.denom) }];
}
