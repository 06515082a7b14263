/**
 * Issue 20 (engineer F): `while` and `do … while` loops of an @outer body around @inner loops and
 * barriers (while-trips.ts, kernel-lockstep.ts). A block smoother in nekRS's and libParanumal's
 * style sweeps each element until the residual it reduces through @shared memory is small, capped
 * by `maxIter`: every work-item copies the reduced value into a private scalar (`res = s_res[0]` in
 * an @inner loop over the whole block), so the condition is one value for the group; the counter
 * `it` bounds the trips. Each kernel runs on interp and openmp against the serial meaning; what
 * cannot be bounded or proven uniform stays an OklError naming the loop and its line:column.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// Damped Jacobi on the 1-D Laplacian (2, -1, -1) of each element's p_Np nodes, until the squared
// residual norm is at most tol^2 or maxIter sweeps ran; the sweeps each element took go to iters.
const SMOOTH = `
#define p_Np 16
@kernel void blockSmooth(const dlong Nelements, const int maxIter, const dfloat tol,
                         @restrict const dfloat *b, @restrict dfloat *x, @restrict int *iters) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_x[p_Np];
    @shared dfloat s_r[p_Np];
    @shared dfloat s_res[1];
    for (int n = 0; n < p_Np; ++n; @inner(0)) s_x[n] = x[e*p_Np + n];
    dfloat res = 1e30;
    int it = 0;
    while (res > tol*tol && it < maxIter) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        const dfloat left = n > 0 ? s_x[n-1] : 0.0;
        const dfloat right = n < p_Np - 1 ? s_x[n+1] : 0.0;
        s_r[n] = b[e*p_Np + n] - (2.0*s_x[n] - left - right);
      }
      @barrier();
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        s_x[n] += (1.0/3.0)*s_r[n];
        if (n == 0) {
          dfloat s = 0;
          for (int m = 0; m < p_Np; ++m) s += s_r[m]*s_r[m];
          s_res[0] = s;
        }
      }
      @barrier();
      for (int n = 0; n < p_Np; ++n; @inner(0)) res = s_res[0];
      ++it;
    }
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      x[e*p_Np + n] = s_x[n];
      if (n == 0) iters[e] = it;
    }
  }
}`;

const DEFINES = { defines: { dfloat: "double", dlong: "int" } };
const N = 16;

/** The smoother's serial meaning: per element, C's loop (`doWhile`: the do-while form, its test after the sweep). */
function smoothSerial(E: number, maxIter: number, tol: number, b: readonly number[], x0: readonly number[], doWhile = false): { x: number[]; iters: number[] } {
  const x = [...x0];
  const iters: number[] = [];
  for (let e = 0; e < E; e++) {
    const s = x.slice(e * N, e * N + N);
    let res = 1e30, it = 0;
    const sweep = () => {
      const r = s.map((v, n) => b[e * N + n]! - (2 * v - (n > 0 ? s[n - 1]! : 0) - (n < N - 1 ? s[n + 1]! : 0)));
      r.forEach((v, n) => (s[n]! += (1 / 3) * v));
      res = r.reduce((a, v) => a + v * v, 0);
      it++;
    };
    if (doWhile) do sweep(); while (res > tol * tol && it < maxIter);
    else while (res > tol * tol && it < maxIter) sweep();
    s.forEach((v, n) => (x[e * N + n] = v));
    iters.push(it);
  }
  return { x, iters };
}

const kernels = new Map<string, ReturnType<typeof parseOkl>[number]>();

async function check(src: string, E: number, maxIter: number, tol: number, seed: number, doWhile = false): Promise<void> {
  if (!kernels.has(src)) kernels.set(src, parseOkl(src, DEFINES)[0]!);
  const b = seeded(E * N, seed), x0 = seeded(E * N, seed + 1).map((v) => v * 0.1);
  const want = smoothSerial(E, maxIter, tol, b, x0, doWhile);
  await expectSerialMeaning(kernels.get(src)!, () => ({ Nelements: E, maxIter, tol, b: Float64Array.from(b), x: Float64Array.from(x0), iters: new Int32Array(E) }), want, 1e-9);
}

