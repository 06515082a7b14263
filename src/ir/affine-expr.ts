/**
 * Integer expressions and affine forms: the one conversion every folder uses (shape inference in
 * src/parse and src/okl, footprints in src/analysis, bounds proofs in src/run).
 */
import { aff, affAdd, affIsConstant, affScale, affSub, type Aff } from "../poly/index.js";
import { c, type Expr } from "./expr.js";

/**
 * The affine form of an integer expression, or undefined when it is not affine (products of
 * variables, division, subscripts, calls…). `isIndexVar(name)` says which variables may appear.
 */
export function exprToAff(e: Expr, isIndexVar: (name: string) => boolean = () => true): Aff | undefined {
  switch (e.kind) {
    case "var": return isIndexVar(e.name) ? aff({ [e.name]: 1 }) : undefined;
    case "const": return Number.isSafeInteger(e.value) && !e.isFloat ? aff({}, e.value) : undefined;
    case "neg": {
      const a = exprToAff(e.operand, isIndexVar);
      return a && affScale(a, -1);
    }
    case "cast": return exprToAff(e.value, isIndexVar);
    case "arith": {
      const l = exprToAff(e.left, isIndexVar);
      const r = exprToAff(e.right, isIndexVar);
      if (!l || !r) return undefined;
      switch (e.op) {
        case "+": return affAdd(l, r);
        case "-": return affSub(l, r);
        case "*":
          if (affIsConstant(l)) return affScale(r, l.constant);
          if (affIsConstant(r)) return affScale(l, r.constant);
          return undefined;
        default:
          if (affIsConstant(l) && affIsConstant(r) && r.constant !== 0) {
            if (e.op === "//") return aff({}, Math.floor(l.constant / r.constant));
            if (e.op === "/") return aff({}, Math.trunc(l.constant / r.constant));
            if (e.op === "%") return aff({}, l.constant - r.constant * Math.floor(l.constant / r.constant));
          }
          return undefined;
      }
    }
    default: return undefined;
  }
}

/** An affine form as a readable expression: `n`, `n + 1`, `2*n - m`, `16`. */
export function affToReadableExpr(a: Aff): Expr {
  let out: Expr | undefined;
  for (const [name, k] of Object.entries(a.terms)) {
    const mag = Math.abs(k);
    const term: Expr = mag === 1 ? { kind: "var", name } : { kind: "arith", op: "*", left: c(mag), right: { kind: "var", name } };
    if (out === undefined) out = k < 0 ? { kind: "neg", operand: term } : term;
    else out = { kind: "arith", op: k < 0 ? "-" : "+", left: out, right: term };
  }
  if (out === undefined) return c(a.constant);
  if (a.constant === 0) return out;
  return { kind: "arith", op: a.constant < 0 ? "-" : "+", left: out, right: c(Math.abs(a.constant)) };
}
