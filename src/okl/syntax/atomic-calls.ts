/**
 * CUDA's atomic functions called as statements in OKL (`atomicAdd(wxy + fld, res);`, as libParanumal's
 * reductions write them; OCCA passes the call through to the CUDA/HIP compiler) are OKL's `@atomic`
 * updates: `@atomic wxy[fld] += res;`. Only a call whose value is unused is rewritten (CUDA returns
 * the old value, which `@atomic` does not give); a file that defines its own function of that name
 * keeps its calls. The address operand `p + i`, `&a[i]`, `&x` or `p` becomes the place it points to.
 *
 *   atomicAdd(s + 2, v);   ->   @atomic s[2] += v;       atomicExch(&flag[e], 1);  ->  @atomic flag[e] = 1;
 */
import type { Atomic, Attribute, Compound, Expr, ExprStmt, Stmt, TranslationUnit } from "./ast.js";

/** CUDA's atomic function -> the @atomic update it performs. */
const UPDATE: ReadonlyMap<string, "+=" | "-=" | "&=" | "|=" | "^=" | "="> = new Map([
  ["atomicAdd", "+="], ["atomicSub", "-="], ["atomicAnd", "&="], ["atomicOr", "|="], ["atomicXor", "^="], ["atomicExch", "="],
]);

/** Whether `text` (a token) may start such a call: the caller skips the pass when no token is one. */
export function isAtomicCallName(text: string): boolean {
  return UPDATE.has(text);
}

/** The place an address expression points to: `p + i` -> `p[i]`, `&a[i]` -> `a[i]`, `p` -> `*p`. */
function pointee(p: Expr): Expr {
  if (p.kind === "unary" && p.op === "&") return p.operand;
  if (p.kind === "binary" && p.op === "+") return { kind: "index", target: p.left, index: p.right, pos: p.pos };
  return { kind: "unary", op: "*", operand: p, pos: p.pos };
}

function rewrite(s: ExprStmt, own: ReadonlySet<string>): Stmt {
  const e = s.expr;
  if (e.kind !== "call" || e.callee.kind !== "ident" || e.args.length !== 2 || own.has(e.callee.name)) return s;
  const op = UPDATE.get(e.callee.name);
  if (!op) return s;
  const attr: Attribute = { kind: "attribute", name: "atomic", args: [], argsText: undefined, syntax: "legacy", placement: "prefix", pos: e.callee.pos };
  const update: ExprStmt = { ...s, expr: { kind: "assign", op, target: pointee(e.args[0]!), value: e.args[1]!, pos: e.pos } };
  return { kind: "atomic", body: update, attributes: [...s.attributes, attr], pos: s.pos } satisfies Atomic;
}

function stmt(s: Stmt, own: ReadonlySet<string>): Stmt {
  switch (s.kind) {
    case "expr": return rewrite(s, own);
    case "compound": return block(s, own);
    case "if": return { ...s, then: stmt(s.then, own), else: s.else && stmt(s.else, own) };
    case "for": case "while": case "doWhile": case "switch": case "case": return { ...s, body: stmt(s.body, own) } as Stmt;
    default: return s;
  }
}

function block(c: Compound, own: ReadonlySet<string>): Compound {
  return { ...c, items: c.items.map((s) => stmt(s, own)) };
}

/** `unit` with CUDA atomic-function statements as `@atomic` updates. */
export function atomicCalls(unit: TranslationUnit): TranslationUnit {
  const own = new Set(unit.items.flatMap((it) => (it.kind === "function" ? [it.name] : [])));
  return { ...unit, items: unit.items.map((it) => (it.kind === "function" && it.body ? { ...it, body: block(it.body, own) } : it)) };
}
