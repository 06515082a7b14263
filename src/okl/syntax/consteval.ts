/**
 * Constant evaluation of OKL expressions: `#if` conditions, `@shared` array sizes, loop bounds for
 * the empty-range check, attribute arguments. C semantics on doubles truncated to integers (exact for
 * the small values these checks see); with `floats`, also floating constants as OCCA's `#if` reads
 * them.
 */
import type { Expr } from "./ast.js";

/** How {@link evalConst} evaluates. */
export interface ConstEvalOptions {
  /**
   * Floating literals are numbers, and an operator with a floating operand computes in doubles
   * (`7.0/2` is 3.5, `7/2` is 3); the integer-only operators (`%`, shifts, bitwise) refuse a floating
   * operand. Without it, an expression with a floating literal is not a constant.
   */
  floats?: boolean;
}

/**
 * The value of `e`, or undefined when it is not a compile-time constant. `lookup` gives the value
 * of a name (a `const` variable, an enum member) or undefined.
 */
export function evalConst(e: Expr, lookup: (name: string) => number | undefined, options?: ConstEvalOptions): number | undefined {
  const v = evalIn(e, lookup, options?.floats === true);
  return v === undefined || Number.isNaN(v) ? undefined : v;
}

function evalIn(e: Expr, lookup: (name: string) => number | undefined, floats: boolean): number | undefined {
  switch (e.kind) {
    case "int":
    case "char":
      return e.value;
    case "float":
      return floats ? e.value : undefined;
    case "bool":
      return e.value ? 1 : 0;
    case "ident":
      return lookup(e.name);
    case "unary": {
      const v = evalIn(e.operand, lookup, floats);
      if (v === undefined) return undefined;
      switch (e.op) {
        case "-": return -v;
        case "+": return v;
        case "!": return v ? 0 : 1;
        case "~": return floats && isFloating(e.operand) ? undefined : ~v;
        default: return undefined;
      }
    }
    case "binary": {
      const l = evalIn(e.left, lookup, floats);
      if (l === undefined) return undefined;
      if (e.op === "&&" && !l) return 0;
      if (e.op === "||" && l) return 1;
      const r = evalIn(e.right, lookup, floats);
      if (r === undefined) return undefined;
      // C's usual arithmetic conversions: a floating operand makes the operation a double one.
      const real = floats && (isFloating(e.left) || isFloating(e.right));
      switch (e.op) {
        case "+": return l + r;
        case "-": return l - r;
        case "*": return l * r;
        case "/": return real ? l / r : r === 0 ? undefined : Math.trunc(l / r);
        case "<": return +(l < r);
        case ">": return +(l > r);
        case "<=": return +(l <= r);
        case ">=": return +(l >= r);
        case "==": return +(l === r);
        case "!=": return +(l !== r);
        case "&&": return +(l !== 0 && r !== 0);
        case "||": return +(l !== 0 || r !== 0);
      }
      if (real) return undefined; // %, shifts and bitwise operators take integers only
      switch (e.op) {
        case "%": return r === 0 ? undefined : l % r;
        case "<<": return l * 2 ** r;
        case ">>": return Math.floor(l / 2 ** r);
        case "&": return l & r;
        case "|": return l | r;
        case "^": return l ^ r;
      }
      return undefined;
    }
    case "conditional": {
      const c = evalIn(e.cond, lookup, floats);
      return c === undefined ? undefined : c ? evalIn(e.then, lookup, floats) : evalIn(e.else, lookup, floats);
    }
    case "cast":
      return evalIn(e.operand, lookup, floats);
    case "comma":
      return evalIn(e.exprs[e.exprs.length - 1]!, lookup, floats);
    default:
      return undefined;
  }
}

const ARITHMETIC = new Set(["+", "-", "*", "/"]);

/** Whether `e`'s C type is floating: a floating literal, or arithmetic on one. */
function isFloating(e: Expr): boolean {
  switch (e.kind) {
    case "float": return true;
    case "unary": return (e.op === "-" || e.op === "+") && isFloating(e.operand);
    case "binary": return ARITHMETIC.has(e.op) && (isFloating(e.left) || isFloating(e.right));
    case "conditional": return isFloating(e.then) || isFloating(e.else);
    case "cast": return isFloating(e.operand);
    case "comma": return isFloating(e.exprs[e.exprs.length - 1]!);
    default: return false;
  }
}
