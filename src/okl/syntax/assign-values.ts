/**
 * C lets an assignment be a value: `const dfloat J = s_J[0] += s_J[1];` (libParanumal's wave-speed
 * kernels) and chains `a = b = 0;`. The lowering takes assignments as statements only, so these are
 * rewritten here into the statements C performs, in C's order: the inner assignment first, then the
 * outer one (or the declaration) reading the target it assigned, which holds the assignment's value
 * (converted to the target's type, as C's value of `t = v` is). Only targets without side effects
 * are re-read (names, members, subscripts, dereferences of such); anything else is left as written
 * for the lowering to refuse.
 *
 *   { double J = s[0] += s[1]; }   ->   { s[0] += s[1]; double J = s[0]; }
 */
import type { Assign, Compound, Declaration, Expr, ExprStmt, FunctionDef, Stmt, TranslationUnit } from "./ast.js";

/** `unit` with every assignment used as a value (declaration initializer, chained assignment) split into statements. */
export function splitAssignValues(unit: TranslationUnit): TranslationUnit {
  let changed = false;
  const items = unit.items.map((it) => {
    if (it.kind !== "function" || !it.body) return it;
    const body = block(it.body);
    if (body === it.body) return it;
    changed = true;
    return { ...it, body } satisfies FunctionDef;
  });
  return changed ? { ...unit, items } : unit;
}

/** Whether re-reading `e` gives what it gave before: no assignment, increment or call inside. */
export function pure(e: Expr): boolean {
  switch (e.kind) {
    case "ident": case "int": case "float": case "char": case "bool": case "string": return true;
    case "member": return pure(e.target);
    case "index": return pure(e.target) && pure(e.index);
    case "unary": return e.op !== "++" && e.op !== "--" && pure(e.operand);
    case "binary": return pure(e.left) && pure(e.right);
    case "conditional": return pure(e.cond) && pure(e.then) && pure(e.else);
    case "cast": return pure(e.operand);
    default: return false;
  }
}

/**
 * The statements that perform assignment `a` with its value, nested assignments first, and the
 * expression that holds its value afterwards; undefined where a target cannot be re-read.
 */
function unchain(a: Assign): { readonly stmts: ExprStmt[]; readonly value: Expr } | undefined {
  if (!pure(a.target)) return undefined;
  let assign = a;
  const stmts: ExprStmt[] = [];
  if (a.value.kind === "assign") {
    const inner = unchain(a.value);
    if (!inner) return undefined;
    stmts.push(...inner.stmts);
    assign = { ...a, value: inner.value };
  }
  stmts.push({ kind: "expr", expr: assign, attributes: [], pos: a.pos });
  return { stmts, value: a.target };
}

/** `s` as the statements it becomes (one, unless an assignment value was split off). */
function rewrite(s: Stmt): Stmt[] {
  if (s.kind === "expr" && s.expr.kind === "assign" && s.expr.value.kind === "assign") {
    const inner = unchain(s.expr.value);
    return inner ? [...inner.stmts, { ...s, expr: { ...s.expr, value: inner.value } }] : [s];
  }
  if (s.kind === "declaration" && s.declarators.some((d) => d.init?.kind === "assign")) return declaration(s);
  return [nested(s)];
}

/** A declaration whose initializers assign: one declaration per declarator, each after the assignments of its initializer. */
function declaration(s: Declaration): Stmt[] {
  const out: Stmt[] = [];
  for (const d of s.declarators) {
    const inner = d.init?.kind === "assign" ? unchain(d.init) : undefined;
    if (d.init?.kind === "assign" && !inner) return [s];
    if (inner) out.push(...inner.stmts);
    out.push({ ...s, declarators: [inner ? { ...d, init: inner.value } : d] });
  }
  return out;
}

/** `s` with the blocks inside it rewritten (the same object when nothing changed). */
function nested(s: Stmt): Stmt {
  switch (s.kind) {
    case "compound": return block(s);
    case "if": {
      const then = single(s.then), els = s.else && single(s.else);
      return then === s.then && els === s.else ? s : { ...s, then, else: els };
    }
    case "for": case "while": case "doWhile": case "switch": case "case": {
      const body = single(s.body);
      return body === s.body ? s : { ...s, body } as Stmt;
    }
    default: return s;
  }
}

/** A statement in a place that holds one: several become a block (never a declaration: C allows none there). */
function single(s: Stmt): Stmt {
  const out = rewrite(s);
  if (out.length === 1) return out[0]!;
  return { kind: "compound", items: out, attributes: [], pos: s.pos };
}

function block(c: Compound): Compound {
  let changed = false;
  const items: Stmt[] = [];
  for (const s of c.items) {
    const out = rewrite(s);
    if (out.length !== 1 || out[0] !== s) changed = true;
    items.push(...out);
  }
  return changed ? { ...c, items } : c;
}
