/**
 * Loop bounds as affine rows of integer domains, and back: `value cmp end` as rows (with min/max
 * and division by a constant), affine predicates as footprint guards, an Aff as an IR expression.
 *
 *   cmpRows(aff({ i: 1 }), "<", n, pos, fail)   // [n - i - 1 >= 0]
 */
import { c, type Expr } from "../../ir/index.js";
import { addConstraints, aff, affAdd, affScale, universe, type Aff, type BasicSet } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";
import type { Fail } from "./bindings.js";
import { exprToAff } from "./shapes.js";
import type { Cmp } from "./trip.js";

/** One constraint of a domain: `aff >= 0`, or `aff == 0` when `eq`. */
export interface Row { readonly aff: Aff; readonly eq: boolean }

/** Whether `end` (compared with `cmp`) becomes affine domain rows (cmpRows accepts it). */
export function affineBound(end: Expr, cmp: Cmp): boolean {
  if (end.kind === "call" && end.args.length === 2 && ((end.fn === "min" && (cmp === "<" || cmp === "<=")) || (end.fn === "max" && (cmp === ">" || cmp === ">=")))) {
    return end.args.every((a) => affineBound(a, cmp));
  }
  if (exprToAff(end)) return true;
  return end.kind === "arith" && (end.op === "/" || end.op === "//") && end.right.kind === "const" && end.right.value > 0 && exprToAff(end.left) !== undefined;
}

/** Rows for `value cmp end`, where `end` is affine or an affine form divided by a positive constant. */
export function cmpRows(value: Aff, cmp: Cmp, end: Expr, pos: A.Pos, fail: Fail): Row[] {
  // v <= min(a, b) is v <= a and v <= b; v >= max(a, b) likewise.
  if (end.kind === "call" && end.args.length === 2 && ((end.fn === "min" && (cmp === "<" || cmp === "<=")) || (end.fn === "max" && (cmp === ">" || cmp === ">=")))) {
    return end.args.flatMap((a) => cmpRows(value, cmp, a, pos, fail));
  }
  let num = exprToAff(end);
  let den = 1;
  if (!num && end.kind === "arith" && (end.op === "/" || end.op === "//") && end.right.kind === "const" && end.right.value > 0) {
    num = exprToAff(end.left);
    den = end.right.value;
  }
  if (!num) return fail("loop bound is not affine in the arguments and enclosing loop variables; data-dependent bounds are not supported yet", pos);
  const dv = affScale(value, den);
  const minus = (a: Aff, b: Aff) => affAdd(a, affScale(b, -1));
  // Integer value v, bound floor(N/d) (C division of a non-negative N):
  //   v < N/d <=> d*v + d <= N;  v <= N/d <=> d*v <= N;  v > N/d <=> d*v >= N + 1;  v >= N/d <=> d*v + d >= N + 1.
  switch (cmp) {
    case "<": return [{ aff: minus(num, affAdd(dv, aff({}, den))), eq: false }];
    case "<=": return [{ aff: minus(num, dv), eq: false }];
    case ">": return [{ aff: minus(dv, affAdd(num, aff({}, 1))), eq: false }];
    case ">=": return [{ aff: minus(affAdd(dv, aff({}, den)), affAdd(num, aff({}, 1))), eq: false }];
  }
}

/** The domain over `dims` bounded by `rows`; the other names in the rows are its parameters. */
export function domainOf(dims: string[], rows: Row[]): BasicSet {
  const names = new Set(rows.flatMap((r) => Object.keys(r.aff.terms)));
  const params = [...names].filter((n) => !dims.includes(n)).sort();
  return addConstraints(universe(params, dims), rows);
}

/** The predicates (and their conjuncts) that are affine comparisons, as `g >= 0` forms (for footprints). */
export function affineGuards(preds: readonly Expr[]): Aff[] {
  const out: Aff[] = [];
  for (const p0 of preds.flatMap(conjuncts)) {
    let p = p0;
    let neg = false;
    if (p.kind === "not") {
      p = p.operand;
      neg = true;
    }
    if (p.kind !== "compare") continue;
    const l = exprToAff(p.left);
    const r = exprToAff(p.right);
    if (!l || !r) continue;
    const d = affAdd(r, affScale(l, -1)); // r - l
    const op = neg ? ({ "<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==" } as const)[p.op] : p.op;
    if (op === "<") out.push(affAdd(d, aff({}, -1)));
    else if (op === "<=") out.push(d);
    else if (op === ">") out.push(affAdd(affScale(d, -1), aff({}, -1)));
    else if (op === ">=") out.push(affScale(d, -1));
    else if (op === "==") out.push(d, affScale(d, -1));
  }
  return out;
}

/** `p` as conditions that all hold: `a && b` -> a, b; `!(a || b)` -> !a, !b; `!!a` -> a. */
function conjuncts(p: Expr): Expr[] {
  if (p.kind === "logical" && p.op === "and") return [...conjuncts(p.left), ...conjuncts(p.right)];
  if (p.kind === "not" && p.operand.kind === "not") return conjuncts(p.operand.operand);
  if (p.kind === "not" && p.operand.kind === "logical" && p.operand.op === "or") {
    return [...conjuncts({ kind: "not", operand: p.operand.left }), ...conjuncts({ kind: "not", operand: p.operand.right })];
  }
  return [p];
}

/** An affine form as an IR expression: its terms in order, then the constant. */
export function affToIr(a: Aff): Expr {
  let out: Expr | undefined;
  for (const [n, k] of Object.entries(a.terms)) {
    const t: Expr = k === 1 ? { kind: "var", name: n } : { kind: "arith", op: "*", left: c(k), right: { kind: "var", name: n } };
    out = out === undefined ? t : { kind: "arith", op: "+", left: out, right: t };
  }
  if (out === undefined) return c(a.constant);
  return a.constant === 0 ? out : { kind: "arith", op: "+", left: out, right: c(a.constant) };
}
