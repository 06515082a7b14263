/**
 * Untying existentials: a basic set whose constraints tie several existentials together
 * (`exists e0, e1: 0 <= 35*e0 + 5*e1 + j < m`) rewritten as a union of basic sets in which every
 * constraint holds at most one existential. Each existential of a piece is then decided on its own
 * (a divisibility test, a floor comparison), which is what code generation can guard exactly.
 *
 * Exact steps, tried in order until no constraint ties existentials:
 *   1. eliminate an existential whose Fourier–Motzkin pairs are all exact over the integers
 *      (a unit coefficient on one side, or `a·e >= L`, `a·e <= U` with `U - L >= a - 1` constant);
 *   2. an equality over several existentials: a unimodular change of variables (extended gcd on
 *      its coefficients) leaves one existential `f` in it, `g·f + r = 0`, and `f` is removed from
 *      every other row by combining with the equality (Hermite-style column reduction);
 *   3. rows whose existential parts are all multiples of one direction `v`: the change of
 *      variables with `t = v·e` as a new existential, when that unties rows;
 *   4. otherwise a case split on the existential with the fewest possible values (constant bounds
 *      within the context): one piece per value.
 * Unbounded ties that none of these resolves give `undefined`.
 */
import { LoomError } from "../errors.js";
import type { BasicSet, Constraint } from "./types.js";
import { gcd, lin } from "./int.js";
import { isCanonicalEmpty, simplify } from "./normalize.js";
import { eliminate, dimBounds } from "./project.js";
import { intersect } from "./ops.js";

/** At most this many pieces in all, and this many values for one split. */
const MAX_PIECES = 64;
const MAX_SPLIT = 16;

type Row = { eq: boolean; coeffs: number[]; constant: number };

/** The number of existentials constraint `c` of `s` holds. */
function exCount(s: BasicSet, c: Constraint): number {
  let n = 0;
  for (let k = s.params.length + s.dims.length; k < c.coeffs.length; k++) if (c.coeffs[k] !== 0) n++;
  return n;
}

/** Whether some constraint of `s` holds two or more existentials. */
export function tiesExistentials(s: BasicSet): boolean {
  return s.exists.length > 1 && s.constraints.some((c) => exCount(s, c) > 1);
}

function make(s: BasicSet, exists: readonly string[], rows: readonly Row[]): BasicSet {
  return simplify({ params: s.params, dims: s.dims, exists, constraints: rows.map((r) => ({ eq: r.eq, coeffs: r.coeffs, constant: r.constant })) });
}

/**
 * `s` as a union of basic sets over the same params and dims, none tying existentials, exact
 * within `context` (a set over some of the same names): the union is a subset of `s` and has every
 * point of `s` that lies in `context`. Without ties: `[s]`. `undefined` where no exact split was found.
 * `untieExistentials(parseSet("{[j]: exists e0, e1: 0 <= e0 <= 2 and 0 <= e1 <= 6 and j <= 35e0 + 5e1 <= j + 2}"))`
 * is `[{[j]: exists t: 0 <= t <= 20 and j <= 5t <= j + 2}]` (`t = 7e0 + e1`).
 */
export function untieExistentials(s: BasicSet, context?: BasicSet): BasicSet[] | undefined {
  const out: BasicSet[] = [];
  try {
    return untie(simplify(s), context, out) ? out : undefined;
  } catch (e) {
    // Coefficients leaving the safe-integer range: no exact answer here.
    if (e instanceof LoomError) return undefined;
    throw e;
  }
}

function untie(s0: BasicSet, context: BasicSet | undefined, out: BasicSet[]): boolean {
  let s = s0;
  for (let step = 0; step < 64; step++) {
    if (isCanonicalEmpty(s)) return true;
    const easy = eliminateEasy(s);
    if (easy) {
      s = easy;
      continue;
    }
    if (!tiesExistentials(s)) {
      if (out.length >= MAX_PIECES) return false;
      out.push(s);
      return true;
    }
    const solved = solveEquality(s);
    if (solved) {
      s = solved;
      continue;
    }
    const turned = alongDirection(s);
    if (turned) {
      s = turned;
      continue;
    }
    return splitCases(s, context, out);
  }
  return false;
}

// ---- 1. exact elimination -------------------------------------------------------------------

