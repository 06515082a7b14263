/** Construction and name-level operations: universe, intersect, rename, substitute, fix, move. */
import type { Aff, BasicSet } from "./types.js";
import { LoomError } from "../errors.js";
import { add, checkInt, mul } from "./int.js";
import { type Row, type Sys, colNames, ncols, permuteRow, rawSet, substRow, toSys } from "./rows.js";
import { compareRows, emptyOf, finish, finishedSet } from "./normalize.js";
import { affKey, cached, contentMemo, setKey, cachedBySets, setMemo, tally } from "./memo.js";
import { sideBySide } from "./side-by-side.js";

/** All points of the space: `universe(["n"], ["i", "j"])` is `[n] -> { [i, j] }`. */
export function universe(params: readonly string[], dims: readonly string[]): BasicSet {
  checkNames([...params, ...dims]);
  return rawSet(params, dims, [], []);
}

/** No points: `emptySet(["n"], ["i"])` is `[n] -> { [i] : false }`. */
export function emptySet(params: readonly string[], dims: readonly string[]): BasicSet {
  checkNames([...params, ...dims]);
  return emptyOf(params, dims);
}

function checkNames(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new LoomError(`name "${n}" is used twice in one set; names are ${names.join(", ")}`);
    seen.add(n);
  }
}

/** A name not in `taken` derived from `base` (existentials renamed apart). */
export function freshName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let k = 1; ; k++) if (!taken.has(`${base}_${k}`)) return `${base}_${k}`;
}

/**
 * Rows of `s` in a target space (params, dims, then `exOffset` existential columns before s's own
 * existentials, `exTotal` existential columns in all). Every param and dim of s must be present.
 */
function embedRows(s: BasicSet, params: readonly string[], dims: readonly string[], exOffset: number, exTotal: number): Sys {
  const idx = new Map<string, number>();
  [...params, ...dims].forEach((n, k) => idx.set(n, k));
  const src = colNames(s);
  const base = params.length + dims.length;
  const n = base + exTotal;
  const perm = new Array<number>(n).fill(-1);
  src.forEach((name, k) => {
    const at = k >= s.params.length + s.dims.length ? base + exOffset + (k - s.params.length - s.dims.length) : idx.get(name);
    if (at === undefined) throw new LoomError(`internal: "${name}" missing from target space`);
    perm[at] = k;
  });
  // Each constraint's row built in the target's columns at once (`permuteRow(toSys(s) row)`,
  // without the source-order row between).
  const eqs: Row[] = [];
  const ineqs: Row[] = [];
  for (const c of s.constraints) {
    const cs = c.coeffs;
    const r: Row = [];
    for (let at = 0; at < n; at++) {
      const k = perm[at]!;
      r.push(k < 0 ? 0 : (cs[k] ?? 0));
    }
    r.push(c.constant);
    (c.eq ? eqs : ineqs).push(r);
  }
  return { n, eqs, ineqs };
}

/**
 * Points in both, aligned by name: params are the union (a's order, then b's new ones), dims
 * likewise; a name that is a dim in either set is a dim. Existentials of both are kept.
 */
export function intersect(a: BasicSet, b: BasicSet): BasicSet {
  return cachedBySets(intersectMemo, a, b, () => computeIntersect(a, b));
}

const intersectMemo = setMemo<BasicSet>();

/** `intersect` through the normal form always (no memo, no side-by-side route): the law's reference. */
export function intersectByNormalizing(a: BasicSet, b: BasicSet): BasicSet {
  return computeIntersect(a, b, true);
}

