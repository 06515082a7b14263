/**
 * Which local pointers of a function move (moving-pointers.ts): names resolved to their
 * declarations through the function's block scopes, then the pointers that are incremented
 * (`p++`, `p += k`, `p = p + 1`), and those that hold a moving pointer's value (`char *q = p;`,
 * `q = p + 2;`), which must copy its position, not alias it.
 *
 *   scanFunction(f).moving   // the declarations of `destination` and `source` in nekRS's _strcpy
 */
import type * as A from "../syntax/ast.js";
import { exprChildren as childExprs, exprsOfStmt, stmtChildren } from "../syntax/walk.js";

/** A local variable or parameter of the function being scanned. */
export interface Decl {
  readonly name: string;
  /** A pointer (not an array of them) or an array: what a pointer can point into. */
  readonly pointer: boolean;
  readonly array: boolean;
  readonly param: boolean;
  readonly spec: A.TypeSpec;
  readonly declarator: A.Declarator;
  /** Whole-pointer assignments after the declaration (`p = …`). */
  readonly assigns: A.Expr[];
  /** Incremented or assigned a moving pointer's value: lowered as a base and an offset. */
  moving: boolean;
}

/** The declarations of a function's names and the idents that name them. */
export interface Scan {
  readonly decls: readonly Decl[];
  readonly byIdent: ReadonlyMap<A.Ident, Decl>;
  readonly byDeclarator: ReadonlyMap<A.Declarator, Decl>;
  readonly moving: readonly Decl[];
}

/** Resolves every name of `f` and finds its moving pointers. */
export function scanFunction(f: A.FunctionDef): Scan {
  const decls: Decl[] = [];
  const byIdent = new Map<A.Ident, Decl>();
  const byDeclarator = new Map<A.Declarator, Decl>();
  const scopes: Map<string, Decl>[] = [new Map()];
  const lookup = (n: string): Decl | undefined => {
    for (let k = scopes.length - 1; k >= 0; k--) {
      const d = scopes[k]!.get(n);
      if (d) return d;
    }
    return undefined;
  };
  const declare = (spec: A.TypeSpec, d: A.Declarator, param: boolean) => {
    if (d.name === "") return;
    const x: Decl = { name: d.name, pointer: d.pointers.length > 0 && d.arrayDims.length === 0, array: d.arrayDims.length > 0, param, spec, declarator: d, assigns: [], moving: false };
    decls.push(x);
    byDeclarator.set(d, x);
    scopes[scopes.length - 1]!.set(d.name, x);
  };
  const expr = (e: A.Expr): void => {
    if (e.kind === "ident") {
      const d = lookup(e.name);
      if (d) byIdent.set(e, d);
      return;
    }
    if (e.kind === "member") return expr(e.target);
    if (e.kind === "call") return e.args.forEach(expr); // a callee is a function's name
    for (const c of childExprs(e)) expr(c);
  };
  const declaration = (s: A.Declaration) => {
    for (const d of s.declarators) {
      for (const x of d.arrayDims) if (x) expr(x);
      if (d.init) expr(d.init);
      declare(s.spec, d, false);
    }
  };
  const stmt = (s: A.Stmt): void => {
    if (s.kind === "declaration") return declaration(s);
    const scoped = s.kind === "compound" || s.kind === "for";
    if (scoped) scopes.push(new Map());
    if (s.kind === "for" && s.init?.kind === "declaration") declaration(s.init);
    for (const e of exprsOfStmt(s)) if (!(s.kind === "for" && s.init?.kind === "declaration" && s.init.declarators.some((d) => d.init === e))) expr(e);
    for (const c of stmtChildren(s)) stmt(c);
    if (scoped) scopes.pop();
  };
  for (const p of f.params) declare(p.spec, p.declarator, true);
  scopes.push(new Map());
  for (const s of f.body?.items ?? []) stmt(s);

  // Pointers incremented, and whole-pointer assignments.
  const ptr = (e: A.Expr): Decl | undefined => (e.kind === "ident" ? byIdent.get(e) : undefined);
  const visit = (e: A.Expr): void => {
    if ((e.kind === "postfix" || e.kind === "unary") && (e.op === "++" || e.op === "--")) {
      const d = ptr(e.operand);
      if (d?.pointer) d.moving = true;
    }
    if (e.kind === "assign") {
      const d = ptr(e.target);
      if (d?.pointer && (e.op === "+=" || e.op === "-=")) d.moving = true;
      if (d?.pointer && e.op === "=") d.assigns.push(e.value);
    }
    for (const c of childExprs(e)) visit(c);
  };
  const all = (s: A.Stmt): void => {
    for (const e of exprsOfStmt(s)) visit(e);
    for (const c of stmtChildren(s)) all(c);
  };
  for (const s of f.body?.items ?? []) all(s);
  // `p = p + 1` moves p; `q = p` or `char *q = p` copies a moving pointer's position (until nothing changes).
  for (let changed = true; changed;) {
    changed = false;
    for (const d of decls) {
      if (d.moving || !d.pointer) continue;
      const from = [...d.assigns, ...(d.declarator.init && !d.param ? [d.declarator.init] : [])];
      if (d.assigns.some((v) => rootDecl(v, byIdent) === d) || from.some((v) => rootDecl(v, byIdent)?.moving === true)) {
        d.moving = true;
        changed = true;
      }
    }
  }
  return { decls, byIdent, byDeclarator, moving: decls.filter((d) => d.moving) };
}

/** The declaration a pointer expression starts from (`p`, `p + k`, `k + p`, `p - k`, `&p[k]`, `(T *) p`), or undefined. */
export function rootDecl(e: A.Expr, byIdent: ReadonlyMap<A.Ident, Decl>): Decl | undefined {
  switch (e.kind) {
    case "ident": return byIdent.get(e);
    case "binary": {
      if (e.op !== "+" && e.op !== "-") return undefined;
      const l = rootDecl(e.left, byIdent);
      if (e.op === "-" && l && (l.pointer || l.array) && isPtr(rootDecl(e.right, byIdent))) return undefined; // `p - q` is a number
      if (isPtr(l)) return l;
      const r = e.op === "+" ? rootDecl(e.right, byIdent) : undefined;
      return isPtr(r) ? r : undefined;
    }
    case "unary": return e.op === "&" && e.operand.kind === "index" ? rootDecl(e.operand.target, byIdent) : undefined;
    case "cast": return e.type.pointers.length > 0 ? rootDecl(e.operand, byIdent) : undefined;
    default: return undefined;
  }
}

function isPtr(d: Decl | undefined): d is Decl {
  return d !== undefined && (d.pointer || d.array);
}
