/**
 * Issue 20, libParanumal's bitonicSortStructs: an @outer loop bounded by a value that is not affine
 * in the arguments (`eo < (entries + size - 1) / size`, `e < nx*ny`, a step `stride`) in a nest with
 * @shared memory. OCCA computes launch sizes on the host: Loom makes the trip count a value argument
 * the host computes exactly (Kernel.oklOptions.derivedArgs, filled in by run()), so the domain stays
 * affine in it. Each kernel runs on interp, OpenMP and OpenCL (where they build) against its serial
 * meaning; a division by zero there is an ExecutionError, never a launch of a wrong size.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { ExecutionError } from "../../src/errors.js";
import { run } from "../../src/run/index.js";
import { kernelFromJSON, kernelToJSON } from "../../src/tune/executor/kernel-json.js";
import { fixParameters } from "../../transforms/parameters.js";
import { availableNative } from "../run/native-helpers.js";
import { seeded } from "./real-world-helpers.js";

const backends = ["interp", ...availableNative(["openmp", "opencl"])];

// Each block of 64 entries reversed through @shared memory, blocks counted by a ceiling division.
const swapHalves = `
@kernel void swapHalves(const int entries, const int size, double *list) {
  for (int eo = 0; eo < (entries + size - 1) / size; ++eo; @outer) {
    @shared double s[64];
    for (int t = 0; t < 64; ++t; @inner) s[t] = list[eo*64 + t];
    for (int t = 0; t < 64; ++t; @inner) list[eo*64 + t] = s[63 - t];
  }
}`;

// Element-local sums of 32 nodes through @shared memory, elements counted by a product and a step.
const elementSums = `
#define p_Np 32
@kernel void elementSums(const int nx, const int ny, const int stride, const double *q, double *sums) {
  for (int e = 0; e < nx*ny; e += stride; @outer) {
    @shared double s_q[p_Np];
    for (int n = 0; n < p_Np; ++n; @inner) s_q[n] = q[e*p_Np + n];
    for (int n = 0; n < p_Np; ++n; @inner) {
      if (n == 0) {
        double acc = 0;
        for (int m = 0; m < p_Np; ++m) acc += s_q[m];
        sums[e] = acc;
      }
    }
  }
}`;

async function onEvery(k: ReturnType<typeof parseOkl>[number], args: () => Record<string, unknown>, want: Record<string, readonly number[]>): Promise<void> {
  for (const backend of backends) {
    const out = (await run(k, args() as never, { backend } as never)) as Record<string, ArrayLike<number>>;
    for (const [name, w] of Object.entries(want)) expect(Array.from(out[name]!), `${backend}: ${name}`).toEqual(w);
  }
}

describe("an @outer bound or trip count the host computes", () => {
  it("is a value argument computed from the others, the loop a grid axis", () => {
    const k = parseOkl(swapHalves)[0]!;
    expect(k.args.map((a) => a.name)).toEqual(["entries", "size", "list", "eo_end"]);
    expect(Object.values(k.inameTags).map((t) => t.kind).sort()).toEqual(["g", "l", "l"]);
    expect(k.oklOptions?.derivedArgs?.map((d) => d.name)).toEqual(["eo_end"]);
    // The tuner's job files keep it.
    expect(kernelFromJSON(kernelToJSON(k)).oklOptions?.derivedArgs).toEqual(k.oklOptions?.derivedArgs);
  });

  it("ceiling division by an argument: every block reversed, on every backend, as the serial meaning", async () => {
    const k = parseOkl(swapHalves)[0]!;
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 200 }), async (entries, size) => {
      const blocks = Math.ceil(entries / size);
      const len = Math.max(blocks, 1) * 64 + 64;
      const list = seeded(len, entries * 7 + size);
      const want = list.slice();
      for (let eo = 0; eo < blocks; eo++) for (let t = 0; t < 64; t++) want[eo * 64 + t] = list[eo * 64 + 63 - t]!;
      await onEvery(k, () => ({ entries, size, list: Float64Array.from(list) }), { list: want });
    }), { numRuns: 4, seed: 20 });
  });

  it("a @tile of two @outer levels over it: its check an affine row (arrays sized as the loop reaches), as the serial meaning", async () => {
    const k = parseOkl(swapHalves.replace("++eo; @outer)", "++eo; @tile(4, @outer(1), @outer(0)))"))[0]!;
    expect(Object.values(k.inameTags).map((t) => t.kind).sort()).toEqual(["g", "g", "l", "l"]);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 700 }), fc.integer({ min: 1, max: 70 }), async (entries, size) => {
      const blocks = Math.ceil(entries / size);
      const list = seeded(blocks * 64, entries + 3 * size);
      const want = list.slice();
      for (let eo = 0; eo < blocks; eo++) for (let t = 0; t < 64; t++) want[eo * 64 + t] = list[eo * 64 + 63 - t]!;
      await onEvery(k, () => ({ entries, size, list: Float64Array.from(list) }), { list: want });
    }), { numRuns: 4, seed: 22 });
  });

  it("a product of arguments with a step read from an argument: element sums as the serial meaning", async () => {
    const k = parseOkl(elementSums)[0]!;
    expect(k.oklOptions?.derivedArgs?.map((d) => d.name)).toEqual(["e_trip"]);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), async (nx, ny, stride) => {
      const E = nx * ny;
      const q = seeded(Math.max(E, 1) * 32, nx * 31 + ny * 5 + stride);
      const sums = seeded(Math.max(E, 1), 99);
      const want = sums.slice();
      for (let e = 0; e < E; e += stride) want[e] = q.slice(e * 32, e * 32 + 32).reduce((a, b) => a + b, 0);
      const out: Record<string, number[]> = {};
      for (const backend of backends) {
        const r = (await run(k, { nx, ny, stride, q: Float64Array.from(q), sums: Float64Array.from(sums) } as never, { backend } as never)) as Record<string, ArrayLike<number>>;
        out[backend] = Array.from(r.sums!);
        out[backend]!.forEach((g, i) => expect(Math.abs(g - want[i]!), `${backend}: sums[${i}]`).toBeLessThan(1e-12 * Math.max(1, Math.abs(want[i]!))));
      }
    }), { numRuns: 4, seed: 21 });
  });

  it("a division by zero in it is an ExecutionError naming it, before any launch", async () => {
    const k = parseOkl(swapHalves)[0]!;
    for (const backend of backends) {
      const list = new Float64Array(128).fill(1);
      await expect(run(k, { entries: 100, size: 0, list } as never, { backend } as never), backend).rejects.toThrow(ExecutionError);
      await expect(run(k, { entries: 100, size: 0, list } as never, { backend } as never), backend).rejects.toThrow(/argument "eo_end".*divides by zero \(size = 0\)/);
      expect(Array.from(list).every((x) => x === 1)).toBe(true);
    }
  });

  it("fixParameters of an argument it reads computes it from the fixed value", async () => {
    const k = fixParameters(parseOkl(swapHalves)[0]!, { size: 50 });
    expect(k.args.map((a) => a.name)).toEqual(["entries", "list", "eo_end"]);
    const list = seeded(192, 3);
    const want = list.slice();
    for (let eo = 0; eo < 3; eo++) for (let t = 0; t < 64; t++) want[eo * 64 + t] = list[eo * 64 + 63 - t]!;
    await onEvery(k, () => ({ entries: 101, list: Float64Array.from(list) }), { list: want });
  });

  it("passing it is an ExecutionError saying it is computed", async () => {
    const k = parseOkl(swapHalves)[0]!;
    await expect(run(k, { entries: 64, size: 64, eo_end: 5, list: new Float64Array(128) } as never, { backend: "interp" } as never)).rejects.toThrow(/"eo_end" is the bound of @outer loop "eo".*do not pass it/);
  });

  it("an @outer bound that reads memory still runs sequentially, refused in a nest with @shared memory", () => {
    const src = swapHalves.replace("const int entries,", "const int *entries,").replace("(entries + size - 1)", "(entries[0] + size - 1)");
    expect(() => parseOkl(src)).toThrow(/trip count is computed on the device/);
  });
});
