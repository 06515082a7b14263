/**
 * Fourier–Motzkin elimination on rows. A column is eliminated by zeroing it (the caller drops the
 * column), so column indices stay stable while several columns are eliminated in turn.
 */
import { combine, type Row, type Sys, substRow } from "./rows.js";
import { tidy } from "./tidy.js";
import { LoomError } from "../errors.js";

export interface FmResult {
  /** null: the system became trivially infeasible. */
  sys: Sys | null;
  /** false when the result is only the rational shadow (a superset over the integers). */
  exact: boolean;
}

/**
 * The most new rows one elimination step may make (its lower times its upper bounds). Pairs grow
 * the system quadratically at each step, so several steps can exhaust the memory of the process;
 * past this a step is refused with a LoomError instead (a step of 360,000 pairs takes about 2 s).
 */
export const FM_PAIR_LIMIT = 1_000_000;

/** Pair counts of column `col`: how costly and whether exact an FM step would be. */
export function fmCost(sys: Sys, col: number): { pairs: number; exact: boolean; eq: number } {
  let lo = 0, hi = 0, unitLo = true, unitHi = true;
  let eq = 0;
  for (const r of sys.eqs) {
    const c = Math.abs(r[col]!);
    if (c !== 0 && (eq === 0 || c < eq)) eq = c;
  }
  for (const r of sys.ineqs) {
    const c = r[col]!;
    if (c > 0) {
      lo++;
      if (c !== 1) unitLo = false;
    } else if (c < 0) {
      hi++;
      if (c !== -1) unitHi = false;
    }
  }
  if (eq !== 0) return { pairs: 0, exact: eq === 1, eq };
  return { pairs: lo * hi, exact: unitLo || unitHi, eq: 0 };
}

/**
 * Eliminate column `col`: through an equality (smallest coefficient) when there is one, else by
 * combining every lower with every upper bound. Exact over the integers only for unit equalities
 * and when each pair has a unit coefficient on one side.
 */
export function fmEliminate(sys: Sys, col: number): FmResult {
  let best = -1;
  for (let i = 0; i < sys.eqs.length; i++) {
    const c = Math.abs(sys.eqs[i]![col]!);
    if (c !== 0 && (best < 0 || c < Math.abs(sys.eqs[best]![col]!))) best = i;
  }
  if (best >= 0) {
    const e = sys.eqs[best]!;
    const a = e[col]!;
    if (a === 1 || a === -1) {
      const def = e.map((v) => -v * a || 0);
      def[col] = 0;
      const eqs = sys.eqs.filter((_, i) => i !== best).map((r) => substRow(r, col, def));
      return { sys: tidy({ n: sys.n, eqs, ineqs: sys.ineqs.map((r) => substRow(r, col, def)) }), exact: true };
    }
    // |a|·r - sign(a)·b·e cancels the column and keeps inequalities' direction.
    const s = a > 0 ? 1 : -1;
    const elim = (r: Row) => (r[col] === 0 ? r : combine(Math.abs(a), r, -s * r[col]!, e));
    const eqs = sys.eqs.filter((_, i) => i !== best).map(elim);
    return { sys: tidy({ n: sys.n, eqs, ineqs: sys.ineqs.map(elim) }), exact: false };
  }
  const lows: Row[] = [];
  const ups: Row[] = [];
  const rest: Row[] = [];
  for (const r of sys.ineqs) (r[col]! > 0 ? lows : r[col]! < 0 ? ups : rest).push(r);
  if (lows.length * ups.length > FM_PAIR_LIMIT) {
    throw new LoomError(`an integer-set computation is too large: eliminating a variable would combine ${lows.length} lower with ${ups.length} upper bounds ` +
      `(${lows.length * ups.length} new constraints, more than ${FM_PAIR_LIMIT}); simplify the domain (fewer constraints on one variable), or report the kernel`);
  }
  let exact = true;
  for (const l of lows) {
    for (const u of ups) {
      const a = l[col]!;
      const b = -u[col]!;
      if (a !== 1 && b !== 1) exact = false;
      rest.push(combine(b, l, a, u));
    }
  }
  return { sys: tidy({ n: sys.n, eqs: sys.eqs, ineqs: rest }), exact };
}

/**
 * Eliminate several columns, cheapest and exact ones first (fewer rows, more exactness).
 * Columns are zeroed, not removed.
 */
export function fmEliminateAll(sys0: Sys, cols: readonly number[]): FmResult {
  let sys: Sys | null = sys0;
  let exact = true;
  const todo = [...cols];
  while (todo.length > 0 && sys) {
    let pick = 0;
    let bestScore = Infinity;
    for (let i = 0; i < todo.length; i++) {
      const c = fmCost(sys, todo[i]!);
      // Exact steps first; among them equalities, then fewest pairs.
      const score = (c.exact ? 0 : 1e6) + (c.eq !== 0 ? 0 : 1 + c.pairs);
      if (score < bestScore) {
        bestScore = score;
        pick = i;
      }
    }
    const col = todo.splice(pick, 1)[0]!;
    const r = fmEliminate(sys, col);
    sys = r.sys;
    exact &&= r.exact;
  }
  return { sys, exact };
}
