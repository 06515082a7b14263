/**
 * C's trip count of an OKL loop whose bounds or step are not affine (they read memory, or divide
 * or multiply parameters): `for (T i = S; i CMP E; i ±= d)` runs `tripCount(S, E, d, CMP)` times
 * with `i = S ± d*t` for `t = 0, 1, …`, when the direction of the update agrees with the comparison
 * and `d > 0` (OCCA computes the same count, OKL.md §3.2; with `d <= 0` the C loop would not
 * terminate).
 *
 *   tripCount(S, E, d, "<")   // if(S < E, (E - S + d - 1) / d, 0)
 */
import { c, type Expr } from "../../ir/index.js";

export type Cmp = "<" | "<=" | ">" | ">=";

const add = (left: Expr, right: Expr): Expr => (right.kind === "const" && right.value === 0 ? left : { kind: "arith", op: "+", left, right });
const sub = (left: Expr, right: Expr): Expr => ({ kind: "arith", op: "-", left, right });

/**
 * The number of iterations of `for (i = start; i cmp end; i += step)` (`<`, `<=`) or
 * `for (i = start; i cmp end; i -= step)` (`>`, `>=`), `step > 0`: zero when the condition fails
 * at the start, else the C-truncating quotient of a positive numerator, which is the ceiling.
 */
export function tripCount(start: Expr, end: Expr, step: Expr, cmp: Cmp): Expr {
  const span = cmp === "<" || cmp === "<=" ? sub(end, start) : sub(start, end);
  const unit = step.kind === "const" && step.value === 1;
  // Strict: ceil(span / d) = (span + d - 1) / d; inclusive: span / d + 1 = (span + d) / d.
  const num = cmp === "<" || cmp === ">" ? (unit ? span : add(span, step.kind === "const" ? c(step.value - 1) : sub(step, c(1)))) : add(span, step);
  const count: Expr = unit ? num : { kind: "arith", op: "/", left: num, right: step };
  return { kind: "if", cond: { kind: "compare", op: cmp, left: start, right: end }, then: count, else: c(0) };
}

/** `start + step*t` (increasing) or `start - step*t` (decreasing), `t` an iname. */
export function iterateValue(start: Expr, step: Expr, t: string, increasing: boolean): Expr {
  const tv: Expr = { kind: "var", name: t };
  const scaled: Expr = step.kind === "const" && step.value === 1 ? tv : { kind: "arith", op: "*", left: step, right: tv };
  if (start.kind === "const" && start.value === 0 && increasing) return scaled;
  return { kind: "arith", op: increasing ? "+" : "-", left: start, right: scaled };
}

/** Whether the update's direction agrees with the comparison (else the C loop runs 0 times or forever). */
export function directionAgrees(increasing: boolean, cmp: Cmp): boolean {
  return increasing === (cmp === "<" || cmp === "<=");
}
