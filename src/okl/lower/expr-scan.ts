/**
 * Walks over IR expressions for the importer's per-instruction bookkeeping (dependencies, checks
 * before assembly): `walkExpr`'s pre-order, without an array per node — a kernel of thousands of
 * statements is walked several times, so these walks are a hot path of the import.
 *
 *   eachNode(e, (n) => { if (n.kind === "var") reads.add(n.name); })
 *   someNode(e, (n) => n.kind === "call")   // true when any node is a call
 */
import { children, type Expr } from "../../ir/index.js";

/** `visit` on every node of `e`, parents before children, children in `children(e)`'s order. */
export function eachNode(e: Expr, visit: (n: Expr) => void): void {
  visit(e);
  switch (e.kind) {
    case "var": case "const": return;
    case "arith": case "compare": case "logical":
      eachNode(e.left, visit);
      eachNode(e.right, visit);
      return;
    case "neg": case "bitnot": case "not": return eachNode(e.operand, visit);
    case "cast": return eachNode(e.value, visit);
    case "subscript": for (const i of e.indices) eachNode(i, visit); return;
    default: for (const k of children(e)) eachNode(k, visit);
  }
}

/** Whether `test` holds of some node of `e` (stops at the first). */
export function someNode(e: Expr, test: (n: Expr) => boolean): boolean {
  if (test(e)) return true;
  switch (e.kind) {
    case "var": case "const": return false;
    case "arith": case "compare": case "logical": return someNode(e.left, test) || someNode(e.right, test);
    case "neg": case "bitnot": case "not": return someNode(e.operand, test);
    case "cast": return someNode(e.value, test);
    case "subscript": return e.indices.some((i) => someNode(i, test));
    default: return children(e).some((k) => someNode(k, test));
  }
}

/**
 * `e` frozen, children first (what the kernel record does to it anyway, `deepFreeze`): done here
 * per instruction, with no key enumeration, so that the record only meets frozen expressions.
 */
export function frozenExpr(e: Expr): Expr {
  if (Object.isFrozen(e)) return e;
  switch (e.kind) {
    case "var": case "const": break;
    case "arith": case "compare": case "logical":
      frozenExpr(e.left);
      frozenExpr(e.right);
      break;
    case "neg": case "bitnot": case "not": frozenExpr(e.operand); break;
    case "cast": frozenExpr(e.value); break;
    case "subscript":
      for (const i of e.indices) frozenExpr(i);
      Object.freeze(e.indices);
      break;
    default: return e; // the record freezes the rest
  }
  return Object.freeze(e);
}
