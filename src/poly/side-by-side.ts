/**
 * The intersection of two sets over disjoint columns without normalizing (issue 21): where both
 * are in normal form, their rows side by side, sorted, are the normal form of the intersection
 * (`intersect` takes this route; `intersectByNormalizing` is the reference of its law).
 */
import type { BasicSet } from "./types.js";
import type { Sys } from "./rows.js";
import { isCanonicalEmpty, knownNormal } from "./normalize.js";

/**
 * Whether the normal form of `a ∧ b` is their rows side by side, sorted, without normalizing
 * (issue 21: a prefetch's domain is the projected loop nest times the fetch's own box, new in
 * every variant of a sweep): both in normal form and not empty, existentials on one side at
 * most, the two sides' rows over disjoint columns (none without one), and each side's columns in
 * its own order among the result's. Every step of the normal form acts on rows that share a
 * column (parallel rows, pivots eliminated, existentials substituted or dropped) and picks pivots
 * by column order, so between the sides it has nothing to do, and within each it changes nothing
 * (test/poly/intersect-side-by-side.test.ts: the same set as the normalizing route).
 */
export function sideBySide(a: BasicSet, b: BasicSet, sa: Sys, sb: Sys, params: readonly string[], dims: readonly string[]): boolean {
  if (a.exists.length > 0 && b.exists.length > 0) return false;
  const n = sa.n;
  const usedA = usedColumns(sa);
  const usedB = usedColumns(sb);
  if (usedA === undefined || usedB === undefined) return false;
  for (let k = 0; k < n; k++) if (usedA[k] && usedB[k]) return false;
  if (!keepsOrder(a, usedA, params, dims, 0) || !keepsOrder(b, usedB, params, dims, a.exists.length)) return false;
  return isNormal(a) && isNormal(b);
}

/** Per column, whether some row of `sys` uses it; undefined where a row uses none (a constant row). */
function usedColumns(sys: Sys): boolean[] | undefined {
  const used = new Array<boolean>(sys.n).fill(false);
  for (const rows of [sys.eqs, sys.ineqs]) {
    for (const r of rows) {
      let any = false;
      for (let k = 0; k < sys.n; k++) {
        if (r[k] !== 0) {
          used[k] = true;
          any = true;
        }
      }
      if (!any) return undefined;
    }
  }
  return used;
}

/** Whether the columns of `s` that its rows use come in `s`'s own order in the result's columns (`embedRows`'s placement). */
function keepsOrder(s: BasicSet, used: readonly boolean[], params: readonly string[], dims: readonly string[], exOffset: number): boolean {
  const base = params.length + dims.length;
  const exStart = base + exOffset;
  let last = -1;
  const own = s.params.length + s.dims.length;
  for (let k = 0; k < own + s.exists.length; k++) {
    let at: number;
    if (k < own) {
      const name = k < s.params.length ? s.params[k]! : s.dims[k - s.params.length]!;
      at = params.indexOf(name);
      if (at < 0) at = params.length + dims.indexOf(name);
    } else at = exStart + (k - own);
    if (!used[at]) continue;
    if (at < last) return false;
    last = at;
  }
  return true;
}

/** Whether `s` is in normal form and not empty (known so from where it was made: `knownNormal`). */
function isNormal(s: BasicSet): boolean {
  return !isCanonicalEmpty(s) && knownNormal(s);
}
