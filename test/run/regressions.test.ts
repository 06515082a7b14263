/** Bugs found by property tests and fixed; each stays fixed on every backend. */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";

const BACKENDS = ["interp", "js"] as const;

describe("regressions", () => {
  for (const backend of BACKENDS) {
    it(`${backend}: two reductions whose loops nest in opposite orders (x over j inside i, z over i inside j)`, async () => {
      // Realized accumulators need i{j{…}} for x and j{i{…}} for z; one kernel-wide order used to
      // nest z's update wrongly and give z = [10, 10].
      const k = makeKernel("{[i,j]: 0<=i,j<n}", ["x[i] = sum(j, a[i,j])", "z[j] = sum(i, a[i,j])"], ["a: float64[n,n]", "..."]);
      const r = await run(k, { a: Float64Array.of(1, 2, 3, 4), n: 2 }, { backend });
      expect(Array.from(r.x as Float64Array)).toEqual([3, 7]);
      expect(Array.from(r.z as Float64Array)).toEqual([4, 6]);
    });

    it(`${backend}: nested reductions keep their loops inside the instruction's`, async () => {
      const k = makeKernel("{[i,j,l]: 0<=i,j,l<n}", ["x[i] = sum(j, sum(l, a[i,j] * a[j,l]))", "z[l] = sum(i, a[i,l])"], ["a: float64[n,n]", "..."]);
      const a = Float64Array.of(1, 2, 3, 4);
      const r = await run(k, { a, n: 2 }, { backend });
      // x[i] = Σ_j a[i,j] Σ_l a[j,l]: row sums 3, 7 → x = [1*3 + 2*7, 3*3 + 4*7]
      expect(Array.from(r.x as Float64Array)).toEqual([17, 37]);
      expect(Array.from(r.z as Float64Array)).toEqual([4, 6]);
    });

    it(`${backend}: negating a negative literal compiles (no "--")`, async () => {
      const k = makeKernel("{[i]: 0<=i<n}", "out[i] = -(-(3.5)) + -(-(-2)) * a[i]", ["a: float32[n]", "..."]);
      const { out } = await run(k, { a: Float32Array.of(1, 2), n: 2 }, { backend });
      expect(Array.from(out as Float32Array)).toEqual([1.5, -0.5]);
    });
  }
});