function computeIntersect(a: BasicSet, b: BasicSet, normalize = false): BasicSet {
  const dims = [...a.dims, ...b.dims.filter((d) => !a.dims.includes(d))];
  const dimSet = new Set(dims);
  const params = [...a.params, ...b.params.filter((p) => !a.params.includes(p))].filter((p) => !dimSet.has(p));
  // Existentials are bound names: one that a projection named after a dim (`iterationDomain`
  // keeps `j` as the existential of a projected `j`) is renamed where `j` is a dim or param of the
  // result, so that the columns stay addressable by name.
  const taken = new Set([...params, ...dims]);
  const exA = a.exists.map((e) => {
    const f = freshName(e, taken);
    taken.add(f);
    return f;
  });
  const exB = b.exists.map((e) => {
    const f = freshName(e, taken);
    taken.add(f);
    return f;
  });
  const total = a.exists.length + b.exists.length;
  const sa = embedRows(a, params, dims, 0, total);
  const sb = embedRows(b, params, dims, a.exists.length, total);
  const sys = { n: sa.n, eqs: [...sa.eqs, ...sb.eqs], ineqs: [...sa.ineqs, ...sb.ineqs] };
  if (!normalize && sideBySide(a, b, sa, sb, params, dims)) {
    tally.sideBySide++;
    sys.eqs.sort(compareRows);
    sys.ineqs.sort(compareRows);
    return finishedSet(params, dims, [...exA, ...exB], sys);
  }
  return finish(params, dims, [...exA, ...exB], sys);
}


/** Row of an affine expression over the columns of `s` (names must exist). */
export function affRow(s: BasicSet, a: Aff): Row {
  const names = colNames(s);
  const r = new Array<number>(names.length + 1).fill(0);
  for (const [v, c] of Object.entries(a.terms)) {
    const k = names.indexOf(v);
    if (k < 0) throw new LoomError(`unknown variable "${v}"; the set has ${names.join(", ") || "no variables"}`);
    r[k] = add(r[k]!, checkInt(c, () => `coefficient of ${v}`));
  }
  r[names.length] = checkInt(a.constant, "constant");
  return r;
}

/** Add `s`'s params for names of `affs` that the set lacks (unknown names become params). */
function withParams(s: BasicSet, affs: readonly Aff[]): BasicSet {
  const known = new Set(colNames(s));
  const extra: string[] = [];
  for (const a of affs) for (const v of Object.keys(a.terms)) if (!known.has(v)) (known.add(v), extra.push(v));
  return extra.length === 0 ? s : intersect(universe([...s.params, ...extra], s.dims), s);
}

/** `s` with `aff >= 0` (or `= 0`) added. `addConstraints(s, [{ aff: aff({ i: 1 }, -1), eq: false }])` adds i >= 1. */
export function addConstraints(s: BasicSet, cs: readonly { aff: Aff; eq: boolean }[]): BasicSet {
  let key = `${setKey(s)}#`;
  for (const c of cs) key += `${c.eq ? "=" : ">"}${affKey(c.aff)};`;
  return cached(addMemo, key, () => computeAddConstraints(s, cs));
}

const addMemo = contentMemo<BasicSet>();

function computeAddConstraints(s: BasicSet, cs: readonly { aff: Aff; eq: boolean }[]): BasicSet {
  const t = withParams(s, cs.map((c) => c.aff));
  const sys = toSys(t);
  for (const c of cs) (c.eq ? sys.eqs : sys.ineqs).push(affRow(t, c.aff));
  return finish(t.params, t.dims, t.exists, sys);
}

/** Rename params, dims or existentials; a clash is a LoomError. `rename(s, { i: "k" })` */
export function rename(s: BasicSet, map: Readonly<Record<string, string>>): BasicSet {
  const all = colNames(s);
  for (const k of Object.keys(map)) if (!all.includes(k)) throw new LoomError(`rename: no variable "${k}" in the set; it has ${all.join(", ")}`);
  const f = (n: string) => map[n] ?? n;
  const params = s.params.map(f);
  const dims = s.dims.map(f);
  const visible = new Set([...params, ...dims]);
  if (visible.size !== params.length + dims.length) throw new LoomError(`rename: two variables would be named alike (${[...params, ...dims].join(", ")})`);
  // Existentials are bound names: rename them apart silently instead of failing.
  const exists: string[] = [];
  for (const e of s.exists) {
    const g = freshName(f(e), visible);
    visible.add(g);
    exists.push(g);
  }
  return rawSet(params, dims, exists, s.constraints);
}

