/**
 * Implication of one row by a system over the integers, decided exactly: cheap certificates first
 * (one row, two rows — Farkas with an integer round-off —, rows tightened by the multiples that
 * equalities make of columns, a greedy integer point that violates the row), the Omega test last.
 * Each certificate is sound on its own; only the last test is needed for the answer, the others
 * make the common cases cheap (gist, subset tests).
 */
import { type Row, type Sys } from "./rows.js";
import { ceilDiv, floorDiv, gcd } from "./int.js";
import { intFeasible } from "./empty.js";

/** ¬(r >= 0) over the integers is -r - 1 >= 0. */
function negate(r: Row): Row {
  const o = r.map((v) => -v || 0);
  o[o.length - 1]! -= 1;
  return o;
}

/**
 * The rows a cheap implication test combines, prepared once: each with its sign (an equality
 * appears twice, once each way), whether its entries are small enough for `pairImplies`, and the
 * columns it uses as a bit mask while they fit in one. `owner` says which row of the system under
 * test an entry stands for (-1: a context row, always present), so one preparation serves every
 * row `dropImplied` tests, each against the others that are still kept.
 */
interface Cands {
  readonly n: number;
  readonly rows: Row[];
  readonly sgn: number[];
  readonly safe: boolean[];
  readonly masks: number[] | undefined;
  readonly owner: number[];
}

export function newCands(n: number): Cands {
  return { n, rows: [], sgn: [], safe: [], masks: n <= 30 ? [] : undefined, owner: [] };
}

export function addCand(c: Cands, b: Row, eq: boolean, owner: number): void {
  const safe = rowSafe(b, c.n);
  const mask = c.masks ? support(b, c.n) : 0;
  for (let sg = 1; sg >= (eq ? -1 : 1); sg -= 2) {
    c.rows.push(b);
    c.sgn.push(sg);
    c.safe.push(safe);
    c.masks?.push(mask);
    c.owner.push(owner);
  }
}

function candsOf(base: Sys): Cands {
  const c = newCands(base.n);
  for (const b of base.ineqs) addCand(c, b, false, -1);
  for (const b of base.eqs) addCand(c, b, true, -1);
  return c;
}

/** Whether the row under test with index `owner` is in the base (context rows always are). */
export type Live = (owner: number) => boolean;

/**
 * true when some row of the base is `r` up to a smaller constant (`r` then follows from it alone):
 * an inequality `v·x + c' >= 0` with `c' <= c`, or an equality `±v·x + c' = 0` with `±c' <= c`.
 * A cheap, sound test before the exact one; false says nothing.
 */
export function impliedByOneRow(cs: Cands, r: Row, live?: Live): boolean {
  const n = cs.n;
  const c = r[n]!;
  outer: for (let e = 0; e < cs.rows.length; e++) {
    const b = cs.rows[e]!;
    const sg = cs.sgn[e]!;
    if (sg * b[n]! > c) continue;
    if (live && cs.owner[e]! >= 0 && !live(cs.owner[e]!)) continue;
    if (sg === 1) {
      for (let k = 0; k < n; k++) if (b[k] !== r[k]) continue outer;
    } else {
      for (let k = 0; k < n; k++) if (b[k] !== -r[k]!) continue outer;
    }
    return true;
  }
  return false;
}

/** Magnitude up to which the products in `impliedByTwoRows` stay exact (|a·b·c| < 2^53). */
const PAIR_SAFE = 1 << 16;

/**
 * true when `r` is a nonnegative rational combination of at most two rows of the base (equalities
 * in either direction) plus a constant greater than -1: `r = λ1·b1 + λ2·b2 + s`, `λ >= 0`,
 * `s > -1`. Then `r(x) >= s > -1` at every point of the base, and `r(x)` is an integer at integer
 * points, so `r(x) >= 0`. Sound (a Farkas certificate with two rows); false says nothing. Most
 * rows a gist drops are implied this way (`i_in + 4·i_out >= 0` by `i_in >= 0`, `i_out >= 0`),
 * and finding the certificate costs far less than the exact emptiness test it replaces.
 */
