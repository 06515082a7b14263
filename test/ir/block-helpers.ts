/** Kernels with opaque blocks for tests: an assignment placeholder replaced by a block. */
import { withKernel, type BlockStmt, type Expr, type Kernel } from "../../src/ir/index.js";
import { parseExpr } from "../../src/parse/index.js";

/** `k` with instruction `id` replaced by a block running `body` (same loops, dependencies, predicates). */
export function withBlock(k: Kernel, id: string, body: readonly BlockStmt[]): Kernel {
  return withKernel(k, {
    instructions: k.instructions.map((insn) => {
      if (insn.id !== id) return insn;
      const { kind: _k, ...base } = insn;
      const rest = base as Record<string, unknown>;
      delete rest.lhs; delete rest.rhs; delete rest.atomicity;
      return { ...(rest as unknown as Omit<typeof insn, "kind">), kind: "block", body } as Kernel["instructions"][number];
    }),
  });
}

const E = (x: string | Expr): Expr => (typeof x === "string" ? parseExpr(x) : x);
/** Statement builders: `S.decl("n", "int32", "a[i]")`, `S.set("n", "n / 2")`, `S.while("n != 1", [...])`. */
export const S = {
  decl: (name: string, dtype: "int32" | "float32" | "float64" | "int64", init?: string | Expr): BlockStmt =>
    init === undefined ? { kind: "decl", name, dtype } : { kind: "decl", name, dtype, init: E(init) },
  set: (lhs: string | Expr, rhs: string | Expr): BlockStmt => ({ kind: "assign", lhs: E(lhs), rhs: E(rhs) }),
  if: (cond: string | Expr, then: BlockStmt[], els: BlockStmt[] = []): BlockStmt => ({ kind: "if", cond: E(cond), then, else: els }),
  while: (cond: string | Expr, body: BlockStmt[]): BlockStmt => ({ kind: "while", cond: E(cond), body }),
  doWhile: (body: BlockStmt[], cond: string | Expr): BlockStmt => ({ kind: "doWhile", body, cond: E(cond) }),
  for: (init: BlockStmt[], cond: string | Expr, step: BlockStmt[], body: BlockStmt[]): BlockStmt => ({ kind: "for", init, cond: E(cond), step, body }),
  break: { kind: "break" } as BlockStmt,
  continue: { kind: "continue" } as BlockStmt,
  labeled: (label: string, body: BlockStmt[]): BlockStmt => ({ kind: "labeled", label, body }),
  exit: (label: string): BlockStmt => ({ kind: "exit", label }),
};