/**
 * Replace the param or dim `name` by `value` (an affine expression over the other names; unknown
 * names become params). The name disappears. `substitute(s, "i", aff({ io: 4, ii: 1 }))`
 */
export function substitute(s0: BasicSet, name: string, value: Aff): BasicSet {
  if (value.terms[name] !== undefined) throw new LoomError(`substitute: the value of "${name}" may not use "${name}"`);
  return cached(substMemo, `${setKey(s0)}#${name}=${affKey(value)}`, () => computeSubstitute(s0, name, value));
}

const substMemo = contentMemo<BasicSet>();

function computeSubstitute(s0: BasicSet, name: string, value: Aff): BasicSet {
  const s = withParams(s0, [value]);
  const col = [...s.params, ...s.dims].indexOf(name);
  if (col < 0) throw new LoomError(`substitute: no param or dim "${name}"; the set has ${[...s.params, ...s.dims].join(", ")}`);
  const def = affRow(s, value);
  const sys = toSys(s);
  const sub = (r: Row) => {
    const o = substRow(r, col, def);
    o.splice(col, 1);
    return o;
  };
  const params = s.params.filter((p) => p !== name);
  const dims = s.dims.filter((d) => d !== name);
  return finish(params, dims, s.exists, { n: sys.n - 1, eqs: sys.eqs.map(sub), ineqs: sys.ineqs.map(sub) });
}

/** Fix params or dims to constants; they disappear. `fixValues(s, { n: 16 })` */
export function fixValues(s: BasicSet, values: Readonly<Record<string, number>>): BasicSet {
  const names = [...s.params, ...s.dims];
  for (const k of Object.keys(values)) {
    if (!names.includes(k)) throw new LoomError(`fixValues: no param or dim "${k}"; the set has ${names.join(", ") || "none"}`);
    checkInt(values[k]!, `fixValues: value of ${k}`);
  }
  const keep = names.map((n, k) => (values[n] === undefined ? k : -1)).filter((k) => k >= 0);
  const n = ncols(s);
  const perm = [...keep];
  for (let k = names.length; k < n; k++) perm.push(k);
  const sys = toSys(s);
  const fix = (r: Row) => {
    let c = r[n]!;
    names.forEach((nm, k) => {
      const v = values[nm];
      if (v !== undefined && r[k] !== 0) c = add(c, mul(r[k]!, v));
    });
    const o = permuteRow(r, perm);
    o[perm.length] = c;
    return o;
  };
  const params = s.params.filter((p) => values[p] === undefined);
  const dims = s.dims.filter((d) => values[d] === undefined);
  return finish(params, dims, s.exists, { n: perm.length, eqs: sys.eqs.map(fix), ineqs: sys.ineqs.map(fix) });
}

/** Reorder/reclassify columns by name into the given params and dims (same names, same existentials). */
/** `s`'s existentials renamed apart from the names of the new space, as `intersect` does. */
export function existsApartOf(s: BasicSet, params: readonly string[], dims: readonly string[]): string[] {
  return existsApart(s, params, dims);
}

function existsApart(s: BasicSet, params: readonly string[], dims: readonly string[]): string[] {
  const taken = new Set([...params, ...dims]);
  return s.exists.map((e) => {
    const f = freshName(e, taken);
    taken.add(f);
    return f;
  });
}

function respace(s: BasicSet, params: readonly string[], dims: readonly string[]): BasicSet {
  checkNames([...params, ...dims]);
  return cached(respaceMemo, `${setKey(s)}#${params.join(",")}|${dims.join(",")}`, () => computeRespace(s, params, dims));
}

