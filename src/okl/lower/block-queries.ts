/**
 * Which OKL statements must become opaque blocks (opaque.ts): while/do-while/break/continue/
 * return/switch, plain `for` loops whose header is not an affine `int i = …; i CMP …; i ±= …`
 * (after isolating the iterator, `row + i < end`), loops that break or continue themselves, and
 * statements calling device functions that need statements.
 *
 *   needsBlock(ast("while (x > 1) x /= 2;"), file)   // true
 */
import type * as A from "../syntax/ast.js";
import { isolateIterator, someAst } from "./ast-queries.js";
import type { FileContext } from "./file-context.js";
import { expressionInlinable } from "./inline.js";

/** Whether `f` is a device function of the file whose calls need statements (not one expression). */
export function statementCall(e: A.Expr, file: FileContext): boolean {
  if (e.kind !== "call" || e.callee.kind !== "ident") return false;
  const f = file.functions.get(e.callee.name);
  return f !== undefined && !expressionInlinable(f);
}

/** Whether `e` calls (at any depth) a device function that needs statements. */
export function hasStatementCall(e: A.Expr | A.Stmt | undefined, file: FileContext): boolean {
  if (e === undefined || file.functions.size === 0) return false;
  return someAst(e, (n) => statementCall(n as A.Expr, file));
}

/** Whether `body` has a `break` or `continue` of the loop it is the body of (not of loops inside it). */
function ownJump(body: A.Stmt): boolean {
  switch (body.kind) {
    case "break": case "continue": return true;
    case "compound": return body.items.some(ownJump);
    case "if": return ownJump(body.then) || (body.else !== undefined && ownJump(body.else));
    case "switch": return ownContinue(body.body);
    default: return false;
  }
}

/** Whether `body` (inside a switch) has a `continue` of the loop around the switch. */
function ownContinue(body: A.Stmt): boolean {
  switch (body.kind) {
    case "continue": return true;
    case "compound": return body.items.some(ownContinue);
    case "if": return ownContinue(body.then) || (body.else !== undefined && ownContinue(body.else));
    case "switch": case "case": return ownContinue(body.body);
    default: return false;
  }
}

/**
 * Whether statement `s` (met among ordinary statements) must become an opaque block: it is a
 * while/do-while/break/continue/return, a plain `for` whose header is not `int i = …; i < …; …`
 * or that breaks or continues itself, or it calls a device function that needs statements.
 */
export function needsBlock(s: A.Stmt, file: FileContext): boolean {
  switch (s.kind) {
    case "while": case "doWhile": case "break": case "continue": case "return": case "switch": return true;
    case "for": {
      if (s.okl !== undefined) return false;
      const init = s.init;
      const simple = init?.kind === "declaration" && init.declarators.length === 1 && init.declarators[0]!.init !== undefined && init.declarators[0]!.pointers.length === 0;
      return !simple || !canonicalHead(isolateIterator(s)) || ownJump(s.body) || hasStatementCall(s.cond, file) || hasStatementCall(s.update, file);
    }
    case "expr": return hasStatementCall(s.expr, file);
    case "declaration": return s.declarators.some((d) => d.init !== undefined && d.init.kind !== "initList" && hasStatementCall(d.init, file));
    case "if": return hasStatementCall(s.cond, file);
    default: return false;
  }
}

/**
 * Whether a plain loop's condition and update have OCCA's canonical form (`i CMP bound`, `i ++ --
 * += -=` on the iterator), which Loom lowers to an iname. Others (`row + i < end`, `i *= 2`) are
 * ordinary C loops: OCCA applies its loop rules to @outer/@inner loops only.
 */
function canonicalHead(s: A.For): boolean {
  const name = s.init?.kind === "declaration" ? s.init.declarators[0]?.name : undefined;
  const isI = (e: A.Expr) => e.kind === "ident" && e.name === name;
  const c = s.cond;
  const u = s.update;
  if (!c || c.kind !== "binary" || !["<", "<=", ">", ">="].includes(c.op) || isI(c.left) === isI(c.right)) return false;
  if (!u) return false;
  if ((u.kind === "unary" || u.kind === "postfix") && (u.op === "++" || u.op === "--")) return isI(u.operand);
  // Other updates of the iterator (`alive /= 2`) are unrolled where the bounds are constant, else a block (kernel-loops.ts).
  return u.kind === "assign" && isI(u.target);
}

/** Whether the loop statement `s` is attributed (@outer/@inner/@tile) and breaks or continues itself. */
export function attributedJump(s: A.Stmt): boolean {
  return s.kind === "for" && s.okl !== undefined && ownJump(s.body);
}

