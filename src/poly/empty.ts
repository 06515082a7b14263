/**
 * Exact emptiness over the integers: the Omega test (Pugh 1991). Equalities are solved exactly
 * (unit coefficients by substitution, others by Pugh's mod-hat variable); for inequalities, a
 * variable is eliminated exactly when FM is exact, else through real shadow (empty ⇒ empty), dark
 * shadow (non-empty ⇒ non-empty) and splinters. Every step removes a variable, so it terminates on
 * unbounded sets too.
 */
import type { Aff, BasicSet } from "./types.js";
import { add, checkInt, floorDiv, mul } from "./int.js";
import { colNames, combine, findRoot, type Row, type Sys, insertColumns, substRow, toSys } from "./rows.js";
import { isCanonicalEmpty } from "./normalize.js";
import { tidy } from "./tidy.js";
import { fmCost, fmEliminate } from "./fm.js";
import { affKey, cached, contentMemo, rowsKey, setKey, cachedBySet, setMemo } from "./memo.js";

function modHat(a: number, m: number): number {
  return a - m * floorDiv(2 * a + m, 2 * m);
}

/** Solve the equalities of `sys` away; null when infeasible. The result has no equalities. */
function solveEqualities(sys0: Sys): Sys | null {
  let sys: Sys | null = tidy(sys0);
  while (sys && sys.eqs.length > 0) {
    let bi = 0, bk = -1, bc = Infinity;
    sys.eqs.forEach((r, i) => {
      for (let k = 0; k < sys!.n; k++) {
        const c = Math.abs(r[k]!);
        if (c !== 0 && c < bc) [bi, bk, bc] = [i, k, c];
      }
    });
    const e = sys.eqs[bi]!;
    const a = e[bk]!;
    if (bc === 1) {
      const def = e.map((v) => -v * a || 0);
      def[bk] = 0;
      sys = tidy({
        n: sys.n,
        eqs: sys.eqs.filter((_, i) => i !== bi).map((r) => substRow(r, bk, def)),
        ineqs: sys.ineqs.map((r) => substRow(r, bk, def)),
      });
      continue;
    }
    // Pugh's mod-hat step: a new variable σ with m·σ = Σ modhat(a_i)·x_i + modhat(c) and
    // modhat(a_k) = -sign(a_k), so x_k can be substituted; coefficients shrink each round.
    const n = sys.n;
    const m = bc + 1;
    const sg = a > 0 ? 1 : -1;
    const def = new Array<number>(n + 2).fill(0);
    for (let k = 0; k < n; k++) if (k !== bk) def[k] = sg * modHat(e[k]!, m);
    def[n] = -sg * m;
    def[n + 1] = sg * modHat(e[n]!, m);
    const widen = (r: Row) => substRow(insertColumns(r, n, 1), bk, def);
    sys = tidy({ n: n + 1, eqs: sys.eqs.map(widen), ineqs: sys.ineqs.map(widen) });
  }
  return sys;
}

/** true when the system has an integer solution (all columns are free variables). */
export function intFeasible(sys0: Sys): boolean {
  const sys = solveEqualities(sys0);
  return sys !== null && feasibleTidy(sys);
}

/**
 * `intFeasible` of a tidy system without equalities. The system is split into its connected
 * components (columns linked by sharing a row), each decided alone: a system is feasible exactly
 * when each component is, since they share no variable. A component of one column is feasible
 * already — `tidy` merged its rows into one lower and one upper bound and checked them — so the
 * boxes of a context (`0 <= a_dim_0 <= 15`) cost nothing, and the Omega test runs on the few
 * columns a question really ties together, not on the whole context.
 */
function feasibleTidy(sys: Sys): boolean {
  if (sys.ineqs.length === 0) return true;
  const parts = components(sys);
  if (parts === false) return false;
  if (parts === null) return omegaMemo(sys);
  for (const p of parts) if (!omegaMemo(p)) return false;
  return true;
}

