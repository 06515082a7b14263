/**
 * Issue 20 (engineer F): `while` and `do … while` loops of an @outer body around @inner loops and
 * barriers (while-trips.ts, kernel-lockstep.ts), in nekRS's and libParanumal's style. A block
 * relaxation sweeps each element with a damping factor that decays each sweep (read per element from
 * a `const` argument, updated in the @outer body: one value for the group), until it is small or
 * `maxIter` sweeps ran; the counter `it` bounds the trips (a `for` loop whose condition adds a test
 * to its header's comparison is the same). A smoother that stops on a residual reduced through @shared
 * memory, which every work-item copies into a private scalar (`res = s_res[0]` in an @inner loop over
 * the whole block), is uniform too. Each kernel runs on interp and openmp against the serial meaning;
 * what cannot be bounded or proven uniform stays an OklError naming the loop and its line:column.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// Damped Richardson sweeps on the 1-D Laplacian (2, -1, -1) of each element's p_Np nodes, the damping
// decaying by `decay` each sweep from the element's own omega0[e], until it is at most omegaMin or
// maxIter sweeps ran; the sweeps each element took go to iters.
const RELAX = `
#define p_Np 16
@kernel void blockRelax(const dlong Nelements, const int maxIter, @restrict const dfloat *omega0,
                        const dfloat decay, const dfloat omegaMin,
                        @restrict const dfloat *b, @restrict dfloat *x, @restrict int *iters) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_x[p_Np];
    @shared dfloat s_r[p_Np];
    for (int n = 0; n < p_Np; ++n; @inner(0)) s_x[n] = x[e*p_Np + n];
    dfloat omega = omega0[e];
    int it = 0;
    while (omega > omegaMin && it < maxIter) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        const dfloat left = n > 0 ? s_x[n-1] : 0.0;
        const dfloat right = n < p_Np - 1 ? s_x[n+1] : 0.0;
        s_r[n] = b[e*p_Np + n] - (2.0*s_x[n] - left - right);
      }
      @barrier();
      for (int n = 0; n < p_Np; ++n; @inner(0)) s_x[n] += 0.5*omega*s_r[n];
      @barrier();
      omega *= decay;
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

interface Relax { readonly maxIter: number; readonly omega0: readonly number[]; readonly decay: number; readonly omegaMin: number }

/** One sweep of element e's nodes `s` with damping `omega`: the squared norm of the residual before it. */
function sweep(s: number[], b: readonly number[], e: number, omega: number): number {
  const r = s.map((v, n) => b[e * N + n]! - (2 * v - (n > 0 ? s[n - 1]! : 0) - (n < N - 1 ? s[n + 1]! : 0)));
  r.forEach((v, n) => (s[n]! += omega * v));
  return r.reduce((a, v) => a + v * v, 0);
}

/** The relaxation's serial meaning: per element, C's loop (`doWhile`: the do-while form, its test after the sweep). */
function relaxSerial(p: Relax, b: readonly number[], x0: readonly number[], doWhile = false): { x: number[]; iters: number[] } {
  const x = [...x0];
  const iters = p.omega0.map((w0, e) => {
    const s = x.slice(e * N, e * N + N);
    let omega = w0, it = 0;
    const trip = () => { sweep(s, b, e, 0.5 * omega); omega *= p.decay; it++; };
    if (doWhile) do trip(); while (omega > p.omegaMin && it < p.maxIter);
    else while (omega > p.omegaMin && it < p.maxIter) trip();
    s.forEach((v, n) => (x[e * N + n] = v));
    return it;
  });
  return { x, iters };
}

const kernels = new Map<string, ReturnType<typeof parseOkl>[number]>();

async function checkRelax(src: string, p: Relax, seed: number, doWhile = false): Promise<void> {
  if (!kernels.has(src)) kernels.set(src, parseOkl(src, DEFINES)[0]!);
  const E = p.omega0.length;
  const b = seeded(E * N, seed), x0 = seeded(E * N, seed + 1).map((v) => v * 0.1);
  await expectSerialMeaning(kernels.get(src)!, () => ({
    Nelements: E, maxIter: p.maxIter, omega0: Float64Array.from(p.omega0), decay: p.decay, omegaMin: p.omegaMin,
    b: Float64Array.from(b), x: Float64Array.from(x0), iters: new Int32Array(E),
  }), relaxSerial(p, b, x0, doWhile), 1e-9);
}

