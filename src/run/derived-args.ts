/**
 * Value arguments the host computes before the launch (`Kernel.oklOptions.derivedArgs`): an OKL
 * @outer loop's trip count that is not affine in the value arguments (`(entries + size - 1) / size`)
 * is a value argument of its own, so the domain stays affine in it and it sizes the grid, as OCCA's
 * host computes launch sizes; the trip count of a plain shift loop holding barriers (`for (int size
 * = 2; size < 2*bound; size <<= 1)`, `okl_trip_<type>_<op>_<cmp>(start, bound, k, most)`: C's loop
 * in its type, see loopTrip); whether an array argument was passed, not null (`okl_passed(b)`: 1 or 0,
 * an OKL kernel's `if (b)`). Each is C's meaning computed exactly: the source's expressions in
 * C's types (c-int-eval.ts), the trips of C's loop; where C has none (a signed overflow, a division
 * by zero, a loop that never ends) or the expression cannot be evaluated, an ExecutionError naming
 * it, never a launch of a wrong size.
 *
 *   withDerivedArgs(k, { entries: 130, size: 64, list })   // { …, eo_trip: 3 }
 */
import { ExecutionError } from "../errors.js";
import { exprToString, type Dtype, type Expr, type Kernel } from "../ir/index.js";
import { evalCInt } from "./c-int-eval.js";

/** A run's arguments by name (args.ts's ArgValue: typed arrays, numbers, bigints). */
type ArgValue = unknown;

/** `args` with the kernel's derived value arguments computed from the others; passing one is an ExecutionError. */
export function withDerivedArgs<T>(k: Kernel, args: Readonly<Record<string, T>>): Readonly<Record<string, T | number>> {
  const derived = k.oklOptions?.derivedArgs ?? [];
  if (derived.length === 0) return args;
  const out: Record<string, T | number> = { ...args };
  const types = new Map<string, Dtype>();
  for (const a of k.args) if (a.kind === "value" && a.dtype) types.set(a.name, a.dtype);
  for (const d of derived) {
    if (args[d.name] !== undefined) {
      throw new ExecutionError(`kernel "${k.name}": argument "${d.name}" is ${d.what}, computed from the other arguments (${exprToString(d.expr)}); do not pass it`);
    }
    const e = d.expr;
    // `okl_passed(b)`: whether array argument b was passed (not null: OKL's `if (b)`, src/okl/lower/null-tests.ts).
    if (e.kind === "call" && e.fn === "okl_passed" && e.args[0]?.kind === "var") out[d.name] = args[e.args[0].name] === null ? 0 : 1;
    else if (e.kind === "call" && e.fn === "okl_elements" && e.args[0]?.kind === "var" && e.args[1]?.kind === "const") out[d.name] = elementsOf(e.args[0].name, e.args[1].value, out, k.name);
    else out[d.name] = evalDerived(e, out, `argument "${d.name}" of kernel "${k.name}" (${d.what}, ${exprToString(e)})`, types);
  }
  return out;
}

/**
 * `okl_elements(s, size)`: the byte stride `s` of a view `(T *)((char *)p + i*s)` in elements of
 * `size` bytes; a remainder would make the view read misaligned bytes (undefined in C), refused.
 */
function elementsOf(name: string, size: number, args: Readonly<Record<string, ArgValue>>, kernel: string): number {
  const v = args[name];
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) throw new ExecutionError(`kernel "${kernel}" needs the byte stride "${name}" as an integer, got ${String(v)}`);
  if (n % size !== 0) {
    throw new ExecutionError(`kernel "${kernel}": the byte stride "${name}" = ${n} is not a whole number of ${size}-byte elements, so the view (T *)((char *)p + i*${name}) would read misaligned bytes (undefined in C); pass a multiple of ${size}`);
  }
  return n / size;
}

/**
 * C's integer value of `e` over the value arguments `args` (whose dtypes `types` gives; int32 where
 * absent): the OKL source's expressions in C's types, exactly (c-int-eval.ts), and the trip counts
 * `okl_trip_*` of C's loops; an ExecutionError where C has none (a signed overflow, a division by
 * zero, a loop that never ends), where an argument was not passed as a number, or past 2^53.
 */
export function evalDerived(e: Expr, args: Readonly<Record<string, ArgValue>>, what: string, types: ReadonlyMap<string, Dtype> = new Map()): number {
  const params = new Map<string, bigint>();
  for (const [name, v] of Object.entries(args)) {
    if (typeof v === "bigint") params.set(name, v);
    else if (typeof v === "number" && Number.isSafeInteger(v)) params.set(name, BigInt(v));
  }
  const trip = e.kind === "call" ? SHIFT_TRIP.exec(e.fn) : null;
  const v = trip && e.kind === "call" && e.args.length === 4
    ? loopTrip(trip, e.args.map((a) => evalCInt(a, params, types, what)), what)
    : evalCInt(e, params, types, what);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new ExecutionError(`${what} is ${v}, not an integer computed exactly (past 2^53)`);
  return Number(v);
}

