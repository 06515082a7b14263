/**
 * Null tests of pointer arguments (issue 20; nekRS's optional arrays: `h1 ? h1[n] : 1`, `if (!b)`,
 * `b != NULL`, `b == nullptr`, `if (lambda1)` in a device function). A kernel's pointer argument may be
 * passed as null (`run(k, { b: null })`, a NULL pointer from a C host); whether it was is a value
 * argument the host computes (`b_passed`), which the test reads (src/okl/lower/null-tests.ts). An array
 * passed as null has no elements: a read the test does not guard is the interpreter's bounds error and
 * the native bounds proof's refusal, never a crash. Each kernel runs on interp, c, openmp and opencl
 * (PoCL; where they are available) with every
 * optional array passed and null, against its serial meaning. Before, every such test was refused
 * ("pointer used without a subscript"; `nullptr` as C++).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExecutionError } from "../../src/errors.js";
import { parseOkl } from "../../src/okl/index.js";
import { run } from "../../src/run/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { availableNative } from "../run/native-helpers.js";
import { oklError } from "./helpers.js";
import { seeded } from "./real-world-helpers.js";

const NP = 4;
const DEFINES = { defines: { dfloat: "double", dlong: "int", p_blockSize: 8, p_Np: NP } };
// cuda too where a GPU is present (CI has none).
const BACKENDS = ["interp", ...availableNative(["c", "openmp", "opencl", "cuda"])];

type Args = Record<string, Float64Array | Int32Array | number | null>;

/** `k` on every backend (bounds checked) gives `want` for each output. */
async function expectOn(k: Kernel, args: () => Args, want: Record<string, readonly number[]>): Promise<void> {
  for (const backend of BACKENDS) {
    const out = (await run(k, args() as never, { backend } as never)) as Record<string, ArrayLike<number>>;
    for (const [name, w] of Object.entries(want)) {
      const got = Array.from(out[name]!);
      w.forEach((x, i) => {
        if (Math.abs(got[i]! - x) > 1e-12 * Math.max(1, Math.abs(x))) expect(got[i], `${backend}: ${name}[${i}]`).toBe(x);
      });
    }
  }
}

// nekRS-style coefficient set-up: optional variable coefficients, defaults where an array is not given.
const COEFF = `
@kernel void setEllipticCoeff(const dlong N, const dfloat lambda0, const dlong offset,
                              @restrict const dfloat *h1, @restrict const dfloat *h2, @restrict dfloat *coeff) {
  for (dlong n = 0; n < N; ++n; @tile(p_blockSize, @outer, @inner)) {
    if (n < N) {
      coeff[n] = h1 ? h1[n] : 1.0;
      if (h2 != NULL) coeff[offset + n] = lambda0 * h2[n];
      else coeff[offset + n] = 0.0;
      if (!h1 && h2 == nullptr) coeff[n] = -1.0;
    }
  }
}`;

function coeffSerial(N: number, lambda0: number, h1: readonly number[] | null, h2: readonly number[] | null): number[] {
  const out = new Array<number>(2 * N).fill(0);
  for (let n = 0; n < N; n++) {
    out[n] = h1 ? h1[n]! : 1;
    out[N + n] = h2 ? lambda0 * h2[n]! : 0;
    if (!h1 && !h2) out[n] = -1;
  }
  return out;
}

// libParanumal-style element operator: a @shared copy of the element, a device function whose
// optional mass term tests its pointer parameter, and a local pointer into the optional array.
const AX = `
dfloat massTerm(const dfloat *lambda1, const dlong id, const dfloat q) {
  return lambda1 ? lambda1[id] * q : 0.0;
}
@kernel void ellipticAx(const dlong Nelements, @restrict const dfloat *D, @restrict const dfloat *lambda1,
                        @restrict const dfloat *wJ, @restrict const dfloat *q, @restrict dfloat *Aq) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_q[p_Np];
    for (int n = 0; n < p_Np; ++n; @inner(0)) s_q[n] = q[e*p_Np + n];
    @barrier();
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      const dfloat *w = wJ + e*p_Np;
      dfloat r = 0;
      for (int j = 0; j < p_Np; ++j) r += D[n*p_Np + j] * s_q[j];
      if (w) r *= w[n];
      r += massTerm(lambda1, e*p_Np + n, s_q[n]);
      Aq[e*p_Np + n] = r;
    }
  }
}`;

