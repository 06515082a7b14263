/** The interpreter compiles kernels to closures: a 64×64×64 matmul (262k reduction steps) runs (its speed: bench/). */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";

describe("speed", () => {
  it("runs a 64^3 float32 matmul exactly", async () => {
    const k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b: float32[n,n]", "..."]);
    const n = 64;
    const a = Float32Array.from({ length: n * n }, (_, x) => (x % 7) - 3);
    const b = Float32Array.from({ length: n * n }, (_, x) => (x % 5) - 2);
    const { c } = await run(k, { a, b, n });
    let want = 0;
    for (let x = 0; x < n; x++) want += a[5 * n + x]! * b[x * n + 9]!;
    expect(c![5 * n + 9]).toBe(want);
  });
});
