import { describe, expect, it } from "vitest";
import {
  arith, c, exprEquals, freeVariables, mapExpr, reductionInames, renameVars, sub, substitute, v, type Expr,
} from "../../src/ir/expr.js";
import { exprToString } from "../../src/ir/print.js";

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