function axSerial(ne: number, D: readonly number[], lambda1: readonly number[] | null, wJ: readonly number[] | null, q: readonly number[]): number[] {
  const out: number[] = [];
  for (let e = 0; e < ne; e++) {
    for (let n = 0; n < NP; n++) {
      let r = 0;
      for (let j = 0; j < NP; j++) r += D[n * NP + j]! * q[e * NP + j]!;
      if (wJ) r *= wJ[e * NP + n]!;
      r += lambda1 ? lambda1[e * NP + n]! * q[e * NP + n]! : 0;
      out.push(r);
    }
  }
  return out;
}

describe("a pointer argument tested for NULL", () => {
  const [coeff] = parseOkl(COEFF, { filename: "coeff.okl", ...DEFINES });

  it("reads whether the array was passed: the serial meaning on interp, c, openmp and opencl, each array passed or null", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 1000 }), async (N, p1, p2, seed) => {
      const h1 = p1 ? seeded(N, seed) : null, h2 = p2 ? seeded(N, seed + 1) : null;
      const args = () => ({ N, lambda0: 0.25, offset: N, h1: h1 && Float64Array.from(h1), h2: h2 && Float64Array.from(h2), coeff: new Float64Array(2 * N) });
      await expectOn(coeff!, args, { coeff: coeffSerial(N, 0.25, h1, h2) });
    }), { numRuns: 6 });
  });

  it("the flag is a value argument the host computes from the array passed (not passed by the caller)", async () => {
    expect(coeff!.oklOptions?.derivedArgs?.map((d) => d.name)).toEqual(["h1_passed", "h2_passed"]);
    await expect(run(coeff!, { N: 1, lambda0: 1, offset: 1, h1: null, h2: null, h1_passed: 1, coeff: new Float64Array(2) } as never))
      .rejects.toThrow(/argument "h1_passed" is whether pointer argument "h1" was passed \(1\) or is NULL \(0\).*do not pass it/);
  });

  it("in a device function and through a local pointer into the argument, with @shared memory: interp, c, openmp and opencl", async () => {
    const [ax] = parseOkl(AX, { filename: "ax.okl", ...DEFINES });
    const ne = 3;
    const D = seeded(NP * NP, 3), q = seeded(ne * NP, 4), lam = seeded(ne * NP, 5), wJ = seeded(ne * NP, 6);
    for (const [l, w] of [[lam, wJ], [null, wJ], [lam, null], [null, null]] as const) {
      const args = () => ({ Nelements: ne, D: Float64Array.from(D), lambda1: l && Float64Array.from(l), wJ: w && Float64Array.from(w), q: Float64Array.from(q), Aq: new Float64Array(ne * NP) });
      await expectOn(ax!, args, { Aq: axSerial(ne, D, l, w, q) });
    }
  });

  it("reading an array passed as null where no test guards it stops with an ExecutionError (interp, c, openmp, opencl), never a crash", async () => {
    const [k] = parseOkl(COEFF.replace("coeff[n] = h1 ? h1[n] : 1.0;", "coeff[n] = h1[n];"), { filename: "coeff.okl", ...DEFINES });
    const args = { N: 3, lambda0: 1, offset: 3, h1: null, h2: Float64Array.from([1, 2, 3]), coeff: new Float64Array(6) };
    await expect(run(k!, args as never)).rejects.toThrow(/out of bounds for axis 0 of "h1" \(extent 0; an array passed as null has none\)/);
    for (const backend of BACKENDS.slice(1)) {
      const e = await run(k!, args as never, { backend } as never).then(() => undefined, (x: unknown) => x);
      expect(e, backend).toBeInstanceOf(ExecutionError);
      expect((e as Error).message).toMatch(/reads h1 outside its bounds .*h1 has no elements \(an array passed as null has none\), and the access is not guarded/);
    }
  });

  it("an optional output written under its test (maskCopy2's `if (out2) out2[id] = …`): null comes back with no elements", async () => {
    const [k] = parseOkl(`
@kernel void maskCopy2(const dlong N, @restrict const dfloat *in, @restrict dfloat *out, @restrict dfloat *out2) {
  for (dlong n = 0; n < N; ++n; @tile(p_blockSize, @outer, @inner)) {
    if (n < N) {
      out[n] = in[n];
      if (out2) out2[n] = 2.0 * in[n];
    }
  }
}`, { filename: "maskCopy2.okl", ...DEFINES });
    const N = 5, inp = seeded(N, 9);
    for (const backend of BACKENDS) {
      const withOut2 = (await run(k!, { N, in: Float64Array.from(inp), out: new Float64Array(N), out2: new Float64Array(N) } as never, { backend } as never)) as Record<string, Float64Array>;
      expect(Array.from(withOut2.out2!), backend).toEqual(inp.map((v) => 2 * v));
      const without = (await run(k!, { N, in: Float64Array.from(inp), out: new Float64Array(N), out2: null } as never, { backend } as never)) as Record<string, Float64Array>;
      expect([Array.from(without.out!), without.out2!.length], backend).toEqual([inp, 0]);
    }
  });

  it("a host-level if on a pointer argument chooses the @outer nest (OCCA tests it on the host): interp, c, openmp and opencl", async () => {
    const [k] = parseOkl(`
@kernel void maskedCopy(const dlong N, @restrict const dlong *mask, @restrict const dfloat *in, @restrict dfloat *out) {
  if (mask != NULL) {
    for (dlong n = 0; n < N; ++n; @tile(p_blockSize, @outer, @inner)) if (n < N) out[n] = mask[n] ? in[n] : 0.0;
  } else {
    for (dlong n = 0; n < N; ++n; @tile(p_blockSize, @outer, @inner)) if (n < N) out[n] = in[n];
  }
}`, { filename: "maskedCopy.okl", ...DEFINES });
    const N = 11, inp = seeded(N, 7), mask = inp.map((v) => (v > 0 ? 1 : 0));
    for (const m of [mask, null]) {
      const args = () => ({ N, mask: m && Int32Array.from(m), in: Float64Array.from(inp), out: new Float64Array(N) });
      await expectOn(k!, args, { out: inp.map((v, n) => (m && !m[n] ? 0 : v)) });
    }
  });

  it("what it cannot test is an OklError at its line:column", () => {
    const chosen = oklError(() => parseOkl(`
@kernel void k(const int N, const int flip, @restrict const double *a, @restrict const double *b, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    const double *p = flip ? a : b;
    y[n] = p ? p[n] : 0.0;
  }
}`, { filename: "chosen.okl" }));
    expect([chosen.line, chosen.column, chosen.message]).toEqual([5, 12, expect.stringMatching(/"p" is tested for NULL, but it is chosen at run time among several pointers/)]);
    const asValue = oklError(() => parseOkl(`
@kernel void k(const int N, @restrict const double *a, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) y[n] = a + 1;
}`, { filename: "value.okl" }));
    expect(asValue.message).toMatch(/value\.okl:3:\d+: pointer "a" used without a subscript \(a test for NULL is `if \(a\)`, `!a`/);
    // A null pointer constant other than in a test names itself, not "unknown identifier" or C++.
    const local = oklError(() => parseOkl(`
@kernel void k(const int N, @restrict const double *a, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) { const double *p = nullptr; y[n] = p ? p[n] : a[n]; }
}`, { filename: "local.okl" }));
    expect(local.message).toMatch(/local\.okl:3:\d+: "nullptr" given to pointer "p": Loom reads a null pointer only in a test of a pointer argument/);
  });
});
