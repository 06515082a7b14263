/** Bitwise operators in the instruction language: C's precedence, printing that reads back, integer-only types. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseExpr, makeKernel } from "../../src/parse/index.js";
import { c, exprEquals, v, type ArithOp, type Expr } from "../../src/ir/expr.js";
import { exprToString } from "../../src/ir/print.js";
import { exprType } from "../../src/ir/types.js";
import { ParseError } from "../../src/errors.js";

const p = (s: string) => parseExpr(s);
const str = (s: string) => exprToString(parseExpr(s));
const bin = (op: ArithOp, left: Expr, right: Expr): Expr => ({ kind: "arith", op, left, right });

describe("bitwise syntax", () => {
  it("& | ^ << >> are binary operators and ~ is unary", () => {
    expect(p("a & b")).toEqual(bin("&", v("a"), v("b")));
    expect(p("a | b")).toEqual(bin("|", v("a"), v("b")));
    expect(p("a ^ b")).toEqual(bin("^", v("a"), v("b")));
    expect(p("a << 2")).toEqual(bin("<<", v("a"), c(2)));
    expect(p("a >> 2")).toEqual(bin(">>", v("a"), c(2)));
    expect(p("~a")).toEqual({ kind: "bitnot", operand: v("a") });
  });

  it("C's levels: | below ^ below & below comparisons below shifts below + -", () => {
    expect(p("a | b ^ c & d")).toEqual(bin("|", v("a"), bin("^", v("b"), bin("&", v("c"), v("d")))));
    expect(p("a & b == c")).toEqual(bin("&", v("a"), { kind: "compare", op: "==", left: v("b"), right: v("c") }));
    expect(p("a << b + 1 < c")).toEqual({ kind: "compare", op: "<", left: bin("<<", v("a"), bin("+", v("b"), c(1))), right: v("c") });
    expect(p("a >> b >> c")).toEqual(bin(">>", bin(">>", v("a"), v("b")), v("c")));
  });

  it("~ binds like unary minus: tighter than *, looser than **", () => {
    expect(p("~a*b")).toEqual(bin("*", { kind: "bitnot", operand: v("a") }, v("b")));
    expect(p("~a**b")).toEqual({ kind: "bitnot", operand: bin("**", v("a"), v("b")) });
    expect(p("~-3")).toEqual({ kind: "bitnot", operand: c(-3) });
  });

  it("and / or / not stay logical, below the bitwise operators", () => {
    expect(p("not a & b")).toEqual({ kind: "not", operand: bin("&", v("a"), v("b")) });
    expect(p("a and b | c")).toEqual({ kind: "logical", op: "and", left: v("a"), right: bin("|", v("b"), v("c")) });
    expect(p("a < b and c")).toMatchObject({ kind: "logical", op: "and" });
  });

  it("hexadecimal literals write masks", () => {
    expect(p("x & 0xff")).toEqual(bin("&", v("x"), c(255)));
    expect(p("0xFFFFFFFF")).toEqual(c(4294967295));
    expect(p("-0x10")).toEqual(c(-16));
  });

  it("prints with the parentheses C's precedence needs, and no more", () => {
    expect(str("(a | b) & c")).toBe("(a | b) & c");
    expect(str("(a | b) ^ c")).toBe("(a | b) ^ c");
    expect(str("(a ^ b) & c")).toBe("(a ^ b) & c");
    expect(str("(a & b) << c")).toBe("(a & b) << c");
    expect(str("a ^ (b | c)")).toBe("a ^ (b | c)");
    expect(str("a | (b & c)")).toBe("a | b & c");
    expect(str("(a & b) == c")).toBe("(a & b) == c");
    expect(str("(a << 2) + 1")).toBe("(a << 2) + 1");
    expect(str("a << (2 + 1)")).toBe("a << 2 + 1");
    expect(str("a >> (b >> c)")).toBe("a >> (b >> c)");
    expect(str("~(a + 1)")).toBe("~(a + 1)");
    expect(str("-~x")).toBe("-~x");
  });

  it("a stray operator is a ParseError with a place", () => {
    expect(() => p("a & ")).toThrow(ParseError);
    expect(() => p("a <<< b")).toThrow(ParseError);
  });
});

// Random expressions over every operator (no `-` on a literal: `-3` reads back as the literal -3).
const leaf: fc.Arbitrary<Expr> = fc.oneof(fc.constantFrom(v("a"), v("b"), v("i")), fc.nat(300).map((n) => c(n)));
const { tree } = fc.letrec<{ tree: Expr }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.tuple(fc.constantFrom<ArithOp>("+", "-", "*", "//", "%", "**", "&", "|", "^", "<<", ">>"), tie("tree"), tie("tree"))
      .map(([op, l, r]) => bin(op, l, r)),
    fc.tuple(fc.constantFrom("<", "==", ">="), tie("tree"), tie("tree"))
      .map(([op, l, r]): Expr => ({ kind: "compare", op: op as "<", left: l, right: r })),
    fc.tuple(fc.constantFrom("and", "or"), tie("tree"), tie("tree"))
      .map(([op, l, r]): Expr => ({ kind: "logical", op: op as "and", left: l, right: r })),
    tie("tree").map((e): Expr => ({ kind: "bitnot", operand: e })),
    tie("tree").map((e): Expr => ({ kind: "not", operand: e })),
    tie("tree").filter((e) => e.kind !== "const").map((e): Expr => ({ kind: "neg", operand: e })),
  ),
}));

describe("print / parse round trip", () => {
  it("for all expressions e: parse(print(e)) == e", () => {
    fc.assert(fc.property(tree, (e) => {
      const text = exprToString(e);
      expect(exprEquals(parseExpr(text), e), text).toBe(true);
    }), { numRuns: 1000 });
  });
});

describe("bitwise types", () => {
  const env = (types: Record<string, string>) => ({ varType: (n: string) => types[n] as never });

  it("& | ^ follow the arithmetic promotions; a shift has its left operand's type", () => {
    expect(exprType(p("a & b"), env({ a: "int8", b: "int32" }))).toEqual({ dtype: "int32", weak: false });
    expect(exprType(p("a | 1"), env({ a: "uint16" }))).toEqual({ dtype: "uint16", weak: false });
    expect(exprType(p("a << b"), env({ a: "uint8", b: "int64" }))).toEqual({ dtype: "uint8", weak: false });
    expect(exprType(p("1 << b"), env({ b: "int64" }))).toEqual({ dtype: "int32", weak: true });
    expect(exprType(p("~a"), env({ a: "uint32" }))).toEqual({ dtype: "uint32", weak: false });
    // numpy makes int64 with uint64 float64; C's conversions make it uint64.
    expect(exprType(p("a ^ b"), env({ a: "int64", b: "uint64" }))).toEqual({ dtype: "uint64", weak: false });
  });

  it("a float operand is an error at makeKernel, at the statement, as C rejects it", () => {
    const mk = (rhs: string) => makeKernel("{[i]: 0<=i<n}", `out[i] = ${rhs}`, ["x: float32[n]", "m: int32[n]", "out: int32[n]", "n: int32"]);
    expect(() => mk("m[i] & 1")).not.toThrow();
    for (const rhs of ["x[i] & 1", "m[i] | 2.0", "~x[i]", "m[i] << x[i]", "1 >> 0.5"]) {
      expect(() => mk(rhs), rhs).toThrow(ParseError);
      expect(() => mk(rhs), rhs).toThrow(/needs integer operands|needs an integer operand/);
    }
  });

  it("an inferred float temporary is caught too, and so is a rule body", () => {
    expect(() => makeKernel("{[i]: 0<=i<n}", ["<> t = 0.5*m[i]", "out[i] = t & 1"], ["m, out: int32[n]", "n: int32"]))
      .toThrow(/bitwise operator "&" needs integer operands, but t is float64/);
    expect(() => makeKernel("{[i]: 0<=i<n}", ["f(z) := z ^ 3", "out[i] = f(x[i])"], ["x: float64[n]", "out: int32[n]", "n: int32"]))
      .toThrow(/"\^" needs integer operands/);
  });

  it("~ and the shifted value of a shift refuse bool (use not); & | ^ take bools", () => {
    const mk = (rhs: string) => makeKernel("{[i]: 0<=i<n}", `out[i] = ${rhs}`, ["m, out: int32[n]", "n: int32"]);
    expect(() => mk("~(m[i] > 0)")).toThrow(/bool; use "not"/);
    expect(() => mk("(m[i] > 0) << 1")).toThrow(/bool/);
    expect(() => mk("(m[i] > 0) & (m[i] < 5)")).not.toThrow();
    expect(() => mk("m[i] << (m[i] > 0)")).not.toThrow();
  });
});
