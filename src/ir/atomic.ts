/** The read-modify-write an atomic assignment performs: `x = x | v` is an atomic OR of `v` into `x`. */
import { exprEquals, walkExpr, type Expr } from "./expr.js";

/** Operations targets can do atomically; "=" is an exchange (an atomic write of a value not reading `x`). */
export type AtomicOp = "+" | "-" | "&" | "|" | "^" | "min" | "max" | "=";

export interface AtomicUpdate {
  readonly op: AtomicOp;
  /** The operand, free of the target itself. */
  readonly value: Expr;
}

const COMMUTATIVE: ReadonlySet<string> = new Set(["+", "&", "|", "^"]);

/** Whether `e` contains `x` (structurally). */
function mentions(e: Expr, x: Expr): boolean {
  let found = false;
  walkExpr(e, (n) => {
    if (found) return false;
    if (exprEquals(n, x)) found = true;
    return !found;
  });
  return found;
}

/**
 * The atomic operation of `lhs = rhs`, or undefined when it is none of them:
 * `atomicUpdateOf(x, x - v)` is `{ op: "-", value: v }`, `atomicUpdateOf(x, max(v, x))` is
 * `{ op: "max", value: v }`, `atomicUpdateOf(x, v)` is `{ op: "=", value: v }`, `x = 2 * x` undefined.
 */
export function atomicUpdateOf(lhs: Expr, rhs: Expr): AtomicUpdate | undefined {
  const pick = (op: AtomicOp, self: Expr, other: Expr): AtomicUpdate | undefined =>
    exprEquals(self, lhs) && !mentions(other, lhs) ? { op, value: other } : undefined;
  if (rhs.kind === "arith" && (COMMUTATIVE.has(rhs.op) || rhs.op === "-")) {
    const op = rhs.op as AtomicOp;
    const u = pick(op, rhs.left, rhs.right) ?? (op !== "-" ? pick(op, rhs.right, rhs.left) : undefined);
    if (u) return u;
  }
  if (rhs.kind === "call" && (rhs.fn === "min" || rhs.fn === "max") && rhs.args.length === 2) {
    const u = pick(rhs.fn, rhs.args[0]!, rhs.args[1]!) ?? pick(rhs.fn, rhs.args[1]!, rhs.args[0]!);
    if (u) return u;
  }
  return mentions(rhs, lhs) ? undefined : { op: "=", value: rhs };
}