/** `s` with one existential eliminated exactly (see module comment), or undefined. */
function eliminateEasy(s: BasicSet): BasicSet | undefined {
  const np = s.params.length + s.dims.length;
  for (let j = 0; j < s.exists.length; j++) {
    const col = np + j;
    const rows = s.constraints;
    if (rows.some((c) => c.eq && c.coeffs[col] !== 0)) continue;
    const lo = rows.filter((c) => c.coeffs[col]! > 0);
    const up = rows.filter((c) => c.coeffs[col]! < 0);
    if (lo.length + up.length === 0) continue;
    const made: Row[] = [];
    let exact = true;
    let empty = false;
    for (const l of lo) {
      for (const u of up) {
        const a = l.coeffs[col]!;
        const b = -u.coeffs[col]!;
        // b·(a·e + Lr) + a·(-b·e + Ur) >= 0, without e.
        const coeffs = l.coeffs.map((x, k) => (k === col ? 0 : lin(b, x, a, u.coeffs[k]!)));
        const constant = lin(b, l.constant, a, u.constant);
        if (a === 1 || b === 1) {
          made.push({ eq: false, coeffs, constant });
          continue;
        }
        // a·e >= L and a·e <= U with U - L = D constant: a multiple of a lies in [L, U] iff D >= a - 1 (or never, D < 0).
        if (a === b && coeffs.every((x) => x === 0)) {
          const D = l.constant + u.constant;
          if (D >= a - 1) continue;
          if (D < 0) {
            empty = true;
            continue;
          }
        }
        exact = false;
      }
    }
    if (!exact) continue;
    if (made.length > 16) continue;
    const keep: Row[] = rows.filter((c) => c.coeffs[col] === 0).map((c) => ({ eq: c.eq, coeffs: [...c.coeffs], constant: c.constant }));
    if (empty) keep.push({ eq: false, coeffs: keep[0]?.coeffs.map(() => 0) ?? new Array(np + s.exists.length).fill(0), constant: -1 });
    return make(s, s.exists.filter((_, k) => k !== j), [...keep, ...made].map((r) => dropCol(r, col)));
  }
  return undefined;
}

function dropCol(r: Row, col: number): Row {
  return { eq: r.eq, coeffs: r.coeffs.filter((_, k) => k !== col), constant: r.constant };
}

// ---- 2. equalities: a unimodular change of variables ----------------------------------------

/**
 * A unimodular matrix `V` (columns of the existentials) with `v·V = (g, 0, …, 0)`, `g = gcd(v) > 0`:
 * extended Euclid applied to columns. With `e = V·f`, the row `v·e` becomes `g·f0`.
 */
export function reducingMatrix(v: readonly number[]): number[][] {
  const k = v.length;
  const V = Array.from({ length: k }, (_, r) => Array.from({ length: k }, (_, c): number => (r === c ? 1 : 0)));
  const w = [...v];
  for (let j = 1; j < k; j++) {
    if (w[j] === 0) continue;
    const [g, p, q] = extGcd(w[0]!, w[j]!);
    // Columns 0 and j replaced by p·c0 + q·cj and (-wj/g)·c0 + (w0/g)·cj: determinant 1.
    const a = -w[j]! / g;
    const b = w[0]! / g;
    for (let r = 0; r < k; r++) {
      const c0 = V[r]![0]!;
      const cj = V[r]![j]!;
      V[r]![0] = lin(p, c0, q, cj);
      V[r]![j] = lin(a, c0, b, cj);
    }
    w[0] = g;
    w[j] = 0;
  }
  if (w[0]! < 0) for (let r = 0; r < k; r++) V[r]![0] = -V[r]![0]!;
  return V;
}

