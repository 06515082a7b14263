/**
 * Floor divisions and moduli C can compute with its own `/` and `%`: loopy's `a // d` and `a % d`
 * floor, C's operators truncate, and the two agree where `a >= 0` and `d > 0`. Where an
 * instruction's numerator is provably in [0, INT32_MAX] on every point of its loop context (the
 * enclosing loops' bounds, the domain, the assumptions) and the divisor a positive constant, the
 * lowering marks the node `nonneg` and C-family targets print plain `/` and `%` instead of
 * `loopy_floor_div_int32` / `loopy_mod_int32` (the index arithmetic of a packing loop into a split
 * layout, `b_fetch[…][b_dim_1 / 16][b_dim_1 % 16]`, computed per element). The upper bound
 * matters to targets whose int32 arithmetic wraps (js, WGSL): a value that wrapped below zero
 * would truncate where the interpreter floors.
 */
import { exprToAff, type Expr } from "../../src/ir/index.js";
import { addConstraints, aff, affAdd, affScale, affSub, isEmptyWith, type Aff, type BasicSet } from "../../src/poly/index.js";
import { inContext } from "./guards.js";
import { setOf, type Ctx } from "./context.js";

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** `e` as `a // d` or `a % d` by a positive integer constant `d`, else undefined. */
export function positiveDivision(e: Expr): { op: "//" | "%"; num: Expr; d: number } | undefined {
  if (e.kind !== "arith" || (e.op !== "//" && e.op !== "%")) return undefined;
  const r = e.right;
  if (r.kind !== "const" || r.isFloat || !Number.isSafeInteger(r.value) || r.value <= 0) return undefined;
  return { op: e.op, num: e.left, d: r.value };
}

/**
 * Whether int32 expression `e` is in [0, INT32_MAX] on every point of `ctx`: `x % d` (d > 0) always
 * is (floor modulo), `x // d` where `x` is, and an affine expression over `vars` (the inames known
 * there and int32 parameters) where the context proves both bounds, its inames and the parameters
 * that `int32` names taken as the int32 values they are. false: not proved (the helpers stay).
 */
export function provablyNonneg(e: Expr, ctx: Ctx, vars: (name: string) => boolean, int32: (name: string) => boolean): boolean {
  const div = positiveDivision(e);
  if (div) return div.op === "%" || provablyNonneg(div.num, ctx, vars, int32);
  const a = exprToAff(e, vars);
  return a !== undefined && inInt32Range(a, ctx, int32);
}

function inInt32Range(a: Aff, ctx: Ctx, int32: (name: string) => boolean): boolean {
  const below = affSub(aff({}, INT32_MAX), a);
  try {
    // The cheap proofs (a context row, the intervals) first; the exact emptiness test after.
    if (!inContext({ aff: a, eq: false }, ctx) && !isEmptyWith(setOf(ctx), affSub(aff({}, -1), a))) return false;
    if (inContext({ aff: below, eq: false }, ctx)) return true;
    // a > INT32_MAX is empty once the inames and int32 parameters are int32 values.
    return isEmptyWith(asInt32(setOf(ctx), int32), affAdd(a, aff({}, -INT32_MAX - 1)));
  } catch {
    // Coefficients beyond exact arithmetic: not proved.
    return false;
  }
}

const bounded = new WeakMap<BasicSet, Map<string, BasicSet>>();

/** `ctx` with its inames and the parameters `int32` names bounded to int32 values (remembered per set). */
function asInt32(ctx: BasicSet, int32: (name: string) => boolean): BasicSet {
  const names = [...ctx.params.filter(int32), ...ctx.dims];
  const key = names.join(",");
  let byKey = bounded.get(ctx);
  if (!byKey) bounded.set(ctx, (byKey = new Map()));
  let s = byKey.get(key);
  if (!s) {
    const rows = names.flatMap((p) => [
      { aff: affAdd(aff({ [p]: 1 }), aff({}, -INT32_MIN)), eq: false },
      { aff: affAdd(affScale(aff({ [p]: 1 }), -1), aff({}, INT32_MAX)), eq: false },
    ]);
    s = rows.length === 0 ? ctx : addConstraints(ctx, rows);
    byKey.set(key, s);
  }
  return s;
}
