/**
 * Plain loops with a geometric update that hold barriers or @inner loops (libParanumal's bitonic
 * sort: `for (int size = 2; size < 2*bound; size <<= 1)` around `for (int stride = size/4; stride
 * > 0; stride >>= 1)`, each trip a barrier and an @inner loop; tree reductions' `s /= 2`). Every
 * work-item of a group must run such a loop in lockstep, so it is an iname of the kernel's domain,
 * not a C loop: an affine counter `t`, `0 <= t < T`, with the variable a function of it,
 *
 *   v(t) = S << k*t  (`v <<= k`)   S >> k*t  (`v >>= k`)   S * k^t  (`v *= k`)   S / k^t  (`v /= k`)
 *
 * which is C's value after t updates: `(S << a) << b == S << (a + b)` while no bit leaves the
 * type, `(S >> a) >> b == S >> (a + b)` for C's (arithmetic) right shift, a floor division by a
 * power of two, `(S * a) * b == S * (a*b)` without overflow, and C's truncating division
 * `(S / a) / b == S / (a*b)` for a, b > 0. T is one of:
 *
 * - **Exact, on the host** (`trip`): where start and bound read only value arguments and
 *   constants, the trip count is a value argument run() computes before the launch, iterating C's
 *   loop in the iterator's type (derived-args.ts, `okl_trip_*`): a start or bound outside the
 *   type, a left shift of a negative value, a value past the type's range, and a loop that never
 *   ends (an update that no longer changes `v` while the condition holds: `0 << k`, `-1 >> k`,
 *   `0 / k`) are ExecutionErrors before any launch. For `t < T` the condition held at every step
 *   before, so no step overflowed and every value `v(t)` is C's. The domain also bounds t by
 *   `count` (counterBound: a trip's value is no fixpoint and lies in the type, so a shift count
 *   `k t` stays below the width and `k^t` within the type), which the exact count never exceeds
 *   for shifts; for products and quotients the host refuses the rare count above it (`-1 * 2^31`).
 * - **Bounded by the type's width** (`count` alone), for a decreasing update `v >>= k`, `v /= k`
 *   with the condition `v > E` (or `v >= E`) and E a compile-time constant with `E >= 0` (`E >=
 *   1`): t runs over `0 <= t < count` (`k t <= W - 2` for a signed shift of W bits, `k^t <= MAX`
 *   for a quotient), and the condition is a predicate on every instruction of the body (barriers
 *   run every trip, idle after the last). Proof that the predicate `v(t) CMP E` holds exactly for
 *   C's trips `t < n`, and `n <= count`: for `S >= 0`, `v(t)` does not increase with t, so once the
 *   condition is false it stays false (it is monotone), and C stops at the first false one; for
 *   `S < 0`, every `v(t)` is at most 0 (a shift rises to -1, a quotient to 0), below `E >= 0` or
 *   `E >= 1`: false at every t, and C's loop runs zero times. A trip needs `v(t) >= 1`, so `k t <=
 *   W - 2` (`S <= 2^(W-1) - 1`) or `k^t <= S <= MAX`: n <= count, and every shift count or power
 *   evaluated (t < count) is defined.
 *
 * Everything else is refused (OklError) rather than run a different number of trips than C: an
 * update in the wrong direction for the comparison (zero trips or never ending), a growing loop
 * (`<<=`, `*=`) whose start or bound are not host values (a start <= 0 never ends in C and the last
 * update can overflow: neither can be proven on the device), a decreasing one with a bound that is
 * not a constant >= 0 (`v > -1` never ends: the value stops at 0), a shift by a non-constant, 0 or
 * the width, a factor below 2, and a start or bound that may differ between the work-items of a
 * group (it reads memory other work-items may write, or a private variable assigned from such): the
 * loop must be uniform (uniform.ts). A start read from a `const` pointer argument the kernel only
 * reads, at a subscript of block indices (`for (int s = blockSize[b]; s > 0; s >>= 1)`), is uniform
 * (read-only.ts): a decreasing loop takes the width-bounded form above; a growing one, whose trips
 * only the host could count, is refused naming the array (the host cannot read device memory).
 */
