/**
 * Generic traversal of the OKL AST: the direct child statements and expressions of a statement, and
 * a pre-order expression visitor. Validation, the normalizer and the lowering build on these.
 */
import type { Expr, Stmt } from "./ast.js";
import { assertNever } from "../../errors.js";

/** The statements directly inside `s` (bodies, branches, block items), in source order. */
export function stmtChildren(s: Stmt): readonly Stmt[] {
  switch (s.kind) {
    case "compound":
      return s.items;
    case "if":
      return s.else ? [s.then, s.else] : [s.then];
    case "for":
    case "while":
    case "doWhile":
    case "switch":
    case "case":
    case "atomic":
      return [s.body];
    case "expr":
    case "declaration":
    case "break":
    case "continue":
    case "return":
    case "empty":
    case "barrier":
    case "pragma":
      return [];
    default:
      return assertNever(s, "statement");
  }
}

/** The expressions directly owned by `s` (not those of nested statements). */
export function exprsOfStmt(s: Stmt): readonly Expr[] {
  switch (s.kind) {
    case "expr":
      return [s.expr];
    case "if":
    case "while":
    case "doWhile":
    case "switch":
      return [s.cond];
    case "case":
      return s.value ? [s.value] : [];
    case "return":
      return s.value ? [s.value] : [];
    case "for": {
      const out: Expr[] = [];
      if (s.init && s.init.kind !== "declaration") out.push(s.init);
      if (s.init?.kind === "declaration") for (const d of s.init.declarators) if (d.init) out.push(d.init);
      if (s.cond) out.push(s.cond);
      if (s.update) out.push(s.update);
      return out;
    }
    case "declaration":
      return s.declarators.flatMap((d) => [...d.arrayDims.filter((e): e is Expr => e !== undefined), ...(d.init ? [d.init] : [])]);
    default:
      return [];
  }
}

/** The direct sub-expressions of `e`. */
export function exprChildren(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case "int":
    case "float":
    case "char":
    case "string":
    case "bool":
    case "ident":
      return [];
    case "unary":
    case "postfix":
      return [e.operand];
    case "binary":
      return [e.left, e.right];
    case "assign":
      return [e.target, e.value];
    case "conditional":
      return [e.cond, e.then, e.else];
    case "cast":
      return [e.operand];
    case "sizeof":
      return e.operand ? [e.operand] : [];
    case "call":
      return [e.callee, ...e.args];
    case "index":
      return [e.target, e.index];
    case "member":
      return [e.target];
    case "comma":
      return e.exprs;
    case "initList":
      return e.items;
    default:
      return assertNever(e, "expression");
  }
}

/** Whether `test` holds of `e` or some sub-expression (pre-order, stopping at the first; no closure per node). */
export function someExpr(e: Expr, test: (x: Expr) => boolean): boolean {
  if (test(e)) return true;
  switch (e.kind) {
    case "int": case "float": case "char": case "string": case "bool": case "ident": return false;
    case "binary": return someExpr(e.left, test) || someExpr(e.right, test);
    case "index": return someExpr(e.target, test) || someExpr(e.index, test);
    case "unary": case "postfix": case "cast": return someExpr(e.operand, test);
    default:
      for (const c of exprChildren(e)) if (someExpr(c, test)) return true;
      return false;
  }
}

/** Visit `e` and every sub-expression, pre-order. */
export function walkExpr(e: Expr, f: (x: Expr) => void): void {
  f(e);
  // The common nodes without an array of children (validation walks every expression of a kernel).
  switch (e.kind) {
    case "int": case "float": case "char": case "string": case "bool": case "ident": return;
    case "binary":
      walkExpr(e.left, f);
      walkExpr(e.right, f);
      return;
    case "index":
      walkExpr(e.target, f);
      walkExpr(e.index, f);
      return;
    case "unary": case "postfix": case "cast": return walkExpr(e.operand, f);
    default: for (const c of exprChildren(e)) walkExpr(c, f);
  }
}

/**
 * The first read of the variable `name` in `e` (an identifier evaluated for its value: not inside
 * `sizeof`, not the operand of `&`), or undefined.
 */
export function firstRead(e: Expr, name: string): Expr | undefined {
  if (e.kind === "ident") return e.name === name ? e : undefined;
  if (e.kind === "sizeof" || (e.kind === "unary" && e.op === "&" && e.operand.kind === "ident")) return undefined;
  // The common nodes without an array of children (every initializer of a kernel is searched).
  switch (e.kind) {
    case "int": case "float": case "char": case "string": case "bool": return undefined;
    case "binary": return firstRead(e.left, name) ?? firstRead(e.right, name);
    case "index": return firstRead(e.target, name) ?? firstRead(e.index, name);
    case "unary": case "postfix": case "cast": return firstRead(e.operand, name);
  }
  for (const c of exprChildren(e)) {
    const r = firstRead(c, name);
    if (r) return r;
  }
  return undefined;
}