/**
 * `omegaStep`, remembered by the rows: the implication tests of one gist (and of the next) ask
 * about the same components again and again (the context's own ones, and those that Omega's
 * eliminations leave behind), each decided once.
 */
function omegaMemo(sys: Sys): boolean {
  const key = rowsKey(sys.n, sys.ineqs);
  return key === undefined ? omegaStep(sys) : cached(componentMemo, key, () => omegaStep(sys));
}

const componentMemo = contentMemo<boolean>();

/**
 * The components of `sys` with two or more columns, each compacted to its own columns; null when
 * the whole system is one component (no copy needed); false when a constant row is false.
 */
function components(sys: Sys): Sys[] | null | false {
  const n = sys.n;
  const parent = new Int32Array(n);
  for (let k = 0; k < n; k++) parent[k] = k;
  const rows = sys.ineqs;
  const first = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    let f = -1;
    for (let k = 0; k < n; k++) {
      if (r[k] === 0) continue;
      if (f < 0) f = k;
      else {
        const a = findRoot(parent, f);
        const b = findRoot(parent, k);
        if (a !== b) parent[b] = a;
      }
    }
    if (f < 0 && r[n]! < 0) return false;
    first[i] = f;
  }
  // Columns per component, and how many components have rows and two or more columns.
  const width = new Int32Array(n);
  for (let k = 0; k < n; k++) width[findRoot(parent, k)]!++;
  const rootOf = new Int32Array(rows.length);
  const seen = new Uint8Array(n);
  let multi = 0;
  let withRows = 0;
  for (let i = 0; i < rows.length; i++) {
    const root = first[i]! < 0 ? -1 : findRoot(parent, first[i]!);
    rootOf[i] = root;
    if (root >= 0 && seen[root] === 0) {
      seen[root] = 1;
      withRows++;
      if (width[root]! > 1) multi++;
    }
  }
  // One component over every column: nothing to split or compact.
  if (withRows === 1 && multi === 1) {
    for (let i = 0; i < rows.length; i++) if (rootOf[i]! >= 0) return width[rootOf[i]!] === n ? null : compact(sys, parent, rootOf, width);
  }
  return compact(sys, parent, rootOf, width);
}

/** The components of two or more columns as systems of their own columns. */
function compact(sys: Sys, parent: Int32Array, rootOf: Int32Array, width: Int32Array): Sys[] {
  const n = sys.n;
  const rows = sys.ineqs;
  const seen = new Uint8Array(n);
  for (let i = 0; i < rows.length; i++) if (rootOf[i]! >= 0) seen[rootOf[i]!] = 1;
  const out: Sys[] = [];
  for (let root = 0; root < n; root++) {
    if (seen[root] === 0 || width[root]! <= 1) continue;
    const cols: number[] = [];
    for (let k = 0; k < n; k++) if (findRoot(parent, k) === root) cols.push(k);
    const m = cols.length;
    const ineqs: Row[] = [];
    for (let i = 0; i < rows.length; i++) {
      if (rootOf[i] !== root) continue;
      const r = rows[i]!;
      const o = new Array<number>(m + 1);
      for (let j = 0; j < m; j++) o[j] = r[cols[j]!]!;
      o[m] = r[n]!;
      ineqs.push(o);
    }
    out.push({ n: m, eqs: [], ineqs });
  }
  return out;
}