import { c, walkExpr, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { walkAst } from "./ast-queries.js";
import { constValue, type Ctx, type Fail } from "./bindings.js";
import type { LoopHead } from "./loop-head.js";
import type { Cmp } from "./trip.js";

/** Operators of the updates accepted: `v <<= k`, `v >>= k`, `v *= k`, `v /= k` (or `v = v op k`), k a compile-time constant. */
export type GeometricOp = "<<" | ">>" | "*" | "/";

/** A geometric update of the iterator by a compile-time constant k (a shift count or a factor). */
export interface GeometricUpdate {
  readonly op: GeometricOp;
  readonly k: number;
}

/**
 * How the counter of such a loop is bounded: `count`, the bound under which the closed form is
 * exact (`t < count`: shift counts below the width, powers of the factor within the type), and
 * where the host computes the exact trip count, `trip` (`t < trip` too; the host refuses a count
 * above `count`, which the proofs above exclude for shifts); without `trip` the condition is the
 * body's predicate.
 */
export interface GeometricBound {
  readonly count: number;
  readonly trip?: Expr;
}

/** Width and signedness of an integer iterator type; undefined for other types. */
export function intWidth(dtype: Dtype): { readonly bits: number; readonly signed: boolean } | undefined {
  const m = /^(u?)int(8|16|32|64)$/.exec(dtype);
  return m ? { bits: Number(m[2]), signed: m[1] === "" } : undefined;
}

const OPS: Readonly<Record<string, GeometricOp>> = { "<<=": "<<", ">>=": ">>", "*=": "*", "/=": "/" };

/** The loop's update as a shift or a product or quotient by a constant, undefined where it is not one (`s >>= m`, `s += s`). */
export function geometricUpdate(h: LoopHead): GeometricUpdate | undefined {
  const u = h.s.update;
  const isVar = (e: A.Expr) => e.kind === "ident" && e.name === h.name;
  if (!u || u.kind !== "assign" || !isVar(u.target)) return undefined;
  let op: GeometricOp | undefined;
  let amount: A.Expr | undefined;
  if (OPS[u.op]) [op, amount] = [OPS[u.op], u.value];
  else if (u.op === "=" && u.value.kind === "binary" && OPS[`${u.value.op}=`] && isVar(u.value.left)) [op, amount] = [OPS[`${u.value.op}=`], u.value.right];
  const k = amount && constValue(amount, h.ctx.scope);
  return op !== undefined && k !== undefined ? { op, k } : undefined;
}

/** The iterator's value after t updates: `S << k*t`, `S >> k*t`, `S * k^t`, `S / k^t` (S in the iterator's type; k^t a shift for a power of two). */
export function geometricValue(h: LoopHead, u: GeometricUpdate, t: string): Expr {
  // C converts the start to the iterator's type (a cast to the same type prints as nothing).
  const start: Expr = h.start.kind === "const" ? h.start : { kind: "cast", dtype: h.dtype, value: h.start };
  const tv: Expr = { kind: "var", name: t };
  const times = (k: number): Expr => (k === 1 ? tv : { kind: "arith", op: "*", left: c(k), right: tv });
  if (u.op === "<<" || u.op === ">>") return { kind: "arith", op: u.op, left: start, right: times(u.k) };
  const j = Math.log2(u.k);
  const one = h.dtype === "int32" ? c(1) : c(1, h.dtype);
  const power: Expr = Number.isInteger(j) ? { kind: "arith", op: "<<", left: one, right: times(j) } : { kind: "arith", op: "**", left: h.dtype === "int32" ? c(u.k) : c(u.k, h.dtype), right: tv };
  return { kind: "arith", op: u.op, left: start, right: power };
}

/** The derived-argument function that counts the trips of such a loop on the host (derived-args.ts). */
export function geometricTripFn(dtype: Dtype, op: GeometricOp, cmp: Cmp): string {
  const c0 = { "<": "lt", "<=": "le", ">": "gt", ">=": "ge" }[cmp];
  return `okl_trip_${dtype}_${{ "<<": "shl", ">>": "shr", "*": "mul", "/": "div" }[op]}_${c0}`;
}

/**
 * Checks a geometric loop (see the module comment) and returns how its counter is bounded.
 * `uniform` says what in an expression may differ between the work-items of a group; `host`
 * gives start and bound as expressions of value arguments and constants, where they are.
 */
export function geometricBound(
  h: LoopHead, u: GeometricUpdate, ctx: Ctx, fail: Fail, uniform: (e: Expr) => string | undefined,
  host: (e: Expr) => Expr | undefined,
): GeometricBound {
  const s = h.s;
  const what = `loop "${h.name}" (a plain loop holding barriers or @inner loops, updated by \`${h.name} ${u.op}= ${u.k}\`)`;
  const w = intWidth(h.dtype) ?? fail(`${what}: its iterator has type ${h.dtype}; such a loop needs an integer iterator`, s.pos);
  const bad = updateProblem(u, w);
  if (bad) fail(`${what}: ${bad}`, s.update?.pos ?? s.pos);
  const growing = u.op === "<<" || u.op === "*";
  if (growing !== (h.cmp === "<" || h.cmp === "<=")) {
    fail(`${what}: the update ${growing ? "increases" : "decreases"} "${h.name}" but the condition is "${h.name} ${h.cmp} …": the loop runs zero times or never ends (use ${growing ? "< or <=" : "> or >="})`, s.cond?.pos ?? s.pos);
  }
  for (const [part, e] of [["start", h.start], ["bound", h.end]] as const) {
    const why = uniform(e);
    if (why !== undefined) {
      fail(`${what}: its ${part} reads ${why}, which may differ between the work-items of a group; all of them must run the loop's trips together (its barriers), so start and bound must read only value arguments, constants, enclosing loop variables outside @inner loops, private variables assigned from those, and elements at such subscripts of \`const\` pointer arguments the kernel only reads (\`bs[b]\`)`, s.pos);
    }
  }
  const start = constValue(startAst(s), ctx.scope);
  const count = counterBound(u, w, growing && start !== undefined && start >= 1 ? start : 1);
  const [hs, he] = [host(h.start), host(h.end)];
  if (hs && he) return { count, trip: { kind: "call", fn: geometricTripFn(h.dtype, u.op, h.cmp), args: [hs, he, c(u.k), c(count)] } };
  if (growing) {
    const array = readsArray(hs ? h.end : h.start);
    fail(`${what}: its ${hs ? "bound" : "start"} is not computed from value arguments and constants alone (${array ? `it reads memory ("${array}"), which the host cannot read before the launch` : "it reads an enclosing loop variable or a private variable assigned more than once or under a condition"}); a growing loop is supported where start and bound are (the host then counts its trips as C runs them, refusing a start <= 0, which never ends, and a value past the type's range)`, s.pos);
  }
  const endless = endlessBound(h.cmp, constValue(endAst(s), ctx.scope), "value");
  if (endless) fail(`${what}: with a start that is not a value argument, the bound must be ${endless}`, s.cond?.pos ?? s.pos);
  return { count };
}

/**
 * The trips of a `while`/`do … while` loop around barriers or @inner loops whose counter changes once
 * per trip by a constant shift or quotient (`while (s > 0) { …; s >>= 1; }`, while-trips.ts): at most
 * `count` (the width bound above, the same proof: a trip needs `v(t) >= 1`), the whole condition
 * deciding each trip. A refusal (why) where that bound does not hold: a shift outside 1..W-1, a
 * factor below 2, a bound that is not a constant >= 0 (`>`) or >= 1 (`>=`). (A growing counter:
 * whileGrowingTrip.)
 *
 *   whileGeometricCount({ op: ">>", k: 1 }, "int32", ">", 0)   // 31
 */
export function whileGeometricCount(u: GeometricUpdate, dtype: Dtype, cmp: Cmp, end: number | undefined): GeometricBound | string {
  const w = intWidth(dtype);
  if (!w) return `its counter has type ${dtype}; a counter updated by \`${u.op}=\` must be an integer`;
  const bad = updateProblem(u, w);
  if (bad) return bad;
  const endless = endlessBound(cmp, end, "counter");
  return endless ? `its counter's bound must be ${endless}` : { count: counterBound(u, w, 1) };
}

/**
 * The trips of `while (s) { …; s >>= k; }` or `s /= k` (C's truth test, `s != 0`; `do … while (s)`):
 * a quotient reaches 0 from any start within `count` trips (`k^t <= 2^(W-1)`, INT_MIN included), the
 * whole condition deciding each; so does a shift from a start >= 0 (a compile-time constant, or any
 * unsigned value), while from a negative one `-1 >> k` stays -1 and C's loop never ends: from a start
 * `hostStart` of value arguments and constants the host counts the trips (`okl_trip_…_shr_ne`,
 * refusing a negative start before the launch); refused (why) otherwise.
 *
 *   whileTruthyTrips({ op: "/", k: 2 }, "int32", false, undefined)   // { count: 32 }
 */
export function whileTruthyTrips(u: GeometricUpdate, dtype: Dtype, doWhile: boolean, hostStart: Expr | undefined): GeometricBound | string {
  const w = intWidth(dtype);
  if (!w) return `its counter has type ${dtype}; a counter updated by \`${u.op}=\` must be an integer`;
  const bad = updateProblem(u, w);
  if (bad) return bad;
  if (u.op === "/") {
    let count = 0;
    for (let p = 1n; p <= 1n << BigInt(w.signed ? w.bits - 1 : w.bits); p *= BigInt(u.k)) count++;
    return { count };
  }
  const count = counterBound(u, w, 1);
  if (!w.signed || (hostStart?.kind === "const" && Number(hostStart.value) >= 0)) return { count };
  if (hostStart) return { count, trip: { kind: "call", fn: `okl_trip_${dtype}_shr_ne${doWhile ? "_do" : ""}`, args: [hostStart, c(0), c(u.k), c(count)] } };
  return `its condition tests it against 0 (\`while (s)\`), which from a negative start never ends (\`-1 >> ${u.k}\` stays -1); its value before the loop must be a compile-time constant >= 0 or computed from value arguments and constants alone (the host then refuses a negative one), or write \`s > 0\``;
}

/**
 * The trips of a `while`/`do … while` loop around barriers or @inner loops whose counter grows by a
 * constant shift or product each trip (`int s = 1; while (s < n) { …; s <<= 1; }`, a scan's offset):
 * counted by the host as a `for` loop's are (`trip`, C's loop in the counter's type: a start <= 0
 * never ends, a value past the type's range overflows, both ExecutionErrors before the launch; for
 * `do … while` the first trip runs whatever the condition, `okl_trip_…_do`), where `start` (the
 * counter's value before the loop) and `end` (its bound) are expressions of value arguments and
 * constants; `count` bounds the closed forms as counterBound does. A refusal (why) otherwise.
 *
 *   whileGrowingTrip({ op: "<<", k: 1 }, "int32", "<", false, c(1), n)   // { count: 31, trip: okl_trip_int32_shl_lt(1, n, 1, 31) }
 */
export function whileGrowingTrip(
  u: GeometricUpdate, dtype: Dtype, cmp: Cmp, doWhile: boolean, start: Expr | undefined, end: Expr | undefined,
): GeometricBound | string {
  const w = intWidth(dtype);
  if (!w) return `its counter has type ${dtype}; a counter updated by \`${u.op}=\` must be an integer`;
  const bad = updateProblem(u, w);
  if (bad) return bad;
  if (!start || !end) {
    const which = !start ? `its value before the loop${!end ? " and its bound are" : " is"}` : "its bound is";
    return `its counter grows (\`${u.op}=\`) and ${which} not computed from value arguments and constants alone (a private variable assigned once before the loop from them counts): only then can the host count its trips before the launch as C runs them (from a start <= 0 C's loop never ends, and its last update may overflow)`;
  }
  const count = counterBound(u, w, start.kind === "const" && Number(start.value) >= 1 ? Number(start.value) : 1);
  return { count, trip: { kind: "call", fn: `${geometricTripFn(dtype, u.op, cmp)}${doWhile ? "_do" : ""}`, args: [start, end, c(u.k), c(count)] } };
}

/** Why the update `u` of a `w`-bit integer cannot count a loop's trips (a shift outside 1..W-1, a factor below 2), or undefined. */
function updateProblem(u: GeometricUpdate, w: { bits: number }): string | undefined {
  if (u.op === "<<" || u.op === ">>") {
    if (Number.isInteger(u.k) && u.k >= 1 && u.k < w.bits) return undefined;
    return `the shift must be by a constant from 1 to ${w.bits - 1} (${u.k < 1 ? "by 0 the loop never ends" : `by ${w.bits} or more C's shift is undefined`})`;
  }
  if (Number.isInteger(u.k) && u.k >= 2) return undefined;
  return `the factor must be a constant integer >= 2 (${u.k === 1 ? "by 1 the loop never ends" : u.k === 0 ? (u.op === "/" ? "by 0 C divides by zero" : "by 0 the value stays 0") : "a negative factor flips the sign every trip"})`;
}

/**
 * For a decreasing `v CMP end`: undefined where `end` is a compile-time constant the `noun` reaches
 * within the type's width (>= 0 for `>`, >= 1 for `>=`), else what the bound must be and why.
 */
function endlessBound(cmp: Cmp, end: number | undefined, noun: string): string | undefined {
  if (end !== undefined && end >= (cmp === ">" ? 0 : 1)) return undefined;
  return `a compile-time constant ${cmp === ">" ? ">= 0" : ">= 1"} (then the loop ends once the ${noun} reaches 0, within the type's width; ${end === undefined ? "a bound read at run time" : `the bound ${end}`} may keep it running forever)`;
}

/**
 * The number of counter values t for which the closed form is exact and a trip can happen. A trip's
 * value is no fixpoint (0, and -1 under `>>`) and lies in the type: shifts need `k t <= W - 2`
 * (signed; `W - 1` unsigned), growing from S >= 1 `k t <= W - 1 - bitlen(S)`; products and
 * quotients `S k^t` and `S / k^t` need `k^t <= MAX / S` (S >= 1 growing) and `k^t <= MAX`.
 */
function counterBound(u: GeometricUpdate, w: { bits: number; signed: boolean }, s: number): number {
  if (u.op === "<<" || u.op === ">>") {
    const room = u.op === "<<" ? w.bits - (w.signed ? 1 : 0) - bitLength(s) : w.bits - (w.signed ? 2 : 1);
    return Math.max(0, Math.floor(room / u.k) + 1);
  }
  const max = (w.signed ? 1n << BigInt(w.bits - 1) : 1n << BigInt(w.bits)) - 1n;
  const limit = u.op === "*" ? max / BigInt(s) : max;
  let n = 0;
  for (let p = 1n; p <= limit; p *= BigInt(u.k)) n++;
  return n;
}

/** The first array `e` reads, if any. */
function readsArray(e: Expr): string | undefined {
  let out: string | undefined;
  walkExpr(e, (n) => {
    if (out === undefined && (n.kind === "subscript" || n.kind === "linear")) out = n.array;
    return undefined;
  });
  return out;
}

const bitLength = (x: number): number => (x <= 0 ? 0 : Math.floor(Math.log2(x)) + 1);

/** The start of the loop (its iterator's initializer). */
function startAst(s: A.For): A.Expr {
  return (s.init as A.Declaration).declarators[0]!.init!;
}

/** The bound side of the loop's condition. */
function endAst(s: A.For): A.Expr {
  const cond = s.cond as A.Expr & { kind: "binary" };
  const name = (s.init as A.Declaration).declarators[0]!.name;
  return cond.left.kind === "ident" && cond.left.name === name ? cond.right : cond.left;
}

/** Whether the body of loop `s` assigns its iterator (C would see the change; the counter cannot). */
export function writesIterator(s: A.For, name: string): A.Pos | undefined {
  let at: A.Pos | undefined;
  walkAst(s.body, (n) => {
    const target = n.kind === "assign" ? n.target : (n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--") ? n.operand : undefined;
    if (at === undefined && target?.kind === "ident" && target.name === name) at = target.pos;
  });
  return at;
}
