/**
 * Plain loops with a shift update that hold barriers or @inner loops (libParanumal's bitonic sort:
 * `for (int size = 2; size < 2*bound; size <<= 1)` around `for (int stride = size/4; stride > 0;
 * stride >>= 1)`, each trip a barrier and an @inner loop). Every work-item of a group must run such
 * a loop in lockstep, so it is an iname of the kernel's domain, not a C loop: an affine counter
 * `t`, `0 <= t < T`, with the variable a function of it,
 *
 *   v(t) = S << k*t   (`v <<= k`)        v(t) = S >> k*t   (`v >>= k`)
 *
 * which is C's value after t updates: `(S << a) << b == S << (a + b)` while no bit leaves the
 * type, and `(S >> a) >> b == S >> (a + b)` for C's (arithmetic) right shift, a floor division by
 * a power of two. T is one of:
 *
 * - **Exact, on the host** (`host`): where start and bound read only value arguments and
 *   constants, the trip count is a value argument run() computes before the launch, iterating C's
 *   loop in the iterator's type (derived-args.ts, `okl_trip_*`): a start or bound outside the
 *   type, a left shift of a negative value or one that overflows, and a loop that never ends (a
 *   shift that no longer changes `v` while the condition holds: `0 << k`, `-1 >> k`) are
 *   ExecutionErrors before any launch. For `t < T` the condition held at every step before, so no
 *   step overflowed and every value `v(t)` is C's (its shift count below the type's width: a value
 *   that reached the fixpoint 0 or -1 would have ended the loop or been refused).
 * - **Bounded by the type's width** (`width`), for a right shift `v >>= k` with the condition
 *   `v > E` (or `v >= E`) and E a compile-time constant with `E >= 0` (`E >= 1`): T =
 *   floor((W - 2)/k) + 1 for a signed type of W bits (floor((W - 1)/k) + 1 unsigned), and the
 *   condition is a predicate on every instruction of the body (barriers run every trip, idle).
 *   Proof that the predicate `v(t) CMP E` holds exactly for C's trips `t < n`, and `n <= T`:
 *   for `S >= 0`, `v(t) = floor(S / 2^(k t))` does not increase with t, so once the condition is
 *   false it stays false (the condition is monotone), and C stops at the first false one; for
 *   `S < 0`, every `v(t)` is negative (it rises to -1), below `E >= 0`: false at every t, and C's
 *   loop runs zero times. A trip needs `v(t) >= 1`, so `k t <= W - 2` (`S <= 2^(W-1) - 1`): n <= T,
 *   and every shift count `k t` evaluated (t < T) is below W (no undefined shift).
 *
 * Everything else is refused (OklError) rather than run a different number of trips than C: a
 * shift in the wrong direction for the comparison (zero trips or never ending), a growing loop
 * (`<<=`) whose start or bound are not host values (a start <= 0 never ends in C and the last
 * shift can overflow: neither can be proven on the device), a right shift with a bound that is
 * not a constant >= 0 (`v > -1` never ends: the fixpoint 0 keeps it true), other updates
 * (`*=`, `/=`, a shift by a non-constant), and a start or bound that may differ between the
 * work-items of a group (it reads memory or an @inner index): the loop must be uniform.
 */