export function impliedByTwoRows(cs: Cands, r: Row, live?: Live): boolean {
  const n = cs.n;
  let c0 = -1;
  for (let k = 0; k < n; k++) {
    const v = r[k]!;
    if (v > PAIR_SAFE || v < -PAIR_SAFE) return false;
    if (v !== 0 && c0 < 0) c0 = k;
  }
  if (c0 < 0 || r[n]! > PAIR_SAFE || r[n]! < -PAIR_SAFE) return false; // constant rows: tidy decides
  const { rows, sgn, safe, masks, owner } = cs;
  const m = rows.length;
  const on = (e: number) => !live || owner[e]! < 0 || live(owner[e]!);
  const mr = masks ? support(r, n) : 0;
  for (let i = 0; i < m; i++) {
    const b1 = rows[i]!;
    const s1 = sgn[i]!;
    // At column c0, λ1·b1 + λ2·b2 = r[c0] != 0 with λ >= 0: one of them has r[c0]'s sign.
    if (s1 * b1[c0]! * r[c0]! <= 0) continue;
    if (!safe[i] || !on(i)) continue;
    const m1 = masks ? masks[i]! : 0;
    for (let j = 0; j < m; j++) {
      if (j === i || !safe[j]) continue;
      const b2 = rows[j]!;
      if (b2 === b1) continue; // the same equality read the other way
      if (masks && !supportsMayCombine(m1, masks[j]!, mr)) continue;
      if (!on(j)) continue;
      if (pairImplies(b1, s1, b2, sgn[j]!, r, n)) return true;
    }
  }
  return false;
}

/** The columns `0..n-1` where `b` is nonzero, as bits (n <= 30). */
function support(b: Row, n: number): number {
  let m = 0;
  for (let k = 0; k < n; k++) if (b[k] !== 0) m |= 1 << k;
  return m;
}

/**
 * Whether `r = λ1·b1 + λ2·b2 + s` (λ >= 0, s constant) is possible given the columns each row
 * uses: every column of r is b1's or b2's, and a column of one row that r lacks must be cancelled
 * by the other row, unless that row's λ is 0 and the other row alone has r's columns. Exact: it
 * only skips pairs that `pairImplies` would reject.
 */
function supportsMayCombine(m1: number, m2: number, mr: number): boolean {
  if ((mr & ~(m1 | m2)) !== 0) return false;
  if ((m1 & ~mr & ~m2) !== 0 && m2 !== mr) return false;
  if ((m2 & ~mr & ~m1) !== 0 && m1 !== mr) return false;
  return true;
}

function rowSafe(b: Row, n: number): boolean {
  for (let k = 0; k <= n; k++) {
    const v = b[k]!;
    if (v > PAIR_SAFE || v < -PAIR_SAFE) return false;
  }
  return true;
}

/** `r = λ1·(s1·b1) + λ2·(s2·b2) + s` with λ >= 0 and s > -1 (see `impliedByTwoRows`). */
function pairImplies(b1: Row, s1: number, b2: Row, s2: number, r: Row, n: number): boolean {
  // Two columns on which (b1, b2) is nonsingular; Cramer gives the only candidate λ.
  let det = 0;
  let k1 = -1;
  let k2 = -1;
  for (let k = 0; k < n && det === 0; k++) {
    if (b1[k] === 0 && b2[k] === 0) continue;
    for (let l = k + 1; l < n; l++) {
      const d = b1[k]! * b2[l]! - b1[l]! * b2[k]!;
      if (d !== 0) {
        det = d;
        k1 = k;
        k2 = l;
        break;
      }
    }
  }
  if (det === 0) return false; // parallel rows: the one-row test covers them
  // λ1·s1 = num1/det, λ2·s2 = num2/det.
  let num1 = r[k1]! * b2[k2]! - r[k2]! * b2[k1]!;
  let num2 = b1[k1]! * r[k2]! - b1[k2]! * r[k1]!;
  if (det < 0) {
    det = -det;
    num1 = -num1;
    num2 = -num2;
  }
  // λ1 = s1·num1/det >= 0, λ2 = s2·num2/det >= 0.
  if (s1 * num1 < 0 || s2 * num2 < 0) return false;
  for (let k = 0; k < n; k++) if (num1 * b1[k]! + num2 * b2[k]! !== det * r[k]!) return false;
  // s = r_c - (num1·b1_c + num2·b2_c)/det > -1, i.e. det·r_c - (...) > -det.
  return det * r[n]! - (num1 * b1[n]! + num2 * b2[n]!) > -det;
}