const respaceMemo = contentMemo<BasicSet>();

function computeRespace(s: BasicSet, params: readonly string[], dims: readonly string[]): BasicSet {
  const sys = embedRows(s, params, dims, 0, s.exists.length);
  return finish(params, dims, existsApart(s, params, dims), sys);
}

/** Make dims into params (appended to the params). `moveToParams(s, ["i"])` */
export function moveToParams(s: BasicSet, dimNames: readonly string[]): BasicSet {
  for (const d of dimNames) if (!s.dims.includes(d)) throw new LoomError(`moveToParams: no dim "${d}"; dims are ${s.dims.join(", ")}`);
  return respace(s, [...s.params, ...dimNames], s.dims.filter((d) => !dimNames.includes(d)));
}

/** Make params into dims, inserted at `position` of the dims (default: last). */
export function moveToDims(s: BasicSet, paramNames: readonly string[], position?: number): BasicSet {
  for (const p of paramNames) if (!s.params.includes(p)) throw new LoomError(`moveToDims: no param "${p}"; params are ${s.params.join(", ")}`);
  const dims = [...s.dims];
  dims.splice(position ?? dims.length, 0, ...paramNames);
  return respace(s, s.params.filter((p) => !paramNames.includes(p)), dims);
}

/** Reorder the dims of `s` (same names). */
export function reorderDims(s: BasicSet, dims: readonly string[]): BasicSet {
  if (dims.length !== s.dims.length || !s.dims.every((d) => dims.includes(d))) throw new LoomError(`reorderDims: ${dims.join(", ")} is not a permutation of ${s.dims.join(", ")}`);
  return respace(s, s.params, dims);
}

/** Names of the set dimensions. */
export function dimsOf(s: BasicSet): readonly string[] {
  return s.dims;
}

/** true when the set has existential dimensions (mod, floor, exists). */
export function hasExistentials(s: BasicSet): boolean {
  return s.exists.length > 0;
}

/**
 * `s` in the space (`params`, `dims`) — every param and dim of `s` among them, `s`'s existentials
 * kept — with `cs` added: `addConstraints(intersect(universe(params, dims), s), cs)` in one step
 * (one normalization, no intermediate set). Names of `cs` must be among `params` and `dims`.
 */
export function extendSet(s: BasicSet, params: readonly string[], dims: readonly string[], cs: readonly { aff: Aff; eq: boolean }[]): BasicSet {
  let key = `${setKey(s)}#${params.join(",")}|${dims.join(",")}#`;
  for (const c of cs) key += `${c.eq ? "=" : ">"}${affKey(c.aff)};`;
  return cached(extendMemo, key, () => computeExtend(s, params, dims, cs));
}

const extendMemo = contentMemo<BasicSet>();

function computeExtend(s: BasicSet, params: readonly string[], dims: readonly string[], cs: readonly { aff: Aff; eq: boolean }[]): BasicSet {
  checkNames([...params, ...dims]);
  const sys = embedRows(s, params, dims, 0, s.exists.length);
  if (cs.length > 0) {
    const idx = new Map<string, number>();
    for (let k = 0; k < params.length; k++) idx.set(params[k]!, k);
    for (let k = 0; k < dims.length; k++) idx.set(dims[k]!, params.length + k);
    for (const c of cs) {
      const r = new Array<number>(sys.n + 1).fill(0);
      for (const v in c.aff.terms) {
        const k = idx.get(v);
        if (k === undefined) throw new LoomError(`extendSet: unknown variable "${v}"`);
        r[k] = add(r[k]!, checkInt(c.aff.terms[v]!, () => `coefficient of ${v}`));
      }
      r[sys.n] = checkInt(c.aff.constant, "constant");
      (c.eq ? sys.eqs : sys.ineqs).push(r);
    }
  }
  return finish(params, dims, existsApart(s, params, dims), sys);
}

