/** Projection: exact (`projectOut`, keeping existentials where needed) and FM (`eliminate`). */
import type { BasicSet, Bound, DimBounds } from "./types.js";
import { LoomError } from "../errors.js";
import { type Sys, colNames, dropColumn, ncols, permuteRow, toSys } from "./rows.js";
import { emptyOf, finish, finishedSet, finishSys, isCanonicalEmpty } from "./normalize.js";
import { fmCost, fmEliminate, fmEliminateAll } from "./fm.js";
import { aff } from "./affine.js";
import { freshName } from "./ops.js";
import { cachedBySet, setMemo } from "./memo.js";

/** An FM step is worth doing exactly only while it keeps the row count small. */
const MAX_PAIRS = 16;

function checkVisible(s: BasicSet, names: readonly string[], what: string): void {
  const vis = [...s.params, ...s.dims];
  for (const n of names) if (!vis.includes(n)) throw new LoomError(`${what}: no param or dim "${n}"; the set has ${vis.join(", ") || "none"}`);
}

/**
 * The exact projection: points of `s` with `names` (params or dims) removed. Unit equalities and
 * unit FM pairs eliminate exactly; anything else stays as an existential, so no point is gained.
 * `projectOut(parseSet("{[i,j]: 0 <= j < i < 10}"), ["j"])` is `{ [i] : 1 <= i <= 9 }`.
 */
export function projectOut(s: BasicSet, names: readonly string[]): BasicSet {
  checkVisible(s, names, "projectOut");
  return cachedBySet(projectMemo, s, names.length === 1 ? names[0]! : names.join(","), () => computeProjectOut(s, names));
}

const projectMemo = setMemo<BasicSet>();

function computeProjectOut(s: BasicSet, names: readonly string[]): BasicSet {
  const params = s.params.filter((p) => !names.includes(p));
  const dims = s.dims.filter((d) => !names.includes(d));
  if (isCanonicalEmpty(s)) return emptyOf(params, dims);
  const src = colNames(s);
  const taken = new Set([...params, ...dims, ...s.exists]);
  const moved = names.map((n) => {
    const f = freshName(n, taken);
    taken.add(f);
    return f;
  });
  // Moved columns become existentials, after the existing ones.
  const perm = [...params, ...dims].map((n) => src.indexOf(n));
  for (let k = 0; k < s.exists.length; k++) perm.push(s.params.length + s.dims.length + k);
  for (const n of names) perm.push(src.indexOf(n));
  const sys0 = toSys(s);
  const t = finishSys(params, dims, [...s.exists, ...moved], {
    n: perm.length,
    eqs: sys0.eqs.map((r) => permuteRow(r, perm)),
    ineqs: sys0.ineqs.map((r) => permuteRow(r, perm)),
  });
  if (!t) return emptyOf(params, dims);
  return eliminateExistentialsExactly(params, dims, t.exists, t.sys);
}

/**
 * FM away each existential whose elimination is exact and cheap; `finish` handles the rest.
 * Works on the rows `finishSys` leaves (what `toSys` of each intermediate set would read back),
 * building only the final set.
 */
function eliminateExistentialsExactly(params: readonly string[], dims: readonly string[], exists0: readonly string[], sys0: Sys): BasicSet {
  let sys = sys0;
  let exists = exists0;
  const first = params.length + dims.length;
  for (;;) {
    let done = true;
    for (let col = sys.n - 1; col >= first; col--) {
      const c = fmCost(sys, col);
      if (c.eq === 0 && c.exact && c.pairs <= MAX_PAIRS) {
        const r = fmEliminate(sys, col);
        if (!r.sys) return emptyOf(params, dims);
        const ex = exists.filter((_, k) => k !== col - first);
        const t = finishSys(params, dims, ex, dropColumn(r.sys, col));
        if (!t) return emptyOf(params, dims);
        sys = t.sys;
        exists = t.exists;
        done = false;
        break;
      }
    }
    if (done) return finishedSet(params, dims, exists, sys);
  }
}

/**
 * Remove `names` (params, dims or existentials) by Fourier–Motzkin with integer tightening: a
 * superset of the projection, equal to it when every step is exact (see `eliminateExact`).
 */
