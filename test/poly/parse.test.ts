// Unit tests of the domain syntax: what parses to which points, and where errors point.
import { describe, expect, it } from "vitest";
import * as P from "../../src/poly/index.js";
import { ParseError } from "../../src/errors.js";

const pts = (text: string, params: Record<string, number> = {}) => P.points(P.parseSet(text), params);

function parseError(f: () => unknown): ParseError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ParseError);
    return e as ParseError;
  }
  throw new Error("expected a ParseError");
}

describe("parseSet", () => {
  it("reads explicit parameters and chained comparisons", () => {
    const s = P.parseSet("[n, m] -> { [i, j] : 0 <= i < n and 0 <= j <= i }");
    expect(s.params).toEqual(["n", "m"]);
    expect(s.dims).toEqual(["i", "j"]);
    expect(pts("[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }", { n: 3 })).toEqual([[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]]);
  });
  it("infers parameters in order of first appearance", () => {
    expect(P.parseSet("{ [i,j]: 0 <= i,j < n and i < m }").params).toEqual(["n", "m"]);
    expect(P.parseSet("{ [i,j]: 0 <= i,j < n }").constraints.length).toBe(4);
  });
  it("reads lists, strict and reversed comparisons, equalities", () => {
    expect(pts("{ [i, j] : 0 < i, j <= 2 }")).toEqual([[1, 1], [1, 2], [2, 1], [2, 2]]);
    expect(pts("{ [i] : 3 > i >= 1 }")).toEqual([[1], [2]]);
    expect(pts("{ [i, j] : 0 <= i <= 3 and j = 2*i - 1 and j > 2 }")).toEqual([[2, 3], [3, 5]]);
  });
  it("reads affine terms: 2*i, i*2, 2i, -i, parentheses, n - 1", () => {
    const a = P.printSet(P.parseSet("{ [i] : 2*i <= n - 1 and -i <= 0 }"));
    expect(P.printSet(P.parseSet("{ [i] : i*2 <= n - 1 and -(i) <= 0 }"))).toBe(a);
    expect(P.printSet(P.parseSet("{ [i] : 2i <= (n - 1) and 0 <= i }"))).toBe(a);
    expect(pts("{ [i] : 0 <= 3*(i - 1) + 2 <= 8 }")).toEqual([[1], [2], [3]]);
  });
  it("reads mod, %, floor, ceil as existentials", () => {
    expect(pts("{ [i] : 0 <= i < 10 and i mod 3 = 1 }")).toEqual([[1], [4], [7]]);
    expect(pts("{ [i] : 0 <= i < 10 and (i + 1) % 4 = 0 }")).toEqual([[3], [7]]);
    expect(pts("{ [i] : 0 <= i < 10 and floor(i/4) = 1 }")).toEqual([[4], [5], [6], [7]]);
    expect(pts("{ [i] : 0 <= i < 10 and ceil((i + 1)/4) = 1 }")).toEqual([[0], [1], [2], [3]]);
    expect(pts("{ [i] : 0 <= i < 10 and i mod 4 <= 1 }")).toEqual([[0], [1], [4], [5], [8], [9]]);
  });
  it("reads exists in both forms", () => {
    expect(pts("{ [i] : 0 <= i <= 6 and exists l: i = 3l }")).toEqual([[0], [3], [6]]);
    expect(pts("{ [i] : exists (l, m : i = 2l + 3m and 0 <= l, m <= 1) }")).toEqual([[0], [2], [3], [5]]);
    expect(pts("{ [i] : (exists l: i = 2l and l >= 1) and i <= 4 }")).toEqual([[2], [4]]);
  });
  it("reads empty tuples, empty conditions, true and false", () => {
    expect(P.parseSet("{ : }").dims).toEqual([]);
    expect(P.parseSet("{ [i] }").constraints).toEqual([]);
    expect(P.parseSet("{ [] : n > 0 }").params).toEqual(["n"]);
    expect(P.parseSet("{ [i] : true }").constraints).toEqual([]);
    expect(P.isEmpty(P.parseSet("{ [i] : false }"))).toBe(true);
  });
  it("normalizes: gcd, tightening, divisibility", () => {
    expect(P.printSet(P.parseSet("{ [i] : 2i >= 1 }"))).toBe("{ [i] : 1 <= i }");
    expect(P.printSet(P.parseSet("{ [i] : 0 < 2i < 2 }"))).toBe("{ [i] : false }");
    expect(P.printSet(P.parseSet("{ [i, j] : 2i = 2j + 1 }"))).toBe("{ [i, j] : false }");
    expect(P.printSet(P.parseSet("{ [i] : i >= 0 and i >= 0 and 0 <= i <= 0 }"))).toBe("{ [i] : i = 0 }");
  });
  it("prints canonically and reads its output back", () => {
    for (const t of [
      "[n, m] -> { [i, j] : 0 <= i < n and 0 <= j <= i }",
      "{ [i] : 0 <= i <= 10 and exists (e0 : 3*e0 = i) }",
      "[n] -> { [i] : false }",
      "{ [i, j] }",
    ]) {
      const p = P.printSet(P.parseSet(t));
      expect(P.printSet(P.parseSet(p))).toBe(p);
    }
    expect(P.printSet(P.parseSet("[n, m] -> { [i, j] : 0 <= i < n and 0 <= j <= i }"))).toBe("[n, m] -> { [i, j] : 0 <= i < n and 0 <= j <= i }");
  });
  it("accepts newlines and reports later lines correctly", () => {
    const s = P.parseSet("[n] -> {\n  [i] :\n  0 <= i < n\n}");
    expect(s.dims).toEqual(["i"]);
    const e = parseError(() => P.parseSet("[n] -> {\n  [i] :\n  0 <= i < n or i > 3\n}"));
    expect([e.line, e.column]).toEqual([3, 14]);
  });
});

