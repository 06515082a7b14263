/** The inputs a sweep times its variants on: made once per sweep, equal to fresh ones. */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { timingArgs } from "../../src/tune/measure.js";
import { matmul } from "./helpers.js";

describe("timingArgs", () => {
  it("shares an array of one name, dtype and size between variants, equal to a freshly made one", () => {
    const cache = new Map();
    const a = timingArgs(matmul(), { n: 9 }, cache);
    const b = timingArgs(lp.splitIname(matmul(), "i", 4), { n: 9 }, cache);
    expect(b.a).toBe(a.a);
    expect(b.b).toBe(a.b);
    const fresh = timingArgs(matmul(), { n: 9 });
    expect(fresh.a).not.toBe(a.a);
    expect(fresh.a).toEqual(a.a);
    // Different arrays get different contents; values in [-1, 1).
    expect(a.a).not.toEqual(a.b);
    for (const x of a.a as Float32Array) expect(x >= -1 && x < 1).toBe(true);
    // Another size is another array.
    const c = timingArgs(matmul(), { n: 10 }, cache);
    expect(c.a).not.toBe(a.a);
    expect((c.a as Float32Array).length).toBe(100);
  });

  it("leaves a shared input unchanged across runs (run copies what a kernel writes)", async () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "a[i] = 2*a[i]", ["a: float32[n]", "n: int32"]);
    const cache = new Map();
    const args = timingArgs(k, { n: 8 }, cache);
    const before = Float32Array.from(args.a as Float32Array);
    await lp.run(k, args, { backend: "js" });
    expect(timingArgs(k, { n: 8 }, cache).a).toEqual(before);
  });
});
