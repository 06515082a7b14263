/**
 * Dropping implied rows, decided exactly with the Omega test: `removeRedundancies` (rows the
 * others imply) and `gist` (rows a context implies; loopy's gisting).
 */
import type { BasicSet } from "./types.js";
import { LoomError } from "../errors.js";
import { type Row, type Sys, toSys } from "./rows.js";
import { emptyOf, finish, isCanonicalEmpty } from "./normalize.js";
import { ceilDiv, floorDiv } from "./int.js";
import { isEmpty } from "./empty.js";
import { addCand, impliedByOneRow, impliedByTwoRows, impliesBeyondPairs, newCands, type Live } from "./implied.js";
import { intersect, universe } from "./ops.js";
import { cachedBySet, cachedBySets, setMemo } from "./memo.js";
import { isSubset } from "./compare.js";

/**
 * `ctx` without the rows of the columns that no row of `s` uses and that no other row ties to
 * another column (the boxes of unrelated inames: `0 <= b_dim_0 <= 15`). Such a column is a
 * component of its own in every implication test of `s`'s rows, decided by its bounds alone, so
 * when those admit an integer the rows change no answer. undefined when there is none to drop
 * or one is empty (then the context is empty and callers keep it as it is).
 */
function dropIsolatedColumns(ctx: Sys, s: Sys): Sys | undefined {
  const n = ctx.n;
  // 0: unseen; 1: only in rows of its own; 2: used by s or tied to another column.
  const state = new Uint8Array(n);
  for (const r of s.eqs) for (let k = 0; k < s.n; k++) if (r[k] !== 0) state[k] = 2;
  for (const r of s.ineqs) for (let k = 0; k < s.n; k++) if (r[k] !== 0) state[k] = 2;
  const scan = (r: Row) => {
    let first = -1;
    let many = false;
    for (let k = 0; k < n; k++) {
      if (r[k] === 0) continue;
      if (first < 0) first = k;
      else many = true;
      if (many) break;
    }
    if (first < 0) return;
    if (!many) {
      if (state[first] === 0) state[first] = 1;
      return;
    }
    for (let k = first; k < n; k++) if (r[k] !== 0) state[k] = 2;
  };
  for (const r of ctx.eqs) scan(r);
  for (const r of ctx.ineqs) scan(r);
  let any = false;
  for (let k = 0; k < n; k++) if (state[k] === 1) any = true;
  if (!any) return undefined;
  const lo = new Map<number, number>();
  const hi = new Map<number, number>();
  const isolated = (r: Row): number => {
    for (let k = 0; k < n; k++) if (r[k] !== 0) return state[k] === 1 ? k : -1;
    return -1;
  };
  // a·x + c >= 0 (or = 0): x >= ceil(-c/a) for a > 0, x <= floor(c/-a) for a < 0.
  const bound = (k: number, a: number, c: number, eq: boolean) => {
    if (a > 0 || eq) {
      const v = a > 0 ? ceilDiv(-c, a) : ceilDiv(c, -a);
      if (!lo.has(k) || lo.get(k)! < v) lo.set(k, v);
    }
    if (a < 0 || eq) {
      const v = a < 0 ? floorDiv(c, -a) : floorDiv(-c, a);
      if (!hi.has(k) || hi.get(k)! > v) hi.set(k, v);
    }
  };
  const eqs: Row[] = [];
  const ineqs: Row[] = [];
  for (const r of ctx.eqs) {
    const k = isolated(r);
    if (k < 0) eqs.push(r);
    else {
      if (r[n]! % r[k]! !== 0) return undefined;
      bound(k, r[k]!, r[n]!, true);
    }
  }
  for (const r of ctx.ineqs) {
    const k = isolated(r);
    if (k < 0) ineqs.push(r);
    else bound(k, r[k]!, r[n]!, false);
  }
  for (const [k, v] of lo) if (hi.has(k) && hi.get(k)! < v) return undefined;
  return { n, eqs, ineqs };
}

/**
 * Drop, one by one, the rows of `s` implied by `context` together with the rows kept so far.
 * `ctx` has the same columns as `s` followed by `extra` more (the context's own existentials).
 */