describe("a while loop around @inner loops and barriers, bounded by its counter, leaving where a uniform condition fails", () => {
  it("sweeps each element as the serial meaning: stopped by the damping, by maxIter, or never run (maxIter <= 0)", async () => {
    await checkRelax(RELAX, { maxIter: 12, omega0: [0.9, 0.5, 0.05], decay: 0.8, omegaMin: 0.1 }, 1); // 10, 7 and 0 sweeps
    await fc.assert(fc.asyncProperty(fc.integer({ min: -2, max: 8 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 2 }), fc.constantFrom(0.5, 0.9),
      (maxIter, omega0, decay) => checkRelax(RELAX, { maxIter, omega0, decay, omegaMin: 0.2 }, maxIter + 5)), { numRuns: 2, seed: 20 });
  });

  it("lowers to every target", () => {
    const [k] = parseOkl(RELAX, DEFINES);
    for (const target of ["c", "openmp", "opencl", "cuda"] as const) expect(generateCode(k!, target).deviceCode).toMatch(/it_trip/);
  });

  it("a do-while loop runs its first trip whatever the condition, as C does", async () => {
    const doWhile = RELAX.replace("while (omega > omegaMin && it < maxIter) {", "do {").replace("      ++it;\n    }", "      ++it;\n    } while (omega > omegaMin && it < maxIter);");
    expect(doWhile).not.toBe(RELAX);
    await checkRelax(doWhile, { maxIter: 8, omega0: [0.9, 0.05], decay: 0.7, omegaMin: 0.1 }, 3, true);
    await checkRelax(doWhile, { maxIter: 0, omega0: [0.9, 0.6], decay: 0.7, omegaMin: 0.1 }, 4, true); // one trip although maxIter is 0
  });

  it("a for loop whose condition adds a test to its header's comparison: `it < maxIter && omega > omegaMin`", async () => {
    const forLoop = RELAX.replace("    int it = 0;\n    while (omega > omegaMin && it < maxIter) {", "    int sweeps = 0;\n    for (int it = 0; it < maxIter && omega > omegaMin; ++it) {")
      .replace("      ++it;\n    }", "      ++sweeps;\n    }").replace("iters[e] = it;", "iters[e] = sweeps;");
    expect(forLoop).toContain("++sweeps;\n    }");
    await checkRelax(forLoop, { maxIter: 9, omega0: [0.9, 0.5, 0.05], decay: 0.8, omegaMin: 0.1 }, 6); // 9 (capped), 7 and 0 sweeps
    const racy = forLoop.replace("omega > omegaMin; ++it", "x[e*p_Np] > omegaMin; ++it");
    expect(oklError(() => parseOkl(racy, DEFINES)).message).toMatch(/^<okl>:12:22: the condition of the for loop at 12:5 .*reads memory \("x"/);
  });

  it("a break and a continue inside the while loop's body, after the counter's update", async () => {
    // `if (it > maxIter - 1) break;` ends the loop before the last sweep; the continue never skips.
    const src = RELAX.replace("    while (omega > omegaMin && it < maxIter) {", "    while (omega > omegaMin && it < maxIter) {\n      ++it;\n      if (it > maxIter - 1) break;\n      if (maxIter < 0) continue;")
      .replace("      ++it;\n    }\n    for", "    }\n    for");
    const [k] = parseOkl(src, DEFINES);
    const b = seeded(2 * N, 8), x0 = new Array<number>(2 * N).fill(0);
    const p = { maxIter: 5, omega0: [0.9, 0.9], decay: 1, omegaMin: 0.1 };
    await expectSerialMeaning(k!, () => ({ Nelements: 2, maxIter: 5, omega0: Float64Array.from(p.omega0), decay: 1, omegaMin: 0.1, b: Float64Array.from(b), x: Float64Array.from(x0), iters: new Int32Array(2) }),
      { x: relaxSerial({ ...p, maxIter: 4 }, b, x0).x, iters: [5, 5] }, 1e-9);
  });
});

describe("while loops that cannot be bounded or proven uniform: OklErrors naming the loop and its line:column", () => {
  const refusal = (src: string) => oklError(() => parseOkl(src, DEFINES)).message;

  it("refuses a condition without a counter", () => {
    const src = RELAX.replace("while (omega > omegaMin && it < maxIter) {", "while (omega > omegaMin) {");
    expect(refusal(src)).toMatch(/^<okl>:12:12: a while loop at 12:5 holding @inner loops or barriers: .*its condition has no counter/);
  });

  it("refuses a counter updated under a condition, or after a continue", () => {
    const cond = RELAX.replace("      ++it;\n", "      if (omega > 0) ++it;\n");
    expect(refusal(cond)).toMatch(/^<okl>:\d+:\d+: a while loop at 12:5 .*the counter "it" of its condition must change exactly once per trip/);
    const skipped = RELAX.replace("      omega *= decay;\n", "      omega *= decay;\n      if (maxIter > 3) continue;\n");
    expect(refusal(skipped)).toMatch(/a "continue" before the update of its counter "it" skips it/);
  });

  it("refuses a counter bound the loop changes", () => {
    const moving = RELAX.replace("const int maxIter", "int maxIter").replace("      ++it;\n", "      ++it;\n      maxIter = maxIter - 1;\n");
    expect(refusal(moving)).toMatch(/the bound of its counter "it" reads "maxIter", which the loop changes/);
  });

  it("refuses a condition that reads memory the kernel writes, naming it", () => {
    const racy = RELAX.replace("while (omega > omegaMin && it < maxIter) {", "while (x[e*p_Np] > omegaMin && it < maxIter) {");
    expect(refusal(racy)).toMatch(/^<okl>:12:12: the condition of the while loop at 12:5 .*reads memory \("x", which is not a `const` argument the kernel only reads\)/);
  });
});

// A smoother that stops on its residual: reduced through @shared memory by work-item 0, then copied
// by every work-item into `res` (the same value for all), which the condition reads.
const SMOOTH = RELAX.replace("@restrict const dfloat *omega0,\n                        const dfloat decay, const dfloat omegaMin,", "const dfloat tol,")
  .replace("    @shared dfloat s_r[p_Np];\n", "    @shared dfloat s_r[p_Np];\n    @shared dfloat s_res[1];\n")
  .replace("    dfloat omega = omega0[e];\n", "    dfloat res = 1e30;\n")
  .replace("while (omega > omegaMin && it < maxIter) {", "while (res > tol*tol && it < maxIter) {")
  .replace("for (int n = 0; n < p_Np; ++n; @inner(0)) s_x[n] += 0.5*omega*s_r[n];", `for (int n = 0; n < p_Np; ++n; @inner(0)) {
        s_x[n] += (1.0/3.0)*s_r[n];
        if (n == 0) {
          dfloat s = 0;
          for (int m = 0; m < p_Np; ++m) s += s_r[m]*s_r[m];
          s_res[0] = s;
        }
      }`)
  .replace("      omega *= decay;\n", "      for (int n = 0; n < p_Np; ++n; @inner(0)) res = s_res[0];\n");

describe("a residual reduced through @shared memory and copied by every work-item is uniform", () => {
  const lowered = (src: string) => parseOkl(src, DEFINES)[0]!;

  it("sweeps each element until its residual is small, as the serial meaning", async () => {
    expect(SMOOTH).toContain("res = s_res[0];");
    const E = 3, maxIter = 12, tol = 1;
    const b = seeded(E * N, 1), x0 = seeded(E * N, 2).map((v) => v * 0.1);
    const x = [...x0];
    const iters = [0, 1, 2].map((e) => {
      const s = x.slice(e * N, e * N + N);
      let res = 1e30, it = 0;
      while (res > tol * tol && it < maxIter) { res = sweep(s, b, e, 1 / 3); it++; }
      s.forEach((v, n) => (x[e * N + n] = v));
      return it;
    });
    expect(new Set(iters).size).toBeGreaterThan(1); // the elements stop at different sweeps
    await expectSerialMeaning(lowered(SMOOTH), () => ({ Nelements: E, maxIter, tol, b: Float64Array.from(b), x: Float64Array.from(x0), iters: new Int32Array(E) }), { x, iters }, 1e-9);
  });

  it("refuses the residual copied by work-item 0 only, naming the variable and the work-item index", () => {
    const one = SMOOTH.replace("@inner(0)) res = s_res[0];", "@inner(0)) if (n == 0) res = s_res[0];");
    expect(oklError(() => lowered(one)).message).toMatch(/^<okl>:12:12: the condition of the while loop at 12:5 .*reads the private variable "res", assigned from the work-item index "n(_\d+)?"/);
  });
});