/** [g, p, q] with p·a + q·b = g = gcd(a, b) >= 0. */
function extGcd(a: number, b: number): [number, number, number] {
  let [r0, r1, s0, s1, t0, t1] = [a, b, 1, 0, 0, 1];
  while (r1 !== 0) {
    const q = Math.trunc(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
    [t0, t1] = [t1, t0 - q * t1];
  }
  return r0 < 0 ? [-r0, -s0, -t0] : [r0, s0, t0];
}

/** Rows of `s` with the existential columns multiplied by `V` (the substitution `e = V·f`). */
function changeVariables(s: BasicSet, V: readonly (readonly number[])[]): Row[] {
  const np = s.params.length + s.dims.length;
  const k = s.exists.length;
  return s.constraints.map((c) => {
    const coeffs = c.coeffs.slice(0, np);
    for (let j = 0; j < k; j++) {
      let x = 0;
      for (let r = 0; r < k; r++) x = lin(1, x, c.coeffs[np + r]!, V[r]![j]!);
      coeffs.push(x);
    }
    return { eq: c.eq, coeffs, constant: c.constant };
  });
}

/** The existential columns of `s` reordered so that those in `cols` come first, then the others. */
function permutation(k: number, first: readonly number[]): number[][] {
  const order = [...first, ...Array.from({ length: k }, (_, j) => j).filter((j) => !first.includes(j))];
  // V[r][j] = 1 where existential r becomes column j.
  return Array.from({ length: k }, (_, r) => Array.from({ length: k }, (_, j) => (order[j] === r ? 1 : 0)));
}

function matMul(A: readonly (readonly number[])[], B: readonly (readonly number[])[]): number[][] {
  return A.map((row) => B[0]!.map((_, j) => row.reduce((acc, x, r) => lin(1, acc, x, B[r]![j]!), 0)));
}

/**
 * An equality tying existentials, reduced to one: after the change of variables it reads
 * `g·f + r = 0`, and `f` is removed from every other row (`g·row - c·eq`, `g > 0`).
 */
function solveEquality(s: BasicSet): BasicSet | undefined {
  const np = s.params.length + s.dims.length;
  const k = s.exists.length;
  const eq = s.constraints.find((c) => c.eq && exCount(s, c) > 1);
  if (!eq) return undefined;
  // Only the existentials in the equality take part: reduce them into the first of them.
  const used = Array.from({ length: k }, (_, j) => j).filter((j) => eq.coeffs[np + j] !== 0);
  const P = permutation(k, used);
  const small = reducingMatrix(used.map((j) => eq.coeffs[np + j]!));
  const W = Array.from({ length: k }, (_, r) => Array.from({ length: k }, (_, c) => (r < used.length && c < used.length ? small[r]![c]! : r === c ? 1 : 0)));
  const V = matMul(P, W);
  const rows = changeVariables(s, V);
  const at = s.constraints.indexOf(eq);
  const e = rows[at]!;
  const fcol = np; // after P·W the reduced existential is the first existential column
  const g = e.coeffs[fcol]!;
  const out = rows.map((r, idx) => {
    if (idx === at || r.coeffs[fcol] === 0) return r;
    const c = r.coeffs[fcol]!;
    return { eq: r.eq, coeffs: r.coeffs.map((x, m) => lin(g, x, -c, e.coeffs[m]!)), constant: lin(g, r.constant, -c, e.constant) };
  });
  return make(s, s.exists, out);
}

// ---- 3. a common direction -------------------------------------------------------------------

/** The primitive vector of the existential part of `c` (sign: first non-zero positive). */
function direction(s: BasicSet, c: Constraint): number[] {
  const np = s.params.length + s.dims.length;
  const v = c.coeffs.slice(np);
  const g = v.reduce((a, x) => gcd(a, x), 0);
  const sign = Math.sign(v.find((x) => x !== 0)!);
  return v.map((x) => (x / g) * sign + 0);
}

function tiedCount(s: BasicSet): number {
  return s.constraints.filter((c) => exCount(s, c) > 1).length;
}

/** `s` with `t = v·e` as a new existential for the direction `v` of a tying row, when that unties rows. */
function alongDirection(s: BasicSet): BasicSet | undefined {
  const before = tiedCount(s);
  const seen = new Set<string>();
  for (const c of s.constraints) {
    if (exCount(s, c) < 2) continue;
    const v = direction(s, c);
    const key = v.join(",");
    if (seen.has(key)) continue;
    seen.add(key);
    const t = make(s, s.exists, changeVariables(s, reducingMatrix(v)));
    let u: BasicSet | undefined = t;
    for (let again = eliminateEasy(u); again; again = eliminateEasy(u)) u = again;
    if (tiedCount(u) < before || u.exists.length < s.exists.length) return u;
  }
  return undefined;
}

// ---- 4. case split ---------------------------------------------------------------------------

/** Constant bounds of each existential of `s` within `context`: [lo, hi] or undefined. */
function existentialRanges(s: BasicSet, context: BasicSet | undefined): ([number, number] | undefined)[] {
  const visible = [...s.params, ...s.dims];
  const taken = new Set([...visible, ...(context ? [...context.params, ...context.dims] : [])]);
  const exNames = s.exists.map((_, j) => {
    let n = `e${j}`;
    while (taken.has(n)) n = `_${n}`;
    taken.add(n);
    return n;
  });
  let all: BasicSet = { params: [], dims: [...visible, ...exNames], exists: [], constraints: s.constraints };
  if (context) {
    const drop = [...context.params, ...context.dims].filter((n) => !visible.includes(n));
    const c = eliminate(context, [...drop, ...context.exists]);
    all = intersect(all, { params: [], dims: [...c.params, ...c.dims], exists: [], constraints: c.constraints });
  }
  return exNames.map((n) => {
    const b = dimBounds(all, n, []);
    const lo = b.lower.filter((x) => Object.keys(x.aff.terms).length === 0).map((x) => Math.ceil(x.aff.constant / x.denom));
    const hi = b.upper.filter((x) => Object.keys(x.aff.terms).length === 0).map((x) => Math.floor(x.aff.constant / x.denom));
    return lo.length > 0 && hi.length > 0 ? [Math.max(...lo), Math.min(...hi)] : undefined;
  });
}

function splitCases(s: BasicSet, context: BasicSet | undefined, out: BasicSet[]): boolean {
  const np = s.params.length + s.dims.length;
  const ranges = existentialRanges(s, context);
  let best = -1;
  for (let j = 0; j < ranges.length; j++) {
    const r = ranges[j];
    if (!r || !s.constraints.some((c) => c.coeffs[np + j] !== 0 && exCount(s, c) > 1)) continue;
    if (best < 0 || r[1] - r[0] < ranges[best]![1] - ranges[best]![0]) best = j;
  }
  if (best < 0) return false;
  const [lo, hi] = ranges[best]!;
  if (hi - lo + 1 > MAX_SPLIT) return false;
  const col = np + best;
  for (let v = lo; v <= hi; v++) {
    const rows = s.constraints.map((c) => dropCol({ eq: c.eq, coeffs: [...c.coeffs], constant: lin(1, c.constant, c.coeffs[col]!, v) }, col));
    const piece = make(s, s.exists.filter((_, k) => k !== best), rows);
    if (!untie(piece, context, out)) return false;
  }
  return true;
}
