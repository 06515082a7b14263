/**
 * C99 math functions in imported OKL (issue 20): nekRS's level-set kernels call std::atanh (and
 * C99's log1p, expm1, cbrt, hypot, erfc, copysign, round in float and double spellings). A kernel in
 * that style runs on the interpreter and OpenMP and is compared with its serial meaning in TypeScript,
 * including the clip's ends where atanh(±1) = ±inf and cosh(±inf)^-2 = 0.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { expectSerialMeaning, realWorldBackends, seeded } from "./real-world-helpers.js";

const LEVEL_SET = `
#define dfloat double
#define p_blockSize 16
dfloat clip(const dfloat x, const dfloat lo, const dfloat hi) { return x < lo ? lo : (x > hi ? hi : x); }

@kernel void surfaceDensity(const int N, const dfloat eps, @restrict const dfloat *psi, @restrict dfloat *delta,
                            @restrict const float *u, @restrict float *mix) {
  for (int b = 0; b < (N + p_blockSize - 1) / p_blockSize; ++b; @outer(0)) {
    for (int t = 0; t < p_blockSize; ++t; @inner(0)) {
      const int i = b * p_blockSize + t;
      if (i < N) {
        const dfloat s = clip(2 * psi[i] - 1, -1.0, 1.0);
        delta[i] = std::pow(std::cosh(std::atanh(s)), -2) / (4 * eps) + asinh(s) - log1p(s) + expm1(s) + cbrt(s);
        const float v = u[i];
        mix[i] = atanhf(0.5f * v) + hypotf(v, 2.0f) + erfcf(v) + copysignf(1.5f, v) + roundf(4.0f * v) + truncf(3.0f * v) + exp2f(v) + acoshf(2.0f + v);
      }
    }
  }
}`;

const N = 37;
/** psi in [-0.25, 1.25): the clip reaches both ends (s = ±1 exactly at psi = 0 and 1, set below). */
const psi = Float64Array.from(seeded(N, 20).map((r) => 0.5 + 0.75 * r));
psi[0] = 0;
psi[1] = 1;
psi[2] = 0.5;
const u = Float32Array.from(seeded(N, 21).map((r) => 2 * r));
u[3] = 0.125; // 4u = 0.5: C's roundf gives 1 (half away from zero)
u[4] = -0.125; // -1 (Math.round would give -0)

const cRound = (x: number): number => (x < 0 ? -Math.floor(-x + 0.5) : Math.floor(x + 0.5));
const erfc = (x: number): number => {
  // erfc by the Taylor series of erf (|x| < 2 here, 1e-15 absolute is plenty for float32).
  let term = x, sum = x;
  for (let n = 1; n < 80; n++) { term *= (-x * x) / n; sum += term / (2 * n + 1); }
  return 1 - (2 * sum) / Math.sqrt(Math.PI);
};

describe("OKL: C99 math functions (atanh and the rest) keep C's meaning", () => {
  it("nekRS's cosh(atanh(clip(2 psi - 1)))^-2 level-set density, and the float spellings", async () => {
    const [k] = parseOkl(LEVEL_SET);
    const eps = 0.05;
    const delta = Array.from(psi, (p) => {
      const s = Math.min(1, Math.max(-1, 2 * p - 1));
      return Math.cosh(Math.atanh(s)) ** -2 / (4 * eps) + Math.asinh(s) - Math.log1p(s) + Math.expm1(s) + Math.cbrt(s);
    });
    const mix = Array.from(u, (v) => Math.atanh(0.5 * v) + Math.hypot(v, 2) + erfc(v) + (v < 0 ? -1.5 : 1.5)
      + cRound(4 * v) + Math.trunc(3 * v) + 2 ** v + Math.acosh(2 + v));
    // s = -1: log1p(-1) = -inf makes delta +inf, C's value; s = 1: atanh(1) = inf, cosh(inf)^-2 = 0.
    expect(delta[0]).toBe(Infinity);
    expect(Number.isFinite(delta[1]!)).toBe(true);
    await expectSerialMeaning(k!, () => ({ N, eps, psi: psi.slice(), delta: new Float64Array(N), u: u.slice(), mix: new Float32Array(N) }),
      { delta, mix }, 1e-5);
    // The infinite and zero terms exactly (a tolerance cannot see a wrong value next to inf).
    for (const backend of realWorldBackends()) {
      const out = await run(k!, { N, eps, psi: psi.slice(), delta: new Float64Array(N), u: u.slice(), mix: new Float32Array(N) } as never, { backend } as never);
      expect((out.delta as Float64Array)[0], backend).toBe(Infinity);
      expect((out.delta as Float64Array)[1], backend).toBeCloseTo(delta[1]!, 12);
    }
  }, 120_000);
});
