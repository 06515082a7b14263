/**
 * The normal form every operation returns (ALGORITHMS.md §1): rows divided by the gcd of their
 * coefficients with inequality constants floored (integer tightening), unit equalities on
 * existentials eliminated, duplicates and trivial rows dropped, opposite inequalities merged into
 * equalities, equalities in reduced echelon form (pivot: the last nonzero column) with their pivots
 * eliminated from the inequalities, rows in a canonical order. An empty set is the single row
 * `-1 >= 0`. The row-by-row part (gcd, tightening, parallel rows) is `tidy` (tidy.ts); this module
 * adds the existential steps and the echelon form of the equalities.
 *
 * Canonical, for sets without existentials: two spellings of the same set print the same when
 * they differ by how equalities are combined, by multiples of equalities added to inequalities,
 * by row order, scaling or weaker parallel copies (laws.test.ts, "canonical form"). Not yet: a
 * redundant inequality that no parallel row exposes, an equality implied only by several
 * inequalities (both need `removeRedundancies`), and inequalities that agree only on the lattice
 * a non-unit pivot leaves (`i = 2j`: `i >= 1` and `i >= 2` are the same there).
 */
import type { BasicSet } from "./types.js";
import { LoomError } from "../errors.js";
import { gcd, lin } from "./int.js";
import { type Row, type Sys, dropColumn, rawSet, substRow, sysConstraints, toSys } from "./rows.js";
import { tally } from "./memo.js";
import { tidy } from "./tidy.js";

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
 * Reduced echelon form of the equalities, pivots eliminated from the inequalities: the step that
 * makes the normal form canonical for equalities (two spellings of the same equalities, or of an
 * inequality plus a multiple of an equality, give the same rows).
 *
 * The pivot of each equality is its LAST nonzero column, so existentials (last) are pivots before
 * dims and params. Columns are processed right to left; the pivot row of a column is combined into
 * every other equality with a nonzero there, `a·R - b·P` with `a = p/g`, `b = c/g` (g = gcd(p, c)),
 * then the row is divided by the gcd of its coefficients. Exact: for equalities any combination
 * that keeps a nonzero multiple of the row being replaced has the same solutions, and the integer
 * points of a set are the integer points of the rational affine space of its equalities (a
 * constant not divisible by the coefficients' gcd then proves the set empty). The result is the
 * rational reduced row echelon form, each row scaled to coprime integer coefficients: a function of
 * the rational row space alone, hence canonical — unlike a Hermite basis of the lattice the rows
 * happen to generate, which depends on the spelling (`x+y+2z = 0, x+3y = 0` also implies
 * `x+3z = 0`, which is not an integer combination of them).
 *
 * Inequalities: each pivot column is eliminated with a POSITIVE multiple of the inequality,
 * `|p|/g·r - sign(p)·c/g·P` (`r - c·P` when the pivot is ±1: plain substitution). A positive
 * multiple of `r >= 0` plus a multiple of `P = 0` has the same points, so this is exact too; the
 * row is divided by the gcd of all its entries (constant included, so no rounding) and `tidy`
 * tightens it afterwards. Every spelling `r + Σ c·e` of an inequality lands on the same row: the
 * unique member of `r + span(eqs)` that is zero in the pivot columns, up to a positive factor.
 *
 * Returns null when the system is empty, and whether anything changed.
 */
function reduceEqualities(sys: Sys): { sys: Sys; changed: boolean } | null {
  const n = sys.n;
  const eqs = sys.eqs.slice();
  const m = eqs.length;
  const dead = new Uint8Array(m); // 1: assigned a pivot; 2: became 0 = 0
  const pivCol: number[] = [];
  const pivIdx: number[] = [];
  let changed = false;
  for (let col = n - 1; col >= 0; col--) {
    let best = -1;
    let bestAbs = Infinity;
    for (let i = 0; i < m; i++) {
      if (dead[i] !== 0) continue;
      const a = Math.abs(eqs[i]![col]!);
      if (a !== 0 && a < bestAbs) {
        best = i;
        bestAbs = a;
      }
    }
    if (best < 0) continue;
    dead[best] = 1;
    const P = eqs[best]!;
    const p = P[col]!;
    for (let i = 0; i < m; i++) {
      if (i === best || dead[i] === 2) continue;
      const R = eqs[i]!;
      const c = R[col]!;
      if (c === 0) continue;
      changed = true;
      const g = gcd(p, c);
      const a = p / g;
      const b = c / g;
      // A new row, never the old one updated in place: an overflow half-way leaves `sys` intact.
      const out = new Array<number>(n + 1);
      let rg = 0;
      for (let k = 0; k < n; k++) {
        const v = lin(a, R[k]!, -b, P[k]!);
        out[k] = v;
        if (v !== 0 && rg !== 1) rg = gcd(rg, v);
      }
      const c0 = lin(a, R[n]!, -b, P[n]!);
      out[n] = c0;
      if (rg === 0) {
        if (c0 !== 0) return null;
        dead[i] = 2;
        continue;
      }
      if (c0 % rg !== 0) return null; // no integer solution
      if (rg !== 1) for (let k = 0; k <= n; k++) out[k] = out[k]! / rg || 0;
      eqs[i] = out;
    }
    pivCol.push(col);
    pivIdx.push(best); // its row may still change (later columns), so read it at the end
  }
  const outEqs: Row[] = [];
  for (let i = 0; i < m; i++) if (dead[i] !== 2) outEqs.push(eqs[i]!);
  const outIneqs: Row[] = [];
  for (const r0 of sys.ineqs) {
    let r = r0;
    for (let j = 0; j < pivCol.length; j++) {
      const col = pivCol[j]!;
      const c = r[col]!;
      if (c === 0) continue;
      changed = true;
      const P = eqs[pivIdx[j]!]!;
      const p = P[col]!;
      const g = gcd(p, c);
      const a = Math.abs(p) / g; // > 0: keeps the direction of the inequality
      const b = (p > 0 ? c : -c) / g;
      const out = new Array<number>(n + 1);
      let rg = 0;
      for (let k = 0; k <= n; k++) {
        const v = lin(a, r[k]!, -b, P[k]!);
        out[k] = v;
        if (v !== 0 && rg !== 1) rg = gcd(rg, v);
      }
      if (rg > 1) for (let k = 0; k <= n; k++) out[k] = out[k]! / rg || 0;
      r = out;
    }
    outIneqs.push(r);
  }
  return { sys: { n, eqs: outEqs, ineqs: outIneqs }, changed };
}

/**
 * Two existentials `a < b` that two equalities force equal: `c·e_a + L = 0` and `c·e_b + L = 0`
 * with the same `L` (intersecting two sets that both say `n mod 64 = 0` gives `64e0 = n` and
 * `64e1 = n`), so `c·(e_a - e_b) = 0`. Such twins make every emptiness test that meets them search
 * over a column too many. undefined when there are none.
 */
function twinExistential(sys: Sys, first: number): [number, number] | undefined {
  const { eqs, n } = sys;
  if (eqs.length < 2 || n - first < 2) return undefined;
  for (let i = 0; i < eqs.length; i++) {
    const p = eqs[i]!;
    const ea = loneExistential(p, first, n);
    if (ea < 0) continue;
    for (let j = i + 1; j < eqs.length; j++) {
      const q = eqs[j]!;
      const eb = loneExistential(q, first, n);
      if (eb < 0 || eb === ea) continue;
      // Same sign convention on both: compare q read with the sign that makes its e coefficient p's.
      const s = p[ea] === q[eb] ? 1 : p[ea] === -q[eb]! ? -1 : 0;
      if (s === 0) continue;
      let same = p[n] === s * q[n]!;
      for (let k = 0; same && k < first; k++) same = p[k] === s * q[k]!;
      if (same) return ea < eb ? [ea, eb] : [eb, ea];
    }
  }
  return undefined;
}

/** The one existential column of `r` (-1 when it has none or several). */
function loneExistential(r: Row, first: number, n: number): number {
  let at = -1;
  for (let k = first; k < n; k++) {
    if (r[k] === 0) continue;
    if (at >= 0) return -1;
    at = k;
  }
  return at;
}

/**
 * One existential step on a tidy system: eliminate an existential through a unit equality, or
 * drop one that is unused or bounded on one side only (both exact). null when nothing applies.
 */
function existentialStep(sys: Sys, first: number, ex: string[]): Sys | null {
  const twin = twinExistential(sys, first);
  if (twin) {
    // e_b = e_a: substitute, then e_b's column is gone.
    const [a, b] = twin;
    const def = new Array<number>(sys.n + 1).fill(0);
    def[a] = 1;
    const eqs = sys.eqs.map((r) => substRow(r, b, def));
    const ineqs = sys.ineqs.map((r) => substRow(r, b, def));
    ex.splice(b - first, 1);
    return dropColumn({ n: sys.n, eqs, ineqs }, b);
  }
  for (let col = sys.n - 1; col >= first; col--) {
    const unit = sys.eqs.findIndex((r) => r[col] === 1 || r[col] === -1);
    if (unit >= 0) {
      // x_e = -(rest)/c with c = ±1: substitute everywhere, then the column is gone.
      const eq = sys.eqs[unit]!;
      const c = eq[col]!;
      const def = eq.map((v) => -v * c || 0);
      def[col] = 0;
      const eqs = sys.eqs.filter((_, i) => i !== unit).map((r) => substRow(r, col, def));
      const ineqs = sys.ineqs.map((r) => substRow(r, col, def));
      ex.splice(col - first, 1);
      return dropColumn({ n: sys.n, eqs, ineqs }, col);
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
      ex.splice(col - first, 1);
      return dropColumn({ n: sys.n, eqs: sys.eqs, ineqs }, col);
    }
  }
  return null;
}

/**
 * Normalize rows over params, dims and existentials into a set: the single exit of every
 * operation. Existentials eliminated, unused or one-sided ones dropped (both exact), equalities in
 * reduced echelon form and their pivots eliminated from the inequalities (`reduceEqualities`).
 * Canonical for equalities and for inequalities modulo them; not for redundant inequalities or
 * implicit equalities (that needs `removeRedundancies`).
 */
export function finish(params: readonly string[], dims: readonly string[], exists: readonly string[], sys0: Sys): BasicSet {
  const r = finishSys(params, dims, exists, sys0);
  if (!r) return emptyOf(params, dims);
  return finishedSet(params, dims, r.exists, r.sys);
}

/**
 * `finish` without building the set: the rows (equalities, then inequalities, each sorted: the
 * order `toSys` reads them back in) and the existentials left, or null for the empty set.
 */
export function finishSys(params: readonly string[], dims: readonly string[], exists: readonly string[], sys0: Sys): { sys: Sys; exists: string[] } | null {
  tally.normalizations++;
  const first = params.length + dims.length;
  const ex = [...exists];
  let sys: Sys | null = sys0;
  // Number of equalities that the last reduction left, -1 when the system changed since: tidy can
  // only add equalities to a reduced system (opposite inequalities), which then need reducing.
  let reducedEqs = -1;
  for (;;) {
    sys = tidy(sys);
    if (!sys) return null;
    const next = existentialStep(sys, first, ex);
    if (next) {
      sys = next;
      reducedEqs = -1;
      continue;
    }
    if (sys.eqs.length === 0 || sys.eqs.length === reducedEqs) break;
    let r: { sys: Sys; changed: boolean } | null;
    try {
      r = reduceEqualities(sys);
    } catch (e) {
      // Coefficients outgrew the safe integers: keep the (exact, merely less canonical) tidy form.
      if (e instanceof LoomError) {
        sys.rough = true;
        break;
      }
      throw e;
    }
    if (!r) return null;
    if (!r.changed) break;
    sys = r.sys;
    reducedEqs = sys.eqs.length;
  }
  sys.eqs.sort(compareRows);
  sys.ineqs.sort(compareRows);
  return { sys, exists: ex };
}

/** The set of a `finishSys` answer (what `finish` returns for the same input). */
export function finishedSet(params: readonly string[], dims: readonly string[], exists: readonly string[], sys: Sys): BasicSet {
  const s = rawSet(params, dims, exists, sysConstraints(sys));
  if (sys.rough !== true) normalSets.add(s);
  return s;
}

/**
 * Sets known to be in normal form: made by `finishedSet` (its own normal form, `finish` of it
 * gives it back) or a factor of one (`factorOf`: a subsequence of its rows). A fact about the
 * content of a frozen set, so no answer depends on whether a set is here, only which route finds it.
 */
const normalSets = new WeakSet<BasicSet>();

/** Whether `s` is known to be in normal form (see `normalSets`). */
export function knownNormal(s: BasicSet): boolean {
  return normalSets.has(s);
}

/** Record that `s` (a factor of a set in normal form) is in normal form. */
export function markNormal(s: BasicSet): void {
  normalSets.add(s);
}

/** The normal form of `s` (see module comment). `simplify(parseSet("{[i]: 2i >= 1}"))` is `i >= 1`. */
export function simplify(s: BasicSet): BasicSet {
  return finish(s.params, s.dims, s.exists, toSys(s));
}