export function eliminate(s: BasicSet, names: readonly string[]): BasicSet {
  return eliminateExact(s, names).set;
}

/** `eliminate`, also saying whether the result is exactly the projection. */
export function eliminateExact(s: BasicSet, names: readonly string[]): { set: BasicSet; exact: boolean } {
  const src = colNames(s);
  for (const n of names) if (!src.includes(n)) throw new LoomError(`eliminate: no variable "${n}"; the set has ${src.join(", ")}`);
  return cachedBySet(eliminateMemo, s, names.length === 1 ? names[0]! : names.join(","), () => Object.freeze(computeEliminateExact(s, names, src)));
}

const eliminateMemo = setMemo<{ set: BasicSet; exact: boolean }>();

function computeEliminateExact(s: BasicSet, names: readonly string[], src: readonly string[]): { set: BasicSet; exact: boolean } {
  const params = s.params.filter((p) => !names.includes(p));
  const dims = s.dims.filter((d) => !names.includes(d));
  const exists = s.exists.filter((e) => !names.includes(e));
  if (isCanonicalEmpty(s)) return { set: emptyOf(params, dims), exact: true };
  const cols = names.map((n) => src.indexOf(n));
  const r = fmEliminateAll(toSys(s), cols);
  if (!r.sys) return { set: emptyOf(params, dims), exact: true };
  let sys: Sys = r.sys;
  for (const c of [...cols].sort((a, b) => b - a)) sys = dropColumn(sys, c);
  return { set: finish(params, dims, exists, sys), exact: r.exact };
}

/**
 * Bounds of `dim` in terms of the params and the `outer` dims: every other dim and existential
 * is eliminated first. `exact` is false when that elimination over-approximated.
 * For `{[i,j]: 0 <= j <= i < n}`, `dimBounds(s, "j", ["i"])` is `0 <= j <= i`.
 */
export function dimBounds(s: BasicSet, dim: string, outer: readonly string[]): DimBounds {
  // Sets are frozen values, so bounds can be memoized by content: code generation for a sweep of
  // variants asks the same questions of the same domains (rebuilt as new objects) many times.
  return cachedBySet(boundsMemo, s, outer.length === 0 ? dim : `${dim}|${outer.join(",")}`, () => computeDimBounds(s, dim, outer));
}

const boundsMemo = setMemo<DimBounds>();

function computeDimBounds(s: BasicSet, dim: string, outer: readonly string[]): DimBounds {
  if (!s.dims.includes(dim)) throw new LoomError(`dimBounds: no dim "${dim}"; dims are ${s.dims.join(", ")}`);
  for (const o of outer) if (!s.dims.includes(o) || o === dim) throw new LoomError(`dimBounds: outer "${o}" is not another dim of the set; dims are ${s.dims.join(", ")}`);
  const drop = [...s.dims.filter((d) => d !== dim && !outer.includes(d)), ...s.exists];
  const { set: t, exact } = eliminateExact(s, drop);
  // An empty set gets the empty range 0..-1 rather than "unbounded".
  if (isCanonicalEmpty(t)) return { lower: [{ aff: aff({}, 0), denom: 1 }], upper: [{ aff: aff({}, -1), denom: 1 }], exact };
  const names = colNames(t);
  const col = names.indexOf(dim);
  const n = ncols(t);
  const lower: Bound[] = [];
  const upper: Bound[] = [];
  for (const c of t.constraints) {
    const a = c.coeffs[col]!;
    if (a === 0) continue;
    // a·x + rest >= 0: a > 0 gives x >= ceil(-rest/a); a < 0 gives x <= floor(rest/|a|).
    const terms: Record<string, number> = {};
    for (let k = 0; k < n; k++) if (k !== col && c.coeffs[k] !== 0) terms[names[k]!] = c.coeffs[k]! * (a > 0 ? -1 : 1);
    const rest = aff(terms, a > 0 ? -c.constant : c.constant);
    // For an equality both readings coincide: x = rest/|a|.
    if (a > 0 || c.eq) lower.push({ aff: rest, denom: Math.abs(a) });
    if (a < 0 || c.eq) upper.push({ aff: rest, denom: Math.abs(a) });
  }
  return { lower, upper, exact };
}
