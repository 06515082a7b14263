/**
 * Issue 20, warp shuffles in a nest of several @inner axes (libParanumal's `linAlgWeightedInnerProd`:
 * `w` warps on @inner(1) by `t` lanes on @inner(0), each warp reducing with `__shfl_down_sync`, warp 0
 * then reducing the warps' sums). CUDA numbers lanes by the linear thread index `x + Dx*(y + Dy*z)`
 * (@inner(0) is x), so a sub-group may span rows of the x axis; Loom's @shared copy is indexed by that
 * linear index (warp-shuffles.ts). Kernels in that style run on interp and openmp against their serial
 * meaning; what has no one meaning stays an OklError.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// linAlgWeightedInnerProd's shape with 4 warps of 16 (its dfloat res strided over the blocks, the warps'
// sums in s_dot, warp 0 reducing them; the real file reads s_dot[t] for every t < p_SIMD, past s_dot's end).
const WEIGHTED = `
#define p_SIMD 16
#define p_NW 4
@kernel void weightedInnerProd(const int NB, const int N, @restrict const dfloat *ww, @restrict const dfloat *x,
                               @restrict const dfloat *y, @restrict dfloat *dot){
  for(int b=0;b<NB;++b;@outer(0)){
    @shared dfloat s_dot[p_NW];
    for(int w=0;w<p_NW;++w;@inner(1)){
      for(int t=0;t<p_SIMD;++t;@inner(0)){
        dfloat res = 0;
        int n = t + p_SIMD*w + b*p_NW*p_SIMD;
        while(n<N){
          res += ww[n]*x[n]*y[n];
          n += p_NW*p_SIMD*NB;
        }
        res += __shfl_down_sync(0xFFFFFFFF, res, 8, p_SIMD);
        res += __shfl_down_sync(0xFFFFFFFF, res, 4, p_SIMD);
        res += __shfl_down_sync(0xFFFFFFFF, res, 2, p_SIMD);
        res += __shfl_down_sync(0xFFFFFFFF, res, 1, p_SIMD);
        if(t==0)
          s_dot[w] = res;
      }
    }
    @barrier("local");
    for(int w=0;w<p_NW;++w;@inner(1)){
      for(int t=0;t<p_SIMD;++t;@inner(0)){
        if(w==0){
          dfloat res = (t<p_NW) ? s_dot[t] : 0;
          res += __shfl_down_sync(0xFFFFFFFF, res, 2, p_SIMD);
          res += __shfl_down_sync(0xFFFFFFFF, res, 1, p_SIMD);
          if(t==0)
            dot[b] = res;
        }
      }
    }
  }
}`;

// Sub-groups of 8 over a 4 x 2 x 2 group: each spans two rows of x (and the z axis splits the group in two).
const SPANNING = `
@kernel void spanning(const int Nblocks, const double *x, double *sum, double *prev, double *first) {
  for (int b = 0; b < Nblocks; ++b; @outer) {
    for (int k = 0; k < 2; ++k; @inner(2)) {
      for (int j = 0; j < 2; ++j; @inner(1)) {
        for (int i = 0; i < 4; ++i; @inner(0)) {
          const int id = b*16 + k*8 + j*4 + i;
          const double v = x[id];
          double s = v;
          s += __shfl_xor_sync(0xffffffff, s, 1, 8);
          s += __shfl_xor_sync(0xffffffff, s, 2, 8);
          s += __shfl_xor_sync(0xffffffff, s, 4, 8);
          sum[id] = s;
          prev[id] = __shfl_up_sync(0xffffffff, v, 3, 8);
          first[id] = __shfl_sync(0xffffffff, v, 0, 8);
        }
      }
    }
  }
}`;

describe("warp shuffles in a nest of several @inner axes: lanes are linear thread indices, x fastest", () => {
  it("linAlgWeightedInnerProd: each block's weighted dot product through warp reductions and warp 0's", async () => {
    const [k] = parseOkl(WEIGHTED, { defines: { dfloat: "double" } });
    const [NB, N] = [3, 500];
    const [ww, x, y] = [seeded(N, 1), seeded(N, 2), seeded(N, 3)];
    const dot = Array.from({ length: NB }, (_, b) => {
      let acc = 0;
      for (let n = 0; n < N; ++n) if (Math.floor(n / 64) % NB === b) acc += ww[n]! * x[n]! * y[n]!;
      return acc;
    });
    await expectSerialMeaning(k!, () => ({ NB, N, ww: Float64Array.from(ww), x: Float64Array.from(x), y: Float64Array.from(y), dot: new Float64Array(NB) }), { dot }, 1e-12, { checkBounds: false });
  });

  it("sub-groups spanning rows of x and a z axis: xor, up and indexed shuffles at the linear index", async () => {
    const [k] = parseOkl(SPANNING);
    const x = seeded(32, 4);
    const base = (id: number) => id - (id % 8);
    const sum = x.map((_, id) => x.slice(base(id), base(id) + 8).reduce((a, v) => a + v, 0));
    const prev = x.map((v, id) => (id % 8 >= 3 ? x[id - 3]! : v));
    const first = x.map((_, id) => x[base(id)]!);
    await expectSerialMeaning(k!, () => ({ Nblocks: 2, x: Float64Array.from(x), sum: new Float64Array(32), prev: new Float64Array(32), first: new Float64Array(32) }), { sum, prev, first }, 1e-12, { checkBounds: false });
  });

  it("refused: a group whose size is no multiple of the width, and a call outside some axis of its group", () => {
    const e = oklError(() => parseOkl(SPANNING.replace("i < 4", "i < 3")));
    expect(e.message).toContain("\"__shfl_xor_sync\" (a CUDA warp shuffle): the @inner loops around it run 12 work-items, not a multiple of the width 8");
    expect(e.line).toBe(10);
    // Nests on axes (2, 0) and (1, 0): the group is 16 x 2 x 2, and the second nest's lanes would ignore z.
    const otherAxes = `
@kernel void otherAxes(const int N, const double *x, double *out) {
  for (int b = 0; b < N; ++b; @outer) {
    for (int k = 0; k < 2; ++k; @inner(2)) for (int i = 0; i < 16; ++i; @inner(0)) out[b*32 + k*16 + i] = x[b*32 + k*16 + i];
    @barrier("local");
    for (int j = 0; j < 2; ++j; @inner(1)) for (int i = 0; i < 16; ++i; @inner(0))
      out[b*32 + j*16 + i] += __shfl_down_sync(0xffffffff, x[b*32 + j*16 + i], 1, 8);
  }
}`;
    const f = oklError(() => parseOkl(otherAxes));
    expect(f.message).toContain("the work-group also runs @inner axis 2, which no loop around the call has");
    expect(f.line).toBe(7);
  });
});
