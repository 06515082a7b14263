/**
 * `printf(...)` as a statement in a kernel: OCCA's backends print from the device (a debugging
 * aid, such as a nekRS mask kernel's report of an out-of-range value); Loom's backends have no
 * console output from kernels. The call changes no memory, so it is left out with a warning, when
 * its arguments change nothing either (no assignment, increment, or call but of math.h's functions);
 * otherwise it is refused.
 */
import type * as A from "../syntax/ast.js";
import { someAst } from "./ast-queries.js";
import type { FileContext } from "./file-context.js";
import { MATH } from "./tables.js";

/** Whether `e` is a `printf` statement left out (warned at its position); refuses one whose arguments have effects. */
export function droppedPrintf(e: A.Expr, file: FileContext): boolean {
  if (e.kind !== "call" || e.callee.kind !== "ident" || e.callee.name !== "printf" || file.functions.has("printf")) return false;
  // math.h's functions change nothing (`printf("%g", fabs(r))`); a device function or another built-in (atomicAdd) may.
  const pure = (n: A.Expr): boolean => n.kind === "call" && n.callee.kind === "ident" && MATH[n.callee.name] !== undefined && !file.functions.has(n.callee.name);
  const effect = e.args.find((a) => someAst(a, (n) => n.kind === "assign" || (n.kind === "call" && !pure(n)) || ((n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--"))));
  if (effect !== undefined) {
    file.fail("printf whose arguments assign, increment or call a function other than math.h's: Loom's backends do not print from kernels, and leave printf out only where that changes nothing; move the effect out of the call", effect.pos);
  }
  file.warn("printf: Loom's backends do not print from kernels; the call is left out (it changes no memory)", e.pos, "printf left out");
  return true;
}
