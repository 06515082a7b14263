/**
 * CUDA's warp shuffles in OKL (libParanumal's `blockShflScan`: `y = __shfl_up_sync(MASK, x, 1,
 * p_SIMD); x += (l >= 1) ? y : 0;` inside an @inner loop, where OCCA passes the call on to the CUDA
 * compiler). A shuffle of a full mask over sub-groups of `width` consecutive work-items reads the
 * value another work-item of the same sub-group holds at that point. Loom gives it that meaning on
 * every target: the value goes into a @shared copy (one element per work-item, at CUDA's linear
 * thread index `t = x + Dx*(y + Dy*z)` over the @inner axes, @inner(0) the x axis, so a sub-group
 * may span rows of x: libParanumal's `linAlgWeightedInnerProd` nest of warps by lanes), and the call reads
 * the partner's element into a private value at once, after the barrier the schedule puts between
 * the two (the read depends on the other work-items' writes); C's `?:` picks the work-item's own
 * element where CUDA returns its own value. Successive shuffles of one type alternate between two
 * copies (the store of the next-but-one depends on this read, which the barrier before the next read
 * already separates from it), so a warp scan of ten shuffles needs two arrays, not ten:
 *
 *   __shfl_up_sync(m, v, d, w)     lane >= d       ? s[t - d] : s[t]      (lane = t % w)
 *   __shfl_down_sync(m, v, d, w)   lane + d < w    ? s[t + d] : s[t]
 *   __shfl_xor_sync(m, v, k, w)    s[t ^ k]                               (k < w a constant)
 *   __shfl_sync(m, v, src, w)      s[t - lane + (src & (w - 1))]
 *
 * (`__shfl`, `__shfl_up`, … without `_sync` and the mask: CUDA before 9, HIP.) This is CUDA's result
 * wherever CUDA defines one: every work-item of a sub-group reaches the call together (the mask
 * names them all), sub-groups do not straddle hardware warps (`w` a power of two at most 32, the
 * group's size a multiple of it). Refused (OklError naming the builtin): a mask that is not
 * all ones (a partial mask's result depends on which lanes the hardware has active), a width left to
 * `warpSize` (32 on NVIDIA, 64 on AMD: no one meaning) or not a constant power of two up to 32, a
 * lane offset that is not a compile-time constant, a call outside @inner loops over `0 … D-1` with
 * D constant on every axis of the work-group, whose product L is a multiple of the width (a @tile,
 * a guarded range, a loop within the @inner loops around the call that is not unrolled, a while
 * loop or device function with loops around it there), a call that only some lanes of a sub-group
 * may reach (a condition around it, of an `if`, a jump, the `?:` or `&&` / `||` it is an operand of,
 * not proven constant on each aligned block of `w` lanes: shuffle-conditions.ts; CUDA's result is
 * undefined there), and the other warp intrinsics (`__ballot_sync`, `__any_sync`, …; tables.ts). A sequential loop around the @inner loops may hold
 * shuffles: the group runs its trips together, and the schedule's loop-carried barrier keeps the
 * next trip's copy store from this trip's reads.
 */
