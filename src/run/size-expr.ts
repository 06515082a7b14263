/**
 * The evaluator of the IR's integer expressions over value arguments before a run: shapes,
 * strides, launch sizes and host-loop bounds, exactly (the IR's meaning, no wrap-around). What an
 * OKL host computes from C source (derived-args.ts) is C's meaning instead, in C's types:
 * c-int-eval.ts.
 */
import { ExecutionError } from "../errors.js";
import { exprToString, isFloat, type Expr } from "../ir/index.js";

/**
 * Evaluate a shape or stride expression with the parameter values (integer arithmetic).
 * `evalSizeExpr(parseExpr("n*2 + 1"), new Map([["n", 4]]), "shape")` is 9. The interpreter
 * computes hardware-axis sizes and host-loop bounds with compiled code of the same meaning
 * (`exactIndexCode`, compile-expr.ts); test/run/exact-axes.test.ts checks the two agree.
 */
export function evalSizeExpr(e: Expr, params: ReadonlyMap<string, number>, what: string): number {
  const go = (n: Expr): number => {
    switch (n.kind) {
      case "const": return n.value;
      case "var": {
        const v = params.get(n.name);
        if (v === undefined) throw new ExecutionError(`${what} uses "${n.name}", which is not a value argument that was passed`);
        return v;
      }
      case "neg": return -go(n.operand);
      case "arith": {
        const a = go(n.left);
        const b = go(n.right);
        if (b === 0 && (n.op === "/" || n.op === "//" || n.op === "%") && Number.isInteger(a)) {
          throw new ExecutionError(`${what} divides by zero (${exprToString(n.right)} = 0)`);
        }
        switch (n.op) {
          case "+": return a + b;
          case "-": return a - b;
          case "*": return a * b;
          case "/": return Number.isInteger(a) && Number.isInteger(b) ? Math.trunc(a / b) : a / b;
          case "//": return Math.floor(a / b);
          case "%": return ((a % b) + b) % b;
          case "**": return a ** b;
        }
        break;
      }
      case "call":
        if ((n.fn === "min" || n.fn === "max") && n.args.length > 0) return Math[n.fn](...n.args.map(go));
        break;
      case "cast":
        return isFloat(n.dtype) ? go(n.value) : Math.trunc(go(n.value));
      case "if":
        return go(n.cond) !== 0 ? go(n.then) : go(n.else);
      case "compare": {
        const a = go(n.left), b = go(n.right);
        const r = n.op === "<" ? a < b : n.op === "<=" ? a <= b : n.op === ">" ? a > b : n.op === ">=" ? a >= b : n.op === "==" ? a === b : a !== b;
        return r ? 1 : 0;
      }
      default:
        break;
    }
    throw new ExecutionError(`${what}: cannot evaluate ${exprToString(n)} before the run`);
  };
  return go(e);
}
