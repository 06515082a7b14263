/**
 * Issue 20, the warp-shuffle files (libParanumal's `blockShflScan.okl`: a block scan whose warps scan
 * with `__shfl_up_sync` and whose warp 0 scans the warps' totals, and `trashCompactor`, a segment sum
 * by `__shfl_down_sync` after a strided `while` loop). A shuffle of a full mask over sub-groups of
 * `width` consecutive work-items of one @inner loop reads the partner's value through a @shared copy
 * and a barrier (warp-shuffles.ts), CUDA's meaning on every target. Kernels in that code's style run
 * on interp and openmp against their serial meaning; what has no one meaning is an OklError naming
 * the builtin and why.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { defines: { dfloat: "double", dlong: "int", scan_t: "int", SCAN_BLOCK_SIZE: "64" } };
const SIMD = 8;
const BLOCK = 64;

// blockShflScan's shape with sub-groups of 8 (p_SIMD) in blocks of 64, so that warp 0 scans the 8 totals.
const SCAN = `
#define MASK 0xffffffff
#define p_SIMD ${SIMD}
#define p_NWARPS (SCAN_BLOCK_SIZE/p_SIMD)
@kernel void blockShflScan(dlong N, const int *o_flags, scan_t *o_scana, scan_t *o_offsets){
  for(dlong b=0;b<(N+SCAN_BLOCK_SIZE-1)/SCAN_BLOCK_SIZE;++b;@outer(0)){
    @shared scan_t s_offsets[p_NWARPS];
    @exclusive scan_t x;
    @exclusive int l, w;
    @exclusive dlong n;
    for(int t=0;t<SCAN_BLOCK_SIZE;++t;@inner(0)){
      l = t%p_SIMD;
      w = t/p_SIMD;
      n = t + b*SCAN_BLOCK_SIZE;
      x = (n<N) ? o_flags[n] : 0;
      scan_t y;
      y = __shfl_up_sync(MASK, x, 1, p_SIMD); x += (l>=1) ? y : 0;
      y = __shfl_up_sync(MASK, x, 2, p_SIMD); x += (l>=2) ? y : 0;
      y = __shfl_up_sync(MASK, x, 4, p_SIMD); x += (l>=4) ? y : 0;
      if(l==p_SIMD-1) s_offsets[w] = x;
    }
    @barrier("local");
    for(int t=0;t<SCAN_BLOCK_SIZE;++t;@inner(0)){
      if(w==0){
        scan_t offx = s_offsets[l];
        scan_t y;
        y = __shfl_up_sync(MASK, offx, 1, p_SIMD); offx += (l>=1) ? y : 0;
        y = __shfl_up_sync(MASK, offx, 2, p_SIMD); offx += (l>=2) ? y : 0;
        y = __shfl_up_sync(MASK, offx, 4, p_SIMD); offx += (l>=4) ? y : 0;
        s_offsets[l] = offx;
      }
    }
    @barrier("local");
    for(int t=0;t<SCAN_BLOCK_SIZE;++t;@inner(0)){
      x += (w!=0) ? s_offsets[w-1]:0;
      if(n<N) o_scana[n] = x;
      if(t==SCAN_BLOCK_SIZE-1) o_offsets[b] = x;
    }
  }
}`;

// trashCompactor's shape: each segment [starts[s], starts[s+1]) summed by 32 work-items, then a tree of shuffles down.
const COMPACT = `
#define MASK 0xffffffff
#define p_SIMD 32
@kernel void trashCompactor(dlong N, dlong Nstarts, const dlong *o_starts, const dfloat *o_vals, dfloat *o_sums){
  for(dlong s=0;s<Nstarts;++s;@outer(0)){
    for(int t=0;t<p_SIMD;++t;@inner(0)){
      dlong id0 = o_starts[s];
      dlong id1 = (s<Nstarts-1) ? o_starts[s+1] : N;
      dlong n = id0 + t;
      dfloat val = 0;
      while(n<id1){
        val += o_vals[n];
        n+=p_SIMD;
      }
      dfloat y;
      y = __shfl_down_sync(MASK, val, 16, p_SIMD); val += (t<16) ? y : 0;
      y = __shfl_down_sync(MASK, val,  8, p_SIMD); val += (t< 8) ? y : 0;
      y = __shfl_down_sync(MASK, val,  4, p_SIMD); val += (t< 4) ? y : 0;
      y = __shfl_down_sync(MASK, val,  2, p_SIMD); val += (t< 2) ? y : 0;
      y = __shfl_down_sync(MASK, val,  1, p_SIMD); val += (t< 1) ? y : 0;
      if(t==0) o_sums[s] = val;
    }
  }
}`;

// A butterfly sum over sub-groups of 4 (`__shfl_xor_sync`), lane 3's input broadcast to its sub-group (`__shfl_sync`), and three
// shuffles in one expression (their copies alternate between two arrays: the third store waits for the first read).
const BUTTERFLY = `
@kernel void butterfly(const int Nblocks, const double *x, double *sum, double *last, double *three) {
  for (int b = 0; b < Nblocks; ++b; @outer) {
    for (int t = 0; t < 16; ++t; @inner) {
      const double v0 = x[b*16 + t];
      double v = v0;
      v += __shfl_xor_sync(0xffffffff, v, 1, 4);
      v += __shfl_xor_sync(0xffffffff, v, 2, 4);
      sum[b*16 + t] = v;
      last[b*16 + t] = __shfl_sync(0xffffffff, v0, 3, 4);
      three[b*16 + t] = __shfl_down_sync(0xffffffff, v0, 1, 4) + __shfl_down_sync(0xffffffff, 2.0*v0, 2, 4) + __shfl_down_sync(0xffffffff, 4.0*v0, 3, 4);
    }
  }
}`;

describe("CUDA warp shuffles as reads of a @shared copy", () => {
  it("blockShflScan: each block's inclusive scan through warp scans and warp 0's scan of their totals", async () => {
    const [k] = parseOkl(SCAN, DEFINES);
    for (const N of [150, 64, 7]) {
      const flags = seeded(N, N).map((v) => (v > 0 ? 1 : 0));
      const blocks = Math.ceil(N / BLOCK);
      const scana: number[] = [];
      const offsets: number[] = [];
      for (let b = 0; b < blocks; ++b) {
        let acc = 0;
        for (let t = 0; t < BLOCK; ++t) {
          const n = b * BLOCK + t;
          acc += n < N ? flags[n]! : 0;
          if (n < N) scana.push(acc);
        }
        offsets.push(acc);
      }
      await expectSerialMeaning(k!, () => ({ N, o_flags: Int32Array.from(flags), o_scana: new Int32Array(N), o_offsets: new Int32Array(blocks) }), { o_scana: scana, o_offsets: offsets }, 0, { checkBounds: false });
    }
  });

  it("trashCompactor: each segment's sum, strided over 32 work-items then reduced by shuffles down", async () => {
    const [k] = parseOkl(COMPACT, DEFINES);
    const N = 200;
    const vals = seeded(N, 3);
    const starts = [0, 3, 40, 41, 120, 199];
    const sums = starts.map((s, i) => vals.slice(s, i + 1 < starts.length ? starts[i + 1] : N).reduce((a, v) => a + v, 0));
    await expectSerialMeaning(k!, () => ({ N, Nstarts: starts.length, o_starts: Int32Array.from(starts), o_vals: Float64Array.from(vals), o_sums: new Float64Array(starts.length) }), { o_sums: sums }, 1e-12, { checkBounds: false });
  });

  it("__shfl_xor_sync and __shfl_sync: a sub-group's sum in every lane, a lane's value broadcast; three shuffles in one expression", async () => {
    const [k] = parseOkl(BUTTERFLY);
    const x = seeded(48, 5);
    const sum = x.map((_, i) => { const g = i - (i % 4); return x[g]! + x[g + 1]! + x[g + 2]! + x[g + 3]!; });
    const last = x.map((_, i) => x[i - (i % 4) + 3]!);
    const three = x.map((v, i) => [1, 2, 3].reduce((a, d) => a + 2 ** (d - 1) * ((i % 4) + d < 4 ? x[i + d]! : v), 0));
    await expectSerialMeaning(k!, () => ({ Nblocks: 3, x: Float64Array.from(x), sum: new Float64Array(48), last: new Float64Array(48), three: new Float64Array(48) }), { sum, last, three }, 1e-12, { checkBounds: false });
  });

  it("CUDA's warp-reduce idiom, a loop of compile-time bounds around the shuffle (unrolled), in two warps of a group", async () => {
    const [k] = parseOkl(`
@kernel void warpSums(const int N, const double *x, double *out) {
  for (int b = 0; b < N; ++b; @outer) {
    for (int t = 0; t < 64; ++t; @inner) {
      double v = x[b*64 + t];
      for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off, 32);
      if (t % 32 == 0) out[b*2 + t/32] = v;
    }
  }
}`);
    const x = seeded(128, 9);
    const out = [0, 1, 2, 3].map((w) => x.slice(32 * w, 32 * w + 32).reduce((a, v) => a + v, 0));
    await expectSerialMeaning(k!, () => ({ N: 2, x: Float64Array.from(x), out: new Float64Array(4) }), { out }, 1e-12, { checkBounds: false });
  });

  it("lowers to c, openmp, opencl and cuda: two @shared copies per type, a barrier before each partner read", () => {
    const [k] = parseOkl(COMPACT, DEFINES);
    for (const t of ["c", "openmp", "opencl"] as const) expect(generateCode(k!, t).deviceCode).not.toContain("__shfl");
    const cuda = generateCode(k!, "cuda").deviceCode;
    expect(cuda).toContain("__shared__ double shfl_copy_float64[32];");
    expect(cuda).toContain("__syncthreads()");
  });
});

describe("shuffles without one meaning on every target", () => {
  const kernel = (call: string, loop = "for (int t = 0; t < 32; ++t; @inner)") => `@kernel void warpSum(const int N, const int d, const double *x, double *out) {
  for (int b = 0; b < N; ++b; @outer) {
    ${loop} {
      double v = x[b*32 + t];
      v += ${call};
      out[b*32 + t] = v;
    }
  }
}`;
  const cases: [string, string][] = [
    ["__shfl_down_sync(0x0000ffff, v, 16, 32)", "its mask must be the constant 0xffffffff"],
    ["__shfl_down_sync(0xffffffff, v, 16)", "pass the width explicitly"],
    ["__shfl_down(v, 16)", "pass the width explicitly"],
    ["__shfl_down_sync(0xffffffff, v, 16, 64)", "its width must be a compile-time power of two from 1 to 32"],
    ["__shfl_up_sync(0xffffffff, v, d, 32)", "its delta must be a compile-time constant >= 0"],
    ["__shfl_xor_sync(0xffffffff, v, 8, 8)", "its lane mask 8 must be below the width 8"],
    ["__shfl_down(0xffffffff, v, 16, 32)", "takes 3 arguments"],
  ];
  it("is an OklError at the call naming the builtin and why", () => {
    fc.assert(fc.property(fc.constantFrom(...cases), ([call, why]) => {
      const e = oklError(() => parseOkl(kernel(call)));
      expect(e.message).toContain(`"${call.slice(0, call.indexOf("("))}" (a CUDA warp shuffle)`);
      expect(e.message).toContain(why);
      expect(e.line).toBe(5);
    }), { numRuns: 14 });
  });

  it("reached by only some lanes of a sub-group (issue 20: NaN on interp for the if, a defined-looking answer for the ?:), refused at the call", () => {
    const refused = [
      "0.0;\n      if (t < 4) v = __shfl_down_sync(0xffffffff, v, 4, 8)",
      "t < 4 ? __shfl_down_sync(0xffffffff, v, 1, 8) : v",
      "(t % 2 == 0 && __shfl_xor_sync(0xffffffff, v, 1, 8) > 0) ? 1.0 : 0.0",
      "0.0;\n      if (v > 0) v = __shfl_down_sync(0xffffffff, v, 4, 8)",
      // w holds t as it was when assigned, not the 0 a holds at the call.
      "0.0;\n      int a = t; int w = a; a = 0; if (w == 0) v = __shfl_down_sync(0xffffffff, v, 4, 8)",
    ];
    for (const call of refused) {
      const src = kernel(call);
      const line = src.split("\n").findIndex((l) => l.includes("__shfl"));
      const e = oklError(() => parseOkl(src));
      expect(e.message, call).toContain("may differ between the lanes of one sub-group of 8 work-items");
      expect(e.message).toContain("CUDA's result is undefined where only some lanes of a sub-group reach the shuffle. Accepted: a condition uniform over each sub-group");
      expect([e.line, e.column], call).toEqual([line + 1, src.split("\n")[line]!.indexOf("__shfl") + 1]);
    }
    expect(oklError(() => parseOkl(kernel(refused[0]!))).message).toContain("it holds for work-item 0 and not for work-item 4");
    // Uniform over each sub-group of 8: t < 16, the sub-group index (also through a private variable's last assignment), a value argument, both arms of an if.
    for (const ok of ["0.0;\n      int a = t; a = a / 8; if (a == 1) v = __shfl_down_sync(0xffffffff, v, 4, 8)", "t < 16 ? __shfl_down_sync(0xffffffff, v, 1, 8) : v", "(t / 8 == 1 || d > 0) ? __shfl_down_sync(0xffffffff, v, 1, 8) : v",
      "0.0;\n      if (t >= 8) v = __shfl_down_sync(0xffffffff, v, 4, 8); else v = __shfl_up_sync(0xffffffff, v, 1, 8)"]) expect(() => parseOkl(kernel(ok))).not.toThrow();
  });

  it("outside one @inner loop over a constant range from 0, or where lanes may not reach it together", () => {
    const call = "__shfl_down_sync(0xffffffff, v, 1, 8)";
    expect(oklError(() => parseOkl(kernel(call, "for (int t = 0; t < 36; ++t; @inner)"))).message).toContain("runs 36 work-items, not a multiple of the width 8");
    expect(oklError(() => parseOkl(kernel(call, "for (int t = 0; t < 32*N; ++t; @inner)"))).message).toContain("with L a compile-time constant");
    const inWhile = kernel(call).replace("v += __shfl", "int k = 0;\n      while (k < d) { v += __shfl").replace("1, 8);", "1, 8); ++k; }");
    expect(oklError(() => parseOkl(inWhile)).message).toContain("inside a loop run as one block of C (a while loop, a loop with break/continue or with bounds known only at run time, a device function with loops) is not supported: all lanes must reach it together");
    // The shuffle's copy and barrier make the nest one with @shared memory: a sibling @inner loop bounded by memory cannot run sequentially.
    const sibling = kernel(call).replace("out[b*32 + t] = v;\n    }", "out[b*32 + t] = v;\n    }\n    for (int j = 0; j < (int) x[b]; ++j; @inner) out[b*32 + j] += 1.0;");
    expect(oklError(() => parseOkl(sibling)).message).toContain("which is not supported in a nest with @shared memory or barriers");
    const runtimeLoop = kernel("0.0;\n      for (int off = d; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off, 32)");
    expect(oklError(() => parseOkl(runtimeLoop)).message).toContain("or in a loop with compile-time bounds, which is unrolled");
  });
});
