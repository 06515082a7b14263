/**
 * The importer's allocation-free expression walks (src/okl/lower/expr-scan.ts) against the IR's
 * walkExpr: the same nodes in the same order, the same answer to "is there such a node", and
 * frozenExpr never freezing a node above an unfrozen one (the kernel record's deepFreeze does not
 * enter frozen nodes, so that would leave part of a kernel mutable).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { walkExpr, type Expr } from "../../src/ir/index.js";
import { eachNode, frozenExpr, someNode } from "../../src/okl/lower/expr-scan.js";
import { exprTree } from "../ir/expr-arb.js";

const expr = exprTree;


const order = (walk: (e: Expr, f: (n: Expr) => void) => void, e: Expr): Expr[] => {
  const out: Expr[] = [];
  walk(e, (n) => void out.push(n));
  return out;
};

describe("expr-scan", () => {
  it("property: eachNode visits walkExpr's nodes in walkExpr's order; someNode agrees with a full walk", () => {
    fc.assert(fc.property(expr, fc.constantFrom("call", "subscript", "if", "var", "reduce"), (e, kind) => {
      const seen = order(eachNode, e);
      expect(seen).toEqual(order(walkExpr, e));
      seen.forEach((n, k) => expect(n).toBe(order(walkExpr, e)[k]));
      expect(someNode(e, (n) => n.kind === kind)).toBe(seen.some((n) => n.kind === kind));
    }), { numRuns: 150 });
  });

  it("property: frozenExpr returns the tree unchanged, a frozen node only over a frozen subtree (the record does not enter it), all of it without reductions", () => {
    fc.assert(fc.property(expr, (e) => {
      const text = JSON.stringify(e);
      expect(frozenExpr(e)).toBe(e);
      expect(JSON.stringify(e)).toBe(text);
      const allFrozen = (x: Expr): boolean => {
        let ok = true;
        walkExpr(x, (n) => void (ok &&= Object.isFrozen(n) && (n.kind !== "call" || Object.isFrozen(n.args)) && (n.kind !== "subscript" || Object.isFrozen(n.indices))));
        return ok;
      };
      walkExpr(e, (n) => void (Object.isFrozen(n) && expect(allFrozen(n)).toBe(true)));
      let reduce = false;
      walkExpr(e, (n) => void (reduce ||= n.kind === "reduce"));
      if (!reduce) expect(allFrozen(e)).toBe(true);
    }), { numRuns: 100 });
  });
});
