/**
 * What the body of an attributed loop assigns, for carried-privates.ts (split out of it): the
 * candidate variables it may write (`v = …`, `v++`, `&v`, through `v[i]`, `v.x`, `*(&v)`), and those
 * an iteration may give a value another iteration does not. Names resolve through block scopes.
 *
 *   for (n; @inner) { res = s_res[0]; r += a[n]; }   // assigns res (the same in every iteration) and r (varying)
 */
import type { Expr, Pos, Stmt } from "./ast.js";
import { exprChildren, someExpr, stmtChildren } from "./walk.js";

/** A candidate variable: a private scalar declared outside the attributed loops. */
export interface Slot {
  readonly name: string;
  readonly decl: Pos;
}

/** Each block's names: a candidate slot, or null for a name that is no candidate (it hides outer ones). */
export type Scopes = Map<string, Slot | null>[];

/** The variable `e` assigns as a whole: `v` or `*(&v)` (data-file macros: `*(uB) = …` with `&u`). */
export function assignedIdent(e: Expr): string | undefined {
  if (e.kind === "ident") return e.name;
  if (e.kind === "unary" && e.op === "*" && e.operand.kind === "unary" && e.operand.op === "&" && e.operand.operand.kind === "ident") return e.operand.operand.name;
  return undefined;
}

/** The root variable an assignment target, `++`/`--` or `&` writes (`v`, `v[i]`, `v.x`, `*(&v)`). */
function writtenRoot(e: Expr): string | undefined {
  switch (e.kind) {
    case "ident":
      return e.name;
    case "index":
    case "member":
      return writtenRoot(e.target);
    case "unary":
      return e.op === "*" || e.op === "&" ? writtenRoot(e.operand) : undefined;
    case "cast":
      return writtenRoot(e.operand);
    default:
      return undefined;
  }
}

/**
 * The candidates of `scopes` that the body `s` of an attributed loop may assign (`out`), and those
 * of them an iteration may give a value another iteration does not (`varying`): all but those
 * assigned only by `v = e;` statements directly in the body, `e` reading no name the body assigns
 * or declares, nor the loop's iterator, and calling nothing (`for (n; @inner) res = s_res[0];`:
 * every work-item and every C iteration leaves that one value). Declarations inside `s` hide outer names.
 */
export function collectAssigned(s: Stmt, scopes: Scopes, iterators: ReadonlySet<string>, out: Set<Slot>, varying: Set<Slot>): void {
  const local: Scopes = [...scopes, new Map()];
  const inside = new Set<string>(iterators);
  const uniform = new Map<Slot, boolean>();
  const sites: { slot: Slot; value: Expr | undefined }[] = [];
  const mark = (e: Expr | undefined, value: Expr | undefined): void => {
    const name = e ? writtenRoot(e) : undefined;
    if (name) inside.add(name);
    const slot = name ? resolve(name, local) : undefined;
    if (slot) sites.push({ slot, value });
  };
  const visitExpr = (e: Expr, top: boolean): void => {
    switch (e.kind) {
      // Names and literals write nothing; binary and index nodes are walked without an array of children.
      case "int": case "float": case "char": case "string": case "bool": case "ident": return;
      case "binary": visitExpr(e.left, false); return visitExpr(e.right, false);
      case "index": visitExpr(e.target, false); return visitExpr(e.index, false);
    }
    if (e.kind === "assign") mark(e.target, top && e.op === "=" && e.target.kind === "ident" ? e.value : undefined);
    else if ((e.kind === "unary" && (e.op === "++" || e.op === "--" || e.op === "&")) || e.kind === "postfix") mark(e.operand, undefined);
    for (const c of exprChildren(e)) visitExpr(c, false);
  };
  const visit = (x: Stmt, top: boolean): void => {
    if (x.kind === "declaration") {
      for (const d of x.declarators) {
        if (d.init) visitExpr(d.init, false);
        local[local.length - 1]!.set(d.name, null);
        inside.add(d.name);
      }
      return;
    }
    const block = x.kind === "compound" || x.kind === "for";
    if (block) local.push(new Map());
    if (x.kind === "for" && x.init) {
      if (x.init.kind === "declaration") visit(x.init, false);
      else visitExpr(x.init, false);
    }
    if (x.kind === "expr") visitExpr(x.expr, top);
    else if (x.kind === "if" || x.kind === "while" || x.kind === "doWhile" || x.kind === "switch") visitExpr(x.cond, false);
    else if (x.kind === "for") {
      if (x.cond) visitExpr(x.cond, false);
      if (x.update) visitExpr(x.update, false);
    } else if (x.kind === "return" && x.value) visitExpr(x.value, false);
    for (const c of stmtChildren(x)) visit(c, top && x.kind === "compound" && x === s);
    if (block) local.pop();
  };
  visit(s, true);
  const invariant = (e: Expr): boolean => !someExpr(e, (x) => x.kind === "call" || (x.kind === "ident" && inside.has(x.name)));
  for (const { slot, value } of sites) uniform.set(slot, (uniform.get(slot) ?? true) && value !== undefined && invariant(value));
  for (const [slot, same] of uniform) {
    out.add(slot);
    if (!same) varying.add(slot);
  }
}

export function resolve(name: string, scopes: Scopes): Slot | undefined {
  for (let k = scopes.length - 1; k >= 0; k--) {
    const s = scopes[k]!.get(name);
    if (s !== undefined) return s ?? undefined;
  }
  return undefined;
}
