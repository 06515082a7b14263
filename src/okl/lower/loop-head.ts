/**
 * The head of an OKL `for` loop, read once: iterator, start, comparison, bound, step and update,
 * and the values of a loop that runs a compile-time number of times (unrolled at import).
 *
 *   loopHead(ast("for (int i = 0; i < n; i += 2)"), ctx, ex)   // { name: "i", cmp: "<", step: 2, … }
 */
import { c, type Dtype, type Expr } from "../../ir/index.js";
import { affAdd, affScale, type Aff } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";
import { levelsBelow, someStmt, walkAst } from "./ast-queries.js";
import { constValue, Scope, type Ctx, type Fail } from "./bindings.js";
import type { ExprLowering } from "./expressions.js";
import { exprToAff } from "./shapes.js";
import type { Cmp } from "./trip.js";

const MAX_UNROLL = 64;

export interface LoopHead {
  readonly name: string;
  readonly start: Expr;
  readonly startAff: Aff | undefined;
  readonly cmp: Cmp;
  readonly end: Expr;
  /** Signed constant step, undefined when the update is not `±= c`. */
  readonly step: number | undefined;
  /** The update's direction and amount (`i -= e`: decreasing by e), undefined for other updates. */
  readonly update: { readonly increasing: boolean; readonly amount: A.Expr | undefined } | undefined;
  /** The iterator's declared type. */
  readonly dtype: Dtype;
  /** Start and end are compile-time constants (the loop can be unrolled at import). */
  readonly constant: boolean;
  readonly s: A.For;
  readonly ctx: Ctx;
}

/** The head of loop `s`; fails where it is not `T i = S; i CMP E; i ++ / -- / += d / -= d` (OKL §3.1). */
export function loopHead(s: A.For, ctx: Ctx, ex: ExprLowering): LoopHead {
  const init = s.init;
  if (!init) return ex.fail("OKL for loop init-statement cannot be a null statement (an OKL loop needs `int i = start`)", s.pos, "OKL §3.1");
  if (init.kind !== "declaration" || init.declarators.length !== 1 || init.declarators[0]!.init === undefined) {
    return ex.fail("OKL for loop init-statement must be a simple declaration with initializer (`int i = …`)", s.pos, "OKL §3.1");
  }
  const decl = init.declarators[0]!;
  const name = decl.name;
  const start = ex.expr(decl.init!, ctx);
  const cond = s.cond;
  if (!cond || cond.kind !== "binary" || !["<", "<=", ">", ">="].includes(cond.op)) {
    return ex.fail(`Expected to compare [${name}] with one of these operators [<, <=, >=, >]`, cond?.pos ?? s.pos, "OKL §3.1");
  }
  const isVar = (e: A.Expr) => e.kind === "ident" && e.name === name;
  const flip: Record<string, Cmp> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
  let cmp: Cmp;
  let endAst: A.Expr;
  if (isVar(cond.left)) {
    cmp = cond.op as Cmp;
    endAst = cond.right;
  } else if (isVar(cond.right)) {
    cmp = flip[cond.op]!;
    endAst = cond.left;
  } else return ex.fail(`Expected comparing [${name}] with some bound`, cond.pos, "OKL §3.1");
  const end = ex.expr(endAst, ctx);
  const u = s.update;
  let step: number | undefined;
  if (u && (u.kind === "unary" || u.kind === "postfix") && isVar(u.operand) && (u.op === "++" || u.op === "--")) step = u.op === "++" ? 1 : -1;
  else if (u && u.kind === "assign" && isVar(u.target) && (u.op === "+=" || u.op === "-=")) {
    const v = constValue(u.value, ctx.scope);
    if (v !== undefined && v > 0) step = u.op === "+=" ? v : -v;
  }
  const constant = constValue(decl.init!, ctx.scope) !== undefined && constValue(endAst, ctx.scope) !== undefined;
  const update = u && (u.kind === "unary" || u.kind === "postfix") && isVar(u.operand) && (u.op === "++" || u.op === "--")
    ? { increasing: u.op === "++", amount: undefined }
    : u && u.kind === "assign" && isVar(u.target) && (u.op === "+=" || u.op === "-=") ? { increasing: u.op === "+=", amount: u.value } : undefined;
  return { name, start, startAff: exprToAff(start), cmp, end, step, update, dtype: ex.file.dtype(init.spec, init.pos), constant, s, ctx };
}

/** Start and bound of `h` as affine forms, with its span `end - start`; undefined where either is not affine. */
export function affineRange(h: LoopHead): { readonly start: Aff; readonly end: Aff; readonly span: Aff } | undefined {
  const end = exprToAff(h.end);
  return end && h.startAff ? { start: h.startAff, end, span: affAdd(end, affScale(h.startAff, -1)) } : undefined;
}

