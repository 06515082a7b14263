/**
 * C's conversions type an expression in time linear in its size (issue 20's scale item): the
 * lowering calls cBinary at every operator, bottom-up, and cBinary asks for both operands' C and IR
 * types; it remembers the operator nodes it typed last instead of walking each operand's subtree
 * again. Work is counted (the dtype lookups a chain of operators makes), never timed. Law: what is
 * remembered never changes a result: an expression built with one facts object is the one built
 * with a new facts object at every operator (nothing remembered).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { cBinary, type CBinaryOp, type CTypeFacts } from "../../src/okl/lower/c-conversions.js";
import { c, type Dtype, type Expr } from "../../src/ir/index.js";

const DTYPES: readonly Dtype[] = ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", "float32", "float64"];
const OPS: readonly CBinaryOp[] = ["+", "-", "*", "/", "&", "<<", "<", "=="];

/** Facts over `x0 … x(n-1)` of the given dtypes, counting the lookups. */
function counting(dtypes: readonly Dtype[]): CTypeFacts & { calls: number } {
  const f = {
    calls: 0,
    dtypeOf(name: string): Dtype | undefined {
      f.calls++;
      return dtypes[Number(name.slice(1))];
    },
  };
  return f;
}

const build = (op: CBinaryOp) => (l: Expr, r: Expr): Expr =>
  op === "<" || op === "==" ? { kind: "compare", op, left: l, right: r } : { kind: "arith", op: op as Extract<Expr, { kind: "arith" }>["op"], left: l, right: r };

/** A random operator tree over the names and literals, lowered bottom-up through cBinary with `facts()` at each operator. */
type Tree = { leaf: number | "int" | "float" } | { op: CBinaryOp; l: Tree; r: Tree };
function lower(t: Tree, facts: () => CTypeFacts): Expr {
  if ("leaf" in t) return t.leaf === "int" ? c(3) : t.leaf === "float" ? c(0.5, undefined, true) : { kind: "var", name: `x${t.leaf}` };
  const l = lower(t.l, facts);
  const r = lower(t.r, facts);
  return cBinary(t.op, l, r, facts(), build(t.op));
}

describe("C's conversions in linear time", () => {
  it("a chain of 300 additions looks each operand's type up a bounded number of times (a walk per operator made it quadratic)", () => {
    for (const dtype of ["float32", "int32", "int64"] as const) {
      const n = 300;
      const facts = counting(Array.from({ length: n }, (_, k) => (k % 3 === 0 ? "float64" : dtype)));
      let e: Expr = { kind: "var", name: "x0" };
      for (let k = 1; k < n; k++) e = cBinary("+", e, { kind: "var", name: `x${k}` }, facts, build("+"));
      // Quadratic: about n * n / 2 = 45,000 lookups; linear: a few per operator.
      expect(facts.calls).toBeLessThan(10 * n);
    }
  });

  it("law: remembering types never changes a result (one facts object = a new one at every operator)", () => {
    const leaf = (n: number): fc.Arbitrary<Tree> => fc.oneof(fc.integer({ min: 0, max: n - 1 }), fc.constant("int" as const), fc.constant("float" as const)).map((x) => ({ leaf: x }));
    const tree = (n: number) => fc.letrec<{ t: Tree }>((tie) => ({
      t: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf(n), fc.record({ op: fc.constantFrom(...OPS), l: tie("t"), r: tie("t") })),
    })).t;
    fc.assert(fc.property(fc.array(fc.constantFrom(...DTYPES), { minLength: 4, maxLength: 4 }), fc.array(tree(4), { minLength: 1, maxLength: 4 }), (dtypes, trees) => {
      const shared = counting(dtypes);
      const once = trees.map((t) => lower(t, () => shared));
      const fresh = trees.map((t) => lower(t, () => counting(dtypes)));
      expect(once).toEqual(fresh);
    }), { numRuns: 300 });
  });
});