/** Largest multiple tracked by `tightenedByMultiples` (products stay far below 2^53). */
const MULTIPLE_SAFE = 1 << 20;

/**
 * `base` with the constants of its inequalities rounded down to what the integer points allow,
 * given the multiples that two-column equalities make of columns: `x = 64·y` makes x a multiple of
 * 64, so on `x - 8·i - 1 >= 0` the left side is a multiple of 8 and the row is `x - 8·i - 8 >= 0`
 * (`n mod 64 = 0` then implies `n - 8·k_out - k_in - 1 >= 0` from `k_in <= 7` by two rows).
 * Same integer points; undefined when no row changes.
 */
function tightenedByMultiples(base: Sys): Sys | undefined {
  const n = base.n;
  let mult: number[] | undefined;
  for (const e of base.eqs) {
    if (e[n] !== 0) continue;
    let a = -1;
    let b = -1;
    let count = 0;
    for (let k = 0; k < n && count <= 2; k++) {
      if (e[k] === 0) continue;
      if (count === 0) a = k;
      else b = k;
      count++;
    }
    if (count !== 2) continue;
    // ca·xa = -cb·xb: xa is a multiple of |cb| / gcd(ca, cb), and xb of |ca| / gcd.
    const ca = Math.abs(e[a]!);
    const cb = Math.abs(e[b]!);
    const g = gcd(ca, cb);
    mult ??= new Array<number>(n).fill(1);
    for (const [k, m] of [[a, cb / g], [b, ca / g]] as const) {
      const l = (mult[k]! / gcd(mult[k]!, m)) * m;
      if (l <= MULTIPLE_SAFE) mult[k] = l;
    }
  }
  if (!mult || !mult.some((m) => m > 1)) return undefined;
  let changed = false;
  const ineqs = base.ineqs.map((r) => {
    let g = 0;
    for (let k = 0; k < n && g !== 1; k++) {
      const v = r[k]!;
      if (v === 0) continue;
      const t = Math.abs(v) * mult[k]!;
      if (t > MULTIPLE_SAFE) return r;
      g = g === 0 ? t : gcd(g, t);
    }
    if (g <= 1) return r;
    const c = floorDiv(r[n]!, g) * g;
    if (c === r[n]) return r;
    changed = true;
    const o = r.slice();
    o[n] = c;
    return o;
  });
  return changed ? { n, eqs: base.eqs, ineqs } : undefined;
}

/** How far past its finite end a column that lowers `r` without bound is set by `violationWitness`. */
const WITNESS_REACH = 1 << 20;

/**
 * Whether a greedy walk finds an integer point of `base` where `r < 0`: columns in order, each set
 * to the value an equality forces or to the end of its range (from the rows whose other columns
 * are already set) that lowers `r` (far past it when that side is open); the point is then checked
 * against every row. A certificate that `base` does not imply `r` — most rows a gist keeps (the
 * loop bounds of an iname the context lacks, `i_in < n - 12·i_out` at n = 64, i_out = 5, i_in = 11)
 * get one for far less than the exact test; false says nothing.
 */
export function violationWitness(base: Sys, r: Row): boolean {
  const n = base.n;
  // Small entries and values keep every sum below exactly representable magnitudes (< 2^53).
  if (!rowSafe(r, n) || !base.eqs.every((b) => rowSafe(b, n)) || !base.ineqs.every((b) => rowSafe(b, n))) return false;
  // Columns `r` does not use go to the low end of their range first, then to the high end: with
  // `16·i_out + a >= 0` the row `a >= 0` is violated only where i_out is above its minimum.
  return walkWitness(base, r, false) || walkWitness(base, r, true);
}

