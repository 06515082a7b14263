/**
 * Value arguments the host computes before the launch (`Kernel.oklOptions.derivedArgs`): an OKL
 * @outer loop's trip count that is not affine in the value arguments (`(entries + size - 1) / size`)
 * is a value argument of its own, so the domain stays affine in it and it sizes the grid, as OCCA's
 * host computes launch sizes. Computed exactly (no int32 wrap-around; C's truncating division);
 * a division by zero or a value the expression cannot be evaluated from is an ExecutionError
 * naming it, never a launch of a wrong size.
 *
 *   withDerivedArgs(k, { entries: 130, size: 64, list })   // { …, eo_trip: 3 }
 */
import { ExecutionError } from "../errors.js";
import { exprToString, type Expr, type Kernel } from "../ir/index.js";

/** A run's arguments by name (args.ts's ArgValue: typed arrays, numbers, bigints). */
type ArgValue = unknown;

/** `args` with the kernel's derived value arguments computed from the others; passing one is an ExecutionError. */
export function withDerivedArgs<T>(k: Kernel, args: Readonly<Record<string, T>>): Readonly<Record<string, T | number>> {
  const derived = k.oklOptions?.derivedArgs ?? [];
  if (derived.length === 0) return args;
  const out: Record<string, T | number> = { ...args };
  for (const d of derived) {
    if (args[d.name] !== undefined) {
      throw new ExecutionError(`kernel "${k.name}": argument "${d.name}" is ${d.what}, computed from the other arguments (${exprToString(d.expr)}); do not pass it`);
    }
    out[d.name] = evalDerived(d.expr, out, `argument "${d.name}" of kernel "${k.name}" (${d.what}, ${exprToString(d.expr)})`);
  }
  return out;
}

/** The exact integer value of `e` over the value arguments `args`; an ExecutionError where it has none. */
export function evalDerived(e: Expr, args: Readonly<Record<string, ArgValue>>, what: string): number {
  const go = (n: Expr): number => {
    switch (n.kind) {
      case "const": return n.value;
      case "var": {
        const v = args[n.name];
        if (typeof v !== "number" && typeof v !== "bigint") throw new ExecutionError(`${what} reads "${n.name}", which was not passed as a number`);
        return Number(v);
      }
      case "neg": return -go(n.operand);
      case "cast": return go(n.value);
      case "if": return go(n.cond) !== 0 ? go(n.then) : go(n.else);
      case "compare": {
        const a = go(n.left), b = go(n.right);
        const r = n.op === "<" ? a < b : n.op === "<=" ? a <= b : n.op === ">" ? a > b : n.op === ">=" ? a >= b : n.op === "==" ? a === b : a !== b;
        return r ? 1 : 0;
      }
      case "arith": {
        const a = go(n.left), b = go(n.right);
        if ((n.op === "/" || n.op === "%" || n.op === "//") && b === 0) throw new ExecutionError(`${what} divides by zero (${exprToString(n.right)} = 0)`);
        switch (n.op) {
          case "+": return a + b;
          case "-": return a - b;
          case "*": return a * b;
          case "/": return Math.trunc(a / b);
          case "//": return Math.floor(a / b);
          case "%": return a % b;
          default: break;
        }
        break;
      }
      default: break;
    }
    throw new ExecutionError(`${what}: cannot evaluate ${exprToString(n)} before the launch`);
  };
  const v = go(e);
  if (!Number.isSafeInteger(v)) throw new ExecutionError(`${what} is ${v}, not an integer computed exactly (past 2^53)`);
  return v;
}
