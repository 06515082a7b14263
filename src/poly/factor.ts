/**
 * Independent factors of a set (ALGORITHMS.md §6): dims and existentials that no constraint links
 * are separate problems. `{[io, ii, jo, ji]: 0 <= ii < 16 and 0 <= 16io + ii < n and 0 <= ji < 8
 * and 0 <= 8jo + ji < n}` is the product of an `(io, ii)` set and a `(jo, ji)` set over `n`: the
 * bounds of `ii` depend on the first alone. Parameters do not link factors (every factor keeps
 * them); the rows over parameters alone, with their existentials (`n mod 64 = 0`), are the
 * parameter part, which every factor's restriction carries.
 *
 * A question about one dim asked of its factor is a smaller problem, and one whose content repeats
 * across a sweep of tiling variants: the `i` factor of a tiled domain is the same whenever the `i`
 * tile size is, although the whole domain is new.
 */
import type { BasicSet, Constraint } from "./types.js";
import { findRoot, rawSet } from "./rows.js";
import { isCanonicalEmpty } from "./normalize.js";

/** For each dim and existential (in column order), its factor; -1 for the parameter part. */
const factorsMemo = new WeakMap<BasicSet, Int32Array>();

function factorsOf(s: BasicSet): Int32Array {
  let of = factorsMemo.get(s);
  if (of !== undefined) return of;
  const np = s.params.length;
  const nv = s.dims.length + s.exists.length;
  const parent = new Int32Array(nv);
  for (let k = 0; k < nv; k++) parent[k] = k;
  const find = (x: number): number => findRoot(parent, x);
  for (const c of s.constraints) {
    let first = -1;
    for (let k = 0; k < nv; k++) {
      if ((c.coeffs[np + k] ?? 0) === 0) continue;
      const r = find(k);
      if (first < 0) first = r;
      else if (r !== first) parent[r] = first;
    }
  }
  of = new Int32Array(nv).fill(-1);
  const idOfRoot = new Map<number, number>();
  for (let k = 0; k < s.dims.length; k++) {
    const r = find(k);
    let id = idOfRoot.get(r);
    if (id === undefined) idOfRoot.set(r, (id = idOfRoot.size));
    of[k] = id;
  }
  for (let k = s.dims.length; k < nv; k++) of[k] = idOfRoot.get(find(k)) ?? -1;
  factorsMemo.set(s, of);
  return of;
}

/**
 * The factor of `s` that holds the dim `names` (or the factors that hold any of `names`), with the
 * parameter part: its dims (in `s`'s order), its existentials and those of the parameter part, and
 * every row over those columns alone. `s` itself when that is every factor. The restriction of a
 * set in normal form is in normal form (a subsequence of its sorted rows, no row or existential
 * changed). Where the set has points it is exactly the projection of `s` on its dims, so a
 * question about those dims alone (bounds, footprints) gets the answer `s` would give. Names that
 * are not dims of `s` (parameters, inames of an inner loop) select nothing: with none, the answer
 * is the parameter part alone.
 *
 *   factorOf({[io, ii, jo]: 0 <= ii < 16 and 0 <= 16io + ii < n and 0 <= jo < n}, "ii")
 *     // {[io, ii]: 0 <= ii < 16 and 0 <= 16io + ii < n}
 */
export function factorOf(s: BasicSet, names: string | readonly string[]): BasicSet {
  if (isCanonicalEmpty(s)) return s;
  // Remembered per set object: a memoized set asked again gets the same factor object back,
  // whose content key is then computed once.
  const key = typeof names === "string" ? names : names.join(",");
  let byNames = restrictMemo.get(s);
  if (byNames === undefined) restrictMemo.set(s, (byNames = new Map()));
  let hit = byNames.get(key);
  if (hit === undefined) byNames.set(key, (hit = restrict(s, names)));
  return hit;
}

const restrictMemo = new WeakMap<BasicSet, Map<string, BasicSet>>();

function restrict(s: BasicSet, names: string | readonly string[]): BasicSet {
  const of = factorsOf(s);
  const want = new Set<number>();
  for (const d of typeof names === "string" ? [names] : names) {
    const at = s.dims.indexOf(d);
    if (at >= 0) want.add(of[at]!);
  }
  const np = s.params.length;
  const nd = s.dims.length;
  const nv = of.length;
  let whole = true;
  for (let k = 0; k < nd && whole; k++) if (!want.has(of[k]!)) whole = false;
  if (whole) return s;
  const newAt = new Int32Array(nv).fill(-1);
  const dims: string[] = [];
  const exists: string[] = [];
  for (let k = 0; k < nd; k++) {
    if (!want.has(of[k]!)) continue;
    newAt[k] = np + dims.length;
    dims.push(s.dims[k]!);
  }
  for (let k = nd; k < nv; k++) {
    if (!want.has(of[k]!) && of[k] !== -1) continue;
    newAt[k] = np + dims.length + exists.length;
    exists.push(s.exists[k - nd]!);
  }
  const n = np + dims.length + exists.length;
  const constraints: Constraint[] = [];
  for (const c of s.constraints) {
    let inside = true;
    for (let k = 0; k < nv && inside; k++) if ((c.coeffs[np + k] ?? 0) !== 0 && newAt[k]! < 0) inside = false;
    if (!inside) continue;
    const coeffs = new Array<number>(n).fill(0);
    for (let k = 0; k < np; k++) coeffs[k] = c.coeffs[k] ?? 0;
    for (let k = 0; k < nv; k++) {
      const v = c.coeffs[np + k] ?? 0;
      if (v !== 0) coeffs[newAt[k]!] = v;
    }
    constraints.push(Object.freeze({ eq: c.eq, coeffs: Object.freeze(coeffs), constant: c.constant }));
  }
  return rawSet(s.params, dims, exists, constraints);
}
