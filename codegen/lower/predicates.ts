/**
 * Affine predicates as domain constraints (CPU targets): an instruction's `if=` conditions that
 * are conjunctions of affine comparisons of its inames and the parameters (OKL's
 * `if (0 < y && y < n - 1)` around a work-item's body) join its iteration domain, so the loops
 * around it get those bounds and the guard goes where the guards of the domain go: out of the
 * innermost loop, or away where the loop bounds imply it. The instruction then no longer prints
 * those predicates. Other predicates (data-dependent, `or`, `!=`, floats) stay as they were.
 */
import { exprToAff, type Expr, type Instruction } from "../../src/ir/index.js";
import { addConstraints, aff, affSub, type BasicSet } from "../../src/poly/index.js";
import type { Row } from "./rows.js";

/** The rows of `e` when it is a conjunction of affine comparisons over `vars`, else undefined. */
function affineRows(e: Expr, vars: ReadonlySet<string>): Row[] | undefined {
  if (e.kind === "logical" && e.op === "and") {
    const l = affineRows(e.left, vars);
    const r = l && affineRows(e.right, vars);
    return l && r ? [...l, ...r] : undefined;
  }
  if (e.kind !== "compare" || e.op === "!=") return undefined;
  const a = exprToAff(e.left, (n) => vars.has(n));
  const b = exprToAff(e.right, (n) => vars.has(n));
  if (!a || !b) return undefined;
  switch (e.op) {
    case "<": return [{ aff: affSub(affSub(b, a), aff({}, 1)), eq: false }];
    case "<=": return [{ aff: affSub(b, a), eq: false }];
    case ">": return [{ aff: affSub(affSub(a, b), aff({}, 1)), eq: false }];
    case ">=": return [{ aff: affSub(a, b), eq: false }];
    case "==": return [{ aff: affSub(a, b), eq: true }];
  }
}

/** `d` with the affine predicates of `insn` added, and the positions of the predicates it took. */
export function absorbPredicates(d: BasicSet, insn: Instruction): { d: BasicSet; absorbed: ReadonlySet<number> } {
  const vars = new Set([...d.dims.filter((n) => insn.withinInames.includes(n)), ...d.params]);
  const rows: Row[] = [];
  const absorbed = new Set<number>();
  insn.predicates.forEach((p, at) => {
    const r = affineRows(p, vars);
    if (r) {
      rows.push(...r);
      absorbed.add(at);
    }
  });
  if (rows.length === 0) return { d, absorbed };
  try {
    return { d: addConstraints(d, rows), absorbed };
  } catch {
    return { d, absorbed: new Set() };
  }
}
