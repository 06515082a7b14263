/**
 * The bounds proof (src/run/bounds.ts) reads a scalar temporary set once from the value arguments
 * as a known value. It must know the value the kernel stores: an int8 `t = k0 + n` wraps, so a
 * predicate `i >= t` the proof took as `i >= 130` (nothing runs) holds for every i, and js and c
 * ran `a[i + 4]` unchecked past the array where the interpreter refuses (found by the OKL pipeline
 * law: a float `@exclusive e = 0.5f` in a predicate crashed the proof with a bare LoomError).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { availableNative } from "./native-helpers.js";

const BACKENDS = ["interp", "js", ...availableNative(["c"])] as const;

/** The output on `backend`, or "refused" for an ExecutionError (any other error fails the test). */
async function outcome(k: lp.Kernel, args: Record<string, unknown>, backend: string): Promise<number[] | "refused"> {
  try {
    return Array.from((await lp.run(k, args as never, { backend } as never)).out as Float64Array);
  } catch (e) {
    if (!(e instanceof lp.ExecutionError)) throw e;
    return "refused";
  }
}

describe("bounds proof: scalars derived from the value arguments", () => {
  it("a float value in a predicate (i < x, x = 2.5) is left out of the proof, not a crash", async () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] {if=i < x}", ["a, out: float64[n]", "x: float64", "n: int32"]);
    const f = lp.makeKernel("{[i]: 0<=i<n}", ["<float32> e = 0.5 {id=w}", "out[i] = a[i] {if=i < e + 2, dep=w}"], ["a, out: float64[n]", "n: int32"]);
    for (const backend of BACKENDS) {
      expect(await outcome(k, { a: Float64Array.from([1, 2, 3, 4]), out: new Float64Array(4), x: 2.5, n: 4 }, backend), backend).toEqual([1, 2, 3, 0]);
      expect(await outcome(f, { a: Float64Array.from([1, 2, 3, 4]), out: new Float64Array(4), n: 4 }, backend), backend).toEqual([1, 2, 3, 0]);
    }
  });

  it("property: a narrow scalar that wraps (int8, uint8, int16 t = k0 + n) guards the same accesses on js as on interp, and c runs none past the array", async () => {
    const kernels = Object.fromEntries((["int8", "uint8", "int16"] as const).map((d) => [d, lp.makeKernel("{[i]: 0<=i<n}",
      [`<${d}> t = k0 + n {id=w}`, "out[i] = a[i + 4] {if=i >= t, dep=w}"], ["a, out: float64[n]", "n, k0: int32"], { name: `wrap_${d}` })]));
    await fc.assert(fc.asyncProperty(fc.constantFrom("int8", "uint8", "int16"), fc.integer({ min: 0, max: 9 }),
      fc.constantFrom(-300, -129, -10, 0, 3, 120, 127, 250, 255, 32760, 65530), async (d, n, k0) => {
        const args = () => ({ a: Float64Array.from({ length: n }, (_, x) => x + 1), out: new Float64Array(n), n, k0 });
        const want = await outcome(kernels[d]!, args(), "interp");
        expect(await outcome(kernels[d]!, args(), "js"), `js ${d} n=${n} k0=${k0}`).toEqual(want);
        // c runs only what the proof covers: a value it cannot know (t wrapped) is a refusal, never a run past the array.
        for (const backend of BACKENDS.slice(2)) {
          const got = await outcome(kernels[d]!, args(), backend);
          if (got !== "refused") expect(got, `${backend} ${d} n=${n} k0=${k0}`).toEqual(want);
          if (want === "refused") expect(got, `${backend} ${d} n=${n} k0=${k0}`).toBe("refused");
        }
      }), { numRuns: 40, examples: [["int8", 9, 120], ["uint8", 5, 252]] });
  });
});
