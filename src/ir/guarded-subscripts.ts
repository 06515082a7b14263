/**
 * The array accesses of an expression with the conditions under which C evaluates them:
 * `c ? a[i] : b[j]` reads `a[i]` only where `c` holds and `b[j]` only where it does not;
 * `p && a[i]` reads `a[i]` only where `p` holds, `p || a[i]` only where it does not. Every
 * backend evaluates these lazily (C, OpenCL and CUDA's `?:`, `&&`, `||`; the interpreter's
 * compiled JavaScript), so an access is checked, and sized, only where it runs: OKL's shape
 * inference (src/okl/lower/shapes.ts) and the bounds proof before native code (src/run/bounds.ts).
 *
 *   guardedSubscripts(parseExpr("i < n ? a[i] : 0"))   // [{ node: a[i], guards: [i < n] }]
 */
import { walkExpr, type Expr, type LinearSubscript, type Subscript } from "./expr.js";

/** One access and the conditions that hold wherever it is evaluated. */
export interface GuardedSubscript {
  readonly node: Subscript | LinearSubscript;
  readonly guards: readonly Expr[];
}

/** The subscripts of `e` (nested ones too), each with the conditions guarding it beyond `guards`. */
export function guardedSubscripts(e: Expr, guards: readonly Expr[] = []): GuardedSubscript[] {
  const out: GuardedSubscript[] = [];
  const visit = (x: Expr, g: readonly Expr[]): void => walkExpr(x, (n) => {
    if (n.kind === "if") {
      visit(n.cond, g);
      visit(n.then, [...g, n.cond]);
      visit(n.else, [...g, { kind: "not", operand: n.cond }]);
      return false;
    }
    if (n.kind === "logical") {
      visit(n.left, g);
      visit(n.right, [...g, n.op === "and" ? n.left : { kind: "not", operand: n.left }]);
      return false;
    }
    if (n.kind === "subscript" || n.kind === "linear") out.push({ node: n, guards: g });
    return undefined;
  });
  visit(e, guards);
  return out;
}
