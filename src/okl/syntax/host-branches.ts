/**
 * OCCA runs a kernel's statements outside its `@outer` loops on the host, so a kernel may choose
 * which loop nests to launch: nekRS's `if (isVelocity) { @tile loop } else { @tile loop }`. The
 * lowering takes only loop nests (and scalar declarations) there, so such a branch is rewritten
 * here into both nests, each doing its work only when its condition holds: the condition moves
 * into the bodies of the nest's outer-most `@inner` loops (`for (...; @inner) { if (c) { body } }`).
 * Every work-item evaluates the same condition (it reads only the kernel's scalar arguments and
 * host scalars), so barriers and `@shared` memory keep their meaning; the nest of the branch not
 * taken runs and does nothing, where OCCA would not launch it.
 *
 * Done only where the meaning is plain: a side-effect-free condition over scalars, branches made
 * of `@outer` nests (or such branches nested), and nests whose statements outside `@inner` loops are
 * declarations without initializers (`@shared`, `@exclusive`), barriers and loops. Anything else is
 * left for the lowering to refuse.
 *
 *   if (v) { for (i; @tile(16, @outer, @inner)) a[i] = 1; }
 *   ->  for (i; @tile(16, @outer, @inner)) { if (v) { a[i] = 1; } }
 */
import type { Expr, For, FunctionDef, Stmt, TranslationUnit } from "./ast.js";
import { pure } from "./assign-values.js";

/** `unit` with each kernel's host-level `if` around `@outer` nests moved into the nests (see above). */
export function pushHostBranches(unit: TranslationUnit): TranslationUnit {
  let changed = false;
  const items = unit.items.map((it) => {
    if (it.kind !== "function" || !it.isKernel || !it.body || !it.body.items.some((s) => s.kind === "if")) return it;
    const scalars = new Set(it.params.filter((p) => !p.declarator.pointers.length && !p.declarator.arrayDims.length).map((p) => p.declarator.name));
    // A pointer argument tested for NULL (`if (b)`, `b != NULL`) is known on the host too: whether it was passed.
    for (const p of it.params) if (p.declarator.pointers.length || p.declarator.arrayDims.length) scalars.add(`${NULL_TEST}${p.declarator.name}`);
    const out: Stmt[] = [];
    let moved = false;
    for (const s of it.body.items) {
      const loops = s.kind === "if" ? branchLoops(s, undefined, scalars) : undefined;
      if (loops) moved = true;
      out.push(...(loops ?? [s]));
      if (s.kind === "declaration") for (const d of s.declarators) if (!d.pointers.length && !d.arrayDims.length) scalars.add(d.name);
    }
    if (!moved) return it;
    changed = true;
    return { ...it, body: { ...it.body, items: out } } satisfies FunctionDef;
  });
  return changed ? { ...unit, items } : unit;
}

/** The key in a kernel's host scalars of pointer argument `p` tested for NULL (no name has a space). */
const NULL_TEST = "null test ";

const isNullConstant = (x: Expr): boolean => (x.kind === "int" && x.value === 0) || (x.kind === "ident" && (x.name === "NULL" || x.name === "nullptr"));

/** Whether `e` reads only names of `scalars` (and literals; pointer arguments tested for NULL) without side effects. */
function overScalars(e: Expr, scalars: ReadonlySet<string>): boolean {
  if (!pure(e)) return false;
  const names: string[] = [];
  // `truth`: `x` is a condition (a pointer there is a test for NULL).
  const visit = (x: Expr, truth = true): void => {
    switch (x.kind) {
      case "ident": names.push(truth && scalars.has(`${NULL_TEST}${x.name}`) ? `${NULL_TEST}${x.name}` : x.name); return;
      case "unary": return visit(x.operand, x.op === "!");
      case "cast": return visit(x.operand, false);
      case "binary": {
        const logical = x.op === "&&" || x.op === "||";
        const test = (x.op === "==" || x.op === "!=") && (isNullConstant(x.left) || isNullConstant(x.right));
        if (test && x.left.kind === "ident" && x.right.kind === "ident") return void names.push(...[x.left, x.right].filter((y) => !isNullConstant(y)).map((y) => `${NULL_TEST}${(y as { name: string }).name}`));
        if (test) return visit(isNullConstant(x.left) ? x.right : x.left, true);
        visit(x.left, logical);
        return visit(x.right, logical);
      }
      case "conditional": visit(x.cond); visit(x.then, false); return visit(x.else, false);
      case "member": case "index": names.push("\0"); return; // memory reads: not host scalars
      default: return;
    }
  };
  visit(e);
  return names.every((n) => scalars.has(n));
}

const and = (a: Expr | undefined, b: Expr): Expr => (a ? { kind: "binary", op: "&&", left: a, right: b, pos: b.pos } : b);
const not = (c: Expr): Expr => ({ kind: "unary", op: "!", operand: c, pos: c.pos });

/** The nests of `s` (an `if` over scalars whose branches are `@outer` nests), each guarded by its path's condition. */
function branchLoops(s: Stmt & { kind: "if" }, outer: Expr | undefined, scalars: ReadonlySet<string>): Stmt[] | undefined {
  if (!overScalars(s.cond, scalars)) return undefined;
  const then = branch(s.then, and(outer, s.cond), scalars);
  const els = s.else ? branch(s.else, and(outer, not(s.cond)), scalars) : [];
  return then && els ? [...then, ...els] : undefined;
}

function branch(s: Stmt, cond: Expr, scalars: ReadonlySet<string>): Stmt[] | undefined {
  const items = s.kind === "compound" ? s.items : [s];
  const out: Stmt[] = [];
  for (const x of items) {
    if (x.kind === "empty") continue;
    const r = x.kind === "if" ? branchLoops(x, cond, scalars) : isOuterNest(x) ? guardNest(x, cond) : undefined;
    if (!r) return undefined;
    out.push(...(Array.isArray(r) ? r : [r]));
  }
  return out;
}

function firstLevel(f: For): "outer" | "inner" | "regular" {
  const l = f.okl;
  if (!l) return "regular";
  if (l.kind !== "tile") return l.kind;
  return l.outer?.kind ?? l.inner?.kind ?? "regular";
}

const isOuterNest = (s: Stmt): s is For => s.kind === "for" && firstLevel(s) === "outer";

/** `f` (an `@outer` loop, or a statement inside one) with `cond` around its `@inner` bodies; undefined where another statement would have to move. */
function guardNest(f: Stmt, cond: Expr): Stmt | undefined {
  switch (f.kind) {
    case "for": {
      const level = firstLevel(f);
      const innerBody = level === "inner" || (f.okl?.kind === "tile" && level === "outer" && f.okl.inner?.kind === "inner");
      if (innerBody) return { ...f, body: { kind: "compound", items: [{ kind: "if", cond, then: f.body, else: undefined, attributes: [], pos: f.body.pos }], attributes: [], pos: f.body.pos } };
      const body = guardNest(f.body, cond);
      return body && { ...f, body };
    }
    case "compound": {
      const items: Stmt[] = [];
      for (const x of f.items) {
        const g = guardNest(x, cond);
        if (!g) return undefined;
        items.push(g);
      }
      return { ...f, items };
    }
    case "declaration": return f.declarators.every((d) => d.init === undefined) ? f : undefined;
    case "barrier": case "empty": case "pragma": return f;
    default: return undefined;
  }
}
