/**
 * Value arguments the host computes before the launch (`Kernel.oklOptions.derivedArgs`): an OKL
 * @outer loop's trip count that is not affine in the value arguments (`(entries + size - 1) / size`)
 * is a value argument of its own, so the domain stays affine in it and it sizes the grid, as OCCA's
 * host computes launch sizes; the trip count of a plain shift loop holding barriers (`for (int size
 * = 2; size < 2*bound; size <<= 1)`, `okl_trip_<type>_<shl|shr|mul|div>_<cmp>(start, bound, k, most)`: C's loop
 * run in its type, see shiftTrip). Computed exactly by evalSizeExpr (no int32 wrap-around);
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
  const shift = e.kind === "call" ? SHIFT_TRIP.exec(e.fn) : null;
  const v = shift && e.kind === "call" && e.args.length === 4
    ? shiftTrip(shift, e.args.map((a) => evalSizeExpr(a, params, what)), what)
    : evalSizeExpr(e, params, what);
  if (!Number.isSafeInteger(v)) throw new ExecutionError(`${what} is ${v}, not an integer computed exactly (past 2^53)`);
  return v;
}

/** `okl_trip_<type>_<shl|shr|mul|div>_<lt|le|gt|ge>(start, bound, k, most)`: the trips of an OKL geometric loop (src/okl/lower/geometric.ts). */
const SHIFT_TRIP = /^okl_trip_(u?)int(8|16|32|64)_(shl|shr|mul|div)_(lt|le|gt|ge)$/;

/**
 * The number of trips C runs `for (T v = start; v CMP bound; v <<= k)` (or `>>= k`, `*= k`,
 * `/= k`), iterating it in T's range exactly (BigInt): an ExecutionError where C's loop is
 * undefined or never ends: a start or bound outside T, a left shift of a negative value, a value
 * past T's range (unsigned wrap-around included: refused, not followed), an update that no longer
 * changes `v` while the condition holds (`0 << k`, `-1 >> k`, `0 / k`); and one where it runs more
 * than `most` trips, the counter's bound in the kernel (the closed form `S * k^t` would leave the type).
 */
function shiftTrip(m: RegExpExecArray, [start, bound, k, most]: number[], what: string): number {
  const [, u, bitsText, op, cmp] = m;
  const bits = BigInt(bitsText!);
  const signed = u === "";
  const lo = signed ? -(1n << (bits - 1n)) : 0n;
  const hi = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  const type = `${signed ? "" : "u"}int${bitsText}`;
  const big = (x: number, name: string): bigint => {
    if (!Number.isSafeInteger(x) || BigInt(x) < lo || BigInt(x) > hi) throw new ExecutionError(`${what}: the loop's ${name} is ${x}, outside ${type}'s range (C's loop would overflow)`);
    return BigInt(x);
  };
  const e = big(bound!, "bound");
  const kb = BigInt(k!);
  const holds = (x: bigint) => (cmp === "lt" ? x < e : cmp === "le" ? x <= e : cmp === "gt" ? x > e : x >= e);
  const sign = { shl: "<<", shr: ">>", mul: "*", div: "/" }[op!];
  let v = big(start!, "start");
  let n = 0;
  while (holds(v)) {
    n++;
    if (op === "shl" && v < 0n) throw new ExecutionError(`${what}: the loop shifts the negative value ${v} left (undefined in C)`);
    const next = op === "shl" ? v << kb : op === "shr" ? v >> kb : op === "mul" ? v * kb : v / kb;
    if (next > hi || next < lo) throw new ExecutionError(`${what}: the loop's value ${v} ${sign} ${k} = ${next} passes ${type}'s range (C's loop overflows)`);
    if (next === v) throw new ExecutionError(`${what}: the loop never ends (its value stays ${v} and the condition holds)`);
    if (n > most!) throw new ExecutionError(`${what}: the loop runs more than ${most} trips from ${start}, more than Loom's counter of it covers (${type}'s range); not supported`);
    v = next;
  }
  return n;
}
