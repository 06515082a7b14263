/**
 * Calls of device functions that need statements (loops, assigned locals) inside opaque blocks are
 * inlined before the expression that holds them (opaque.ts), so they must not sit where C evaluates
 * them only sometimes: the right of `&&` or `||`, a branch of `?:`.
 *
 *   checkUnconditional(parse("x > 0 && f(x)"), false, file, fail)   // fails where f needs statements
 */
import type * as A from "../syntax/ast.js";
import { walkAst } from "./ast-queries.js";
import { statementCall } from "./block-queries.js";
import type { FileContext } from "./file-context.js";

/** Fails where `e` (evaluated only sometimes when `conditional`) calls a device function that needs statements conditionally. */
export function checkUnconditional(e: A.Expr, conditional: boolean, file: FileContext, fail: (detail: string, pos: A.Pos) => never): void {
  if (conditional && statementCall(e, file)) {
    fail(`the call of "${(e as A.Call).callee.kind === "ident" ? ((e as A.Call).callee as A.Ident).name : "?"}" is evaluated only under a condition (&&, ||, ?:) and needs statements; compute it in an if statement`, e.pos);
  }
  const check = (x: A.Expr, c: boolean) => checkUnconditional(x, c, file, fail);
  switch (e.kind) {
    case "binary":
      check(e.left, conditional);
      check(e.right, conditional || e.op === "&&" || e.op === "||");
      return;
    case "conditional":
      check(e.cond, conditional);
      check(e.then, true);
      check(e.else, true);
      return;
    default:
      walkAst(e, (n) => {
        if (n !== e && (n.kind === "binary" || n.kind === "conditional")) check(n as A.Expr, conditional);
      });
  }
}
