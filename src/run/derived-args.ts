/**
 * Value arguments the host computes before the launch (`Kernel.oklOptions.derivedArgs`): an OKL
 * @outer loop's trip count that is not affine in the value arguments (`(entries + size - 1) / size`)
 * is a value argument of its own, so the domain stays affine in it and it sizes the grid, as OCCA's
 * host computes launch sizes. Computed exactly by evalSizeExpr (no int32 wrap-around);
 * a division by zero or a value the expression cannot be evaluated from is an ExecutionError
 * naming it, never a launch of a wrong size.
 *
 *   withDerivedArgs(k, { entries: 130, size: 64, list })   // { …, eo_trip: 3 }
 */
import { ExecutionError } from "../errors.js";
import { exprToString, type Expr, type Kernel } from "../ir/index.js";
import { evalSizeExpr } from "./size-expr.js";

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

/**
 * The exact integer value of `e` over the value arguments `args` (evalSizeExpr's meaning: the IR's
 * integer `/`, `//`, `%`); an ExecutionError where it has none: an argument not passed as a number,
 * a division by zero, a value past 2^53.
 */
export function evalDerived(e: Expr, args: Readonly<Record<string, ArgValue>>, what: string): number {
  const params = new Map<string, number>();
  for (const [name, v] of Object.entries(args)) if (typeof v === "number" || typeof v === "bigint") params.set(name, Number(v));
  const v = evalSizeExpr(e, params, what);
  if (!Number.isSafeInteger(v)) throw new ExecutionError(`${what} is ${v}, not an integer computed exactly (past 2^53)`);
  return v;
}
