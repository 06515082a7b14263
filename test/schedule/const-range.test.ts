/**
 * The constant range of an iname (`constRange`) is read from the iname's own factor of its domain,
 * a problem that repeats across a sweep of tile sizes: the law that it is the answer of the whole
 * domain, every other iname projected out (the exact route), over random tilings of domains
 * whose inames are independent, linked (a triangle) or bounded by parameters under assumptions.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allInames, withKernel, type Kernel } from "../../src/ir/index.js";
import { parseSet } from "../../src/poly/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { constRange, constRangeOfWholeDomain } from "../../src/schedule/checks.js";
import { splitIname } from "../../transforms/index.js";

const DOMAINS = [
  "{[i,j,k]: 0<=i<n and 0<=j<m and 0<=k<n}",
  "{[i,j,k]: 0<=i<16 and 0<=j<=i and 3<=k<n+3}",
  "{[i,j,k]: 0<=i<n and i<=j<n and 0<=k<8}",
];
const ASSUMPTIONS = ["", "n >= 1 and m >= 1", "n mod 16 = 0 and n >= 16 and m >= 4", "n = 37 and m = 5"];

const tilings = fc.record({
  domain: fc.constantFrom(...DOMAINS),
  assumptions: fc.constantFrom(...ASSUMPTIONS),
  splits: fc.array(fc.record({ iname: fc.constantFrom("i", "j", "k", "i_inner", "j_outer"), by: fc.integer({ min: 1, max: 17 }) }), { maxLength: 3 }),
});

function tiled(t: { domain: string; assumptions: string; splits: { iname: string; by: number }[] }): Kernel {
  let k = makeKernel(t.domain, "out[i, j, k] = 1", ["out: float32[n+20, n+20, n+20]", "n: int32", "m: int32"], t.assumptions ? { assumptions: t.assumptions } : {});
  for (const s of t.splits) if (allInames(k).includes(s.iname)) k = splitIname(k, s.iname, s.by);
  return k;
}

describe("an iname's constant range from its own factor", () => {
  it("for all tilings: is the whole domain's", () => {
    fc.assert(fc.property(tilings, (t) => {
      const k = tiled(t);
      for (const x of allInames(k)) expect(constRange(k, x), x).toEqual(constRangeOfWholeDomain(k, x));
    }), { numRuns: 60 });
  });

  it("finds the tile of a split iname and nothing for a parametric one", () => {
    const k = splitIname(makeKernel(DOMAINS[0]!, "out[i, j, k] = 1", ["out: float32[n, m, n]", "n: int32", "m: int32"]), "i", 16);
    const r = constRange(k, "i_inner")!;
    expect([r.size, Object.keys(r.lower.terms).length, r.lower.constant === 0]).toEqual([16, 0, true]);
    expect(constRange(k, "j")).toBeUndefined();
  });
});

describe("an iname's constant range under a kernel's assumptions", () => {
  it("is each kernel's own where kernels share the domain and differ in assumptions", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 1", ["out: float32[n]", "n: int32"]);
    const fixed = withKernel(k, { assumptions: parseSet("[n] -> { [] : n = 37 }") });
    expect(fixed.domains[0]).toBe(k.domains[0]);
    expect(constRange(k, "i")).toBeUndefined();
    expect(constRange(fixed, "i")?.size).toBe(37);
    expect(constRange(k, "i")).toBeUndefined();
  });
});
