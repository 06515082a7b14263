/**
 * Kernel arguments the kernel provably never writes, so that every work-item reading one element
 * reads the same value (uniform.ts): a pointer argument to `const` whose name appears in the kernel
 * only as the array of a subscript that is read (`bs[b]`), never assigned, incremented, passed on,
 * cast, offset or having its address taken (any of which could lead a write to it: C's `const` is
 * no proof, a cast removes it). Loom's arguments are distinct arrays (run() passes each by name),
 * so no other argument aliases it.
 *
 *   readOnlyArgument(body, "bs")   // true for `for (int s = bs[b]; s > 0; s >>= 1)`, false once `f(bs)` appears
 */
import type * as A from "../syntax/ast.js";
import { someAst } from "./ast-queries.js";

/** Whether `name` occurs in `body` only as `name[i]` read (see the module comment). */
export function readOnlyArgument(body: A.Stmt, name: string): boolean {
  let idents = 0;
  let reads = 0;
  let written = false;
  const isName = (e: A.Expr): boolean => e.kind === "ident" && e.name === name;
  const rootIs = (e: A.Expr): boolean => (e.kind === "index" ? rootIs(e.target) : e.kind === "unary" && e.op === "*" ? rootIs(e.operand) : isName(e));
  const visit = (n: A.Stmt | A.Expr): boolean => {
    // someAst does not enter a for loop's declaration (`for (int s = bs[b]; …)`): walk it here.
    if (n.kind === "for" && n.init?.kind === "declaration") someAst(n.init, visit);
    if (n.kind === "ident" && n.name === name) idents++;
    else if (n.kind === "index" && isName(n.target)) reads++;
    else if (n.kind === "assign" && rootIs(n.target)) written = true;
    else if ((n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--" || n.op === "&") && rootIs(n.operand)) written = true;
    return written;
  };
  someAst(body, visit);
  return !written && idents === reads;
}
