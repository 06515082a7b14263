/**
 * Bounds of a dim read off the rows of a set over that dim alone (`0 <= i_inner`, `i_inner <= 15`
 * of a split; a fetch's `0 <= a_dim_0 < 16`), with no projection: the tag checks (checks.ts) and
 * the local axes (device.ts) start from them.
 */
import type { BasicSet } from "../poly/index.js";

/**
 * The tightest constant bounds `[lo, hi]` of dim `name` of `s` that rows over it alone say
 * (`-Infinity`/`Infinity` where none does), or undefined where such an equality has no integer
 * solution (the set is empty) or `name` is no dim of `s`. Every point of `s` lies in `lo … hi`.
 */
export function rowBounds(s: BasicSet, name: string): [number, number] | undefined {
  const d = s.dims.indexOf(name);
  if (d < 0) return undefined;
  const at = s.params.length + d;
  let lo = -Infinity;
  let hi = Infinity;
  for (const row of s.constraints) {
    const a = row.coeffs[at] ?? 0;
    if (a === 0) continue;
    let alone = true;
    for (let x = 0; x < row.coeffs.length; x++) if (x !== at && (row.coeffs[x] ?? 0) !== 0) alone = false;
    if (!alone) continue;
    // a·x + c >= 0 (or = 0): x >= ceil(-c/a) where a > 0, x <= floor(c/|a|) where a < 0.
    if (row.eq && row.constant % a !== 0) return undefined;
    if (a > 0 || row.eq) lo = Math.max(lo, Math.ceil(-row.constant / a));
    if (a < 0 || row.eq) hi = Math.min(hi, Math.floor(-row.constant / a));
  }
  // (+ 0: no -0 from ceil(-0 / 1) in a printed bound.)
  return [lo + 0, hi + 0];
}