/** One greedy walk of `violationWitness`; `high`: columns `r` does not use take their largest value. */
function walkWitness(base: Sys, r: Row, high: boolean): boolean {
  const n = base.n;
  const x = new Array<number>(n).fill(0);
  const set = new Uint8Array(n);
  // The value of b's other columns and constant, or undefined while one of them is not set.
  const rest = (b: Row, k: number): number | undefined => {
    let v = b[n]!;
    for (let j = 0; j < n; j++) {
      if (j === k || b[j] === 0) continue;
      if (set[j] === 0) return undefined;
      v += b[j]! * x[j]!;
    }
    return v;
  };
  for (let k = 0; k < n; k++) {
    let lo = -Infinity;
    let hi = Infinity;
    let forced: number | undefined;
    for (const b of base.eqs) {
      const a = b[k]!;
      if (a === 0) continue;
      const v = rest(b, k);
      if (v === undefined) continue;
      if (v % a !== 0) return false;
      const f = -v / a || 0;
      if (forced !== undefined && forced !== f) return false;
      forced = f;
    }
    for (const b of base.ineqs) {
      const a = b[k]!;
      if (a === 0) continue;
      const v = rest(b, k);
      if (v === undefined) continue;
      if (a > 0) lo = Math.max(lo, ceilDiv(-v, a));
      else hi = Math.min(hi, floorDiv(v, -a));
    }
    if (lo > hi) return false;
    let val: number;
    if (forced !== undefined) {
      if (forced < lo || forced > hi) return false;
      val = forced;
    } else if (r[k]! > 0) val = lo !== -Infinity ? lo : (hi !== Infinity ? hi : 0) - WITNESS_REACH;
    else if (r[k]! < 0) val = hi !== Infinity ? hi : (lo !== -Infinity ? lo : 0) + WITNESS_REACH;
    else if (high) val = hi !== Infinity ? hi : lo !== -Infinity ? lo : 0;
    else val = lo !== -Infinity ? lo : hi !== Infinity ? hi : 0;
    if (!Number.isSafeInteger(val) || Math.abs(val) > 2 * WITNESS_REACH) return false;
    x[k] = val;
    set[k] = 1;
  }
  const at = (b: Row) => {
    let v = b[n]!;
    for (let j = 0; j < n; j++) if (b[j] !== 0) v += b[j]! * x[j]!;
    return v;
  };
  if (!(at(r) < 0)) return false;
  for (const b of base.eqs) if (at(b) !== 0) return false;
  for (const b of base.ineqs) if (at(b) < 0) return false;
  return true;
}

/** true when `base` (plus nothing else) implies row `r` (an equality: both directions). */
export function implies(base: Sys, r: Row, eq: boolean): boolean {
  if (!eq) {
    const cs = candsOf(base);
    if (impliedByOneRow(cs, r) || impliedByTwoRows(cs, r)) return true;
  }
  return impliesBeyondPairs(base, r, eq);
}

/** `implies` once the one- and two-row certificates on `base` as it is have failed. */
export function impliesBeyondPairs(base: Sys, r: Row, eq: boolean): boolean {
  // Most rows that get this far are kept (not implied): the witness first.
  if (!eq && violationWitness(base, r)) return false;
  if (!eq && base.eqs.length > 0) {
    const t = tightenedByMultiples(base);
    if (t) {
      const cs = candsOf(t);
      if (impliedByOneRow(cs, r) || impliedByTwoRows(cs, r)) return true;
    }
  }
  if (intFeasible({ n: base.n, eqs: base.eqs, ineqs: [...base.ineqs, negate(r)] })) return false;
  if (!eq) return true;
  const m = r.map((v) => -v || 0);
  return !intFeasible({ n: base.n, eqs: base.eqs, ineqs: [...base.ineqs, negate(m)] });
}
