import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { points } from "../../src/poly/index.js";
import { LoomError, ParseError } from "../../src/errors.js";

/** The points of the single domain of a kernel over `dom` that writes x at every point. */
const pts = (dom: string, params: Record<string, number> = {}) => {
  const k = makeKernel(dom, "s = 1", ["..."]);
  return points(k.domains[0]!, params);
};
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, t) => [lo + t]);

describe("domain syntax (loopy-kernel-model.rst)", () => {
  it("inequalities: i > 0 (with an upper bound)", () => expect(pts("{[i]: i>0 and i <= 3}")).toEqual(range(1, 3)));
  it("conjunctions: i > 0 and i <= 15", () => expect(pts("{[i]: i > 0 and i <= 15}")).toEqual(range(1, 15)));
  it("two-sided conditions: 0 < i <= 15", () => expect(pts("{[i]: 0 < i <= 15}")).toEqual(range(1, 15)));
  it("identical conditions on several variables: 0 < i,j <= 15", () => {
    const p = pts("{[i,j]: 0 < i,j <= 15}");
    expect(p).toHaveLength(225);
    expect(p[0]).toEqual([1, 1]);
  });
  it("equality constraints: i = j*3", () => {
    expect(pts("{[i,j]: i = j*3 and 0 <= j < 4}")).toEqual([[0, 0], [3, 1], [6, 2], [9, 3]]);
  });
  it("modulo: i mod 3 = 0", () => expect(pts("{[i]: 0 <= i < 10 and i mod 3 = 0}")).toEqual([[0], [3], [6], [9]]));
  it("existential quantifiers: (exists l: i = 3*l)", () => {
    expect(pts("{[i]: 0 <= i < 10 and (exists l: i = 3*l)}")).toEqual([[0], [3], [6], [9]]);
  });
  it("parameters, declared or inferred", () => {
    expect(pts("[n] -> {[i]: 0 <= i < n}", { n: 2 })).toEqual([[0], [1]]);
    expect(makeKernel("{[i]: 0 <= i < n + m}", "s = 1").args.map((a) => a.name)).toEqual(["s", "n", "m"]);
  });
  it("not allowed: multiplication by non-constants j*k", () => {
    expect(() => makeKernel("{[i,j,k]: 0 <= i < j*k}", "s = 1")).toThrow(ParseError);
  });
  it("not allowed: disjunction (i=1) or (i=5)", () => {
    expect(() => makeKernel("{[i]: (i=1) or (i=5)}", "s = 1")).toThrow(ParseError);
  });
});

describe("domain forests", () => {
  it("a later domain may use inames of an earlier one as parameters", () => {
    const k = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<=i}"], "out[i, j] = 1");
    expect(k.domains.map((d) => [...d.dims])).toEqual([["i"], ["j"]]);
    expect(k.args.map((a) => a.name)).toEqual(["out", "n"]);
  });
  it("each iname is defined by exactly one domain", () => {
    expect(() => makeKernel(["{[i]: 0<=i<n}", "{[i]: 0<=i<m}"], "s = 1")).toThrow(/defined by domain 0 and domain 1/);
  });
  it("a syntax error names the domain and points into its text", () => {
    try {
      makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<\n  < n}"], "s = 1");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ParseError);
      const pe = e as ParseError;
      expect(pe.message).toMatch(/^domain 1 2:3:/);
      expect([pe.line, pe.column]).toEqual([2, 3]);
      expect(pe.excerpt).toBe("  < n}\n  ^");
    }
  });
  it("assumptions are parsed as constraints on the parameters", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 1", undefined, { assumptions: "n >= 1 and n mod 16 = 0" });
    expect(k.assumptions.constraints.length).toBeGreaterThan(0);
    expect(k.name).toBe("loopy_kernel");
    expect(makeKernel("{[i]: 0<=i<n}", "out[i] = 1", undefined, { name: "k1", target: "cuda" })).toMatchObject({ name: "k1", target: "cuda" });
    expect(() => makeKernel("{[i]: 0<=i<n}", "out[i] = 1", undefined, { target: "fortran" as never })).toThrow(LoomError);
  });
});