describe("a while loop around @inner loops and barriers, bounded by its counter, leaving where a residual reduced through @shared is small", () => {
  it("sweeps each element as the serial meaning: stopped by the residual, by maxIter, or never run (maxIter <= 0)", async () => {
    await check(SMOOTH, 3, 40, 0.7, 1); // each element stops on its residual (3 to 40 sweeps)
    await check(SMOOTH, 2, 7, 1e-12, 2); // stops on maxIter
    await fc.assert(fc.asyncProperty(fc.integer({ min: -2, max: 12 }), fc.constantFrom(1e-12, 0.5, 1), fc.integer({ min: 1, max: 3 }), (maxIter, tol, E) => check(SMOOTH, E, maxIter, tol, maxIter + 5)), { numRuns: 3, seed: 20 });
  });

  it("lowers to every target", () => {
    const [k] = parseOkl(SMOOTH, DEFINES);
    for (const target of ["c", "openmp", "opencl", "cuda"] as const) expect(generateCode(k!, target).deviceCode).toMatch(/it_trip/);
  });

  it("a do-while loop runs its first trip whatever the condition, as C does", async () => {
    const doWhile = SMOOTH.replace("while (res > tol*tol && it < maxIter) {", "do {").replace("      ++it;\n    }", "      ++it;\n    } while (res > tol*tol && it < maxIter);");
    expect(doWhile).not.toBe(SMOOTH);
    await check(doWhile, 2, 30, 1, 3, true);
    await check(doWhile, 2, 0, 0.05, 4, true); // one trip although maxIter is 0
    await check(doWhile, 1, 5, 1e-12, 5, true);
  });

  it("a break and a continue inside the while loop's body, after the counter's update", async () => {
    // `if (it > maxIter - 2) break;` cuts the sweeps one short; the continue skips nothing after it.
    const src = SMOOTH.replace("    while (res > tol*tol && it < maxIter) {", "    while (res > tol*tol && it < maxIter) {\n      ++it;\n      if (it > maxIter - 1) break;\n      if (maxIter < 0) continue;")
      .replace("      ++it;\n    }\n    for", "    }\n    for");
    const [k] = parseOkl(src, DEFINES);
    const b = seeded(2 * N, 8), x0 = new Array<number>(2 * N).fill(0);
    // C: each trip increments first, so the sweeps are maxIter - 1 (or fewer, by the residual).
    const want = smoothSerial(2, 5, 1e-12, b, x0);
    const cut = smoothSerial(2, 4, 1e-12, b, x0);
    await expectSerialMeaning(k!, () => ({ Nelements: 2, maxIter: 5, tol: 1e-12, b: Float64Array.from(b), x: Float64Array.from(x0), iters: new Int32Array(2) }),
      { x: cut.x, iters: want.iters }, 1e-9);
  });
});

describe("while loops that cannot be bounded or proven uniform: OklErrors naming the loop and its line:column", () => {
  it("refuses a condition without a counter", () => {
    const src = SMOOTH.replace("while (res > tol*tol && it < maxIter) {", "while (res > tol*tol) {");
    expect(oklError(() => parseOkl(src, DEFINES)).message).toMatch(/^<okl>:12:12: a while loop at 12:5 holding @inner loops or barriers: .*its condition has no counter/);
  });

  it("refuses a counter updated under a condition, or after a continue", () => {
    const cond = SMOOTH.replace("      ++it;\n", "      if (res > 0) ++it;\n");
    expect(oklError(() => parseOkl(cond, DEFINES)).message).toMatch(/^<okl>:\d+:\d+: a while loop at 12:5 .*the counter "it" of its condition must change exactly once per trip/);
    const skipped = SMOOTH.replace("      @barrier();\n      for (int n = 0; n < p_Np; ++n; @inner(0)) res", "      @barrier();\n      if (maxIter > 3) continue;\n      for (int n = 0; n < p_Np; ++n; @inner(0)) res");
    expect(oklError(() => parseOkl(skipped, DEFINES)).message).toMatch(/a "continue" before the update of its counter "it" skips it/);
  });

  it("refuses a condition one work-item decides: the residual copied by work-item 0 only", () => {
    const one = SMOOTH.replace("@inner(0)) res = s_res[0];", "@inner(0)) if (n == 0) res = s_res[0];");
    expect(oklError(() => parseOkl(one, DEFINES)).message).toMatch(/^<okl>:12:12: the condition of the while loop at 12:5 .*reads the private variable "res", assigned from the work-item index "n(_\d+)?"/);
  });

  it("refuses a counter bound the loop changes", () => {
    const moving = SMOOTH.replace("const int maxIter", "int maxIter").replace("      ++it;\n", "      ++it;\n      maxIter = maxIter - 1;\n");
    expect(oklError(() => parseOkl(moving, DEFINES)).message).toMatch(/the bound of its counter "it" reads "maxIter", which the loop changes/);
  });
});
