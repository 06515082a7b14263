/** Membership and enumeration: exact, existentials included. */
import type { BasicSet } from "./types.js";
import { LoomError } from "../errors.js";
import { ceilDiv, floorDiv } from "./int.js";
import { type Row, type Sys, colNames, toSys } from "./rows.js";
import { isCanonicalEmpty } from "./normalize.js";
import { fmEliminateAll } from "./fm.js";
import { fixValues } from "./ops.js";
import { eliminateExact } from "./project.js";
import { isEmpty } from "./empty.js";

/** A row compiled against a value vector: Σ coef[k]·x[idx[k]] + c. */
interface Compiled {
  idx: Int32Array;
  coef: Float64Array;
  c: number;
}

function compileRow(r: Row, colToX: readonly number[]): Compiled {
  const idx: number[] = [];
  const coef: number[] = [];
  for (let k = 0; k < colToX.length; k++) {
    if (r[k] !== 0) {
      idx.push(colToX[k]!);
      coef.push(r[k]!);
    }
  }
  return { idx: Int32Array.from(idx), coef: Float64Array.from(coef), c: r[colToX.length]! };
}

function evalRow(r: Compiled, x: ArrayLike<number>): number {
  let v = r.c;
  const { idx, coef } = r;
  for (let k = 0; k < idx.length; k++) v += coef[k]! * x[idx[k]!]!;
  return v;
}

/** How one existential gets its value during a membership test. */
type Step =
  | { kind: "div"; x: number; num: Compiled; k: number; exact: boolean } // x = num/k (exact) or floor(num/k)
  | { kind: "range"; x: number; lower: { r: Compiled; a: number }[]; upper: { r: Compiled; a: number }[] };

/**
 * Plan the existentials: each is determined by an equality (`k·e = num`) or a floor pair
 * (`0 <= num - k·e <= w < k`), else searched between bounds obtained by FM. null: some
 * existential is unbounded, so a search cannot be planned.
 */
function planExistentials(s: BasicSet, sys: Sys, colToX: readonly number[]): Step[] | null {
  const first = s.params.length + s.dims.length;
  const ne = s.exists.length;
  const known = new Array<boolean>(sys.n).fill(false);
  for (let k = 0; k < first; k++) known[k] = true;
  const othersKnown = (r: Row, col: number) => {
    for (let k = first; k < sys.n; k++) if (k !== col && r[k] !== 0 && !known[k]) return false;
    return true;
  };
  const steps: Step[] = [];
  while (steps.length < ne) {
    let step: Step | undefined;
    let col = -1;
    for (let c = first; c < sys.n && !step; c++) {
      if (known[c]) continue;
      const eq = sys.eqs.find((r) => r[c] !== 0 && othersKnown(r, c));
      if (eq) {
        const a = eq[c]!;
        const num = eq.map((v) => (a > 0 ? -v : v) || 0);
        num[c] = 0;
        step = { kind: "div", x: colToX[c]!, num: compileRow(num, colToX), k: Math.abs(a), exact: true };
      } else {
        for (const r1 of sys.ineqs) {
          const k = -r1[c]!;
          if (k <= 0 || !othersKnown(r1, c)) continue;
          const r2 = sys.ineqs.find((r) => r.every((v, i) => i === sys.n || v === -r1[i]!));
          if (!r2) continue;
          const w = r1[sys.n]! + r2[sys.n]!;
          if (w < 0 || w >= k) continue;
          const num = r1.slice();
          num[c] = 0;
          step = { kind: "div", x: colToX[c]!, num: compileRow(num, colToX), k, exact: false };
          break;
        }
      }
      if (step) col = c;
    }
    if (!step) {
      col = known.indexOf(false, first);
      const others: number[] = [];
      for (let c = first; c < sys.n; c++) if (!known[c] && c !== col) others.push(c);
      const proj = fmEliminateAll(sys, others).sys;
      if (!proj) return [];
      const lower: { r: Compiled; a: number }[] = [];
      const upper: { r: Compiled; a: number }[] = [];
      for (const r of [...proj.eqs, ...proj.ineqs]) {
        const a = r[col]!;
        if (a === 0) continue;
        const rest = r.slice();
        rest[col] = 0;
        const isEq = proj.eqs.includes(r);
        if (a > 0 || isEq) lower.push({ r: compileRow(rest.map((v) => (a > 0 ? -v : v) || 0), colToX), a: Math.abs(a) });
        if (a < 0 || isEq) upper.push({ r: compileRow(rest.map((v) => (a < 0 ? v : -v) || 0), colToX), a: Math.abs(a) });
      }
      if (lower.length === 0 || upper.length === 0) return null;
      step = { kind: "range", x: colToX[col]!, lower, upper };
    }
    known[col] = true;
    steps.push(step);
  }
  return steps;
}

/**
 * A fast exact membership test: `values[k]` is the value of `vars[k]`, which must name every
 * param and dim of `s`. Without existentials a call allocates nothing; with them, each is
 * computed (divisions) or searched between its bounds.
 * `compilePointTest(parseSet("{[i]: i mod 2 = 0}"), ["i"])([4]) === true`
 */
