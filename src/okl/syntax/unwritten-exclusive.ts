/**
 * A warning for an `@exclusive` variable that a kernel reads but never writes: each work-item reads a
 * value C leaves undefined (a libParanumal fork's wave-speed kernel declares `@exclusive dfloat gamma`,
 * hides it with `const dfloat gamma = …` in its first `@inner` loop and reads the exclusive in the
 * second). Names resolve through block scopes, so a local of the same name is another variable.
 * Conservative: an assignment, `++`/`--`, taking the address, an initializer or passing the variable
 * (or an element) to a function counts as a write, so only a variable that is never anything but
 * read is reported.
 */
import type { Declaration, Declarator, Expr, FunctionDef, Pos, Stmt, TranslationUnit } from "./ast.js";
import { exprChildren, exprsOfStmt, stmtChildren } from "./walk.js";

interface Slot {
  readonly decl: Declarator;
  readonly exclusive: boolean;
  written: boolean;
  firstRead: Pos | undefined;
}

type Scopes = Map<string, Slot>[];

/** The findings of `unit`: one per `@exclusive` variable read and never written, at its first read. */
export function unwrittenExclusives(unit: TranslationUnit): { readonly detail: string; readonly at: Pos }[] {
  const out: { detail: string; at: Pos }[] = [];
  for (const item of unit.items) {
    if (item.kind !== "function" || !item.isKernel || !item.body) continue;
    const slots: Slot[] = [];
    visitStmt(item.body, [paramScope(item)], slots);
    for (const s of slots) {
      if (!s.exclusive || s.written || !s.firstRead) continue;
      const d = s.decl;
      out.push({
        detail: `@exclusive "${d.name}" (declared at ${d.pos.line}:${d.pos.column}) is read here but never written in kernel "${item.name}": each work-item reads a value C leaves undefined; assign it in an @inner loop before this one reads it`,
        at: s.firstRead,
      });
    }
  }
  return out;
}

/** Kernel arguments shadow nothing and are never reported: a scope that resolves them to no slot. */
function paramScope(f: FunctionDef): Map<string, Slot> {
  const m = new Map<string, Slot>();
  for (const p of f.params) if (p.declarator.name) m.set(p.declarator.name, { decl: p.declarator, exclusive: false, written: true, firstRead: undefined });
  return m;
}

function declare(d: Declaration, scopes: Scopes, slots: Slot[]): void {
  const exclusiveAll = d.attributes.some((a) => a.name === "exclusive");
  for (const x of d.declarators) {
    for (const dim of x.arrayDims) if (dim) visitExpr(dim, false, scopes);
    if (x.init) visitExpr(x.init, false, scopes);
    const slot: Slot = { decl: x, exclusive: exclusiveAll || x.okl.exclusive, written: x.init !== undefined, firstRead: undefined };
    scopes[scopes.length - 1]!.set(x.name, slot);
    slots.push(slot);
  }
}

function visitStmt(s: Stmt, scopes: Scopes, slots: Slot[]): void {
  if (s.kind === "declaration") return declare(s, scopes, slots);
  const block = s.kind === "compound" || s.kind === "for";
  if (block) scopes.push(new Map());
  if (s.kind === "for" && s.init) {
    if (s.init.kind === "declaration") declare(s.init, scopes, slots);
    else visitExpr(s.init, false, scopes);
  }
  for (const e of exprsOfStmt(s)) if (!(s.kind === "for" && e === s.init)) visitExpr(e, false, scopes);
  for (const c of stmtChildren(s)) visitStmt(c, scopes, slots);
  if (block) scopes.pop();
}

function resolve(name: string, scopes: Scopes): Slot | undefined {
  for (let k = scopes.length - 1; k >= 0; k--) {
    const s = scopes[k]!.get(name);
    if (s) return s;
  }
  return undefined;
}

/** `written`: the expression's root variable is assigned, incremented, addressed or passed on. */
function visitExpr(e: Expr, written: boolean, scopes: Scopes): void {
  switch (e.kind) {
    case "ident": {
      const s = resolve(e.name, scopes);
      if (!s) return;
      if (written) s.written = true;
      else s.firstRead ??= e.pos;
      return;
    }
    case "assign":
      visitExpr(e.target, true, scopes);
      return visitExpr(e.value, false, scopes);
    case "unary":
      return visitExpr(e.operand, written || e.op === "++" || e.op === "--" || e.op === "&", scopes);
    case "postfix":
      return visitExpr(e.operand, true, scopes);
    case "index":
      visitExpr(e.target, written, scopes);
      return visitExpr(e.index, false, scopes);
    case "member":
      return visitExpr(e.target, written, scopes);
    case "call":
      visitExpr(e.callee, false, scopes);
      for (const a of e.args) visitExpr(a, true, scopes);
      return;
    // The commonest nodes without an array of children.
    case "binary":
      visitExpr(e.left, false, scopes);
      return visitExpr(e.right, false, scopes);
    case "int": case "float": case "char": case "string": case "bool":
      return;
    default:
      for (const c of exprChildren(e)) visitExpr(c, false, scopes);
  }
}
