/**
 * Moving pointers (nekRS 26's `_strcpy` and `nekrs_strcmp` walk strings with `destination++`): a
 * local pointer or device-function parameter that is incremented is rewritten, before lowering, as
 * the place it starts from and an integer offset, a local of a generated name no user name can
 * collide with. `p = base + e` sets the offset, `p++` and `p += k` move it, `*p` and `p[i]` read
 * `base[off]` and `base[off + i]` (so every read keeps the interpreter's bounds check), `p - q` and
 * `p < q` of two pointers into one place compare offsets. What cannot be proven to mean the same is
 * an OklError at its line:column: a pointer given a place other than the one it starts in, pointer
 * comparisons across places, a move C may not evaluate (under `&&`, `||`, `?:`), a pointer to a moving
 * pointer. A condition that moves one (`while (*s++)`) is computed by statements (moving-conditions.ts).
 *
 *   // char *d = buf; while (*s) { *d = *s; d++; s++; }
 *   // -> char *d = buf; int d_off = 0; int s_off = 0; while (s[s_off]) { d[d_off] = s[s_off]; d_off++; s_off++; }
 */
import type * as A from "../syntax/ast.js";
import { exprsOfStmt, someExpr, stmtChildren } from "../syntax/walk.js";
import { rootDecl, scanFunction, type Decl } from "./moving-scan.js";
import { literalRefusal } from "./string-literals.js";
import { exprText, MovingExprs, zero, type Moving, type PosFail } from "./moving-exprs.js";
import { movingCondition } from "./moving-conditions.js";

export type { PosFail } from "./moving-exprs.js";

/** `unit` with the moving pointers of its functions rewritten as offsets (the same object where none moves). */
export function movingPointers(unit: A.TranslationUnit, fail: PosFail): A.TranslationUnit {
  let names: Set<string> | undefined;
  let changed = false;
  const items = unit.items.map((it) => {
    if (it.kind !== "function" || it.body === undefined || !mayMove(it, fail)) return it;
    const scan = scanFunction(it);
    if (scan.moving.length === 0) return it;
    names ??= unitNames(unit);
    changed = true;
    return rewriteFunction(it, scan.moving, new MovingExprs(scan, names, fail, globalArrays(unit)), unit, fail);
  });
  return changed ? { ...unit, items } : unit;
}

/**
 * Whether some pointer the function declares is incremented or assigned (a cheap test before
 * resolving names). Fails where a string literal initializes or is assigned to a pointer to
 * non-const `char` (string-literals.ts).
 */
function mayMove(f: A.FunctionDef, fail: PosFail): boolean {
  const ptrs = new Set<string>();
  const writable = new Set<string>();
  // A kernel's own arguments are not looked for (the lowering refuses moving one): a kernel without
  // local pointers is not walked through its expressions (a 1,000-line kernel has tens of thousands).
  if (!f.isKernel) for (const p of f.params) if (p.declarator.pointers.length > 0) ptrs.add(p.declarator.name);
  const decls = (s: A.Stmt): void => {
    if (s.kind === "declaration") {
      for (const d of s.declarators) {
        if (d.pointers.length === 0) continue;
        ptrs.add(d.name);
        if (!s.spec.qualifiers.includes("const")) writable.add(d.name);
        const why = d.init && literalRefusal(d.init, s.spec, d.name);
        if (why) fail(why, d.init!.pos);
      }
    }
    if (s.kind === "for" && s.init?.kind === "declaration") decls(s.init);
    for (const c of stmtChildren(s)) decls(c);
  };
  f.body!.items.forEach(decls);
  if (ptrs.size === 0) return false;
  let found = false;
  // One walk over every expression (someExpr: no closure per node).
  const test = (e: A.Expr): boolean => {
    if (e.kind === "postfix" || e.kind === "unary") {
      if ((e.op === "++" || e.op === "--") && e.operand.kind === "ident" && ptrs.has(e.operand.name)) found = true;
    } else if (e.kind === "assign" && e.target.kind === "ident" && ptrs.has(e.target.name)) {
      found = true;
      if (e.value.kind === "string" && writable.has(e.target.name)) fail(literalRefusal(e.value, { kind: "typeSpec", storage: [], qualifiers: [], base: { kind: "builtin", name: "char", pos: e.pos }, pos: e.pos }, e.target.name)!, e.value.pos);
    }
    return false;
  };
  const exprs = (s: A.Stmt): void => {
    for (const e of exprsOfStmt(s)) someExpr(e, test);
    for (const c of stmtChildren(s)) exprs(c);
  };
  f.body!.items.forEach(exprs);
  return found;
}

