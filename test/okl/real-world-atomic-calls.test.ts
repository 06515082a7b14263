/**
 * CUDA's atomic functions as statements (issue 20): libParanumal's multi-right-hand-side reductions
 * end with `atomicAdd(wxy + fld, res)`, which OCCA hands to the CUDA/HIP compiler; Loom reads it as
 * the `@atomic` update it is. Kernels in that style run on interp and openmp against their serial
 * meaning; a file's own `atomicAdd` stays an ordinary call.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { dfloat: "double", dlong: "int", p_blockSize: 8, p_Nrhs: 3 };

// Weighted inner products of one x with p_Nrhs vectors: a block tree reduction, then one atomic per rhs.
const MULTI_DOT = `
@kernel void multiWeightedDot(const dlong N, @restrict const dfloat *w, @restrict const dfloat *x,
                              @restrict const dfloat *y, @restrict dfloat *wxy) {
  for (dlong b = 0; b < (N + p_blockSize - 1) / p_blockSize; ++b; @outer(0)) {
    @shared dfloat s_wxy[p_Nrhs][p_blockSize];
    for (int t = 0; t < p_blockSize; ++t; @inner(0)) {
      const dlong id = t + p_blockSize*b;
      for (int fld = 0; fld < p_Nrhs; ++fld)
        s_wxy[fld][t] = (id < N) ? w[id]*x[id]*y[id + fld*N] : 0;
    }
    for (int alive = p_blockSize/2; alive > 0; alive /= 2) {
      for (int t = 0; t < p_blockSize; ++t; @inner(0))
        if (t < alive) for (int fld = 0; fld < p_Nrhs; ++fld) s_wxy[fld][t] += s_wxy[fld][t + alive];
    }
    for (int t = 0; t < p_blockSize; ++t; @inner(0)) {
      if (t < p_Nrhs) {
        const dfloat res = s_wxy[t][0];
        atomicAdd(wxy + t, res);
      }
      if (t == 0) atomicAdd(&wxy[p_Nrhs], (dfloat) 1);
    }
  }
}`;

describe("atomicAdd(p, v) statements are @atomic updates", () => {
  it("a multi-rhs weighted inner product with one atomicAdd per rhs agrees with the serial meaning", async () => {
    const [k] = parseOkl(MULTI_DOT, { defines: DEFINES });
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 30 }), async (N) => {
      const w = seeded(N, 1), x = seeded(N, 2), y = seeded(3 * N, N);
      const want = [0, 1, 2].map((f) => w.reduce((acc, wi, i) => acc + wi * x[i]! * y[i + f * N]!, 0));
      want.push(Math.ceil(N / 8));
      await expectSerialMeaning(k!, () => ({ N, w: Float64Array.from(w), x: Float64Array.from(x), y: Float64Array.from(y), wxy: new Float64Array(4) }),
        { wxy: Float64Array.from(want) }, 1e-12);
    }), { numRuns: 4 });
  });

  it("atomicSub/atomicExch on a plain pointer and an element; a file's own atomicAdd stays a call", async () => {
    const [k] = parseOkl(`@kernel void f(const int n, int *count, int *flag) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { atomicSub(count, 2); atomicExch(&flag[i % 2], 7); } }`);
    await expectSerialMeaning(k!, () => ({ n: 9, count: Int32Array.from([100]), flag: new Int32Array(2) }), { count: [82], flag: [7, 7] }, 0);
    const [own] = parseOkl(`double atomicAdd(double *p, double v) { return v + 1; }
@kernel void g(const int n, double *y) { for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) y[i] = atomicAdd(y + i, 2.0); }`);
    await expectSerialMeaning(own!, () => ({ n: 5, y: new Float64Array(5) }), { y: [3, 3, 3, 3, 3] }, 0);
    expect(own!.instructions.length).toBeGreaterThan(0);
  });
});
