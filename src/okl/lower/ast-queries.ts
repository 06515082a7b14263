/**
 * Questions about OKL statements that lowering asks before it lowers them: which loops are @outer
 * or @inner, OCCA's automatic axis numbers, constant loop ranges, whether a nest synchronizes, and
 * a pre-order walk over statements and expressions.
 *
 *   levelsBelow(outerLoop.body, "outer")   // 0 for the innermost @outer loop: its axis is g.0
 */
import type * as A from "../syntax/ast.js";
import { constValue, type Scope } from "./bindings.js";

/** The values `[lo, hi]` of a loop with compile-time bounds and a step of ±1, else undefined. */
export function constRange(s: A.For, scope: Scope): [number, number] | undefined {
  const init = s.init;
  const cond = s.cond;
  const u = s.update;
  if (init?.kind !== "declaration" || init.declarators.length !== 1 || cond?.kind !== "binary" || !u) return undefined;
  const d = init.declarators[0]!;
  const isVar = (e: A.Expr) => e.kind === "ident" && e.name === d.name;
  const start = d.init && constValue(d.init, scope);
  const flip: Record<string, string> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
  const op = isVar(cond.left) ? cond.op : isVar(cond.right) ? flip[cond.op] : undefined;
  const end = constValue(isVar(cond.left) ? cond.right : cond.left, scope);
  let step: number | undefined;
  if ((u.kind === "unary" || u.kind === "postfix") && isVar(u.operand) && (u.op === "++" || u.op === "--")) step = u.op === "++" ? 1 : -1;
  else if (u.kind === "assign" && isVar(u.target) && (u.op === "+=" || u.op === "-=") && constValue(u.value, scope) === 1) step = u.op === "+=" ? 1 : -1;
  if (start === undefined || end === undefined || step === undefined) return undefined;
  if (step === 1 && (op === "<" || op === "<=")) return [start, op === "<" ? end - 1 : end];
  if (step === -1 && (op === ">" || op === ">=")) return [op === ">" ? end + 1 : end, start];
  return undefined;
}

/**
 * Per local axis, the hull of the constant ranges of the plain @inner loops of nest `s`, for the
 * axes where these ranges differ (and all are constant).
 */
export function innerHulls(s: A.Stmt, scope: Scope): Map<number, readonly [number, number]> {
  const ranges = new Map<number, ([number, number] | undefined)[]>();
  someStmt(s, (n) => {
    if (n.kind !== "for" || n.okl?.kind !== "inner") return false;
    const axis = n.okl.axis ?? levelsBelow(n.body, "inner");
    ranges.set(axis, [...(ranges.get(axis) ?? []), constRange(n, scope)]);
    return false;
  });
  const out = new Map<number, readonly [number, number]>();
  for (const [axis, rs] of ranges) {
    if (rs.some((r) => r === undefined || r[0] > r[1])) continue;
    const all = rs as [number, number][];
    if (all.every((r) => r[0] === all[0]![0] && r[1] === all[0]![1])) continue;
    out.set(axis, [Math.min(...all.map((r) => r[0])), Math.max(...all.map((r) => r[1]))]);
  }
  return out;
}

/** `s` contains a @barrier or a @shared declaration. */
export function hasSync(s: A.Stmt): boolean {
  return someStmt(s, (n) => n.kind === "barrier" || (n.kind === "declaration" && n.declarators.some((d) => d.okl.shared)));
}

export function containsOuter(s: A.Stmt): boolean {
  return someStmt(s, (n) => n.kind === "for" && isOuter(n));
}

export function isOuter(s: A.For): boolean {
  const o = s.okl;
  return o !== undefined && (o.kind === "outer" || (o.kind === "tile" && o.outer?.kind === "outer"));
}
export function isInnerLoop(s: A.For): boolean {
  const o = s.okl;
  return o !== undefined && (o.kind === "inner" || (o.kind === "tile" && (o.outer?.kind === "inner" || o.inner?.kind === "inner")));
}
export function containsInner(s: A.Stmt): boolean {
  return someStmt(s, (n) => n.kind === "for" && isInnerLoop(n));
}

/** Same-kind attributed levels strictly below `s` along the deepest path (OCCA's auto axis). */
export function levelsBelow(s: A.Stmt, kind: "outer" | "inner"): number {
  const levels = (x: A.Stmt): number => {
    switch (x.kind) {
      case "compound": return Math.max(0, ...x.items.map(levels));
      case "if": return Math.max(levels(x.then), x.else ? levels(x.else) : 0);
      case "for": {
        const o = x.okl;
        const own = o === undefined ? 0 : o.kind === "tile" ? (o.outer?.kind === kind ? 1 : 0) + (o.inner?.kind === kind ? 1 : 0) : o.kind === kind ? 1 : 0;
        return own + levels(x.body);
      }
      case "while": case "doWhile": return levels(x.body);
      default: return 0;
    }
  };
  return levels(s);
}

/** Visit statements and expressions of `s` (pre-order). */
export function walkAst(s: A.Stmt | A.Expr, visit: (n: A.Stmt | A.Expr) => void): void {
  someAst(s, (n) => {
    visit(n);
    return false;
  });
}