function forChildren(e: A.Expr, f: (x: A.Expr) => void): void {
  switch (e.kind) {
    case "int": case "float": case "char": case "string": case "bool": case "ident": return;
    case "unary": case "postfix": case "cast": return f(e.operand);
    case "binary": return f(e.left), f(e.right);
    case "assign": return f(e.target), f(e.value);
    case "conditional": return f(e.cond), f(e.then), f(e.else);
    case "sizeof": return e.operand && f(e.operand);
    case "call": return e.args.forEach(f);
    case "index": return f(e.target), f(e.index);
    case "member": return f(e.target);
    case "comma": return e.exprs.forEach(f);
    case "initList": return e.items.forEach(f);
  }
}

/** Every name the unit spells (variables, functions, fields, types): a generated name avoids them all. */
function unitNames(unit: A.TranslationUnit): Set<string> {
  const out = new Set<string>();
  const seen = new Set<object>();
  const walk = (n: unknown): void => {
    if (n === null || typeof n !== "object" || seen.has(n)) return;
    seen.add(n);
    if (Array.isArray(n)) return n.forEach(walk);
    const o = n as Record<string, unknown>;
    if (typeof o.name === "string") out.add(o.name);
    for (const k in o) if (k !== "pos") walk(o[k]);
  };
  walk(unit.items);
  return out;
}

/** File-scope arrays and pointers (what a local pointer may point into by name). */
function globalArrays(unit: A.TranslationUnit): Set<string> {
  const out = new Set<string>();
  for (const it of unit.items) if (it.kind === "declaration") for (const d of it.declarators) if (d.arrayDims.length > 0 || d.pointers.length > 0) out.add(d.name);
  return out;
}

/** Whether every call of `name` in the unit drops its value (`f(…);`). */
function valueDropped(unit: A.TranslationUnit, name: string): boolean {
  let calls = 0, dropped = 0;
  const visit = (e: A.Expr): void => {
    if (e.kind === "call" && e.callee.kind === "ident" && e.callee.name === name) calls++;
    forChildren(e, visit);
  };
  const stmt = (s: A.Stmt): void => {
    if (s.kind === "for" && s.init?.kind === "declaration") stmt(s.init);
    for (const e of exprsOfStmt(s)) {
      const top = s.kind === "expr" ? (e.kind === "comma" ? e.exprs : [e]) : [];
      for (const x of top) if (x.kind === "call" && x.callee.kind === "ident" && x.callee.name === name) dropped++;
      visit(e);
    }
    for (const c of stmtChildren(s)) stmt(c);
  };
  for (const it of unit.items) if (it.kind === "function" && it.body) it.body.items.forEach(stmt);
  return calls === dropped;
}

/** `f` with its moving pointers as offsets. */
function rewriteFunction(f: A.FunctionDef, moving: readonly Decl[], mx: MovingExprs, unit: A.TranslationUnit, fail: PosFail): A.FunctionDef {
  const prologue: A.Stmt[] = [];
  for (const d of moving) {
    if (!d.param) continue;
    if (f.isKernel) fail(`cannot move kernel argument "${d.name}": Loom moves local pointers and device functions' pointer parameters (as an offset); declare a local pointer from it inside the loops (\`p = ${d.name};\`) and move that, or index it (\`${d.name}[k]\`)`, d.declarator.pos);
    const m = mx.start(d, undefined);
    prologue.push(m.offsetDecl(zero(d.declarator.pos)));
  }
  // A function returning a moving pointer whose calls all drop the value (`_strcpy` returns its destination) returns nothing.
  const voidReturn = f.returnPointers.length > 0 && valueDropped(unit, f.name);
  const sr = new StatementRewrite(mx, fail, voidReturn ? "drop" : f.returnPointers.length > 0 ? "pointer" : "value");
  const items = [...prologue, ...sr.stmts(f.body!.items)];
  if (voidReturn && items[items.length - 1]?.kind === "return") items.pop(); // falling off the end of a void function is the same
  const body: A.Compound = { ...f.body!, items };
  if (!voidReturn) return { ...f, body };
  const pos = f.returnType.pos;
  return { ...f, body, returnPointers: [], returnType: { kind: "typeSpec", storage: f.returnType.storage, qualifiers: [], base: { kind: "builtin", name: "void", pos }, pos } };
}

