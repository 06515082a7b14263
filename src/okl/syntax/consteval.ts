/**
 * Integer constant evaluation of OKL expressions: `#if` conditions, `@shared` array sizes, loop
 * bounds for the empty-range check, attribute arguments. C semantics on doubles truncated to
 * integers (exact for the small values these checks see).
 */
import type { Expr } from "./ast.js";

/**
 * The integer value of `e`, or undefined when it is not a compile-time constant. `lookup` gives the
 * value of a name (a `const` variable, an enum member) or undefined.
 */
export function evalConst(e: Expr, lookup: (name: string) => number | undefined): number | undefined {
  switch (e.kind) {
    case "int":
    case "char":
      return e.value;
    case "float":
      return undefined;
    case "bool":
      return e.value ? 1 : 0;
    case "ident":
      return lookup(e.name);
    case "unary": {
      const v = evalConst(e.operand, lookup);
      if (v === undefined) return undefined;
      switch (e.op) {
        case "-": return -v;
        case "+": return v;
        case "!": return v ? 0 : 1;
        case "~": return ~v;
        default: return undefined;
      }
    }
    case "binary": {
      const l = evalConst(e.left, lookup);
      if (l === undefined) return undefined;
      if (e.op === "&&" && !l) return 0;
      if (e.op === "||" && l) return 1;
      const r = evalConst(e.right, lookup);
      if (r === undefined) return undefined;
      switch (e.op) {
        case "+": return l + r;
        case "-": return l - r;
        case "*": return l * r;
        case "/": return r === 0 ? undefined : Math.trunc(l / r);
        case "%": return r === 0 ? undefined : l % r;
        case "<<": return l * 2 ** r;
        case ">>": return Math.floor(l / 2 ** r);
        case "<": return +(l < r);
        case ">": return +(l > r);
        case "<=": return +(l <= r);
        case ">=": return +(l >= r);
        case "==": return +(l === r);
        case "!=": return +(l !== r);
        case "&": return l & r;
        case "|": return l | r;
        case "^": return l ^ r;
        case "&&": return +(l !== 0 && r !== 0);
        case "||": return +(l !== 0 || r !== 0);
      }
      return undefined;
    }
    case "conditional": {
      const c = evalConst(e.cond, lookup);
      return c === undefined ? undefined : c ? evalConst(e.then, lookup) : evalConst(e.else, lookup);
    }
    case "cast":
      return evalConst(e.operand, lookup);
    case "comma":
      return evalConst(e.exprs[e.exprs.length - 1]!, lookup);
    default:
      return undefined;
  }
}
