/**
 * A float32 (or float16) value argument is that float on every backend: native code receives the
 * number converted to float, so interp and js round it on entry too. Before, interp and js kept the
 * double (`(double) s` gave 0.1 there and 0.10000000149011612 on openmp) - a silent disagreement that
 * C's conversions in OKL import (literals computed in double) made visible.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { f16round } from "../../src/ir/float16.js";
import { availableNative } from "./native-helpers.js";

const kernelFor = (dtype: "float32" | "float16") => makeKernel("{[i]: 0<=i<1}", "o[i] = s",
  [`s: ${dtype}`, "o: float64[1]"], { name: `value_${dtype}` });

const doubles = fc.oneof(
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
  fc.constantFrom(0.1, -0.1, 1 / 3, 3.4028235677973366e38, -3.4028235677973366e38, 1e-45, 2 ** -149, 65504, 65519.99),
);

describe("float value arguments are rounded to their type on every backend", () => {
  it("float32: interp, js and the native backends agree with Math.fround", async () => {
    const k = kernelFor("float32");
    const backends = ["interp", "js", ...availableNative(["c", "openmp"])] as const;
    await fc.assert(fc.asyncProperty(doubles, async (s) => {
      for (const backend of backends) {
        const out = await run(k, { s, o: new Float64Array(1) }, { backend });
        expect(Object.is((out.o as Float64Array)[0], Math.fround(s)), `${backend}: s = ${s}`).toBe(true);
      }
    }), { numRuns: 8 });
  });

  it("float16: interp and js round to half precision", async () => {
    const k = kernelFor("float16");
    for (const s of [0.1, 1 + 2 ** -12, 65504, 1 / 3, -2.5e-5]) {
      for (const backend of ["interp", "js"] as const) {
        const out = await run(k, { s, o: new Float64Array(1) }, { backend });
        expect((out.o as Float64Array)[0], `${backend}: s = ${s}`).toBe(f16round(s));
      }
    }
  });
});