function dropImplied(s: BasicSet, ctx0: Sys, extra0: number): BasicSet {
  const sys = toSys(s);
  // Boxes of columns unrelated to s's rows decide nothing: every test below runs without them.
  const ctx = (ctx0.eqs.length + ctx0.ineqs.length > 0 ? dropIsolatedColumns(ctx0, sys) : undefined) ?? ctx0;
  const extra = extra0;
  const widen = (r: Row) => {
    if (extra === 0) return r;
    const o = r.slice(0, sys.n);
    for (let k = 0; k < extra; k++) o.push(0);
    o.push(r[sys.n]!);
    return o;
  };
  // Each row widened once (not once per row tested); the rows tested against are then only
  // gathered by reference.
  const rows = [...sys.eqs.map((r) => ({ r, w: widen(r), eq: true })), ...sys.ineqs.map((r) => ({ r, w: widen(r), eq: false }))];
  const keep = rows.map(() => true);
  // The context's rows and s's rows prepared once for the cheap certificates; row i is tested
  // against the context and the other rows still kept.
  const cs = newCands(ctx.n);
  for (const b of ctx.ineqs) addCand(cs, b, false, -1);
  for (const b of ctx.eqs) addCand(cs, b, true, -1);
  rows.forEach((x, j) => addCand(cs, x.w, x.eq, j));
  for (let i = rows.length - 1; i >= 0; i--) {
    const live: Live = (j) => j !== i && keep[j]!;
    if (!rows[i]!.eq && (impliedByOneRow(cs, rows[i]!.w, live) || impliedByTwoRows(cs, rows[i]!.w, live))) {
      keep[i] = false;
      continue;
    }
    const eqs = ctx.eqs.slice();
    const ineqs = ctx.ineqs.slice();
    for (let j = 0; j < rows.length; j++) {
      if (j !== i && keep[j]) (rows[j]!.eq ? eqs : ineqs).push(rows[j]!.w);
    }
    if (impliesBeyondPairs({ n: ctx.n, eqs, ineqs }, rows[i]!.w, rows[i]!.eq)) keep[i] = false;
  }
  const out: Sys = { n: sys.n, eqs: [], ineqs: [] };
  rows.forEach((x, j) => {
    if (keep[j]) (x.eq ? out.eqs : out.ineqs).push(x.r);
  });
  return finish(s.params, s.dims, s.exists, out);
}

/**
 * Drop whole existential groups (the rows of one existential, e.g. a mod) that `context` and the
 * other rows imply: row by row they never are, since the existential is free in the test.
 */
function dropImpliedExistentials(s: BasicSet, context: BasicSet): BasicSet {
  for (let j = s.exists.length - 1; j >= 0; j--) {
    const col = s.params.length + s.dims.length + j;
    const sys = toSys(s);
    const mine = (r: Row) => r[col] !== 0;
    const alone = (r: Row) => r.every((v, k) => k === col || k < s.params.length + s.dims.length || k === sys.n || v === 0);
    const groupEqs = sys.eqs.filter(mine);
    const groupIneqs = sys.ineqs.filter(mine);
    if (!groupEqs.every(alone) || !groupIneqs.every(alone)) continue;
    const restSys: Sys = { n: sys.n, eqs: sys.eqs.filter((r) => !mine(r)), ineqs: sys.ineqs.filter((r) => !mine(r)) };
    const rest = finish(s.params, s.dims, s.exists, restSys);
    // The context says the same (`n mod 64 = 0` in both): implied, no test needed.
    if (contextGroupKeys(context).has(groupKey(groupEqs, groupIneqs, [...s.params, ...s.dims], col, sys.n))) {
      s = rest;
      continue;
    }
    const only = (r: Row) => [...r.slice(0, s.params.length + s.dims.length), r[col]!, r[sys.n]!];
    const groupSet = finish(s.params, s.dims, [s.exists[j]!], {
      n: s.params.length + s.dims.length + 1,
      eqs: groupEqs.map(only),
      ineqs: groupIneqs.map(only),
    });
    try {
      if (isSubset(intersect(rest, context), groupSet)) s = rest;
    } catch (e) {
      if (!(e instanceof LoomError)) throw e; // undecidable here: keep the group
    }
  }
  return s;
}

/**
 * The rows of one existential as text over the visible names (an existential "group" whose rows
 * involve no other existential): equal texts are the same condition on the visible names.
 */
function groupKey(eqs: readonly Row[], ineqs: readonly Row[], visible: readonly string[], col: number, n: number): string {
  const one = (r: Row, eq: boolean) => {
    let t = `${eq ? "=" : ">"}${r[col]},${r[n]}`;
    for (let k = 0; k < visible.length; k++) if (r[k] !== 0) t += `|${visible[k]}:${r[k]}`;
    return t;
  };
  // An equality reads the same either way round: its sign is fixed by the existential's coefficient.
  const eqText = eqs.map((r) => one(r[col]! < 0 ? r.map((v) => -v || 0) : r, true));
  return [...eqText, ...ineqs.map((r) => one(r, false))].sort().join("&");
}

/** The keys of `c`'s existential groups (see `groupKey`), remembered per set. */
function contextGroupKeys(c: BasicSet): ReadonlySet<string> {
  let out = groupKeysMemo.get(c);
  if (out) return out;
  const keys = new Set<string>();
  const sys = toSys(c);
  const visible = [...c.params, ...c.dims];
  const first = visible.length;
  for (let col = first; col < sys.n; col++) {
    const alone = (r: Row) => {
      for (let k = first; k < sys.n; k++) if (k !== col && r[k] !== 0) return false;
      return true;
    };
    const eqs = sys.eqs.filter((r) => r[col] !== 0);
    const ineqs = sys.ineqs.filter((r) => r[col] !== 0);
    if (eqs.every(alone) && ineqs.every(alone)) keys.add(groupKey(eqs, ineqs, visible, col, sys.n));
  }
  groupKeysMemo.set(c, (out = keys));
  return out;
}

