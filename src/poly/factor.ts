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
import { rawSet } from "./rows.js";
import { isCanonicalEmpty, knownNormal, markNormal } from "./normalize.js";
import { internPicked, tally } from "./memo.js";

/** For each dim and existential (in column order), its factor; -1 for the parameter part. */
const factorsMemo = new WeakMap<BasicSet, readonly number[]>();

/**
 * Union-find over the dim and existential columns, rows read once each. Plain arrays and loops
 * (no closures, Maps or typed arrays): the sets are small and each is factored once, so the cost
 * is per call, not per entry.
 */
function factorsOf(s: BasicSet): readonly number[] {
  let of = factorsMemo.get(s);
  if (of !== undefined) return of;
  tally.factorings++;
  const np = s.params.length;
  const nd = s.dims.length;
  const nv = nd + s.exists.length;
  const parent: number[] = [];
  for (let k = 0; k < nv; k++) parent.push(k);
  const cs = s.constraints;
  for (let i = 0; i < cs.length; i++) {
    const xs = cs[i]!.coeffs;
    let first = -1;
    for (let k = 0; k < nv; k++) {
      if ((xs[np + k] ?? 0) === 0) continue;
      let r = k;
      while (parent[r] !== r) r = parent[r] = parent[parent[r]!]!;
      if (first < 0) first = r;
      else if (r !== first) parent[r] = first;
    }
  }
  // Root of each column, then ids numbered in order of the dims' first appearance.
  const idOfRoot: number[] = [];
  for (let k = 0; k < nv; k++) idOfRoot.push(-1);
  const out: number[] = [];
  let ids = 0;
  for (let k = 0; k < nv; k++) {
    let r = k;
    while (parent[r] !== r) r = parent[r]!;
    if (k < nd && idOfRoot[r] === -1) idOfRoot[r] = ids++;
    out.push(idOfRoot[r]!);
  }
  factorsMemo.set(s, out);
  return out;
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
  if (hit === undefined) {
    byNames.set(key, (hit = restrict(s, names)));
    // A factor of a set in normal form is in normal form (see restrict).
    if (hit !== s && knownNormal(s)) markNormal(hit);
  }
  return hit;
}

const restrictMemo = new WeakMap<BasicSet, Map<string, BasicSet>>();

function restrict(s: BasicSet, names: string | readonly string[]): BasicSet {
  tally.restrictions++;
  const of = factorsOf(s);
  const np = s.params.length;
  const nd = s.dims.length;
  const nv = of.length;
  // want[id]: factor id is selected (ids count from 0 up to fewer than nd).
  const want: boolean[] = [];
  for (let k = 0; k < nd; k++) want.push(false);
  if (typeof names === "string") {
    const at = s.dims.indexOf(names);
    if (at >= 0) want[of[at]!] = true;
  } else {
    for (let j = 0; j < names.length; j++) {
      const at = s.dims.indexOf(names[j]!);
      if (at >= 0) want[of[at]!] = true;
    }
  }
  let whole = true;
  for (let k = 0; k < nd && whole; k++) if (!want[of[k]!]) whole = false;
  if (whole) return s;
  // newAt[k]: the new column of dim/existential k, or -1 when it is dropped.
  const newAt: number[] = [];
  const dims: string[] = [];
  const exists: string[] = [];
  for (let k = 0; k < nd; k++) {
    if (want[of[k]!]) {
      newAt.push(np + dims.length);
      dims.push(s.dims[k]!);
    } else newAt.push(-1);
  }
  for (let k = nd; k < nv; k++) newAt.push(of[k] === -1 || want[of[k]!] ? 1 : -1);
  for (let k = nd; k < nv; k++) {
    if (newAt[k] === -1) continue;
    newAt[k] = np + dims.length + exists.length;
    exists.push(s.exists[k - nd]!);
  }
  // The factor's columns: the parameters, then the kept dims and existentials (cols[j]: the
  // column of `s` that new column j is), and the rows over those columns alone.
  const cols: number[] = [];
  for (let k = 0; k < np; k++) cols.push(k);
  for (let k = 0; k < nv; k++) if (newAt[k]! >= 0) cols[newAt[k]!] = np + k;
  const rows: number[] = [];
  const cs = s.constraints;
  for (let i = 0; i < cs.length; i++) {
    const xs = cs[i]!.coeffs;
    let inside = true;
    for (let k = 0; k < nv; k++) {
      if ((xs[np + k] ?? 0) !== 0 && newAt[k]! < 0) {
        inside = false;
        break;
      }
    }
    if (inside) rows.push(i);
  }
  // The factors of a sweep's domains repeat (the `i` factor is the same whenever the `i` tile size
  // is): interned at creation, looked up through the column map before anything is built, a
  // repeated one is the object seen before, with its key and its own factors known.
  return internPicked(s.params, dims, exists, s, rows, cols, () => {
    const constraints: Constraint[] = [];
    for (const i of rows) {
      const c = cs[i]!;
      const coeffs: number[] = [];
      for (let j = 0; j < cols.length; j++) coeffs.push(c.coeffs[cols[j]!] ?? 0);
      constraints.push(Object.freeze({ eq: c.eq, coeffs: Object.freeze(coeffs), constant: c.constant }));
    }
    return rawSet(s.params, Object.freeze(dims), Object.freeze(exists), constraints);
  });
}
