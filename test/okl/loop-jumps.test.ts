/**
 * The law of loop-jumps.ts: for every loop body made of calls, `if`/`else` on conditions, blocks,
 * `continue` and `break`, `withoutContinue(body, flag)` has no jump and its trips (the flag 0 before
 * the first) run the same calls in the same order as C's loop of three trips, for every assignment of
 * the conditions (a small interpreter of both, no compiler).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type * as A from "../../src/okl/syntax/ast.js";
import { parseOklAst } from "../../src/okl/syntax/parse-okl-ast.js";
import { ownJumpOf, withoutContinue } from "../../src/okl/lower/loop-jumps.js";

// Statements of a loop body: `e(k);` records k; conditions c0..c2.
const stmt: fc.Memo<string> = fc.memo((n) => fc.oneof(
  { depthSize: "small", withCrossShrink: true },
  fc.integer({ min: 0, max: 9 }).map((k) => `e(${k});`),
  fc.constant("continue;"),
  fc.constant("break;"),
  n > 1 ? fc.tuple(fc.integer({ min: 0, max: 2 }), stmt(n - 1), fc.option(stmt(n - 1))).map(([c, t, el]) => `if (c${c}) ${t}${el === null ? "" : ` else ${el}`}`) : fc.constant("e(0);"),
  n > 1 ? fc.array(stmt(n - 1), { maxLength: 3 }).map((xs) => `{ ${xs.join(" ")} }`) : fc.constant("{ }"),
));

function bodyOf(items: string): A.Stmt {
  const unit = parseOklAst(`@kernel void k(const int n, const int c0, const int c1, const int c2) {
  for (int b = 0; b < n; ++b; @outer) {
    for (int f = 0; f < 2; ++f) { ${items} }
    for (int i = 0; i < 1; ++i; @inner) { }
  }
}`);
  const kernel = unit.items.find((x): x is A.FunctionDef => x.kind === "function")!;
  const outer = kernel.body!.items[0] as A.For;
  return ((outer.body as A.Compound).items[0] as A.For).body;
}

/** The calls `s` makes (C's meaning) under `env`: "continue" ends the trip, "break" the loop; `flag` is the rewrite's. */
function exec(s: A.Stmt, env: readonly boolean[], out: number[], flag: { v: number }): "continue" | "break" | undefined {
  switch (s.kind) {
    case "continue": case "break": return s.kind;
    case "compound": for (const x of s.items) { const j = exec(x, env, out, flag); if (j) return j; } return undefined;
    case "if": {
      const c = s.cond.kind === "unary" ? flag.v === 0 : env[Number((s.cond as A.Ident).name.slice(1))]!;
      return c ? exec(s.then, env, out, flag) : s.else ? exec(s.else, env, out, flag) : undefined;
    }
    case "expr":
      if (s.expr.kind === "assign") flag.v = 1;
      else out.push(((s.expr as A.Call).args[0] as { value: number }).value);
      return undefined;
    case "empty": return undefined;
    default: throw new Error(`unexpected ${s.kind}`);
  }
}

describe("withoutContinue: the rest of a trip under the negated conditions, a break as a flag", () => {
  it("runs the calls C's loop runs, in order, for every condition, and leaves no jump", () => {
    fc.assert(fc.property(fc.array(stmt(4), { minLength: 1, maxLength: 5 }), (items) => {
      const body = bodyOf(items.join("\n"));
      const r = withoutContinue(body, "flag");
      if ("refuse" in r) throw new Error(r.refuse);
      expect(ownJumpOf(r.body)).toBeUndefined();
      for (let m = 0; m < 8; m++) {
        const env = [0, 1, 2].map((b) => ((m >> b) & 1) === 1);
        const want: number[] = [], got: number[] = [];
        for (let trip = 0; trip < 3; trip++) if (exec(body, env, want, { v: 0 }) === "break") break;
        const flag = { v: 0 };
        for (let trip = 0; trip < 3; trip++) expect(exec(r.body, env, got, flag)).toBeUndefined();
        expect(got).toEqual(want);
        if (flag.v === 1) expect(r.breaks).toBe(true);
      }
    }), { numRuns: 80, seed: 31 });
  });
});