/** The values of a loop whose start, bound and update are compile-time constants (`alive /= 2`). */
export function unrollValues(h: LoopHead, pos: A.Pos, fail: Fail): number[] {
  const s = h.s;
  const decl = (s.init as A.Declaration).declarators[0]!;
  let v = constValue(decl.init!, h.ctx.scope)!;
  const out: number[] = [];
  const bound = (x: number) => {
    const scope = new Scope(h.ctx.scope);
    scope.set(h.name, { kind: "expr", expr: c(x) });
    return scope;
  };
  while (constValue(s.cond!, bound(v)) !== 0) {
    out.push(v);
    if (out.length > MAX_UNROLL) fail(`loop "${h.name}" with a non-affine update runs more than ${MAX_UNROLL} times; only short compile-time loops are unrolled`, pos);
    const u = s.update!;
    const scope = bound(v);
    if ((u.kind === "unary" || u.kind === "postfix") && (u.op === "++" || u.op === "--")) v += u.op === "++" ? 1 : -1;
    else if (u.kind === "assign" && u.target.kind === "ident" && u.target.name === h.name) {
      const rhs = constValue(u.value, scope);
      const ops: Record<string, (a: number, b: number) => number> = {
        "=": (_a, b) => b, "+=": (a, b) => a + b, "-=": (a, b) => a - b, "*=": (a, b) => a * b,
        "/=": (a, b) => Math.trunc(a / b), ">>=": (a, b) => a >> b, "<<=": (a, b) => a << b,
      };
      const op = ops[u.op];
      if (rhs === undefined || !op) return fail(`Expected update [${h.name}] with one of these operators [++, --, +=, -=]`, u.pos, "OKL §3.1");
      v = op(v, rhs);
    } else return fail(`Expected update [${h.name}] with one of these operators [++, --, +=, -=]`, u.pos, "OKL §3.1");
  }
  return out;
}

/**
 * C evaluates a loop's condition every iteration; Loom computes the trip count once, which is the
 * same only when the body writes nothing the header reads.
 */
export function checkHeaderNotWritten(s: A.For, h: LoopHead, ctx: Ctx, fail: Fail): void {
  const storage = (n: string): string => {
    const b = ctx.scope.get(n);
    return b?.kind === "array" || b?.kind === "temp" || b?.kind === "value" ? b.name : n;
  };
  const read = new Set<string>();
  const header = [s.cond, s.update, s.init?.kind === "declaration" ? s.init.declarators[0]?.init : s.init];
  for (const x of header) if (x) walkAst(x, (n) => { if (n.kind === "ident" && n.name !== h.name) read.add(storage(n.name)); });
  const root = (x: A.Expr): string | undefined =>
    x.kind === "ident" ? x.name : x.kind === "index" ? root(x.target) : x.kind === "unary" && x.op === "*" ? root(x.operand) : x.kind === "call" ? root(x.callee) : undefined;
  walkAst(s.body, (n) => {
    const target = n.kind === "assign" ? n.target : (n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--") ? n.operand : undefined;
    const r = target && root(target);
    if (r !== undefined && read.has(storage(r))) {
      fail(`loop "${h.name}": its header reads "${r}", which the loop body writes; C re-evaluates the condition every iteration, Loom computes the trip count once before the loop (not supported)`, target!.pos);
    }
  });
}

/** Axes of the two levels of a @tile (explicit, else OCCA's numbering from the innermost). */
export function tileAxes(s: A.For, t: Extract<A.OklLoop, { kind: "tile" }>): [number | undefined, number | undefined] {
  const below = (k: "outer" | "inner") => levelsBelow(s.body, k);
  const innerAxis = t.inner ? t.inner.axis ?? below(t.inner.kind) : undefined;
  const outerAxis = t.outer ? t.outer.axis ?? below(t.outer.kind) + (t.inner?.kind === t.outer.kind ? 1 : 0) : undefined;
  return [outerAxis, innerAxis];
}

/** The hardware axes the @inner levels (plain and @tile) inside @outer nest `s` use: a work-group's axes. */
export function innerAxes(s: A.Stmt): Set<number> {
  const axes = new Set<number>();
  // Statements only: loops are never inside expressions (a walk of every expression was 6% of lowering).
  someStmt(s, (n) => {
    if (n.kind !== "for" || n.okl === undefined) return false;
    if (n.okl.kind === "inner") axes.add(n.okl.axis ?? levelsBelow(n.body, "inner"));
    if (n.okl.kind !== "tile") return false;
    const [o, i] = tileAxes(n, n.okl);
    if (n.okl.outer?.kind === "inner") axes.add(o!);
    if (n.okl.inner?.kind === "inner") axes.add(i!);
    return false;
  });
  return axes;
}
