/**
 * Issue 20, warp shuffles inside a sequential loop around the @inner loops (a norm per field, each
 * field's warp reduced by `__shfl_down_sync`, nekRS-style `for (fld …)` around the nest; a `while`
 * loop over fields with one shuffle per trip). Every work-item of the group runs such a loop's trips
 * together, so the @shared copies' barriers are reached by all; the schedule's loop-carried barrier
 * keeps the next trip's store from the previous trip's read (warp-shuffles.ts). Run on interp and
 * openmp against the serial meaning; a loop inside the @inner loops stays an OklError.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// Five shuffles per trip: the copies alternate A B A B A, so trip j+1's first store hits trip j's last copy read.
const NORMS = `
#define p_SIMD 32
@kernel void fieldNorms(const int Nblocks, const int Nfields, const int N, const dfloat *u, dfloat *norms) {
  for (int b = 0; b < Nblocks; ++b; @outer) {
    for (int fld = 0; fld < Nfields; ++fld) {
      for (int t = 0; t < p_SIMD; ++t; @inner) {
        const int n = b*p_SIMD + t;
        dfloat v = (n < N) ? u[n + fld*N]*u[n + fld*N] : 0;
        v += __shfl_down_sync(0xffffffff, v, 16, p_SIMD);
        v += __shfl_down_sync(0xffffffff, v,  8, p_SIMD);
        v += __shfl_down_sync(0xffffffff, v,  4, p_SIMD);
        v += __shfl_down_sync(0xffffffff, v,  2, p_SIMD);
        v += __shfl_down_sync(0xffffffff, v,  1, p_SIMD);
        if (t == 0) norms[b*Nfields + fld] = v;
      }
    }
  }
}`;

// One shuffle per trip of a while loop over the fields: each lane takes its right neighbour's value in a sub-group of 8.
const SHIFTS = `
@kernel void fieldShifts(const int Nblocks, const int Nfields, const double *u, double *out) {
  for (int b = 0; b < Nblocks; ++b; @outer) {
    int fld = 0;
    while (fld < Nfields) {
      for (int t = 0; t < 16; ++t; @inner) {
        const int id = (b*Nfields + fld)*16 + t;
        out[id] = __shfl_down_sync(0xffffffff, u[id], 1, 8);
      }
      ++fld;
    }
  }
}`;

describe("warp shuffles in a loop around the @inner loops", () => {
  const norms = (u: number[], nb: number, nf: number, n: number) =>
    Array.from({ length: nb * nf }, (_, i) => {
      const [b, f] = [Math.floor(i / nf), i % nf];
      let acc = 0;
      for (let t = 0; t < 32; ++t) if (b * 32 + t < n) acc += u[b * 32 + t + f * n]! ** 2;
      return acc;
    });

  it("a norm per field: five shuffles per trip of a for loop", async () => {
    const [k] = parseOkl(NORMS, { defines: { dfloat: "double" } });
    const [nb, nf, n] = [3, 3, 80];
    const u = seeded(n * nf, 7);
    await expectSerialMeaning(k!, () => ({ Nblocks: nb, Nfields: nf, N: n, u: Float64Array.from(u), norms: new Float64Array(nb * nf) }), { norms: norms(u, nb, nf, n) }, 1e-12, { checkBounds: false });
  });

  it("one shuffle per trip of a while loop: the next trip's copy waits for this trip's reads", async () => {
    const [k] = parseOkl(SHIFTS);
    const [nb, nf] = [2, 3];
    const u = seeded(nb * nf * 16, 8);
    const out = u.map((v, id) => (id % 8 < 7 ? u[id + 1]! : v));
    await expectSerialMeaning(k!, () => ({ Nblocks: nb, Nfields: nf, u: Float64Array.from(u), out: new Float64Array(u.length) }), { out }, 0, { checkBounds: false });
  });

  it("refused: a loop within the @inner loop around the call (its trips could differ between lanes)", () => {
    const inside = NORMS.replace("v += __shfl_down_sync(0xffffffff, v, 16, p_SIMD);", "for (int r = 0; r < Nfields; ++r) v += __shfl_down_sync(0xffffffff, v, 16, p_SIMD);");
    const e = oklError(() => parseOkl(inside, { defines: { dfloat: "double" } }));
    expect(e.message).toContain("\"__shfl_down_sync\" (a CUDA warp shuffle): a shuffle inside a loop within the @inner loops is not supported");
    expect(e.line).toBe(9);
  });
});