describe("parse errors say where and what is accepted", () => {
  it("products of variables", () => {
    const e = parseError(() => P.parseSet("{ [i, j] : i*j >= 0 }"));
    expect([e.line, e.column]).toEqual([1, 13]);
    expect(e.detail).toContain("not affine: product of variables i and j");
  });
  it("disjunctions", () => {
    const e = parseError(() => P.parseSet("{ [i] : i >= 0 or i <= -5 }"));
    expect([e.line, e.column]).toEqual([1, 16]);
    expect(e.detail).toContain("domains must be convex; use two domains");
  });
  it("non-integer constants", () => {
    const e = parseError(() => P.parseSet("{ [i] : i >= 1.5 }"));
    expect([e.line, e.column]).toEqual([1, 14]);
    expect(e.detail).toContain("non-integer constant 1.5");
  });
  it("unknown characters and tokens", () => {
    const e = parseError(() => P.parseSet("{ [i] : i $ 3 }"));
    expect([e.line, e.column]).toEqual([1, 11]);
    expect(e.detail).toMatch(/unexpected character "\$"; expected one of .*<=/);
    const f = parseError(() => P.parseSet("{ [i] : i >= }"));
    expect([f.line, f.column]).toEqual([1, 14]);
    expect(f.detail).toContain("an identifier");
  });
  it("unexpected end of input", () => {
    const e = parseError(() => P.parseSet("{ [i] : i >= 0"));
    expect([e.line, e.column]).toEqual([1, 15]);
    expect(e.detail).toContain("}");
  });
  it("unknown identifiers with an explicit parameter list", () => {
    const e = parseError(() => P.parseSet("[n] -> { [i] : i < m }"));
    expect([e.line, e.column]).toEqual([1, 20]);
    expect(e.detail).toContain('unknown identifier "m"');
  });
  it("non-constant divisors", () => {
    const e = parseError(() => P.parseSet("{ [i, j] : i mod j = 0 }"));
    expect(e.detail).toContain("integer constant");
  });
  it("a map where a set is expected", () => {
    expect(parseError(() => P.parseSet("{ [i] -> [j] }")).detail).toContain("parseMap");
  });
  it("integer overflow", () => {
    expect(() => P.parseSet("{ [i] : i <= 99999999999999999999 }")).toThrow(/integer overflow/);
  });
});

