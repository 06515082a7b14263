/**
 * Multi-dimensional local arrays that the kernel also uses as flat pointers (libCEED's CPU simplex
 * basis: `CeedScalar Ve[DIM][Q]; … gradElement(Bx, u, (CeedScalar *) Ve);` where the function writes
 * `Ve[dim*Q + q]`). C lays the array out row-major, so the flat pointer's element k is `Ve[k / Q][k %
 * Q]`: Loom stores such an array flat (row-layout.ts, `views`), reads `Ve[d][q]` as element `d*Q + q`
 * and the pointer's `p[k]` as element k. The array is bound with offset 0, which makes a pointer to
 * it take one flat subscript (expressions.ts) while its own subscripts stay full; a row `Ve[1]` and
 * an element's address `&Ve[0][0]` passed as pointers are pointers into the flat array too.
 *
 *   usedFlat(items, "Ve", 2)   // true where some later statement names Ve with fewer than 2 subscripts
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { someAst } from "./ast-queries.js";
import type { Binding, Scope } from "./bindings.js";

/** Whether declarator `d` is a local array of two or more dimensions (not of pointers): it may be a flat view. */
export const flatCandidate = (d: A.Declarator): boolean => d.arrayDims.length > 1 && d.pointers.length === 0;

/**
 * Whether `name` occurs in `items` other than fully subscripted (`a[i][j]` for rank 2): cast to a
 * pointer, passed whole, offset, a row `a[i]`, the address of an element `&a[i][j]`. Over-approximating is harmless (a flat array holds the same
 * elements in the same order), so a shadowing declaration of the name needs no care.
 */
export function usedFlat(items: readonly A.Stmt[], name: string, rank: number): boolean {
  let idents = 0;
  let full = 0;
  const depth = (e: A.Expr): number => (e.kind === "index" ? 1 + depth(e.target) : 0);
  const root = (e: A.Expr): A.Expr => (e.kind === "index" ? root(e.target) : e);
  const visit = (n: A.Stmt | A.Expr): boolean => {
    if (n.kind === "for" && n.init?.kind === "declaration") someAst(n.init, visit);
    const r0 = n.kind === "unary" && n.op === "&" ? root(n.operand) : undefined;
    if (r0?.kind === "ident" && r0.name === name) idents++; // `&a[i][j]`: an address into it
    if (n.kind === "ident" && n.name === name) idents++;
    // Only the outer-most node of a full chain counts (someAst visits the inner ones too).
    else if (n.kind === "index" && depth(n) === rank) {
      const r = root(n);
      if (r.kind === "ident" && r.name === name) full++;
    }
    return false;
  };
  for (const s of items) someAst(s, visit);
  return idents > full;
}

/**
 * A pointer into a flat view: `a[i]` (a row, fewer subscripts than the rank) or `&a[i][j]` (an
 * element, `full`), as a pointer to element `i*B + j` (the row's first element for `a[i]`) of the
 * flat array; undefined where `e` is no such subscript of an array declared as a flat view.
 */
export function flatViewPointer(e: A.Expr, scope: Scope, lower: (x: A.Expr) => Expr, full: boolean): Binding | undefined {
  const indices: A.Expr[] = [];
  let r: A.Expr = e;
  while (r.kind === "index") {
    indices.unshift(r.index);
    r = r.target;
  }
  const b = r.kind === "ident" ? scope.get(r.name) : undefined;
  if (b?.kind !== "temp" || b.rows === undefined || indices.length > b.rows.length || (full ? indices.length !== b.rows.length : indices.length === b.rows.length)) return undefined;
  const rows = b.rows;
  // Row-major: ((i0*B1 + i1)*B2 + …), then scaled by the extents of the subscripts left out.
  let at: Expr = lower(indices[0]!);
  for (let k = 1; k < indices.length; k++) at = { kind: "arith", op: "+", left: { kind: "arith", op: "*", left: at, right: c(rows[k]!) }, right: lower(indices[k]!) };
  const rest = rows.slice(indices.length).reduce((p, x) => p * x, 1);
  if (rest !== 1) at = { kind: "arith", op: "*", left: at, right: c(rest) };
  return { kind: "temp", name: b.name, rank: 1, offset: at };
}