export function compilePointTest(s: BasicSet, vars: readonly string[]): (values: ArrayLike<number>) => boolean {
  const visible = [...s.params, ...s.dims];
  for (const v of visible) if (!vars.includes(v)) throw new LoomError(`compilePointTest: no value slot for "${v}"; vars are ${vars.join(", ")}`);
  if (isCanonicalEmpty(s)) return () => false;
  const sys = toSys(s);
  const nv = vars.length;
  const colToX = [...visible.map((v) => vars.indexOf(v)), ...s.exists.map((_, j) => nv + j)];
  const eqs = sys.eqs.map((r) => compileRow(r, colToX));
  const ineqs = sys.ineqs.map((r) => compileRow(r, colToX));
  const check = (x: ArrayLike<number>) => {
    for (let i = 0; i < eqs.length; i++) if (evalRow(eqs[i]!, x) !== 0) return false;
    for (let i = 0; i < ineqs.length; i++) if (evalRow(ineqs[i]!, x) < 0) return false;
    return true;
  };
  if (s.exists.length === 0) return check;
  const steps = planExistentials(s, sys, colToX);
  if (steps === null) {
    // Rare (an unbounded existential): decide each point with the Omega test.
    return (values) => {
      const fixed: Record<string, number> = {};
      for (const v of visible) fixed[v] = values[vars.indexOf(v)]!;
      return !isEmpty(fixValues(s, fixed));
    };
  }
  const x = new Float64Array(nv + s.exists.length);
  const search = (j: number): boolean => {
    if (j === steps.length) return check(x);
    const st = steps[j]!;
    if (st.kind === "div") {
      const num = evalRow(st.num, x);
      if (st.exact && num % st.k !== 0) return false;
      x[st.x] = floorDiv(num, st.k);
      return search(j + 1);
    }
    let lo = -Infinity;
    let hi = Infinity;
    for (const b of st.lower) lo = Math.max(lo, ceilDiv(evalRow(b.r, x), b.a));
    for (const b of st.upper) hi = Math.min(hi, floorDiv(evalRow(b.r, x), b.a));
    for (let v = lo; v <= hi; v++) {
      x[st.x] = v;
      if (search(j + 1)) return true;
    }
    return false;
  };
  return (values) => {
    for (let k = 0; k < nv; k++) x[k] = values[k]!;
    return search(0);
  };
}

/** Exact membership of one point given by name (params and dims). */
export function containsPoint(s: BasicSet, values: Readonly<Record<string, number>>): boolean {
  const vars = [...s.params, ...s.dims];
  for (const v of vars) if (values[v] === undefined) throw new LoomError(`containsPoint: no value for "${v}"`);
  return compilePointTest(s, vars)(vars.map((v) => values[v]!));
}

const MAX_POINTS = 10_000_000;

/** Call `f` with each integer point (dims in order, lexicographic); the array is reused. */
function forEachPoint(s: BasicSet, params: Readonly<Record<string, number>>, f: (x: Float64Array) => void): void {
  for (const p of s.params) if (params[p] === undefined) throw new LoomError(`points: no value for parameter "${p}"`);
  const fixed: Record<string, number> = {};
  for (const p of s.params) fixed[p] = params[p]!;
  const t = fixValues(s, fixed);
  if (isCanonicalEmpty(t)) return;
  const nd = t.dims.length;
  // Level k loops over dim k between bounds from the projection onto dims 0..k (a superset);
  // the exact test at the innermost level makes the enumeration exact.
  const levels: { lower: { r: Compiled; a: number }[]; upper: { r: Compiled; a: number }[] }[] = [];
  for (let k = 0; k < nd; k++) {
    const proj = eliminateExact(t, [...t.dims.slice(k + 1), ...t.exists]).set;
    if (isCanonicalEmpty(proj)) return;
    const sys = toSys(proj);
    const colToX = colNames(proj).map((_, i) => i);
    const lower: { r: Compiled; a: number }[] = [];
    const upper: { r: Compiled; a: number }[] = [];
    const add = (r: Row, isEq: boolean) => {
      const a = r[k]!;
      if (a === 0) return;
      const rest = r.slice();
      rest[k] = 0;
      if (a > 0 || isEq) lower.push({ r: compileRow(rest.map((v) => (a > 0 ? -v : v) || 0), colToX), a: Math.abs(a) });
      if (a < 0 || isEq) upper.push({ r: compileRow(rest.map((v) => (a < 0 ? v : -v) || 0), colToX), a: Math.abs(a) });
    };
    sys.eqs.forEach((r) => add(r, true));
    sys.ineqs.forEach((r) => add(r, false));
    if (lower.length === 0 || upper.length === 0) {
      if (isEmpty(t)) return;
      throw new LoomError(`points: the set is unbounded in "${t.dims[k]}"; bound it or fix more parameters`);
    }
    levels.push({ lower, upper });
  }
  const test = compilePointTest(t, t.dims);
  const x = new Float64Array(nd);
  let seen = 0;
  const rec = (k: number): void => {
    if (k === nd) {
      if (++seen > MAX_POINTS) throw new LoomError(`points: more than ${MAX_POINTS} candidate points; the set is too large to enumerate`);
      if (test(x)) f(x);
      return;
    }
    const { lower, upper } = levels[k]!;
    let lo = -Infinity;
    let hi = Infinity;
    for (const b of lower) lo = Math.max(lo, ceilDiv(evalRow(b.r, x), b.a));
    for (const b of upper) hi = Math.min(hi, floorDiv(evalRow(b.r, x), b.a));
    for (let v = lo; v <= hi; v++) {
      x[k] = v;
      rec(k + 1);
    }
  };
  rec(0);
}

/**
 * All integer points for the given parameter values, dims in `s.dims` order, lexicographic.
 * `points(parseSet("[n] -> {[i]: 0 <= i < n}"), { n: 3 })` is `[[0], [1], [2]]`.
 */
export function points(s: BasicSet, params: Readonly<Record<string, number>>): number[][] {
  const out: number[][] = [];
  forEachPoint(s, params, (x) => out.push(Array.from(x)));
  return out;
}

/** Number of integer points for the given parameter values. */
export function count(s: BasicSet, params: Readonly<Record<string, number>>): number {
  let n = 0;
  forEachPoint(s, params, () => n++);
  return n;
}
