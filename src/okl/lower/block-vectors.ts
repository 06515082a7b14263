/**
 * OKL vector locals inside opaque blocks (opaque.ts; split out of it): `float3 v = …;` is one scalar
 * local per component (private temporaries at the block's top level, block locals below it), and
 * `v = …`, `v += …` on a whole vector one assignment per component, staged where a component of the
 * right-hand side reads one the assignment changes first.
 *
 *   float3 v = make_float3(a, b, c);   // { double v_x = a; double v_y = b; double v_z = c; }
 */
import type { BlockStmt } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Ctx, Scope } from "./bindings.js";
import type { BlockHost } from "./block-host.js";
import { stageVector, vectorAssignment, vectorInit } from "./vector-exprs.js";
import { componentNames, type VectorType } from "./vectors.js";

/** The context of an expression whose device-function calls that need statements go to `pre`. */
type WithCalls = (pre: BlockStmt[]) => Ctx;

/** `float3 v = …;` in a block: one scalar local per component, bound in `scope`. */
export function blockVectorDeclaration(host: BlockHost, s: A.Declaration, t: VectorType, scope: Scope, topLevel: boolean, withCalls: WithCalls): BlockStmt[] {
  const fail = (m: string, p: A.Pos): never => host.fail(m, p);
  const out: BlockStmt[] = [];
  for (const d of s.declarators) {
    if (d.pointers.length > 0 || d.arrayDims.length > 0) fail(`pointers to and arrays of "${t.name}" inside a while loop, a loop with break/continue or a device function with loops are not supported ("${d.name}")`, d.pos);
    if (d.okl.shared || d.okl.exclusive) fail(`@${d.okl.shared ? "shared" : "exclusive"} "${d.name}" inside a while loop, a loop with break/continue or a device function with loops is not supported`, d.pos);
    const pre: BlockStmt[] = [];
    const init = d.init === undefined ? undefined : vectorInit(host.ex, t, d, withCalls(pre), fail);
    out.push(...pre);
    const names = componentNames(t).map((cn) => host.fresh(`${d.name}_${cn}`));
    names.forEach((name, k) => {
      if (topLevel) {
        host.addTemp({ name, dtype: t.dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
        if (init) out.push({ kind: "assign", lhs: { kind: "var", name }, rhs: init[k]! });
      } else out.push(init ? { kind: "decl", name, dtype: t.dtype, init: init[k]! } : { kind: "decl", name, dtype: t.dtype });
    });
    scope.set(d.name, { kind: "vector", type: t, comps: names.map((name) => ({ kind: "temp", name, rank: 0 })) });
  }
  return out;
}

/** `v = …`, `v += …` on a whole vector in a block: one assignment per component. */
export function blockVectorAssign(host: BlockHost, e: A.Assign, t: VectorType, withCalls: WithCalls): BlockStmt[] {
  const pre: BlockStmt[] = [];
  const ctx = withCalls(pre);
  const ex = host.ex;
  const lhs = ex.vec.targets(e.target, t, ctx);
  const rhs = vectorAssignment(ex, e, t, lhs, ctx, (m, p) => host.fail(m, p));
  const staged = stageVector(lhs, rhs, (k) => {
    const name = host.fresh(`${t.name}_tmp`);
    pre.push({ kind: "decl", name, dtype: t.dtype, init: rhs[k]! });
    return { kind: "var", name };
  });
  return [...pre, ...lhs.map((l, k): BlockStmt => ({ kind: "assign", lhs: l, rhs: staged[k]! }))];
}