describe("parseConstraints and parseMap", () => {
  it("reads assumptions: every identifier is a parameter", () => {
    const a = P.parseConstraints("n mod 16 = 0 and n >= 16");
    expect(a.params).toEqual(["n"]);
    expect(P.containsPoint(a, { n: 32 })).toBe(true);
    expect(P.containsPoint(a, { n: 24 })).toBe(false);
    const b = P.parseConstraints("n >= 1 and (exists zz: n = 16*zz)");
    expect(P.containsPoint(b, { n: 16 })).toBe(true);
    expect(P.containsPoint(b, { n: 0 })).toBe(false);
  });
  it("takes dims from the options", () => {
    const s = P.parseConstraints("0 <= i < n", { dims: ["i"] });
    expect(s.dims).toEqual(["i"]);
    expect(s.params).toEqual(["n"]);
  });
  it("reads maps as sets over in then out dims", () => {
    const m = P.parseMap("{ [i] -> [io, ii] : i = 4*io + ii and 0 <= ii < 4 }");
    expect(m.inDims).toEqual(["i"]);
    expect(m.outDims).toEqual(["io", "ii"]);
    expect(m.set.dims).toEqual(["i", "io", "ii"]);
    expect(P.containsPoint(m.set, { i: 9, io: 2, ii: 1 })).toBe(true);
    expect(P.containsPoint(m.set, { i: 9, io: 1, ii: 5 })).toBe(false);
  });
});

describe("operations on examples", () => {
  const s = P.parseSet("[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }");
  it("dimBounds", () => {
    const b = P.dimBounds(s, "j", ["i"]);
    expect(b.exact).toBe(true);
    expect(b.lower.map((x) => P.affToString(x.aff))).toEqual(["0"]);
    expect(b.upper.map((x) => P.affToString(x.aff))).toEqual(["i"]);
    const bi = P.dimBounds(s, "i", []);
    expect(bi.upper.map((x) => P.affToString(x.aff))).toEqual(["n - 1"]);
  });
  it("projectOut keeps non-unit projections exact with an existential", () => {
    const t = P.projectOut(P.parseSet("{ [i, j] : i = 2j and 0 <= j <= 3 }"), ["j"]);
    expect(P.points(t, {})).toEqual([[0], [2], [4], [6]]);
  });
  it("isEmpty terminates on unbounded sets and decides integer emptiness", () => {
    expect(P.isEmpty(P.parseSet("{ [i, j] : i >= 0 and j >= i }"))).toBe(false);
    expect(P.isEmpty(P.parseSet("{ [x, y] : 27 <= 11x + 13y <= 45 and -10 <= 7x - 9y <= 4 }"))).toBe(true);
    expect(P.isEmpty(P.parseSet("{ [i, j] : 1 <= 3i - 3j <= 2 }"))).toBe(true);
    expect(P.isEmpty(P.parseSet("[n] -> { [i] : exists q: i = 2q + 1 and i = 4n }"))).toBe(true);
  });
  it("gist drops what the assumptions imply", () => {
    const a = P.parseSet("[n] -> { [i] : 0 <= i < n and n mod 16 = 0 and n >= 1 }");
    const g = P.gist(a, P.parseConstraints("n mod 16 = 0 and n >= 16"));
    expect(P.printSet(g)).toBe("[n] -> { [i] : 0 <= i < n }");
  });
  it("points is an error when unbounded or a parameter is missing", () => {
    expect(() => P.points(s, {})).toThrow(/parameter "n"/);
    expect(() => P.points(P.parseSet("{ [i] : i >= 0 }"), {})).toThrow(/unbounded/);
  });
  it("compilePointTest checks divisibility for mods", () => {
    const t = P.compilePointTest(P.parseSet("{ [i] : i mod 3 = 0 }"), ["i"]);
    expect([0, 1, 2, 3, -3, -4].map((v) => t([v]))).toEqual([true, false, false, true, true, false]);
  });
  it("overflow is a LoomError", () => {
    const big = 2 ** 52;
    const t = P.parseSet(`{ [i, j] : ${big}i + 3j >= 0 and 5i - ${big}j >= 0 }`);
    expect(() => P.eliminate(t, ["j"])).toThrow(/integer overflow/);
  });
});
