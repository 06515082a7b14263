/**
 * A run's values must satisfy the kernel's assumptions: code is generated under them (a split by 4
 * under `n mod 4 = 0` has no guard), so n = 3 wrote out[3] past the array's end on the C backend
 * (glibc: "corrupted size vs. prev_size", the process aborted) and gave a plausible answer on the
 * others. Every backend refuses such a run before launch; values inside them run as before.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";

const split = () => lp.splitIname(lp.assume(lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float64[n]", "n: int32"]), "n mod 4 = 0 and n >= 4"), "i", 4);

describe("run checks the kernel's assumptions", () => {
  it("refuses values outside them on every backend, naming the values and the assumptions", async () => {
    for (const backend of ["interp", "js"] as const) {
      await expect(lp.run(split(), { a: new Float64Array([1, 2, 3]), n: 3 }, { backend }), backend)
        .rejects.toThrow(/^n = 3 violates the assumptions of kernel "loopy_kernel" \(.*4\*e0 = n.*\): its code is generated under them/);
    }
    await expect(lp.run(split(), { a: new Float64Array(0), n: 0 })).rejects.toThrow(lp.ExecutionError);
  });

  it("runs values that satisfy them, the length-inferred n included", async () => {
    const a = Float64Array.from({ length: 8 }, (_, i) => i);
    expect(Array.from((await lp.run(split(), { a, n: 8 })).out as Float64Array)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
    expect(Array.from((await lp.run(split(), { a })).out as Float64Array)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });
});
