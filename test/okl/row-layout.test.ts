/**
 * Subscripts past a row of a multi-dimensional @shared array, as finite-element codes prefetch
 * geometric factors (`s_vgeo[0][t]` with `t` running over every element of the block): C's
 * row-major layout, which OCCA's backends follow, is what Loom reads too, with a warning (an
 * OklError under `warnings: "error"`). Run on interp and openmp against the serial meaning.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { p_NblockV: 2, p_Nvgeo: 5, p_Np: 3, p_RXID: 1, p_SYID: 4 };

/** A coalesced prefetch of the block's factors through row 0 (a while loop: an opaque block), then a use per element. */
const PREFETCH = `
@kernel void gradientPrefetch(const int Nelements, @restrict const double *vgeo, @restrict const double *q, @restrict double *out) {
  for (int eo = 0; eo < Nelements; eo += p_NblockV; @outer(0)) {
    @shared double s_vgeo[p_NblockV][p_Nvgeo];
    for (int es = 0; es < p_NblockV; ++es; @inner(1)) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        int t = n + p_Np * es;
        while (t < p_Nvgeo * p_NblockV) {
          if (eo * p_Nvgeo + t < Nelements * p_Nvgeo) s_vgeo[0][t] = vgeo[eo * p_Nvgeo + t];
          t += p_NblockV * p_Np;
        }
      }
    }
    for (int es = 0; es < p_NblockV; ++es; @inner(1)) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        const int e = eo + es;
        if (e < Nelements) out[e * p_Np + n] = s_vgeo[es][p_RXID] * q[e * p_Np + n] + s_vgeo[es][p_SYID];
      }
    }
  }
}
`;

/** An affine read past the row: `s[0][j]` for j up to 2*p_Np - 1, from an @inner loop over both rows. */
const AFFINE = `
@kernel void rowPair(const int Nelements, @restrict const double *q, @restrict double *out) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    @shared double s_q[2][p_Np];
    for (int j = 0; j < 2 * p_Np; ++j; @inner(0)) {
      s_q[0][j] = q[e * 2 * p_Np + j];
    }
    for (int j = 0; j < 2 * p_Np; ++j; @inner(0)) {
      out[e * 2 * p_Np + j] = s_q[1][(j + 1) % p_Np] - s_q[j / p_Np][j % p_Np];
    }
  }
}
`;

describe("a subscript past a row of a @shared array reads C's row-major layout", () => {
  it("the coalesced prefetch through row 0 runs on interp and openmp as C means it, with a warning naming the line", async () => {
    const ks = lp.parseOkl(PREFETCH, { defines: DEFINES });
    expect(ks.warnings.map((w) => [w.line, w.rule])).toEqual([[9, "OCCA leniency"]]);
    expect(ks.warnings[0]!.detail).toMatch(/subscript 2 of array "s_vgeo" \(2 × 5\) is not shown to stay within its row of 5/);
    const Nelements = 5, Np = 3, Nvgeo = 5;
    const vgeo = Float64Array.from(seeded(Nelements * Nvgeo, 1)), q = Float64Array.from(seeded(Nelements * Np, 2));
    const want = new Float64Array(Nelements * Np);
    for (let e = 0; e < Nelements; e++) for (let n = 0; n < Np; n++) want[e * Np + n] = vgeo[e * Nvgeo + 1]! * q[e * Np + n]! + vgeo[e * Nvgeo + 4]!;
    await expectSerialMeaning(ks[0]!, () => ({ Nelements, vgeo, q, out: new Float64Array(Nelements * Np) }), { out: want }, 1e-12, { checkBounds: false });
  });

  it("an affine subscript past the row is named with its range, and runs as C means it", async () => {
    const ks = lp.parseOkl(AFFINE, { defines: DEFINES });
    expect(ks.warnings.map((w) => w.line)).toEqual([6]);
    expect(ks.warnings[0]!.detail).toMatch(/subscript 2 of array "s_q" \(2 × 3\) runs from 0 to 5, past its row of 3/);
    const Nelements = 3, M = 6;
    const q = Float64Array.from(seeded(Nelements * M, 3));
    const want = new Float64Array(Nelements * M);
    for (let e = 0; e < Nelements; e++) for (let j = 0; j < M; j++) want[e * M + j] = q[e * M + 3 + ((j + 1) % 3)]! - q[e * M + j]!;
    await expectSerialMeaning(ks[0]!, () => ({ Nelements, q, out: new Float64Array(Nelements * M) }), { out: want }, 1e-12);
  });

  it("is an OklError at the access under warnings: \"error\" (C's rules)", () => {
    const err = oklError(() => lp.parseOkl(PREFETCH, { defines: DEFINES, warnings: "error" }));
    expect([err.line, err.rule]).toEqual([9, "OCCA leniency"]);
  });

  it("subscripts shown within their rows (inames, and private indices assigned from them) keep the array's dims, without a warning", () => {
    const src = `@kernel void blockAx(const int Nelements, @restrict const double *q, @restrict double *out) {
  for (int eo = 0; eo < Nelements; eo += 2; @outer(0)) {
    @shared double s_q[2][p_Np][p_Np];
    @exclusive int k, es;
    for (int ke = 0; ke < 2 * p_Np; ++ke; @inner(1)) {
      for (int i = 0; i < p_Np; ++i; @inner(0)) {
        k = ke % p_Np;
        es = ke / p_Np;
        if (eo + es < Nelements) s_q[es][k][i] = q[(eo + es) * p_Np * p_Np + k * p_Np + i];
      }
    }
    for (int ke = 0; ke < 2 * p_Np; ++ke; @inner(1)) {
      for (int i = 0; i < p_Np; ++i; @inner(0)) {
        if (eo + es < Nelements) out[(eo + es) * p_Np * p_Np + k * p_Np + i] = s_q[es][i][k];
      }
    }
  }
}`;
    const ks = lp.parseOkl(src, { defines: DEFINES });
    expect(ks.warnings).toEqual([]);
    expect(ks[0]!.temporaries.find((t) => t.name === "s_q")!.shape.length).toBe(3);
  });
});