/**
 * `okl_trip_<type>_<op>_<lt|le|gt|ge>(start, bound, k, most)`: the trips of an OKL loop `for (T v =
 * start; v CMP bound; v OP= k)`: `add`/`sub` for a host-sized @outer level (src/okl/lower/kernel-loops.ts),
 * `shl|shr|mul|div` for a geometric loop (src/okl/lower/geometric.ts); `…_do` for `do … while`, whose
 * first trip runs whatever the condition; `ne` for C's `while (s)` (`shr` only).
 */
const SHIFT_TRIP = /^okl_trip_(u?)int(8|16|32|64)_(add|sub|shl|shr|mul|div)_(lt|le|gt|ge|ne)(_do)?$/;

/**
 * The number of trips C runs `for (T v = start; v CMP bound; v <<= k)` (or `>>= k`, `*= k`,
 * `/= k`), iterating it in T's range exactly (BigInt): an ExecutionError where C's loop is
 * undefined or never ends: a start or bound outside T, a left shift of a negative value, a value
 * past T's range (unsigned wrap-around included: refused, not followed), an update that no longer
 * changes `v` while the condition holds (`0 << k`, `-1 >> k`, `0 / k`); and one where it runs more
 * than `most` trips, the counter's bound in the kernel (the closed form `S * k^t` would leave the type).
 */
function loopTrip(m: RegExpExecArray, [start, bound, k, most]: bigint[], what: string): bigint {
  const [, u, bitsText, op, cmp, doWhile] = m;
  const bits = BigInt(bitsText!);
  const signed = u === "";
  const lo = signed ? -(1n << (bits - 1n)) : 0n;
  const hi = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  const type = `${signed ? "" : "u"}int${bitsText}`;
  const big = (x: bigint, name: string): bigint => {
    if (x < lo || x > hi) throw new ExecutionError(`${what}: the loop's ${name} is ${x}, outside ${type}'s range (C's loop would overflow)`);
    return x;
  };
  const e = big(bound!, "bound");
  const kb = k!;
  const holds = (x: bigint) => (cmp === "lt" ? x < e : cmp === "le" ? x <= e : cmp === "gt" ? x > e : cmp === "ne" ? x !== e : x >= e);
  if (op === "add" || op === "sub") return stepTrip(big(start!, "start"), e, kb, op === "add", cmp!, holds, lo, hi, type, what);
  const sign = { shl: "<<", shr: ">>", mul: "*", div: "/" }[op!];
  let v = big(start!, "start");
  let n = 0n;
  while (holds(v) || (doWhile !== undefined && n === 0n)) {
    n++;
    if (op === "shl" && v < 0n) throw new ExecutionError(`${what}: the loop shifts the negative value ${v} left (undefined in C)`);
    const next = op === "shl" ? v << kb : op === "shr" ? v >> kb : op === "mul" ? v * kb : v / kb;
    if (next > hi || next < lo) throw new ExecutionError(`${what}: the loop's value ${v} ${sign} ${k} = ${next} passes ${type}'s range (C's loop overflows)`);
    if (next === v && holds(v)) throw new ExecutionError(`${what}: the loop never ends (its value stays ${v} and the condition holds)`);
    if (n > most!) throw new ExecutionError(`${what}: the loop runs more than ${most} trips from ${start}, more than Loom's counter of it covers (${type}'s range); not supported`);
    v = next;
  }
  return n;
}

/**
 * The trips of `for (v = start; v CMP bound; v += step)` (`-=` when `!up`), in closed form: an
 * ExecutionError where C's loop never ends (a step <= 0 while the condition holds) or where the
 * value after the last trip, which C computes, passes the type's range.
 */
function stepTrip(start: bigint, bound: bigint, step: bigint, up: boolean, cmp: string, holds: (x: bigint) => boolean, lo: bigint, hi: bigint, type: string, what: string): bigint {
  if (!holds(start)) return 0n;
  if (step <= 0n) throw new ExecutionError(`${what}: the loop never ends (it steps by ${up ? "+" : "-"}${step} from ${start} while the condition holds)`);
  const span = up ? bound - start : start - bound;
  const n = cmp === "lt" || cmp === "gt" ? (span + step - 1n) / step : span / step + 1n;
  const last = up ? start + n * step : start - n * step;
  if (last < lo || last > hi) throw new ExecutionError(`${what}: the loop's value after its last trip is ${last}, past ${type}'s range (C's loop overflows)`);
  return n;
}
