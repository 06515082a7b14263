/**
 * OCCA's example `25_iso3dfd_okl_shared` (examples/cpp/25_iso3dfd_okl_shared/isokernel.okl, with the
 * define its host passes: `WGSX` = the work-group size along x, `n1` here, as main.cpp's default
 * `n1_Tblock = n1`). The `@inner` loops over the run-time `n1` sit in a `@tile(4, @outer)` loop, so
 * the barrier between them is in the tile's sequential inner loop: each trip runs the second loop's
 * phase again. Its `float value = 0.0f; value += …` is rewritten in every trip before it is read,
 * yet c, openmp and js refused it ("private temporary "value" … lives across a barrier … n1, not a
 * compile-time constant"): the rule took only reads depending directly on a fresh write as covered
 * (cpu-phase-runs.ts's `assignedBeforeRead` now follows the run in order).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { compileBudgetMs } from "../codegen/compile-helpers.js";
import { availableNative } from "../run/native-helpers.js";
import { seeded } from "./real-world-helpers.js";

const ISO = `
@kernel void iso_kernel(float* ptr_next,
                        float* ptr_prev,
                        float* ptr_vel,
                        float* coeff,
                        int& n1,
                        int& n2,
                        int& n3,
                        int& halfpad){
    for (int iz = 0; iz < n3; ++iz; @outer) {
    @shared float xs[WGSX+16];
    //Compute local index for item in x dimension

    for (int iy = 0; iy < n2; ++iy; @tile(4, @outer)) {
      if (
          iy >= 8 && iy < (n2-8)
          && iz >= 8 && iz < (n3-8)
        ){

\tfloat *ptr_nextp = &ptr_next[halfpad];
\t float *ptr_prevp = &ptr_prev[halfpad];
\t float *ptr_velp = &ptr_vel[halfpad];

      const int dimn1n2 = (n1+2*halfpad) * n2;
      //Handle copy of data in the local array on X
      for (int ix = 0; ix < n1; ++ix; @inner) {
        int offset = iz*dimn1n2 + iy * (n1+2*halfpad) + ix;
        int xloc = ix % WGSX;
        //check if we need to get few elements before/after in the local array
\tif(xloc==0){
\t\tfor(int i=-8; i<=0; i++){
                        xs[xloc + i + 8] = ptr_prevp[offset+i];
                }
\t}
\telse if(xloc == WGSX-1){
\t\tfor(int i=0; i<=8; i++){
                        xs[xloc + i + 8] = ptr_prevp[offset+i];
                }
\t}else{
\t\txs[xloc + 8] = ptr_prevp[offset];
\t}
      }
      for (int ix = 0; ix < n1; ++ix; @inner) {

          int offset = iz*dimn1n2 + iy * (n1+2*halfpad) + ix;
          int xloc = ix % WGSX;
          float value = 0.0f;
          value += ptr_prevp[offset]*coeff[0];
          for (int ir = 1; ir <= 8; ir++) {
            value += coeff[ir] * (xs[xloc + ir + 8] + xs[xloc - ir + 8]);// horizontal
            value += coeff[ir] * (ptr_prevp[offset + ir * (n1+2*halfpad)] + ptr_prevp[offset - ir * (n1+2*halfpad)]);// vertical
            value += coeff[ir] * (ptr_prevp[offset + ir*dimn1n2] + ptr_prevp[offset - ir*dimn1n2]); // in front / behind
          }
          ptr_nextp[offset] = 2.0f* ptr_prevp[offset] - ptr_nextp[offset] + value*ptr_velp[offset];
\t}
      }
    }
  }
}
`;

const f = Math.fround;

/** The serial meaning: one time step of the 8th-order stencil on the interior (8 cells in from each side of y and z), in float32 as written. */
function isoStep(n1: number, n2: number, n3: number, hp: number, next: Float32Array, prev: Float32Array, vel: Float32Array, c: Float32Array): Float32Array {
  const out = Float32Array.from(next);
  const row = n1 + 2 * hp;
  const plane = row * n2;
  const p = (o: number) => prev[hp + o]!;
  for (let iz = 8; iz < n3 - 8; iz++) {
    for (let iy = 8; iy < n2 - 8; iy++) {
      for (let ix = 0; ix < n1; ix++) {
        const o = iz * plane + iy * row + ix;
        let value = f(0 + f(p(o) * c[0]!));
        for (let ir = 1; ir <= 8; ir++) {
          // The @shared halo holds the row's cells: xs[xloc + r + 8] is ptr_prevp[offset + r] (WGSX = n1).
          value = f(value + f(c[ir]! * f(p(o + ir) + p(o - ir))));
          value = f(value + f(c[ir]! * f(p(o + ir * row) + p(o - ir * row))));
          value = f(value + f(c[ir]! * f(p(o + ir * plane) + p(o - ir * plane))));
        }
        out[hp + o] = f(f(f(2 * p(o)) - next[hp + o]!) + f(value * vel[hp + o]!));
      }
    }
  }
  return out;
}

describe("OCCA's 25_iso3dfd_okl_shared on CPU targets", () => {
  it("lowers to c, openmp and js with one `value` for the work-group (its size n1 is known only at run time)", () => {
    const [k] = parseOkl(`#define WGSX 16\n${ISO}`);
    for (const t of ["c", "openmp", "js", "opencl", "cuda"] as const) expect(() => generateCode(k!, t), t).not.toThrow();
    expect(generateCode(k!, "c").deviceCode).toMatch(/\bfloat value;/);
  });

  for (const [wgsx, n2, n3] of [[16, 18, 17], [8, 17, 19]] as const) {
    it(`WGSX = n1 = ${wgsx}, n2 = ${n2}, n3 = ${n3}: the serial meaning on interp, js${availableNative(["c", "openmp"]).map((b) => `, ${b}`).join("")}`, async () => {
      const [k] = parseOkl(`#define WGSX ${wgsx}\n${ISO}`);
      const n1 = wgsx, hp = 8;
      const len = (n1 + 2 * hp) * n2 * n3;
      const prev = Float32Array.from(seeded(len, 1)), next = Float32Array.from(seeded(len, 2));
      const vel = Float32Array.from(seeded(len, 3), (x) => x * 0.1), coeff = Float32Array.from(seeded(9, 4));
      const want = isoStep(n1, n2, n3, hp, next, prev, vel, coeff);
      const args = () => ({ ptr_next: Float32Array.from(next), ptr_prev: Float32Array.from(prev), ptr_vel: Float32Array.from(vel), coeff: Float32Array.from(coeff), n1, n2, n3, halfpad: hp });
      for (const backend of ["interp", "js", ...availableNative(["c", "openmp"])]) {
        // The halo's subscripts go through the private `xloc`, which the native bounds proof does not follow.
        const got = ((await run(k!, args() as never, { backend, checkBounds: false } as never)) as Record<string, Float32Array>).ptr_next!;
        expect(got.length, backend).toBe(len);
        // gcc may contract `a*b + c` into a multiply-add: a relative 1e-4 of the sums' scale.
        got.forEach((g, i) => { if (!(Math.abs(g - want[i]!) <= 1e-4 * Math.max(1, Math.abs(want[i]!)))) expect(g, `${backend}: ptr_next[${i}]`).toBe(want[i]); });
      }
    }, compileBudgetMs(2));
  }
});
