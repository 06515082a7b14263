/**
 * The normal form every operation returns (ALGORITHMS.md §1): rows divided by the gcd of their
 * coefficients with inequality constants floored (integer tightening), unit equalities on
 * existentials eliminated, duplicates and trivial rows dropped, opposite inequalities merged into
 * equalities, rows in a canonical order. An empty set is the single row `-1 >= 0`.
 */
import type { BasicSet } from "./types.js";
import { floorDiv, gcd } from "./int.js";
import { type Row, type Sys, dropColumn, rawSet, substRow, sysConstraints, toSys } from "./rows.js";

/** gcd of the variable coefficients of `r` (0 for a constant row). */
function rowGcd(r: Row, n: number): number {
  let g = 0;
  for (let k = 0; k < n && g !== 1; k++) if (r[k] !== 0) g = gcd(g, r[k]!);
  return g;
}

function firstNonzero(r: Row, n: number): number {
  for (let k = 0; k < n; k++) if (r[k] !== 0) return r[k]!;
  return 0;
}

function key(r: Row, n: number, sign: number): string {
  let s = "";
  for (let k = 0; k < n; k++) s += (sign * r[k]! || 0) + ",";
  return s;
}

/**
 * gcd reduction, tightening, duplicate and parallel-row merging on plain rows (no existential
 * logic). Returns null when a row is trivially false: the system is empty.
 */
export function tidy(sys: Sys): Sys | null {
  const n = sys.n;
  const eqs = new Map<string, Row>();
  for (const r0 of sys.eqs) {
    const g = rowGcd(r0, n);
    if (g === 0) {
      if (r0[n] !== 0) return null;
      continue;
    }
    if (r0[n]! % g !== 0) return null; // no integer solution
    const s = firstNonzero(r0, n) < 0 ? -g : g;
    const r = r0.map((v) => v / s || 0);
    const k = key(r, n, 1);
    const old = eqs.get(k);
    if (old && old[n] !== r[n]) return null;
    eqs.set(k, r);
  }
  // Inequalities grouped by direction: pos holds rows whose first coefficient is positive.
  const pos = new Map<string, Row>();
  const neg = new Map<string, Row>();
  for (const r0 of sys.ineqs) {
    const g = rowGcd(r0, n);
    if (g === 0) {
      if (r0[n]! < 0) return null;
      continue;
    }
    const r = r0.slice(0, n).map((v) => v / g || 0);
    r.push(floorDiv(r0[n]!, g)); // integer tightening: round the constant down
    const up = firstNonzero(r, n) > 0;
    const k = key(r, n, up ? 1 : -1);
    const m = up ? pos : neg;
    const old = m.get(k);
    if (!old || old[n]! > r[n]!) m.set(k, r);
  }
  const outIneqs: Row[] = [];
  const handle = (k: string, p: Row | undefined, q: Row | undefined) => {
    const e = eqs.get(k);
    if (e) {
      // e: v·x + ce = 0; p: v·x + cp >= 0 holds iff cp >= ce; q: -v·x + cq >= 0 iff cq >= -ce.
      if (p && p[n]! < e[n]!) return false;
      if (q && q[n]! < -e[n]!) return false;
      return true;
    }
    if (p && q) {
      const w = p[n]! + q[n]!;
      if (w < 0) return false;
      if (w === 0) {
        eqs.set(k, p);
        return true;
      }
    }
    if (p) outIneqs.push(p);
    if (q) outIneqs.push(q);
    return true;
  };
  for (const [k, p] of pos) if (!handle(k, p, neg.get(k))) return null;
  for (const [k, q] of neg) if (!pos.has(k) && !handle(k, undefined, q)) return null;
  return { n, eqs: [...eqs.values()], ineqs: outIneqs };
}

/** Canonical row order: by coefficients (descending, column order), then constant. */
export function compareRows(a: Row, b: Row): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return k === a.length - 1 ? a[k]! - b[k]! : b[k]! - a[k]!;
  return 0;
}

/** The canonical empty set over the given names. */
export function emptyOf(params: readonly string[], dims: readonly string[]): BasicSet {
  const n = params.length + dims.length;
  const r = new Array<number>(n).fill(0);
  r.push(-1);
  return rawSet(params, dims, [], sysConstraints({ n, eqs: [], ineqs: [r] }));
}

/** true when `s` is the canonical empty set (a cheap, structural test). */
export function isCanonicalEmpty(s: BasicSet): boolean {
  const c = s.constraints;
  return c.length === 1 && !c[0]!.eq && c[0]!.constant < 0 && c[0]!.coeffs.every((v) => v === 0);
}

/**
 * Normalize rows over params, dims and existentials into a set: the single exit of every
 * operation. Existentials eliminated, unused or one-sided ones dropped (both exact).
 */
export function finish(params: readonly string[], dims: readonly string[], exists: readonly string[], sys0: Sys): BasicSet {
  const first = params.length + dims.length;
  const ex = [...exists];
  let sys: Sys | null = sys0;
  for (;;) {
    sys = tidy(sys);
    if (!sys) return emptyOf(params, dims);
    let changed = false;
    for (let e = sys.n - 1; e >= first && !changed; e--) {
      const col = e;
      const unit = sys.eqs.findIndex((r) => r[col] === 1 || r[col] === -1);
      if (unit >= 0) {
        // x_e = -(rest)/c with c = ±1: substitute everywhere, then the column is gone.
        const eq = sys.eqs[unit]!;
        const c = eq[col]!;
        const def = eq.map((v) => -v * c || 0);
        def[col] = 0;
        const eqs = sys.eqs.filter((_, i) => i !== unit).map((r) => substRow(r, col, def));
        const ineqs = sys.ineqs.map((r) => substRow(r, col, def));
        sys = dropColumn({ n: sys.n, eqs, ineqs }, col);
        ex.splice(col - first, 1);
        changed = true;
        break;
      }
      if (sys.eqs.some((r) => r[col] !== 0)) continue;
      let lo = false;
      let hi = false;
      for (const r of sys.ineqs) {
        if (r[col]! > 0) lo = true;
        else if (r[col]! < 0) hi = true;
      }
      if (!(lo && hi)) {
        // Unused, or bounded on one side only: some integer value always satisfies its rows.
        const ineqs = sys.ineqs.filter((r) => r[col] === 0);
        sys = dropColumn({ n: sys.n, eqs: sys.eqs, ineqs }, col);
        ex.splice(col - first, 1);
        changed = true;
      }
    }
    if (!changed) break;
  }
  sys.eqs.sort(compareRows);
  sys.ineqs.sort(compareRows);
  return rawSet(params, dims, ex, sysConstraints(sys));
}

/** The normal form of `s` (see module comment). `simplify(parseSet("{[i]: 2i >= 1}"))` is `i >= 1`. */
export function simplify(s: BasicSet): BasicSet {
  return finish(s.params, s.dims, s.exists, toSys(s));
}
