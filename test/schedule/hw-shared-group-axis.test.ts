/**
 * Issue 15.10: several independent loops on one `g` axis with different extents. loopy's
 * `test_independent_multi_domain` (`{[i]: 0<=i<n}` and `{[j]: 0<=j<…}`, each split by 16 onto
 * g.0/l.0) and `test_split_iname_within` (one iname split twice with `within`, both onto g.0/l.0):
 * the axis spans the covering range (the range that contains the others, else `max` of the sizes
 * at launch), each instruction guarded by its own domain. Every backend accepts the same kernels
 * and computes what a plain TypeScript loop computes. The law: random pairs of independent loops
 * with random extents and split factors on one g axis, on every backend.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { schedule } from "../../src/schedule/index.js";
import { splitIname } from "../../transforms/index.js";
import { tag } from "../run/parallel-helpers.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

/** loopy's test_independent_multi_domain with `j` over `0 <= j < jExtent`, i split by fi and j by fj onto g.0/l.0. */
function multiDomain(fi: number, fj: number, jExtent = "n") {
  const k = makeKernel(["{[i]: 0<=i<n}", `{[j]: 0<=j<${jExtent}}`], ["a[i] = 1 {id=a}", "b[j] = 2 {id=b}"],
    ["a: float32[n]", `b: float32[${jExtent}]`, `n${jExtent.includes("m") ? ", m" : ""}: int32`]);
  const ki = splitIname(k, "i", fi, { outerTag: "g.0", innerTag: "l.0" });
  return splitIname(ki, "j", fj, { outerTag: "g.0", innerTag: "l.0" });
}

/** loopy's test_split_iname_within: j split for `a`, i split for `b`, both onto g.0/l.0. */
function splitWithin(f: number) {
  const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", ["x[i,j] = 3 {id=a}", "y[i,j] = 2*y[i,j] {id=b}"], ["x, y: float32[n,n]", "n: int32"]);
  const kj = splitIname(k, "j", f, { outerTag: "g.0", innerTag: "l.0", within: "id:a" });
  return splitIname(kj, "i", f, { outerTag: "g.0", innerTag: "l.0", within: "id:b" });
}

const fill = (len: number, v: number) => new Float32Array(len).fill(v);

describe("independent loops on one group axis with different extents (15.10)", () => {
  it("loopy's test_independent_multi_domain (n = 50) on every backend", async () => {
    await expectOnEveryBackend(multiDomain(16, 16), { n: 50 }, { a: fill(50, 1), b: fill(50, 2) });
  });

  it("extents n and n + 1: the axis is the covering range (n + 16)//16, each store guarded", async () => {
    const s = schedule(multiDomain(16, 16, "n + 1"));
    expect(s.deviceKernels[0]!.groupAxes.map((a) => a.iname)).toEqual(["j_outer"]);
    const g = generateCode(multiDomain(16, 16, "n + 1"), "opencl");
    expect(g.kernels[0]!.globalSize).toEqual(["(n + 16) / 16"]);
    for (const n of [0, 15, 16, 50]) await expectOnEveryBackend(multiDomain(16, 16, "n + 1"), { n }, { a: fill(n, 1), b: fill(n + 1, 2) });
  });

  it("extents n and m split by 16 and 8: no range covers the other, the axis is max of both at launch", async () => {
    const g = generateCode(multiDomain(16, 8, "m"), "opencl");
    expect(g.kernels[0]!.globalSize[0]).toMatch(/^max\(/);
    expect(generateCode(multiDomain(16, 8, "m"), "openmp").deviceCode).toMatch(/#pragma omp parallel for\n/);
    for (const [n, m] of [[50, 3], [3, 50], [0, 5], [16, 16]] as const) {
      await expectOnEveryBackend(multiDomain(16, 8, "m"), { n, m }, { a: fill(n, 1), b: fill(m, 2) });
    }
  });

  it("loopy's test_split_iname_within (n = 5) on every backend", async () => {
    const y = Float32Array.from({ length: 25 }, (_, q) => q - 7);
    await expectOnEveryBackend(splitWithin(4), { n: 5, y }, { x: fill(25, 3), y: y.map((v) => 2 * v) });
  });

  it("inames on one group axis with different lower bounds stay a ScheduleError naming both", () => {
    const bad = tag(makeKernel(["{[i]: 0<=i<n}", "{[j]: 1<=j<n}"], ["a[i] = 1 {id=a}", "b[j] = 2 {id=b}"], ["a, b: float32[n]", "n: int32"]), { i: "g.0", j: "g.0" });
    expect(() => schedule(bad)).toThrow(ScheduleError);
    expect(() => schedule(bad)).toThrow(/"i" and "j" are both tagged g.0 but have different ranges .*not in their lower bound/);
  });

  it("law: independent loops of random extents and split factors on one g axis compute the reference on every backend", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.constantFrom(1, 3, 4, 16), fc.constantFrom(2, 5, 8),
      async (n, m, fi, fj) => {
        await expectOnEveryBackend(multiDomain(fi, fj, "m"), { n, m }, { a: fill(n, 1), b: fill(m, 2) });
      }), { numRuns: 6 });
  });
});
