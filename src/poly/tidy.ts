/**
 * Row tidying, the first step of the normal form (normalize.ts) and of Fourier-Motzkin
 * elimination (fm.ts): each row divided by the gcd of its coefficients (inequality constants
 * floored: integer tightening), trivial rows dropped or proving the system empty, and parallel
 * rows merged (the tightest of each direction kept, opposite ones meeting in an equality).
 */
import { floorDiv, gcd } from "./int.js";
import type { Row, Sys } from "./rows.js";

/** Same coefficients in columns 0..n-1, `a` read with sign `sa`, `b` with sign `sb`. */
function sameCoeffs(a: Row, sa: number, b: Row, sb: number, n: number): boolean {
  if (sa === sb) {
    for (let k = 0; k < n; k++) if (a[k] !== b[k]) return false;
  } else {
    for (let k = 0; k < n; k++) if (a[k] !== -b[k]!) return false;
  }
  return true;
}

/**
 * The gcd of `r`'s variable coefficients with the sign of its first nonzero one (0 for a
 * constant row): one scan gives both the divisor and the row's direction.
 */
function signedGcd(r: Row, n: number): number {
  let g = 0;
  let first = 0;
  for (let k = 0; k < n; k++) {
    const v = r[k]!;
    if (v !== 0) {
      if (first === 0) first = v;
      if (g !== 1) g = gcd(g, v);
    }
  }
  return first < 0 ? -g : g;
}

/** A parallel class: rows whose coefficients are `±dir` (dir's first nonzero is positive). */
interface Cls {
  /** The direction is `ds·dr` (the row that created the class, read with sign ds): no copy. */
  dr: Row;
  ds: number;
  h: number; // hash of the direction
  e: Row | undefined; // the equality dir·x + c = 0
  p: Row | undefined; // tightest dir·x + c >= 0
  q: Row | undefined; // tightest -dir·x + c >= 0
}

/** Classes are found by a linear scan over their hashes up to this many, then through a Map. */
const SCAN = 32;

/** The parallel classes of one `tidy` call, scanned while few, then indexed by hash. */
interface Classes {
  readonly n: number;
  readonly list: Cls[];
  byHash: Map<number, Cls | Cls[]> | undefined;
}

function indexClass(t: Classes, c: Cls): void {
  const hit = t.byHash!.get(c.h);
  if (hit === undefined) t.byHash!.set(c.h, c);
  else if (Array.isArray(hit)) hit.push(c);
  else t.byHash!.set(c.h, [hit, c]);
}

/** The class of direction `sgn·r` (its first nonzero made positive), created when absent. */
function classOf(t: Classes, r: Row, sgn: number): Cls {
  const n = t.n;
  let h = 0;
  for (let k = 0; k < n; k++) h = (Math.imul(h, 31) + sgn * r[k]!) | 0;
  const classes = t.list;
  if (t.byHash === undefined) {
    for (let i = 0; i < classes.length; i++) {
      const c = classes[i]!;
      if (c.h === h && sameCoeffs(c.dr, c.ds, r, sgn, n)) return c;
    }
  } else {
    const hit = t.byHash.get(h);
    if (hit !== undefined) {
      if (!Array.isArray(hit)) {
        if (sameCoeffs(hit.dr, hit.ds, r, sgn, n)) return hit;
      } else {
        for (const c of hit) if (sameCoeffs(c.dr, c.ds, r, sgn, n)) return c;
      }
    }
  }
  const c: Cls = { dr: r, ds: sgn, h, e: undefined, p: undefined, q: undefined };
  classes.push(c);
  if (t.byHash !== undefined) indexClass(t, c);
  else if (classes.length > SCAN) {
    t.byHash = new Map();
    for (const x of classes) indexClass(t, x);
  }
  return c;
}

/**
 * gcd reduction, tightening, duplicate and parallel-row merging on plain rows (no existential
 * logic). Returns null when a row is trivially false: the system is empty.
 *
 * Rows are grouped by direction through an integer hash (compared coefficient by coefficient
 * on a hit), not string keys: this is the hot path of every operation. Small systems scan the
 * classes' hashes; large ones index them in a Map from hash to classes.
 */
export function tidy(sys: Sys): Sys | null {
  const n = sys.n;
  const t: Classes = { n, list: [], byHash: undefined };
  for (const r0 of sys.eqs) {
    const sg = signedGcd(r0, n);
    const g = Math.abs(sg);
    if (g === 0) {
      if (r0[n] !== 0) return null;
      continue;
    }
    if (r0[n]! % g !== 0) return null; // no integer solution
    const r = new Array<number>(n + 1);
    for (let k = 0; k <= n; k++) r[k] = r0[k]! / sg || 0;
    const c = classOf(t, r, 1);
    if (c.e && c.e[n] !== r[n]) return null;
    c.e = r;
  }
  for (const r0 of sys.ineqs) {
    const sg = signedGcd(r0, n);
    const g = Math.abs(sg);
    if (g === 0) {
      if (r0[n]! < 0) return null;
      continue;
    }
    const r = new Array<number>(n + 1);
    if (g === 1) for (let k = 0; k <= n; k++) r[k] = r0[k]! || 0;
    else {
      for (let k = 0; k < n; k++) r[k] = r0[k]! / g || 0;
      r[n] = floorDiv(r0[n]!, g); // integer tightening: round the constant down
    }
    const up = sg > 0;
    const c = classOf(t, r, up ? 1 : -1);
    const old = up ? c.p : c.q;
    if (!old || old[n]! > r[n]!) {
      if (up) c.p = r;
      else c.q = r;
    }
  }
  const outEqs: Row[] = [];
  const outIneqs: Row[] = [];
  for (const c of t.list) {
    const { e, p, q } = c;
    if (e) {
      // e: v·x + ce = 0; p: v·x + cp >= 0 holds iff cp >= ce; q: -v·x + cq >= 0 iff cq >= -ce.
      if (p && p[n]! < e[n]!) return null;
      if (q && q[n]! < -e[n]!) return null;
      outEqs.push(e);
      continue;
    }
    if (p && q) {
      const w = p[n]! + q[n]!;
      if (w < 0) return null;
      if (w === 0) {
        outEqs.push(p);
        continue;
      }
    }
    if (p) outIneqs.push(p);
    if (q) outIneqs.push(q);
  }
  return { n, eqs: outEqs, ineqs: outIneqs };
}