const groupKeysMemo = new WeakMap<BasicSet, ReadonlySet<string>>();

/** Same points, no row implied by the others. `{[i]: i >= 0 and i >= 1}` becomes `{[i]: i >= 1}`. */
export function removeRedundancies(s: BasicSet): BasicSet {
  if (isCanonicalEmpty(s)) return s;
  return cachedBySet(redundantMemo, s, "", () => computeRemoveRedundancies(s));
}

const redundantMemo = setMemo<BasicSet>();

function computeRemoveRedundancies(s: BasicSet): BasicSet {
  // In an empty set every row is implied by the others; answer the canonical empty set.
  if (isEmpty(s)) return emptyOf(s.params, s.dims);
  const t = dropImpliedExistentials(s, universe(s.params, s.dims));
  return dropImplied(t, { n: toSys(t).n, eqs: [], ineqs: [] }, 0);
}

/**
 * The rows of `s` not implied by `context` (loopy's gisting): `gist(s, c) ∩ c = s ∩ c`.
 * `gist({[i]: 0 <= i < n and n mod 16 = 0}, {n mod 16 = 0})` keeps only the bounds of i.
 */
export function gist(s: BasicSet, context: BasicSet): BasicSet {
  if (isCanonicalEmpty(s)) return s;
  return cachedBySets(gistMemo, s, context, () => computeGist(s, context));
}

const gistMemo = setMemo<BasicSet>();

function computeGist(s0: BasicSet, context: BasicSet): BasicSet {
  let s = s0;
  if (isCanonicalEmpty(s)) return s;
  if (s.exists.length === 0 && !isCanonicalEmpty(context)) return gistOnRows(s, context);
  // Align the context to s's space (extra names of the context become its existentials).
  const visible = new Set([...s.params, ...s.dims]);
  const extraNames = [...context.params, ...context.dims].filter((n) => !visible.has(n));
  const c = intersect(universe(s.params, s.dims), context);
  if (isCanonicalEmpty(c)) return s; // every row is implied by an empty context; keep s as is
  s = dropImpliedExistentials(s, c);
  // Every existential was implied (`n mod 64 = 0` in both): the rows alone, as without existentials.
  if (s.exists.length === 0) return gistOnRows(s, context);
  const cs = toSys(c);
  // c's columns: s.params, then c's extra params, s.dims, c's extra dims, c's existentials.
  const sIdx = [...s.params, ...s.dims].map((n) => [...c.params, ...c.dims].indexOf(n));
  const first = s.params.length + s.dims.length;
  const extra = extraNames.length + c.exists.length;
  const n = first + s.exists.length + extra;
  const move = (r: Row) => {
    const o = new Array<number>(n + 1).fill(0);
    sIdx.forEach((from, k) => (o[k] = r[from]!));
    let at = first + s.exists.length;
    const vis = c.params.length + c.dims.length;
    for (let k = 0; k < vis; k++) if (!sIdx.includes(k)) o[at++] = r[k]!;
    for (let k = 0; k < c.exists.length; k++) o[at++] = r[vis + k]!;
    o[n] = r[cs.n]!;
    return o;
  };
  return dropImplied(s, { n, eqs: cs.eqs.map(move), ineqs: cs.ineqs.map(move) }, extra);
}

/**
 * `computeGist` for an `s` without existentials, the context's rows moved straight into the
 * columns the test needs (s's params and dims, then the context's other names and existentials)
 * instead of first normalizing the context in s's space: `implies` is exact, so the rows kept
 * depend only on the context's points, not on how its rows are written.
 */
function gistOnRows(s: BasicSet, context: BasicSet): BasicSet {
  const first = s.params.length + s.dims.length;
  const at = new Map<string, number>();
  for (let k = 0; k < s.params.length; k++) at.set(s.params[k]!, k);
  for (let k = 0; k < s.dims.length; k++) at.set(s.dims[k]!, s.params.length + k);
  let next = first;
  for (const nm of context.params) if (!at.has(nm)) at.set(nm, next++);
  for (const nm of context.dims) if (!at.has(nm)) at.set(nm, next++);
  const extra = next - first + context.exists.length;
  const n = first + extra;
  const cp = context.params.length;
  const cv = cp + context.dims.length;
  const cn = cv + context.exists.length;
  const perm: number[] = [];
  for (let k = 0; k < cp; k++) perm.push(at.get(context.params[k]!)!);
  for (let k = 0; k < context.dims.length; k++) perm.push(at.get(context.dims[k]!)!);
  for (let k = 0; k < context.exists.length; k++) perm.push(next + k);
  const eqs: Row[] = [];
  const ineqs: Row[] = [];
  for (const c of context.constraints) {
    const o = new Array<number>(n + 1).fill(0);
    for (let k = 0; k < cn; k++) {
      const v = c.coeffs[k] ?? 0;
      if (v !== 0) o[perm[k]!] = v;
    }
    o[n] = c.constant;
    (c.eq ? eqs : ineqs).push(o);
  }
  return dropImplied(s, { n, eqs, ineqs }, extra);
}
