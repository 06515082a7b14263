/**
 * Conditions that move a pointer (`while (*s++) n++;`, `while ((*d++ = *s++));`, `if (*p++ == '-')`,
 * `do … while (*p++ != ':')`): C reads the old value and moves the pointer whether or not the test
 * holds, before the body runs. Such a condition becomes statements that compute it into a fresh int
 * local (the moves of moving-exprs.ts's `hoist` around it, an assignment in it first), evaluated
 * where C evaluates the condition: before an `if`, before a `while` loop and at the end of each trip,
 * at the end of a `do` loop's trip.
 *
 *   while (*s++) n++;
 *   // -> int t = 0; t = s[s_off] != 0; s_off++; while (t) { n++; t = s[s_off] != 0; s_off++; }
 *
 * A `for` loop whose condition moves a pointer comes here as `{ init; while (cond) { body update; } }`
 * (moving-pointers.ts). Refused at the move: a move in an operand of `&&`, `||` or `?:` (C may not
 * evaluate it), and a loop whose body continues it (`continue` would skip the test's moves).
 */
import type * as A from "../syntax/ast.js";
import { stmtChildren } from "../syntax/walk.js";
import { exprText, type MovingExprs, type PosFail } from "./moving-exprs.js";

type Tested = A.If | A.While | A.DoWhile;

/**
 * `s` with its condition's moves as statements (`body` rewrites a nested statement), or undefined
 * where the condition moves no pointer.
 */
export function movingCondition(s: Tested, mx: MovingExprs, fail: PosFail, body: (x: A.Stmt) => A.Stmt): A.Stmt | undefined {
  if (!mx.hasMove(s.cond)) return undefined;
  const pos = s.cond.pos;
  const t = mx.fresh("moved_test");
  const test: A.Ident = { kind: "ident", name: t, pos };
  // Fresh statements at each place C evaluates the condition.
  const evaluate = (): A.Stmt[] => {
    const pre: A.Expr[] = [], post: A.Expr[] = [];
    const value = mx.value(mx.hoist(s.cond, pre, post, false));
    const assigns: A.Expr[] = [];
    const read = liftAssignments(value, assigns, false, fail);
    const truth: A.Expr = { kind: "binary", op: "!=", left: read, right: { kind: "int", value: 0, text: "0", suffix: "", pos }, pos };
    return [...pre, ...assigns, { kind: "assign", op: "=", target: test, value: truth, pos } as A.Expr, ...post].map(exprStmt);
  };
  const decl = intDecl(t, pos);
  if (s.kind === "if") return block([decl, ...evaluate(), { ...s, cond: test, then: body(s.then), else: s.else && body(s.else) }], s.pos);
  const jump = ownContinue(s.body);
  if (jump) fail(`"continue" in a loop whose condition moves a pointer (\`${exprText(s.cond)}\`): Loom evaluates the condition's moves at the end of each trip, which continue would skip; use if/else in the body instead`, jump.pos);
  const trip = block([body(s.body), ...evaluate()], s.body.pos);
  if (s.kind === "while") return block([decl, ...evaluate(), { ...s, cond: test, body: trip }], s.pos);
  return block([decl, { ...s, body: trip, cond: test }], s.pos);
}

/**
 * `e` with each assignment in it replaced by its target, read again after it (C's value of an
 * assignment), the assignment pushed to `out` in C's order; refused under `&&`, `||` and `?:`
 * (`conditional`), where C may not evaluate it, and where the target has side effects.
 */
function liftAssignments(e: A.Expr, out: A.Expr[], conditional: boolean, fail: PosFail): A.Expr {
  switch (e.kind) {
    case "assign": {
      if (conditional) fail(`"${exprText(e)}" assigns inside an operand of &&, || or ?: of a condition that moves a pointer; assign in a statement of its own`, e.pos);
      const value = liftAssignments(e.value, out, false, fail);
      if (!readOnly(e.target)) fail(`"${exprText(e)}": the target of an assignment in a condition has side effects; assign in a statement of its own`, e.pos);
      out.push({ ...e, value });
      return e.target;
    }
    case "binary":
      if (e.op === "&&" || e.op === "||") return { ...e, left: liftAssignments(e.left, out, conditional, fail), right: liftAssignments(e.right, out, true, fail) };
      return { ...e, left: liftAssignments(e.left, out, conditional, fail), right: liftAssignments(e.right, out, conditional, fail) };
    case "conditional": return { ...e, cond: liftAssignments(e.cond, out, conditional, fail), then: liftAssignments(e.then, out, true, fail), else: liftAssignments(e.else, out, true, fail) };
    case "unary": case "cast": return { ...e, operand: liftAssignments(e.operand, out, conditional, fail) } as A.Expr;
    case "index": return { ...e, target: liftAssignments(e.target, out, conditional, fail), index: liftAssignments(e.index, out, conditional, fail) };
    default: return e;
  }
}

/** No call, assignment or increment in `e`. */
function readOnly(e: A.Expr): boolean {
  switch (e.kind) {
    case "ident": case "int": case "char": case "float": case "bool": return true;
    case "index": return readOnly(e.target) && readOnly(e.index);
    case "member": return readOnly(e.target);
    case "unary": return e.op !== "++" && e.op !== "--" && readOnly(e.operand);
    case "cast": return readOnly(e.operand);
    case "binary": return readOnly(e.left) && readOnly(e.right);
    default: return false;
  }
}

/** The first `continue` of the loop whose body is `s` (not of a loop nested in it). */
function ownContinue(s: A.Stmt): A.Stmt | undefined {
  if (s.kind === "continue") return s;
  if (s.kind === "for" || s.kind === "while" || s.kind === "doWhile") return undefined;
  for (const c of stmtChildren(s)) {
    const j = ownContinue(c);
    if (j) return j;
  }
  return undefined;
}

function exprStmt(expr: A.Expr): A.ExprStmt {
  return { kind: "expr", attributes: [], expr, pos: expr.pos };
}

function block(items: A.Stmt[], pos: A.Pos): A.Compound {
  return { kind: "compound", attributes: [], items, pos };
}

/** `int name = 0;` */
function intDecl(name: string, pos: A.Pos): A.Declaration {
  const spec: A.TypeSpec = { kind: "typeSpec", storage: [], qualifiers: [], base: { kind: "builtin", name: "int", pos }, pos };
  return {
    kind: "declaration", attributes: [], spec, pos,
    declarators: [{ kind: "declarator", name, pointers: [], arrayDims: [], attributes: [], init: { kind: "int", value: 0, text: "0", suffix: "", pos }, okl: { shared: false, exclusive: false, restrict: false, dim: undefined, dimOrder: undefined }, pos }],
  };
}
