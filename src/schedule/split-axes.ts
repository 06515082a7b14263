/**
 * A group axis read off the rows of a split (issue 21): `splitIname(k, "i", T, {outerTag: "g.0"})`
 * leaves `i_outer` with one partner, `i_inner`, in rows of one shape,
 *
 *   a <= i_inner <= b,   i_inner + T*i_outer + c1 >= 0,   -i_inner - T*i_outer + P + c2 >= 0
 *
 * (`P` affine in the parameters). Eliminating `i_inner` (its coefficients are ±1: Fourier-Motzkin
 * is exact) gives `i_outer >= ceil(-(c1 + b)/T)` and `i_outer <= floor((P + c2 - a)/T)`: the
 * bounds `dimBounds` finds on the factor `(i_outer, i_inner)`, which the general route
 * (device.ts `axisOf`) builds and projects for every variant of a tile-size sweep (a new domain
 * each). Here they are read off the owner domain's rows, no set built; any other shape is
 * undefined (the general route decides). test/schedule/split-axes.test.ts holds the law: the same
 * axis as `hwAxisOfChain`.
 */
import type { BasicSet, Bound } from "../poly/index.js";

/**
 * The bounds `dimBounds(factorOf(owner, iname), iname, [])` has, where `iname` and one partner
 * dim make a split of the shape above in `owner` (each named by `owner` alone per `owners`, no
 * row over them using an iname as a parameter, no existential, no row over parameters alone);
 * else undefined.
 */
export function splitBounds(owner: BasicSet, owners: ReadonlyMap<string, BasicSet | null>, iname: string): { lower: Bound[]; upper: Bound[] } | undefined {
  const np = owner.params.length;
  const o = owner.dims.indexOf(iname);
  if (o < 0 || owner.exists.length > 0) return undefined;
  const rows = owner.constraints;
  const nc = np + owner.dims.length;
  // The partner: the one other dim of the rows over `iname`.
  let x = -1;
  for (let r = 0; r < rows.length; r++) {
    const cs = rows[r]!.coeffs;
    if ((cs[np + o] ?? 0) === 0) continue;
    for (let d = 0; d < owner.dims.length; d++) {
      if (d === o || (cs[np + d] ?? 0) === 0) continue;
      if (x >= 0 && x !== d) return undefined;
      x = d;
    }
  }
  if (x < 0 || owners.get(iname) !== owner || owners.get(owner.dims[x]!) !== owner) return undefined;
  let a: number | undefined;
  let b: number | undefined;
  let lowerRow = -1;
  let upperRow = -1;
  let T = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const cs = row.coeffs;
    let dims = false;
    for (let d = np; d < nc; d++) if ((cs[d] ?? 0) !== 0) dims = true;
    // A row over the parameters alone belongs to the factor (and could narrow what dimBounds says).
    if (!dims) return undefined;
    const co = cs[np + o] ?? 0;
    const cx = cs[np + x] ?? 0;
    if (co === 0 && cx === 0) continue;
    // Every row over the pair names no other dim (the pair is a factor of its own).
    for (let d = 0; d < owner.dims.length; d++) if (d !== o && d !== x && (cs[np + d] ?? 0) !== 0) return undefined;
    if (row.eq || (cx !== 1 && cx !== -1)) return undefined;
    if (co === 0) {
      // A bound of the partner alone: one each way, constant.
      for (let p = 0; p < np; p++) if ((cs[p] ?? 0) !== 0) return undefined;
      if (cx > 0) {
        if (a !== undefined) return undefined;
        a = -row.constant;
      } else {
        if (b !== undefined) return undefined;
        b = row.constant;
      }
      continue;
    }
    // ±(x + T*o) + … >= 0, T > 0 the same in both rows.
    const t = co * cx;
    if (t <= 0 || (T !== 0 && t !== T)) return undefined;
    T = t;
    if (cx > 0) {
      // The lower row: constant only (c1).
      if (lowerRow >= 0) return undefined;
      for (let p = 0; p < np; p++) if ((cs[p] ?? 0) !== 0) return undefined;
      lowerRow = r;
    } else {
      if (upperRow >= 0) return undefined;
      // P: parameters that are no iname, each with coefficient ±1 (no common factor with T to divide out).
      for (let p = 0; p < np; p++) {
        const q = cs[p] ?? 0;
        if (q === 0) continue;
        if ((q !== 1 && q !== -1) || owners.has(owner.params[p]!)) return undefined;
      }
      upperRow = r;
    }
  }
  if (a === undefined || b === undefined || lowerRow < 0 || upperRow < 0 || a > b) return undefined;
  const up = rows[upperRow]!;
  const terms: Record<string, number> = {};
  let any = false;
  for (let p = 0; p < np; p++) {
    const q = up.coeffs[p] ?? 0;
    if (q !== 0) (terms[owner.params[p]!] = q, any = true);
  }
  // With no parameter both bounds are constants, which dimBounds gives rounded (denominator 1).
  const lo = Math.ceil(-(rows[lowerRow]!.constant + b) / T) + 0;
  const hiNum = up.constant - a;
  // (No parameter and no point: the general route says what an empty range is.)
  if (!any && Math.floor(hiNum / T) < lo) return undefined;
  const upper: Bound = any ? { aff: { terms, constant: hiNum }, denom: T } : { aff: { terms, constant: Math.floor(hiNum / T) + 0 }, denom: 1 };
  return { lower: [{ aff: { terms: {}, constant: lo }, denom: 1 }], upper: [upper] };
}