/** Whether some statement or expression of `s` (pre-order, stopping at the first) satisfies `pred`. */
export function someAst(s: A.Stmt | A.Expr | undefined, pred: (n: A.Stmt | A.Expr) => boolean): boolean {
  if (s === undefined) return false;
  if (pred(s)) return true;
  switch (s.kind) {
    case "compound": return s.items.some((k) => someAst(k, pred));
    case "expr": return someAst(s.expr, pred);
    case "if": return someAst(s.cond, pred) || someAst(s.then, pred) || someAst(s.else, pred);
    case "for": return (s.init?.kind !== "declaration" && someAst(s.init, pred)) || someAst(s.cond, pred) || someAst(s.update, pred) || someAst(s.body, pred);
    case "while": case "doWhile": case "switch": return someAst(s.cond, pred) || someAst(s.body, pred);
    case "case": return someAst(s.value, pred) || someAst(s.body, pred);
    case "atomic": return someAst(s.body, pred);
    case "declaration": return s.declarators.some((d) => someAst(d.init, pred));
    case "unary": case "postfix": case "cast": return someAst(s.operand, pred);
    case "binary": return someAst(s.left, pred) || someAst(s.right, pred);
    case "assign": return someAst(s.target, pred) || someAst(s.value, pred);
    case "conditional": return someAst(s.cond, pred) || someAst(s.then, pred) || someAst(s.else, pred);
    case "call": return someAst(s.callee, pred) || s.args.some((k) => someAst(k, pred));
    case "index": return someAst(s.target, pred) || someAst(s.index, pred);
    case "member": return someAst(s.target, pred);
    case "comma": return s.exprs.some((k) => someAst(k, pred));
    case "initList": return s.items.some((k) => someAst(k, pred));
    default: return false;
  }
}

/** Whether some statement in `s` (itself included; expressions are not entered) satisfies `pred`. */
export function someStmt(s: A.Stmt, pred: (n: A.Stmt) => boolean): boolean {
  if (pred(s)) return true;
  switch (s.kind) {
    case "compound": return s.items.some((k) => someStmt(k, pred));
    case "if": return someStmt(s.then, pred) || (s.else !== undefined && someStmt(s.else, pred));
    case "for": return (s.init?.kind === "declaration" && pred(s.init)) || someStmt(s.body, pred);
    case "while": case "doWhile": case "switch": case "case": case "atomic": return someStmt(s.body, pred);
    default: return false;
  }
}

/** Whether some statement of `items` assigns to (or increments) the variable `name`. */
export function assigned(items: readonly A.Stmt[], name: string): boolean {
  let found = false;
  // `v.x = …` assigns (part of) the value `v` (a struct or vector local).
  const isName = (x: A.Expr): boolean => (x.kind === "member" && !x.arrow ? isName(x.target) : x.kind === "ident" && x.name === name);
  for (const s of items) {
    walkAst(s, (n) => {
      if ((n.kind === "assign" && isName(n.target)) || ((n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--") && isName(n.operand))) found = true;
    });
  }
  return found;
}

export function describeStmt(s: A.Stmt): string {
  if (s.kind === "for") return "a for loop that is not an @outer loop";
  if (s.kind === "expr") return "an expression statement";
  return `a ${s.kind} statement`;
}


/**
 * A plain loop whose condition offsets its iterator (`row + i < end`, `i - lo <= n`) with the
 * iterator moved to one side (`i < end - row`), so that it is an affine loop like any other;
 * `s` itself for every other loop (also where the other terms mention the iterator).
 */
export function isolateIterator(s: A.For): A.For {
  const name = s.init?.kind === "declaration" && s.init.declarators.length === 1 ? s.init.declarators[0]!.name : undefined;
  const c = s.cond;
  if (name === undefined || s.okl !== undefined || c?.kind !== "binary" || !["<", "<=", ">", ">="].includes(c.op)) return s;
  const isI = (e: A.Expr) => e.kind === "ident" && e.name === name;
  const mentions = (e: A.Expr) => {
    let found = false;
    walkAst(e, (n) => void (found ||= n.kind === "ident" && n.name === name));
    return found;
  };
  if (isI(c.left) || isI(c.right)) return s;
  const FLIP: Record<string, A.BinaryOp> = { "<": ">", ">": "<", "<=": ">=", ">=": "<=" };
  // (side with the iterator) op (other side): isolate i in `i ± a`, `a + i`.
  const solve = (side: A.Expr, other: A.Expr, op: A.BinaryOp): A.Expr | undefined => {
    if (side.kind !== "binary" || (side.op !== "+" && side.op !== "-") || mentions(other)) return undefined;
    const bin = (o: A.BinaryOp, l: A.Expr, r: A.Expr): A.Expr => ({ kind: "binary", op: o, left: l, right: r, pos: c.pos });
    if (isI(side.left) && !mentions(side.right)) return bin(op, side.left, bin(side.op === "+" ? "-" : "+", other, side.right));
    if (side.op === "+" && isI(side.right) && !mentions(side.left)) return bin(op, side.right, bin("-", other, side.left));
    return undefined;
  };
  const cond = solve(c.left, c.right, c.op) ?? solve(c.right, c.left, FLIP[c.op]!);
  return cond ? { ...s, cond } : s;
}
