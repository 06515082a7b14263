/**
 * Sums and differences of bools are bools, as in numpy and the interpreter (true + true is true):
 * C computes them in int (2), so the C-family printer compares them with 0. Run on c and PoCL
 * against the interpreter.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { backendAvailability, run } from "../../src/run/index.js";

const k = makeKernel("{[i]: 0<=i<n}", ["w[i] = (x[i] > 0) + (x[i] > 1)", "u[i] = (x[i] > 1) - (x[i] > 0)", "v[i] = (x[i] > 0) * (x[i] < 2)"],
  ["x: int32[n]", "w, u, v: int32[n]", "n: int32"], { name: "bools" });
const args = { x: Int32Array.from([-2147483648, -1, 0, 1, 2, 2147483647]), n: 6 };

describe("bool arithmetic on the C-family targets", () => {
  it("prints a bool sum as a comparison with 0", () => {
    expect(generateCode(k, "c").deviceCode).toContain("w[i] = ((x[i] > 0) + (x[i] > 1)) != 0;");
  });
  for (const backend of ["c", "opencl"] as const) {
    const a = backendAvailability(backend);
    it.skipIf(!a.available)(`agrees with the interpreter on ${backend}`, async () => {
      const want = await run(k, args);
      const got = await run(k, args, { backend });
      for (const out of ["w", "u", "v"] as const) expect([...got[out]!], out).toEqual([...want[out]!]);
    });
    if (!a.available) console.warn(`bool arithmetic on ${backend} skipped: ${a.reason}`);
  }
});
