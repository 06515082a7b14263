/**
 * Issue 20: a plain loop holding barriers whose trip count is read from memory at the block's index
 * (`for (int r = 0; r < cnt[b]; ++r) { @barrier(); ... }`, `cnt` an array the kernel only reads): the
 * bound `r_trip` is assigned at group level, one value per work-group, and CPU targets compute it once per
 * group (cpu-hoist.ts). It was refused on c/openmp: the explicit barriers inside the loop are barrier
 * nodes of the schedule, not instruction ids of the device kernel, and were taken for "instructions of
 * another device kernel". The native bounds proof bounds such a kernel-computed bound by what the array
 * holds this run (src/run/bounds-data.ts) instead of refusing the run outright.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";
import { expectSerialMeaning } from "./real-world-helpers.js";

const T = 8;
const src = `
@kernel void layerSweep(const int Nblocks, const int *layers, const double *w, double *out) {
  for (int b = 0; b < Nblocks; ++b; @outer) {
    @shared double s_acc[${T}];
    for (int i = 0; i < ${T}; ++i; @inner) s_acc[i] = 0;
    for (int r = 0; r < layers[b]; ++r) {
      @barrier();
      for (int i = 0; i < ${T}; ++i; @inner) s_acc[i] += w[b] * (r + 1) + i;
    }
    @barrier();
    for (int i = 0; i < ${T}; ++i; @inner) out[b * ${T} + i] = s_acc[i];
  }
}`;

/** The serial meaning: every layer adds to every cell. */
function serial(layers: readonly number[], w: readonly number[]): number[] {
  const out: number[] = [];
  layers.forEach((n, b) => {
    let acc = new Array<number>(T).fill(0);
    for (let r = 0; r < n; r++) acc = acc.map((a, i) => a + w[b]! * (r + 1) + i);
    out.push(...acc);
  });
  return out;
}

describe("a loop around barriers whose trip count is read from memory at the block index", () => {
  const [k] = parseOkl(src, { filename: "layers.okl" });

  it("runs on every backend as the serial meaning (c/openmp compute the bound once per work-group)", async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 4 }),
      async (layers) => {
        const w = layers.map((_, b) => b + 0.25);
        const args = () => ({ Nblocks: layers.length, layers: Int32Array.from(layers), w: Float64Array.from(w), out: new Float64Array(layers.length * T) });
        await expectSerialMeaning(k!, args, { out: serial(layers, w) });
      }), { numRuns: 3 });
  });

  it("the native bounds proof leaves the computed bound free: in bounds for every value, so it runs checked", async () => {
    for (const backend of availableNative(["c"])) {
      const out = await run(k!, { Nblocks: 2, layers: Int32Array.from([1, 2]), w: Float64Array.from([1, 2]), out: new Float64Array(2 * T) }, { backend });
      expect(Array.from(out.out as Float64Array)).toEqual(serial([1, 2], [1, 2]));
    }
  });

  it("where the access depends on the computed bound, the proof uses what the index array holds this run: runs in bounds, refuses past them, saying why", async () => {
    const [bad] = parseOkl(src.replace("s_acc[i] += w[b] * (r + 1)", "s_acc[i] += w[r]"), { filename: "layers.okl" });
    for (const backend of availableNative(["c"])) {
      // r < layers[b] <= 2: w[r] stays inside the two elements of w.
      const ok = await run(bad!, { Nblocks: 2, layers: Int32Array.from([1, 2]), w: Float64Array.from([1, 2]), out: new Float64Array(2 * T) }, { backend });
      expect(Array.from(ok.out as Float64Array).slice(T)).toEqual(Array.from({ length: T }, (_, i) => 1 + i + 2 + i));
      await expect(run(bad!, { Nblocks: 1, layers: Int32Array.from([2]), w: Float64Array.from([1]), out: new Float64Array(T) }, { backend }))
        .rejects.toThrow(/reads w may be outside its bounds .*r can be >= 1 \(with what this run.s index arrays hold: layers holds 2…2\), so Loom cannot prove it inside 0…0/);
    }
  });
});