/** One step of the Omega test on a tidy component without equalities. */
function omegaStep(sys: Sys): boolean {
  let best = -1;
  let bestExact = false;
  let bestPairs = Infinity;
  for (let k = 0; k < sys.n; k++) {
    let lo = false, hi = false;
    for (const r of sys.ineqs) {
      if (r[k]! > 0) lo = true;
      else if (r[k]! < 0) hi = true;
    }
    if (lo !== hi) {
      // One-sided: the variable can always be chosen, its rows are always satisfiable.
      return feasibleTidy({ n: sys.n, eqs: [], ineqs: sys.ineqs.filter((r) => r[k] === 0) });
    }
    if (!lo) continue;
    const c = fmCost(sys, k);
    if ((c.exact && !bestExact) || (c.exact === bestExact && c.pairs < bestPairs)) {
      best = k;
      bestExact = c.exact;
      bestPairs = c.pairs;
    }
  }
  if (best < 0) return true; // only constant rows, and tidy accepted them
  const real = fmEliminate(sys, best);
  if (bestExact) return real.sys !== null && (real.sys.eqs.length === 0 ? feasibleTidy(real.sys) : intFeasible(real.sys));
  if (!real.sys || !intFeasible(real.sys)) return false;
  if (intFeasible(darkShadow(sys, best))) return true;
  // Splinters: if an integer point exists outside the dark shadow, it lies close to a lower bound.
  let m = 0;
  for (const r of sys.ineqs) if (r[best]! < 0) m = Math.max(m, -r[best]!);
  for (const l of sys.ineqs) {
    const a = l[best]!;
    if (a <= 0) continue;
    const top = floorDiv(mul(m, a) - a - m, m);
    for (let j = 0; j <= top; j++) {
      const eq = l.slice();
      eq[sys.n] = eq[sys.n]! - j;
      if (intFeasible({ n: sys.n, eqs: [eq], ineqs: sys.ineqs })) return true;
    }
  }
  return false;
}

function darkShadow(sys: Sys, col: number): Sys {
  const out: Row[] = [];
  for (const r of sys.ineqs) if (r[col] === 0) out.push(r);
  for (const l of sys.ineqs) {
    const a = l[col]!;
    if (a <= 0) continue;
    for (const u of sys.ineqs) {
      const b = -u[col]!;
      if (b <= 0) continue;
      const r = combine(b, l, a, u);
      r[sys.n] = add(r[sys.n]!, -mul(a - 1, b - 1));
      out.push(r);
    }
  }
  return { n: sys.n, eqs: [], ineqs: out };
}

/** Exact emptiness over the integers, parameters free. `isEmpty(parseSet("{[i]: 0 < 2i < 2}"))` */
export function isEmpty(s: BasicSet): boolean {
  if (isCanonicalEmpty(s)) return true;
  return cachedBySet(emptyMemo, s, "", () => !intFeasible(toSys(s)));
}

const emptyMemo = setMemo<boolean>();

/**
 * Whether `s` with `aff >= 0` added is empty (names of `aff` that `s` lacks are free), decided on
 * the rows: `isEmpty(addConstraints(s, [{ aff, eq: false }]))` without building that set.
 */
export function isEmptyWith(s: BasicSet, a: Aff): boolean {
  if (isCanonicalEmpty(s)) return true;
  return cached(emptyWithMemo, `${setKey(s)}#${affKey(a)}`, () => {
    const sys = toSys(s);
    const names = colNames(s);
    const at = new Map<string, number>();
    for (let k = 0; k < names.length; k++) at.set(names[k]!, k);
    let extra = 0;
    for (const v in a.terms) if (!at.has(v)) at.set(v, sys.n + extra++);
    const n = sys.n + extra;
    const widen = (r: Row): Row => {
      if (extra === 0) return r;
      const o = r.slice(0, sys.n);
      for (let k = 0; k < extra; k++) o.push(0);
      o.push(r[sys.n]!);
      return o;
    };
    const row = new Array<number>(n + 1).fill(0);
    for (const v in a.terms) row[at.get(v)!] = checkInt(a.terms[v]!, () => `coefficient of ${v}`);
    row[n] = checkInt(a.constant, "constant");
    return !intFeasible({ n, eqs: sys.eqs.map(widen), ineqs: [...sys.ineqs.map(widen), row] });
  });
}

const emptyWithMemo = contentMemo<boolean>();