/**
 * `s` with dim `name` split as `name = factor·outer + inner`, `0 <= inner < factor`: `outer` and
 * `inner` (new names) take its place among the dims. What `substitute`, `moveToDims` and
 * `addConstraints` give in turn (loopy's split_iname on a domain), written down at once: each
 * row's coefficient `a` of `name` becomes `factor·a` on `outer` and `a` on `inner`, and the two
 * bounds of `inner` are added; one normalization instead of four.
 *
 *   splitDim(parseSet("[n] -> {[i]: 0 <= i < n}"), "i", "i_outer", "i_inner", 16)
 *     // [n] -> {[i_outer, i_inner]: 0 <= i_inner <= 15 and 0 <= 16i_outer + i_inner < n}
 */
export function splitDim(s: BasicSet, name: string, outer: string, inner: string, factor: number): BasicSet {
  const at = s.dims.indexOf(name);
  if (at < 0) throw new LoomError(`splitDim: no dim "${name}"; dims are ${s.dims.join(", ") || "none"}`);
  checkInt(factor, "splitDim: factor");
  if (factor < 1) throw new LoomError(`splitDim: factor must be at least 1; got ${factor}`);
  const dims = [...s.dims.slice(0, at), outer, inner, ...s.dims.slice(at + 1)];
  checkNames([...s.params, ...dims]);
  return cached(splitMemo, `${setKey(s)}#${name}|${outer}|${inner}|${factor}`, () =>
    (directSplit(s, at) ? computeSplitDim(s, at, dims, factor) : stepwiseSplit(s, name, outer, inner, factor)));
}

/**
 * Whether the rows written down at once are the rows of the stepwise route: `name` only in
 * inequalities over params and dims (the bounds of a loop; property-tested against the stepwise
 * route). An equality or an existential row through `name` may be tightened differently by the
 * intermediate normalizations, so those take the stepwise route.
 */
function directSplit(s: BasicSet, at: number): boolean {
  const col = s.params.length + at;
  const nv = s.params.length + s.dims.length;
  for (const c of s.constraints) {
    if (c.coeffs[col] === 0) continue;
    if (c.eq) return false;
    for (let k = nv; k < c.coeffs.length; k++) if (c.coeffs[k] !== 0) return false;
  }
  return true;
}

function stepwiseSplit(s: BasicSet, name: string, outer: string, inner: string, factor: number): BasicSet {
  const t = moveToDims(substitute(s, name, { terms: { [outer]: factor, [inner]: 1 }, constant: 0 }), [outer, inner], s.dims.indexOf(name));
  return addConstraints(t, [{ aff: { terms: { [inner]: 1 }, constant: 0 }, eq: false }, { aff: { terms: { [inner]: -1 }, constant: factor - 1 }, eq: false }]);
}

const splitMemo = contentMemo<BasicSet>();

function computeSplitDim(s: BasicSet, at: number, dims: readonly string[], factor: number): BasicSet {
  const np = s.params.length;
  const col = np + at;
  const sys = toSys(s);
  const n = sys.n + 1;
  // Old column col becomes outer (col) and inner (col + 1); the columns after it shift by one.
  const widen = (r: Row): Row => {
    const o = new Array<number>(n + 1);
    for (let k = 0; k < col; k++) o[k] = r[k]!;
    o[col] = mul(factor, r[col]!);
    o[col + 1] = r[col]!;
    for (let k = col + 1; k <= sys.n; k++) o[k + 1] = r[k]!;
    return o;
  };
  const lo = new Array<number>(n + 1).fill(0);
  lo[col + 1] = 1;
  const hi = new Array<number>(n + 1).fill(0);
  hi[col + 1] = -1;
  hi[n] = factor - 1;
  const eqs = sys.eqs.map(widen);
  const ineqs = sys.ineqs.map(widen);
  ineqs.push(lo, hi);
  return finish(s.params, dims, existsApart(s, s.params, dims), { n, eqs, ineqs });
}