/** Statements with moves as offset updates (`p++` is `p_off++`), moving declarations as a base and an offset. */
class StatementRewrite {
  constructor(private readonly mx: MovingExprs, private readonly fail: PosFail, private readonly ret: "drop" | "pointer" | "value") {}

  stmts(items: readonly A.Stmt[]): A.Stmt[] {
    return items.flatMap((s) => this.stmt(s));
  }

  /** One statement where the grammar wants one (a loop's or a branch's body). */
  private one(s: A.Stmt): A.Stmt {
    const out = this.stmt(s);
    return out.length === 1 ? out[0]! : { kind: "compound", attributes: [], items: out, pos: s.pos };
  }

  private stmt(s: A.Stmt): A.Stmt[] {
    const mx = this.mx;
    switch (s.kind) {
      case "declaration": return this.declaration(s);
      case "expr": return this.exprStmt(s.expr, s);
      case "compound": return [{ ...s, items: this.stmts(s.items) }];
      case "if": return [movingCondition(s, mx, this.fail, (x) => this.one(x)) ?? { ...s, cond: mx.cond(s.cond), then: this.one(s.then), else: s.else && this.one(s.else) }];
      case "while": case "doWhile": return [movingCondition(s, mx, this.fail, (x) => this.one(x)) ?? { ...s, cond: mx.cond(s.cond), body: this.one(s.body) }];
      case "switch": return [{ ...s, cond: mx.cond(s.cond), body: this.one(s.body) }];
      case "case": return [{ ...s, body: this.one(s.body) }];
      case "atomic": {
        const body = this.one(s.body);
        return [{ ...s, body: body.kind === "expr" || body.kind === "compound" ? body : { kind: "compound", attributes: [], items: [body], pos: s.pos } }];
      }
      case "return": return this.returnStmt(s);
      case "for": {
        if (s.cond && !s.okl && mx.hasMove(s.cond)) return [this.movingFor(s)];
        let pre: A.Stmt[] = [];
        let init = s.init;
        if (init?.kind === "declaration") {
          const decls = this.declaration(init);
          if (decls.length !== 1 || decls[0]!.kind !== "declaration") {
            pre = decls; // a moving pointer declared in the loop's head: declared before the loop
            init = undefined;
          } else init = decls[0] as A.Declaration;
        } else if (init !== undefined) init = this.moveExpr(init);
        const loop: A.For = { ...s, init, cond: s.cond && mx.cond(s.cond), update: s.update && this.moveExpr(s.update), body: this.one(s.body) };
        return pre.length === 0 ? [loop] : [{ kind: "compound", attributes: [], items: [...pre, loop], pos: s.pos }];
      }
      default: return [s];
    }
  }

  /**
   * `for (init; cond; update) body` whose condition moves a pointer (`for (; *s++; ) n++;`):
   * `{ init; while (cond) { body update; } }`, C's meaning where the body does not `continue`
   * (movingCondition refuses that: it would skip the update and the condition's moves).
   */
  private movingFor(s: A.For): A.Stmt {
    const trip: A.Stmt = s.update ? { kind: "compound", attributes: [], items: [s.body, exprStmt(s.update)], pos: s.body.pos } : s.body;
    const loop: A.While = { kind: "while", attributes: s.attributes, cond: s.cond!, body: trip, pos: s.pos };
    const init: A.Stmt[] = s.init === undefined ? [] : s.init.kind === "declaration" ? [s.init] : [exprStmt(s.init)];
    return { kind: "compound", attributes: [], items: this.stmts([...init, loop]), pos: s.pos };
  }

