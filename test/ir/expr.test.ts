import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arith, c, children, exprEquals, freeVariables, mapExpr, reductionInames, renameVars, sub, substitute, v, walkExpr, type Expr,
} from "../../src/ir/expr.js";
import { exprToString } from "../../src/ir/print.js";
import { exprTree } from "./expr-arb.js";

const sumK: Expr = { kind: "reduce", op: "sum", inames: ["k"], body: arith("*", sub("a", v("i"), v("k")), sub("b", v("k"), v("j"))) };

describe("mapExpr", () => {
  it("rebuilds only what changes", () => {
    const e = arith("+", sub("a", v("i")), arith("*", c(2), v("n")));
    const same = mapExpr(e, () => undefined);
    expect(same).toBe(e);
    const renamed = mapExpr(e, (n) => (n.kind === "var" && n.name === "n" ? v("m") : undefined));
    expect(renamed).not.toBe(e);
    expect((renamed as { left: Expr }).left).toBe((e as { left: Expr }).left);
    expect(exprToString(renamed)).toBe("a[i] + 2*m");
  });
});

describe("substitution and renaming", () => {
  it("substitute respects reduction inames as bound variables", () => {
    const e = substitute(sumK, new Map<string, Expr>([["k", c(0)], ["i", arith("+", v("ii"), c(1))]]));
    expect(exprToString(e)).toBe("sum(k, a[ii + 1, k]*b[k, j])");
  });

  it("renameVars renames arrays, variables and reduction inames", () => {
    const e = renameVars(sumK, new Map([["k", "kk"], ["a", "a2"]]));
    expect(exprToString(e)).toBe("sum(kk, a2[i, kk]*b[kk, j])");
  });

  it("freeVariables excludes reduction inames; reductionInames lists them", () => {
    expect([...freeVariables(sumK)].sort()).toEqual(["a", "b", "i", "j"]);
    expect([...reductionInames(sumK)]).toEqual(["k"]);
  });

  it("exprEquals is structural", () => {
    expect(exprEquals(arith("+", v("i"), c(1)), arith("+", v("i"), c(1)))).toBe(true);
    expect(exprEquals(arith("+", v("i"), c(1)), arith("+", v("i"), c(1, "float32")))).toBe(false);
    expect(exprEquals(sumK, renameVars(sumK, new Map()))).toBe(true);
  });
});

describe("exprToString", () => {
  it("prints with the parentheses precedence needs", () => {
    expect(exprToString(arith("-", v("a"), arith("-", v("b"), v("c"))))).toBe("a - (b - c)");
    expect(exprToString(arith("*", arith("+", v("a"), v("b")), v("c")))).toBe("(a + b)*c");
    expect(exprToString(arith("**", v("a"), arith("**", v("b"), v("c"))))).toBe("a**b**c");
    expect(exprToString(arith("**", arith("**", v("a"), v("b")), v("c")))).toBe("(a**b)**c");
    expect(exprToString({ kind: "neg", operand: arith("+", v("a"), c(1)) })).toBe("-(a + 1)");
    expect(exprToString(c(2.0, undefined, true))).toBe("2.0");
    expect(exprToString(c(1.5, "float32"))).toBe("1.5f");
    expect(exprToString({ kind: "linear", array: "a", index: arith("+", arith("*", c(8), v("i")), v("j")) })).toBe("a[[8*i + j]]");
  });
});

// The walks written out per node kind (walkExpr, mapExpr, freeVariables: no array of children per
// node) against the general `children` they replace, on random trees of every kind.
const tree = exprTree;


/** Pre-order through `children`: the reference walk. */
const preorder = (e: Expr, out: Expr[] = []): Expr[] => {
  out.push(e);
  for (const k of children(e)) preorder(k, out);
  return out;
};

describe("expression walks", () => {
  it("property: walkExpr visits children's pre-order; mapExpr rebuilds as a rebuild from children does; freeVariables skips bound inames", () => {
    fc.assert(fc.property(tree, fc.boolean(), (e, pruneCalls) => {
      const seen: Expr[] = [];
      walkExpr(e, (n) => (seen.push(n), pruneCalls && n.kind === "call" ? false : undefined));
      const ref: Expr[] = [];
      const refWalk = (n: Expr): void => {
        ref.push(n);
        if (!(pruneCalls && n.kind === "call")) for (const k of children(n)) refWalk(k);
      };
      refWalk(e);
      expect(seen.length).toBe(ref.length);
      seen.forEach((n, k) => expect(n).toBe(ref[k]));
      // Identity where nothing changes; where "i" becomes "z", the same tree as a string rename.
      expect(mapExpr(e, () => undefined)).toBe(e);
      const renamed = mapExpr(e, (n) => (n.kind === "var" && n.name === "i" ? v("z") : undefined));
      expect(exprToString(renamed)).toBe(exprToString(renameVars(e, new Map([["i", "z"]]))));
      if (!preorder(e).some((n) => n.kind === "var" && n.name === "i")) expect(renamed).toBe(e);
      // Free: every var and array not under a reduction over it ("j" is the only reduction iname).
      const free = new Set<string>();
      const refFree = (n: Expr, bound: boolean): void => {
        if (n.kind === "var" && !(bound && n.name === "j")) free.add(n.name);
        if (n.kind === "subscript" || n.kind === "linear") free.add(n.array);
        for (const k of children(n)) refFree(k, bound || n.kind === "reduce");
      };
      refFree(e, false);
      expect([...freeVariables(e)].sort()).toEqual([...free].sort());
    }), { numRuns: 200 });
  });
});