import { c, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { constValue, type Ctx } from "./bindings.js";
import { divergence, type LaneFacts } from "./shuffle-conditions.js";

/** The shuffles given a meaning, by name: the variant and whether a mask comes first. */
const SHUFFLES: Readonly<Record<string, { readonly op: "idx" | "up" | "down" | "xor"; readonly mask: boolean }>> = {
  __shfl_sync: { op: "idx", mask: true }, __shfl_up_sync: { op: "up", mask: true },
  __shfl_down_sync: { op: "down", mask: true }, __shfl_xor_sync: { op: "xor", mask: true },
  __shfl: { op: "idx", mask: false }, __shfl_up: { op: "up", mask: false },
  __shfl_down: { op: "down", mask: false }, __shfl_xor: { op: "xor", mask: false },
};

/** Whether `name` is a shuffle this module lowers. */
export function isShuffle(name: string): boolean {
  return name in SHUFFLES;
}

/** What the kernel lowering gives a shuffle. */
export interface ShuffleHost {
  expr(e: A.Expr, ctx: Ctx): Expr;
  /** The dtype of a lowered value, where known. */
  dtypeOf(e: Expr): Dtype | undefined;
  /**
   * The linear work-item index of the @inner loops around the call (CUDA's `x + Dx*(y + Dy*z)`) and
   * the work-group's size L (indices 0 … L-1), with the number of axes; or why there is none.
   */
  lane(ctx: Ctx): { readonly index: Expr; readonly extent: number; readonly axes: number } | string;
  /** A @shared array of `extent` elements for the next shuffle's copy. */
  sharedCopy(dtype: Dtype, extent: number): string;
  /** A fresh private temporary set to `value` here, under the conditions of `ctx`. */
  result(value: Expr, dtype: Dtype, ctx: Ctx, pos: A.Pos): Expr;
  /** Stores `value` in `array[index]` here, under the conditions of `ctx`. */
  store(array: string, index: Expr, value: Expr, ctx: Ctx, pos: A.Pos): void;
  /** What judging the conditions around the call needs (shuffle-conditions.ts). */
  laneFacts(ctx: Ctx): LaneFacts;
  fail(detail: string, pos: A.Pos): never;
}

const ALL_ONES = [0xffffffff, -1];

/** The value of shuffle call `e` (see the module comment). */
export function lowerShuffle(h: ShuffleHost, name: string, e: A.Call, ctx: Ctx): Expr {
  const { op, mask } = SHUFFLES[name]!;
  const what = `"${name}" (a CUDA warp shuffle)`;
  const args = mask ? e.args.slice(1) : e.args;
  if (mask) {
    const m = e.args[0] && constValue(e.args[0], ctx.scope);
    if (m === undefined || !ALL_ONES.includes(m)) {
      h.fail(`${what}: its mask must be the constant 0xffffffff (every lane of the sub-group takes part); with a partial mask the result depends on which lanes the hardware has active, which Loom cannot give a meaning on other targets`, e.args[0]?.pos ?? e.pos);
    }
  }
  const form = `${name}(${mask ? "mask, " : ""}value, ${op === "idx" ? "srcLane" : op === "xor" ? "laneMask" : "delta"}, width)`;
  if (args.length > 3) h.fail(`${what} takes ${mask ? 4 : 3} arguments, \`${form}\`, not ${e.args.length}`, e.pos);
  if (args.length !== 3) {
    h.fail(`${what}: pass the width explicitly, \`${form}\`: without it the width is warpSize, 32 on NVIDIA GPUs and 64 on AMD ones, which gives no one meaning on the other targets`, e.pos);
  }
  const [value, offset, widthArg] = args as [A.Expr, A.Expr, A.Expr];
  const w = constValue(widthArg, ctx.scope);
  if (w === undefined || w < 1 || w > 32 || (w & (w - 1)) !== 0) {
    h.fail(`${what}: its width must be a compile-time power of two from 1 to 32 (sub-groups within one warp on every GPU)${w === undefined ? "" : `, not ${w}`}`, widthArg.pos);
  }
  const lane = h.lane(ctx);
  if (typeof lane === "string") h.fail(`${what}: ${lane}`, e.pos);
  if (lane.extent % w !== 0) h.fail(`${what}: the @inner loop${lane.axes > 1 ? "s" : ""} around it run${lane.axes > 1 ? "" : "s"} ${lane.extent} work-items, not a multiple of the width ${w}: the last sub-group would be partial`, e.pos);
  checkReached(h, what, w, lane.extent, e, ctx);
  const k = offset && constValue(offset, ctx.scope);
  if (op !== "idx" && (k === undefined || k < 0)) h.fail(`${what}: its ${op === "xor" ? "lane mask" : "delta"} must be a compile-time constant >= 0`, offset.pos);
  if (op === "xor" && k! >= w) h.fail(`${what}: its lane mask ${k} must be below the width ${w} (the partner must be in the same sub-group)`, offset.pos);
  const v = h.expr(value, ctx);
  const dtype = h.dtypeOf(v) ?? h.fail(`${what}: the type of the value shuffled is not known here (shuffle a variable of a scalar type)`, value.pos);
  if (dtype === "bool") h.fail(`${what}: the value shuffled must be a number, not a bool`, value.pos);
  const copy = h.sharedCopy(dtype, lane.extent);
  const t = lane.index;
  h.store(copy, t, v, ctx, e.pos);
  const at = (i: Expr): Expr => ({ kind: "subscript", array: copy, indices: [i] });
  const laneIn: Expr = { kind: "arith", op: "%", left: t, right: c(w) };
  const arith = (o: "+" | "-", l: Expr, r: Expr): Expr => ({ kind: "arith", op: o, left: l, right: r });
  const read = ((): Expr => {
    switch (op) {
      case "up": return { kind: "if", cond: { kind: "compare", op: ">=", left: laneIn, right: c(k!) }, then: at(arith("-", t, c(k!))), else: at(t) };
      case "down": return { kind: "if", cond: { kind: "compare", op: "<", left: arith("+", laneIn, c(k!)), right: c(w) }, then: at(arith("+", t, c(k!))), else: at(t) };
      case "xor": return at({ kind: "arith", op: "^", left: t, right: c(k!) });
      case "idx": {
        const src: Expr = { kind: "arith", op: "&", left: { kind: "cast", dtype: "int32", value: h.expr(offset, ctx) }, right: c(w - 1) };
        return at(arith("+", arith("-", t, laneIn), src));
      }
    }
  })();
  // Read at once (before any later shuffle's store): the copies alternate between two arrays per type.
  return h.result(read, dtype, ctx, e.pos);
}

/**
 * Fails where the conditions around the call (of enclosing `if`s, jumps before it, the `?:` or
 * `&&` / `||` it is an operand of) may differ between the lanes of one sub-group of `w` work-items:
 * CUDA's result is undefined there (shuffle-conditions.ts).
 */
function checkReached(h: ShuffleHost, what: string, w: number, extent: number, e: A.Call, ctx: Ctx): void {
  if (w === 1 || (ctx.preds.length === 0 && !ctx.arms?.length)) return;
  const facts = h.laneFacts(ctx);
  const judged = [...ctx.preds.map((p) => ["the condition of an `if` around it (or of a jump before it)", p] as const), ...(ctx.arms ?? []).map((p) => ["it is an arm of `?:`, or the right operand of `&&` / `||`, evaluated only where the condition before it", p] as const)];
  for (const [where, cond] of judged) {
    const why = divergence(cond, facts, w, extent);
    if (why === undefined) continue;
    h.fail(`${what}: ${where} may differ between the lanes of one sub-group of ${w} work-items: ${why}. CUDA's result is undefined where only some lanes of a sub-group reach the shuffle. Accepted: a condition uniform over each sub-group of ${w} work-items, such as one on the sub-group index \`t / ${w}\` (t the linear work-item index, \`if (t / ${w} == 0)\`, \`t < c\` with c a multiple of ${w}) or on values uniform over the work-group (value arguments, @outer indices); or move the shuffle out of the condition, so that every lane reaches it`, e.pos);
  }
}
