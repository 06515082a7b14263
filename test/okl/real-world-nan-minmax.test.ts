/**
 * fmin/fmax are C's on every backend (issue 20, found by the re-measure on nekRS's k-tau model
 * kernel): a NaN operand is ignored, so `fmin(8*mue*xtq, tauMax)` with xtq NaN (sqrt of a negative
 * tau) is tauMax on interp and js as in the C code of the native targets. Before, the interpreter
 * and js used Math.min, which gives NaN, and disagreed with openmp.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";
import { run } from "../../src/run/index.js";

const SRC = `
@kernel void tauSource(const dlong N, const dfloat mue, @restrict const dfloat *TAU, @restrict const dfloat *K, @restrict dfloat *SRC) {
  for (dlong n = 0; n < N; ++n; @tile(p_blockSize, @outer, @inner)) {
    const dfloat tau = TAU[n];
    const dfloat xtq = sqrt(tau) * K[n];
    const dfloat tauMax = 8.0 * 0.0708 / 3.0;
    SRC[n] = fmin(8.0 * mue * xtq, tauMax) + fmax(K[n] / tau, -1.0);
  }
}`;

/** C's fmin/fmax. */
const cmin = (a: number, b: number) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.min(a, b));
const cmax = (a: number, b: number) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));

describe("fmin/fmax ignore a NaN operand on every backend, as C's do", () => {
  it("a k-tau source term with negative tau (NaN square roots) agrees with C's meaning", async () => {
    const [k] = parseOkl(SRC, { defines: { dfloat: "double", dlong: "int", p_blockSize: 8 } });
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 50 }), async (N, seed) => {
      const tau = seeded(N, seed).map((t, i) => (i % 3 === 0 ? 0 : t)), kk = seeded(N, seed + 1);
      const want = Float64Array.from(tau, (t, i) => cmin(8 * 0.3 * (Math.sqrt(t) * kk[i]!), (8 * 0.0708) / 3) + cmax(kk[i]! / t, -1));
      await expectSerialMeaning(k!, () => ({ N, mue: 0.3, TAU: Float64Array.from(tau), K: Float64Array.from(kk), SRC: new Float64Array(N) }), { SRC: want }, 1e-14);
      const js = (await run(k!, { N, mue: 0.3, TAU: Float64Array.from(tau), K: Float64Array.from(kk), SRC: new Float64Array(N) } as never, { backend: "js" } as never)) as { SRC: Float64Array };
      expect(Array.from(js.SRC)).toEqual(Array.from(want));
    }), { numRuns: 4 });
  });
});