  private returnStmt(s: A.Return): A.Stmt[] {
    if (s.value === undefined) return [s];
    const moves = rootDecl(s.value, this.mx.scan.byIdent)?.moving === true;
    if (this.ret === "drop") {
      if (!pure(s.value)) this.fail("a device function whose pointer result is dropped at every call returns an expression with side effects; Loom drops the result, so compute it in a statement before `return`", s.value.pos);
      return [{ ...s, value: undefined }];
    }
    if (this.ret === "pointer" && moves) this.fail(`returning the moving pointer "${exprText(s.value)}": Loom inlines device functions and binds a pointer result to one place, so a moved one cannot be returned where the caller uses the result (return an offset instead)`, s.value.pos);
    if (this.ret === "pointer" || !this.mx.hasMove(s.value)) return [{ ...s, value: this.mx.value(s.value) }];
    // `return *s++;`: the moves before the value first (`*++s`); those after it move a local that
    // `return` leaves, so nothing reads them (C's increment has no effect past the return).
    const pre: A.Expr[] = [], post: A.Expr[] = [];
    const value = this.mx.value(this.mx.hoist(s.value, pre, post, false));
    return [...pre.map((e) => exprStmt(e)), { ...s, value }];
  }

  private declaration(s: A.Declaration): A.Stmt[] {
    const mx = this.mx;
    const ds = s.declarators;
    if (!ds.some((d) => mx.scan.byDeclarator.get(d)?.moving || (d.init !== undefined && mx.touches(d.init)))) return [s];
    const out: A.Stmt[] = [];
    const hoisted = ds.filter((d) => d.init !== undefined && mx.hasMove(d.init)).length;
    if (hoisted > 0 && ds.length > 1) this.fail("a moving pointer is moved inside a declaration of several names; declare them one by one", s.pos);
    for (const d of ds) {
      const decl = mx.scan.byDeclarator.get(d);
      if (decl?.moving) {
        if (d.init === undefined) this.fail(`moving pointer "${d.name}" must be initialized where it is declared (\`char *${d.name} = buf;\`): Loom lowers it as the place it starts from and an offset`, d.pos);
        const r = mx.root(d.init);
        const m = mx.start(decl, r.cls);
        out.push({ ...s, declarators: [{ ...d, init: r.base }] }, m.offsetDecl(r.off ?? zero(d.pos)));
        continue;
      }
      if (d.init === undefined) {
        out.push({ ...s, declarators: [d] });
        continue;
      }
      const pre: A.Expr[] = [], post: A.Expr[] = [];
      const init = mx.value(mx.hoist(d.init, pre, post, false));
      out.push(...pre.map((e) => exprStmt(e)), { ...s, declarators: [{ ...d, init }] }, ...post.map((e) => exprStmt(e)));
    }
    return out;
  }

  /** An expression statement: moves of moving pointers (also inside `*p++ = c`) as offset updates. */
  private exprStmt(e: A.Expr, s: A.ExprStmt): A.Stmt[] {
    if (e.kind === "comma") return e.exprs.flatMap((x) => this.exprStmt(x, s));
    const top = this.mx.move(e);
    if (top) return [{ ...s, expr: top }];
    if (!this.mx.touches(e)) return [{ ...s, expr: e }];
    const pre: A.Expr[] = [], post: A.Expr[] = [];
    const x = this.mx.value(this.mx.hoist(e, pre, post, false));
    return [...pre.map((p) => exprStmt(p)), { ...s, expr: x }, ...post.map((p) => exprStmt(p))];
  }

  /** A for loop's init or update: moves as offset updates, each part of a comma list. */
  private moveExpr(e: A.Expr): A.Expr {
    if (e.kind === "comma") return { ...e, exprs: e.exprs.map((x) => this.moveExpr(x)) };
    return this.mx.move(e) ?? this.mx.cond(e);
  }
}

function exprStmt(expr: A.Expr): A.ExprStmt {
  return { kind: "expr", attributes: [], expr, pos: expr.pos };
}

/** No call, assignment or increment inside `e`. */
function pure(e: A.Expr): boolean {
  if (e.kind === "call" || e.kind === "assign" || ((e.kind === "unary" || e.kind === "postfix") && (e.op === "++" || e.op === "--"))) return false;
  let ok = true;
  forChildren(e, (x) => void (ok &&= pure(x)));
  return ok;
}

export type { Moving };