import { c, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { walkAst } from "./ast-queries.js";
import { constValue, type Ctx, type Fail } from "./bindings.js";
import type { LoopHead } from "./loop-head.js";
import type { Cmp } from "./trip.js";

/** A shift update `v <<= k` / `v >>= k` (or `v = v << k`) with a compile-time constant k. */
export interface ShiftUpdate {
  readonly op: "<<" | ">>";
  readonly k: number;
}

/** How the counter of a shift loop is bounded: by a value the host computes, or by the type's width with the condition as a predicate. */
export type ShiftBound =
  | { readonly kind: "host"; readonly trip: Expr }
  | { readonly kind: "width"; readonly count: number };

/** Width and signedness of an integer iterator type; undefined for other types. */
export function intWidth(dtype: Dtype): { readonly bits: number; readonly signed: boolean } | undefined {
  const m = /^(u?)int(8|16|32|64)$/.exec(dtype);
  return m ? { bits: Number(m[2]), signed: m[1] === "" } : undefined;
}

/** The loop's update as a shift by a constant, undefined where it is not one (`s *= 2`, `s >>= m`). */
export function shiftUpdate(h: LoopHead): ShiftUpdate | undefined {
  const u = h.s.update;
  const isVar = (e: A.Expr) => e.kind === "ident" && e.name === h.name;
  if (!u || u.kind !== "assign" || !isVar(u.target)) return undefined;
  let op: string | undefined;
  let amount: A.Expr | undefined;
  if (u.op === "<<=" || u.op === ">>=") [op, amount] = [u.op.slice(0, 2), u.value];
  else if (u.op === "=" && u.value.kind === "binary" && (u.value.op === "<<" || u.value.op === ">>") && isVar(u.value.left)) [op, amount] = [u.value.op, u.value.right];
  const k = amount && constValue(amount, h.ctx.scope);
  return op !== undefined && k !== undefined ? { op: op as "<<" | ">>", k } : undefined;
}

/** The iterator's value after t updates: `S << k*t` or `S >> k*t` (S converted to the iterator's type). */
export function shiftValue(h: LoopHead, u: ShiftUpdate, t: string): Expr {
  const start: Expr = h.dtype === "int32" || h.start.kind === "const" ? h.start : { kind: "cast", dtype: h.dtype, value: h.start };
  const tv: Expr = { kind: "var", name: t };
  const count: Expr = u.k === 1 ? tv : { kind: "arith", op: "*", left: c(u.k), right: tv };
  return { kind: "arith", op: u.op, left: start, right: count };
}

/** The derived-argument function that counts the trips of such a loop on the host (derived-args.ts). */
export function shiftTripFn(dtype: Dtype, op: "<<" | ">>", cmp: Cmp): string {
  const c0 = { "<": "lt", "<=": "le", ">": "gt", ">=": "ge" }[cmp];
  return `okl_trip_${dtype}_${op === "<<" ? "shl" : "shr"}_${c0}`;
}

/**
 * Checks a shift loop (see the module comment) and returns how its counter is bounded. `uniform`
 * says whether an expression is the same for every work-item of a group, `hostOnly` whether it
 * reads only value arguments and constants.
 */
export function shiftBound(
  h: LoopHead, u: ShiftUpdate, ctx: Ctx, fail: Fail, uniform: (e: Expr) => string | undefined, hostOnly: (e: Expr) => boolean,
): ShiftBound {
  const s = h.s;
  const what = `loop "${h.name}" (a plain loop holding barriers or @inner loops, updated by \`${h.name} ${u.op}= ${u.k}\`)`;
  const w = intWidth(h.dtype) ?? fail(`${what}: its iterator has type ${h.dtype}; a shift loop needs an integer iterator`, s.pos);
  if (!Number.isInteger(u.k) || u.k < 1 || u.k >= w.bits) {
    fail(`${what}: the shift must be by a constant from 1 to ${w.bits - 1} (${u.k < 1 ? "by 0 the loop never ends" : `by ${w.bits} or more C's shift is undefined`})`, s.update?.pos ?? s.pos);
  }
  const growing = u.op === "<<";
  if (growing !== (h.cmp === "<" || h.cmp === "<=")) {
    fail(`${what}: the shift ${growing ? "increases" : "decreases"} "${h.name}" but the condition is "${h.name} ${h.cmp} …": the loop runs zero times or never ends (use ${growing ? "< or <=" : "> or >="})`, s.cond?.pos ?? s.pos);
  }
  for (const [part, e] of [["start", h.start], ["bound", h.end]] as const) {
    const why = uniform(e);
    if (why !== undefined) {
      fail(`${what}: its ${part} reads ${why}, which may differ between the work-items of a group; all of them must run the loop's trips together (its barriers), so start and bound must read only value arguments, constants and enclosing loop variables outside @inner loops`, s.pos);
    }
  }
  if (hostOnly(h.start) && hostOnly(h.end)) {
    const call: Expr = { kind: "call", fn: shiftTripFn(h.dtype, u.op, h.cmp), args: [h.start, h.end, c(u.k)] };
    return { kind: "host", trip: call };
  }
  if (growing) {
    fail(`${what}: its start or bound reads an enclosing loop variable; a growing shift loop is supported where both read only value arguments and constants (the host then counts its trips as C runs them, refusing a start <= 0, which never ends, and a shift past the type's range)`, s.pos);
  }
  const e = constValue(endAst(s), ctx.scope);
  const least = h.cmp === ">" ? 0 : 1;
  if (e === undefined || e < least) {
    fail(`${what}: with a start that is not a value argument, the bound must be a compile-time constant ${h.cmp === ">" ? ">= 0" : ">= 1"} (then the loop ends once the shifts reach 0, within the type's width; ${e === undefined ? "a bound read at run time" : `the bound ${e}`} may keep it running forever)`, s.cond?.pos ?? s.pos);
  }
  return { kind: "width", count: Math.floor((w.bits - (w.signed ? 2 : 1)) / u.k) + 1 };
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
