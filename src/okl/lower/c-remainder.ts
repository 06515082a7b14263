/**
 * C's `%` on integers as an IR expression. The IR's `%` is Python's (loopy's): its result takes
 * the divisor's sign, `-7 % 3 == 2`; C's truncates, `-7 % 3 == -1` (C99 6.5.5: `(a/b)*b + a%b ==
 * a` with `/` truncating toward zero). The two agree where the dividend is >= 0 and the divisor > 0,
 * which is nearly every `%` of real kernels (`ke % p_Nq` over an iname): those stay the IR's `%`,
 * which the affine analysis reads as a quasi-affine index. Elsewhere C's meaning is spelled with
 * the IR's truncating `/`: `a - (a / b) * b`, exactly C's definition, in the operands' converted
 * type (the IR's arithmetic types follow C's conversions), with the same division-by-zero error.
 *
 *   cRemainder(i, c(4), facts)    // i % 4, i an iname from 0
 *   cRemainder(a, b, facts)       // a - a / b * b, a and b int arguments of any sign
 */
import type { Expr } from "../../ir/index.js";

/** What the lowering knows about the signs of names. */
export interface SignFacts {
  /** Whether the variable (an iname, an argument, a temporary) is never negative: an iname from a lower bound >= 0, an unsigned value or array. */
  nonNegative(name: string): boolean;
}

/** C's `l % r` (integers) as an IR expression. */
export function cRemainder(l: Expr, r: Expr, facts: SignFacts): Expr {
  if (nonNegative(l, facts) && positive(r, facts)) return { kind: "arith", op: "%", left: l, right: r };
  return { kind: "arith", op: "-", left: l, right: { kind: "arith", op: "*", left: { kind: "arith", op: "/", left: l, right: r }, right: r } };
}

/** `e` is never negative, by its form (a sufficient test: false where unsure). */
export function nonNegative(e: Expr, facts: SignFacts): boolean {
  switch (e.kind) {
    case "const": return !e.isFloat && Number.isInteger(e.value) && e.value >= 0;
    case "var": return facts.nonNegative(e.name);
    case "subscript": return facts.nonNegative(e.array);
    case "cast": return e.dtype.startsWith("uint");
    case "if": return nonNegative(e.then, facts) && nonNegative(e.else, facts);
    case "call":
      if (e.fn === "min" && e.args.length > 0) return e.args.every((a) => nonNegative(a, facts));
      if (e.fn === "max" && e.args.length > 0) return e.args.some((a) => nonNegative(a, facts));
      return false;
    case "arith":
      switch (e.op) {
        case "+": case "*": return nonNegative(e.left, facts) && nonNegative(e.right, facts);
        case "/": case "//": case "%": return nonNegative(e.left, facts) && positive(e.right, facts);
        default: return false;
      }
    default: return false;
  }
}

/** `e` is always > 0 by its form: a positive constant, or a non-negative value plus a positive constant. */
function positive(e: Expr, facts: SignFacts): boolean {
  if (e.kind === "const") return !e.isFloat && Number.isInteger(e.value) && e.value > 0;
  if (e.kind === "arith" && e.op === "+") {
    return (positive(e.left, facts) && nonNegative(e.right, facts)) || (nonNegative(e.left, facts) && positive(e.right, facts));
  }
  return false;
}
