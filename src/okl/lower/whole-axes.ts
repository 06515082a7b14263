/**
 * The local axes of an @outer nest on which every @inner loop runs the same constant range, so that
 * each such loop runs every work-item of the group (no sibling widens the axis and guards it). A
 * private scalar that an @inner loop on such axes assigns, from values that are uniform and under
 * uniform conditions, holds one value for all work-items afterwards (uniform.ts, `wholeGroup`):
 * each work-item assigned it the same value (nekRS's smoothers copy a residual reduced through
 * @shared memory so: `for (…; @inner) res = s_res[0];`).
 *
 *   wholeAxes(nest, scope)   // Set {0} where every @inner(0) loop is `n = 0; n < p_Np`
 */
import type * as A from "../syntax/ast.js";
import { constRange, levelsBelow, someStmt } from "./ast-queries.js";
import type { Scope } from "./bindings.js";

/** The axes of nest `s` whose @inner loops all have one constant range (none where a @tile has an @inner level). */
export function wholeAxes(s: A.Stmt, scope: Scope): Set<number> {
  const ranges = new Map<number, string[]>();
  let tiled = false;
  someStmt(s, (n) => {
    if (n.kind !== "for" || n.okl === undefined) return false;
    if (n.okl.kind === "tile") tiled ||= n.okl.outer?.kind === "inner" || n.okl.inner?.kind === "inner";
    if (n.okl.kind !== "inner") return false;
    const axis = n.okl.axis ?? levelsBelow(n.body, "inner");
    const r = constRange(n, scope);
    ranges.set(axis, [...(ranges.get(axis) ?? []), r === undefined || r[0] > r[1] ? "none" : `${r[0]}:${r[1]}`]);
    return false;
  });
  const out = new Set<number>();
  if (tiled) return out;
  for (const [axis, rs] of ranges) if (rs[0] !== "none" && rs.every((r) => r === rs[0])) out.add(axis);
  return out;
}
