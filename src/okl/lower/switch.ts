/**
 * C's `switch` as the statements of an opaque block (opaque.ts): the selector is evaluated once,
 * each run of statements after one or more `case`/`default` labels runs when its label matched or
 * an earlier run fell through to it, and `break` leaves the region labeled for the switch.
 *
 *   switch (t) { case 1: a = 1; break; case 2: a = 2; default: a += 5; }
 *   // sel = t; m = 0; { if (sel == 1) m = 1; if (m) { a = 1; exit sw; }
 *   //                  if (sel == 2) m = 1; if (m) { a = 2; }
 *   //                  if (sel != 1 && sel != 2) m = 1; if (m) { a = a + 5; } }
 */
import { c, type BlockStmt, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";

/** A run of statements and the labels in front of it (undefined: `default`). */
export interface SwitchSegment {
  readonly labels: readonly (A.Expr | undefined)[];
  readonly stmts: readonly A.Stmt[];
}

/**
 * The labeled runs of a switch body, in order. Statements before the first label never run (as
 * in C). Fails (through `fail`) for a second `default`.
 */
export function switchSegments(s: A.Switch, fail: (detail: string, pos: A.Pos) => never): SwitchSegment[] {
  const items = s.body.kind === "compound" ? s.body.items : [s.body];
  const out: { labels: (A.Expr | undefined)[]; stmts: A.Stmt[] }[] = [];
  let defaults = 0;
  for (const item of items) {
    let st: A.Stmt = item;
    const labels: (A.Expr | undefined)[] = [];
    while (st.kind === "case") {
      if (st.value === undefined && ++defaults > 1) fail("a switch with two default labels", st.pos);
      labels.push(st.value);
      st = st.body;
    }
    if (labels.length > 0) out.push({ labels, stmts: [st] });
    else if (out.length > 0) out[out.length - 1]!.stmts.push(st);
  }
  return out;
}

/**
 * The block statements of a switch: `sel` and `matched` are fresh local names, `values` the lowered
 * case values (per segment, per label; undefined for default), `bodies` the lowered runs (their
 * `break`s already exits of `label`).
 */
export function switchBlock(
  selector: Expr, sel: string, matched: string, label: string,
  values: readonly (readonly (Expr | undefined)[])[], bodies: readonly (readonly BlockStmt[])[],
): BlockStmt[] {
  const v: Expr = { kind: "var", name: sel };
  const all = values.flat().filter((x): x is Expr => x !== undefined);
  const isDefault: Expr = all.length === 0 ? c(1) : all.map((x): Expr => ({ kind: "compare", op: "!=", left: v, right: x }))
    .reduce((l, r) => ({ kind: "logical", op: "and", left: l, right: r }));
  const body: BlockStmt[] = [];
  values.forEach((labels, k) => {
    const cond = labels.map((x): Expr => (x === undefined ? isDefault : { kind: "compare", op: "==", left: v, right: x }))
      .reduce((l, r) => ({ kind: "logical", op: "or", left: l, right: r }));
    body.push({ kind: "if", cond, then: [{ kind: "assign", lhs: { kind: "var", name: matched }, rhs: c(1) }], else: [] });
    body.push({ kind: "if", cond: { kind: "compare", op: "!=", left: { kind: "var", name: matched }, right: c(0) }, then: bodies[k]!, else: [] });
  });
  return [
    { kind: "decl", name: sel, dtype: "int32", init: selector },
    { kind: "decl", name: matched, dtype: "int32", init: c(0) },
    { kind: "labeled", label, body },
  ];
}
