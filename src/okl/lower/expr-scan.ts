/**
 * Walks over IR expressions for the importer's per-instruction bookkeeping (dependencies, checks
 * before assembly): `walkExpr`'s pre-order, without an array per node — a kernel of thousands of
 * statements is walked several times, so these walks are a hot path of the import.
 *
 *   eachNode(e, (n) => { if (n.kind === "var") reads.add(n.name); })
 *   someNode(e, (n) => n.kind === "call")   // true when any node is a call
 */
import { children, isBitwiseOp, type Expr } from "../../ir/index.js";

/** The nodes C's operand-type check (`checkOperandTypes`) types: bitwise operators and calls. */
export const needsTypeCheck = (n: Expr): boolean => (n.kind === "arith" && isBitwiseOp(n.op)) || n.kind === "bitnot" || n.kind === "call";

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
    case "subscript": for (let k = 0; k < e.indices.length; k++) eachNode(e.indices[k]!, visit); return;
    case "call": for (let k = 0; k < e.args.length; k++) eachNode(e.args[k]!, visit); return;
    case "if": eachNode(e.cond, visit); eachNode(e.then, visit); eachNode(e.else, visit); return;
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
    case "subscript": return someOf(e.indices, test);
    case "call": return someOf(e.args, test);
    case "if": return someNode(e.cond, test) || someNode(e.then, test) || someNode(e.else, test);
    default: return someOf(children(e), test);
  }
}

/** Whether `test` holds of some node of some expression of `list` (no closure per list). */
function someOf(list: readonly Expr[], test: (n: Expr) => boolean): boolean {
  for (let k = 0; k < list.length; k++) if (someNode(list[k]!, test)) return true;
  return false;
}

/**
 * `e` frozen, children first (what the kernel record does to it anyway, `deepFreeze`): done here
 * per instruction, with no key enumeration, so that the record meets frozen subtrees. A node is
 * frozen only once everything under it is (the record does not enter a frozen node), so a kind
 * not handled here (a reduction) leaves it and its ancestors to the record.
 */
export function frozenExpr(e: Expr): Expr {
  if (Object.isFrozen(e)) return e;
  let done: boolean;
  switch (e.kind) {
    case "var": case "const": done = true; break;
    case "arith": case "compare": case "logical": done = isFrozenExpr(e.left) && isFrozenExpr(e.right); break;
    case "neg": case "bitnot": case "not": done = isFrozenExpr(e.operand); break;
    case "cast": done = isFrozenExpr(e.value); break;
    case "linear": done = isFrozenExpr(e.index); break;
    case "if": done = isFrozenExpr(e.cond) && isFrozenExpr(e.then) && isFrozenExpr(e.else); break;
    case "subscript": done = frozenList(e.indices); break;
    case "call": done = frozenList(e.args); break;
    default: done = false;
  }
  return done ? Object.freeze(e) : e;
}

/** Whether `frozenExpr(e)` froze all of `e`. */
function isFrozenExpr(e: Expr): boolean {
  return Object.isFrozen(frozenExpr(e));
}

/** Every expression of `list`, then the list, frozen; whether all of it is. */
function frozenList(list: readonly Expr[]): boolean {
  let all = true;
  for (const x of list) all = isFrozenExpr(x) && all;
  if (all) Object.freeze(list);
  return all;
}
