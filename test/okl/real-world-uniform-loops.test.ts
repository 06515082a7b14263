/**
 * Issue 20 (engineer F): plain loops around @inner loops and barriers whose bounds or conditions
 * read memory that every work-item of a group reads alike. A `const` pointer argument the kernel
 * only reads, at a subscript of block indices, is one value for the whole group (read-only.ts,
 * uniform.ts): a tree reduction whose first stride is read per block (`for (int s = blockSize[b];
 * s > 0; s >>= 1)`, geometric.ts's width-bounded form), and a `continue` in a loop over faces around
 * @inner loops skips the rest of the trip for the whole group (nekRS's boundary kernels: `if (bcType
 * == p_bcType_none) continue;`, loop-jumps.ts; a `break` sets a flag that guards the later trips).
 * Kernels in the style of libParanumal's
 * and nekRS's, each on interp and openmp against the serial meaning; what cannot be proven uniform
 * stays an OklError naming the array and the loop's line:column.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// Per-block partial sums of 64 values, each block halving from its own first stride (a block of a
// ragged partition reduces only its own length): libParanumal's reduction with a size per block.
const BLOCK_REDUCE = `
#define p_Nt 64
@kernel void blockReduce(const dlong Nblocks, @restrict const int *blockStride, @restrict const dfloat *x, @restrict dfloat *partial) {
  for (dlong b = 0; b < Nblocks; ++b; @outer(0)) {
    @shared dfloat s_x[p_Nt];
    for (int t = 0; t < p_Nt; ++t; @inner(0)) s_x[t] = x[b*p_Nt + t];
    for (int s = blockStride[b]; s > 0; s >>= 1) {
      @barrier();
      for (int t = 0; t < p_Nt; ++t; @inner(0)) {
        if (t < s && t + s < p_Nt) s_x[t] += s_x[t + s];
      }
    }
    @barrier();
    for (int t = 0; t < p_Nt; ++t; @inner(0)) {
      if (t == 0) partial[b] = s_x[0];
    }
  }
}`;

const DEFINES = { defines: { dfloat: "double", dlong: "int" } };

function blockReduceSerial(strides: readonly number[], x: readonly number[]): number[] {
  return strides.map((first, b) => {
    const s = x.slice(64 * b, 64 * b + 64);
    for (let st = first; st > 0; st >>= 1) for (let t = 0; t < st && t + st < 64; t++) s[t]! += s[t + st]!;
    return s[0]!;
  });
}

describe("a per-block stride read from a const argument: `for (int s = blockStride[b]; s > 0; s >>= 1)` with barriers", () => {
  const [k] = parseOkl(BLOCK_REDUCE, DEFINES);

  it("reduces each block as the serial meaning, for strides 0, negative, powers of two and others", async () => {
    const check = async (strides: number[]) => {
      const x = seeded(64 * strides.length, strides.length + 3);
      const partial = blockReduceSerial(strides, x);
      await expectSerialMeaning(k!, () => ({ Nblocks: strides.length, blockStride: Int32Array.from(strides), x: Float64Array.from(x), partial: new Float64Array(strides.length) }),
        { partial }, 1e-12, { checkBounds: false });
    };
    await check([32, 0, -5, 1, 40, 7]);
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: -3, max: 70 }), { minLength: 1, maxLength: 5 }), check), { numRuns: 3, seed: 20 });
  });

  it("refuses the stride where the kernel also writes the array, naming it and the loop", () => {
    const writes = BLOCK_REDUCE.replace("if (t == 0) partial[b] = s_x[0];", "if (t == 0) { partial[b] = s_x[0]; blockStride[b] = 0; }").replace("@restrict const int *blockStride", "@restrict int *blockStride");
    const e = oklError(() => parseOkl(writes, DEFINES));
    expect(e.message).toMatch(/loop "s".*its start reads memory \("blockStride", which is not a `const` argument the kernel only reads\)/);
    expect(e.message).toMatch(/^<okl>:7:5:/);
    // `const` alone is no proof: a cast may write through it.
    const cast = BLOCK_REDUCE.replace("if (t == 0) partial[b] = s_x[0];", "if (t == 0) { partial[b] = s_x[0]; ((int *) blockStride)[b] = 0; }");
    expect(oklError(() => parseOkl(cast, DEFINES)).message).toMatch(/start reads memory \("blockStride"/);
  });

  it("refuses a growing loop bounded by memory, naming the array (the host cannot count its trips)", () => {
    const grow = BLOCK_REDUCE.replace("for (int s = blockStride[b]; s > 0; s >>= 1)", "for (int s = 1; s < blockStride[b]; s <<= 1)");
    expect(oklError(() => parseOkl(grow, DEFINES)).message).toMatch(/loop "s".*its bound is not computed from value arguments and constants alone \(it reads memory \("blockStride"\)/);
  });
});

// Per face: interior faces (bc 0) skipped, outflow faces (bc 2) copied, others averaged through
// @shared memory (nekRS's boundary-fix kernels skip faces without a boundary condition this way).
const FACE_FLUX = `
#define p_Nfaces 4
#define p_Nfp 8
@kernel void faceFlux(const dlong Nelements, @restrict const int *EToB, @restrict const dfloat *q, @restrict dfloat *flux) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_q[p_Nfp];
    for (int f = 0; f < p_Nfaces; ++f) {
      const dlong ef = e*p_Nfaces + f;
      const int bcType = EToB[ef];
      if (bcType == 0) {
        continue;
      }
      for (int n = 0; n < p_Nfp; ++n; @inner(0)) s_q[n] = q[ef*p_Nfp + n];
      if (bcType == 2) {
        for (int n = 0; n < p_Nfp; ++n; @inner(0)) flux[ef*p_Nfp + n] = s_q[n];
        continue;
      }
      for (int n = 0; n < p_Nfp; ++n; @inner(0)) flux[ef*p_Nfp + n] = bcType * 0.5 * (s_q[n] + s_q[p_Nfp - 1 - n]);
    }
  }
}`;

function faceFluxSerial(E: number, EToB: readonly number[], q: readonly number[]): number[] {
  const flux = new Array<number>(E * 32).fill(0);
  for (let e = 0; e < E; e++) {
    for (let f = 0; f < 4; f++) {
      const ef = e * 4 + f, bc = EToB[ef]!;
      if (bc === 0) continue;
      const s = q.slice(ef * 8, ef * 8 + 8);
      for (let n = 0; n < 8; n++) flux[ef * 8 + n] = bc === 2 ? s[n]! : bc * 0.5 * (s[n]! + s[7 - n]!);
    }
  }
  return flux;
}

describe("`continue` in a loop over faces around @inner loops and barriers: the rest of the trip under the negated condition", () => {
  const [k] = parseOkl(FACE_FLUX, DEFINES);

  it("skips interior faces and stops outflow faces after their copy, as the serial meaning", async () => {
    const check = async (EToB: number[]) => {
      const E = EToB.length / 4;
      const q = seeded(E * 32, E + 1);
      await expectSerialMeaning(k!, () => ({ Nelements: E, EToB: Int32Array.from(EToB), q: Float64Array.from(q), flux: new Float64Array(E * 32) }),
        { flux: faceFluxSerial(E, EToB, q) }, 1e-12);
    };
    await check([0, 1, 2, 3, 2, 0, 0, 1]);
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 12 }).map((a) => a.slice(0, a.length - (a.length % 4))), check), { numRuns: 3, seed: 20 });
  });

  it("a continue nested in a branch that may also fall through: the rest follows both ways, as the serial meaning", async () => {
    const nested = FACE_FLUX.replace("if (bcType == 2) {", "if (bcType >= 2) {\n        if (bcType == 2) {").replace("        continue;\n      }\n      for (int n = 0; n < p_Nfp; ++n; @inner(0)) flux[ef*p_Nfp + n] = bcType", "        continue;\n        }\n      }\n      for (int n = 0; n < p_Nfp; ++n; @inner(0)) flux[ef*p_Nfp + n] = bcType");
    expect(nested).not.toBe(FACE_FLUX);
    const [kn] = parseOkl(nested, DEFINES);
    const EToB = [3, 2, 0, 1, 2, 3, 3, 0];
    const q = seeded(64, 9);
    await expectSerialMeaning(kn!, () => ({ Nelements: 2, EToB: Int32Array.from(EToB), q: Float64Array.from(q), flux: new Float64Array(64) }), { flux: faceFluxSerial(2, EToB, q) }, 1e-12);
  });

  it("refuses a condition that may differ between the work-items, naming the continue", () => {
    // flux is written by the kernel: another work-item's write may not be seen yet.
    const racy = FACE_FLUX.replace("if (bcType == 0) {", "if (flux[ef*p_Nfp] > 0) {");
    expect(oklError(() => parseOkl(racy, DEFINES)).message).toMatch(/^<okl>:10:11: "continue" at 11:9 skips the rest of a trip .*reads memory \("flux", which is not a `const` argument the kernel only reads\)/);
    const racyBreak = FACE_FLUX.replace("if (bcType == 0) {\n        continue;", "if (flux[ef*p_Nfp] > 0) {\n        break;");
    expect(oklError(() => parseOkl(racyBreak, DEFINES)).message).toMatch(/^<okl>:10:11: "break" at 11:9 skips the rest of the loop .*reads memory \("flux"/);
  });

  it("a break stops the element's later faces (a flag guards the later trips), as the serial meaning", async () => {
    const brk = FACE_FLUX.replace("if (bcType == 0) {\n        continue;\n      }", "if (bcType == 0) {\n        continue;\n      }\n      if (bcType == 3) break;");
    expect(brk).not.toBe(FACE_FLUX);
    const [kb] = parseOkl(brk, DEFINES);
    const EToB = [1, 3, 2, 1, 0, 2, 3, 1, 3, 0, 0, 0];
    const q = seeded(96, 4);
    const want = faceFluxSerial(3, EToB.map((b, i) => (EToB.slice(i - (i % 4), i).includes(3) || b === 3 ? 0 : b)), q);
    await expectSerialMeaning(kb!, () => ({ Nelements: 3, EToB: Int32Array.from(EToB), q: Float64Array.from(q), flux: new Float64Array(96) }), { flux: want }, 1e-12);
  });

  it("refuses a while loop around @inner loops whose continue skips its counter's update, at the continue", () => {
    // (while loops bounded by a counter are accepted: real-world-while-loops.test.ts)
    const whileLoop = FACE_FLUX.replace("for (int f = 0; f < p_Nfaces; ++f) {", "int f = 0;\n    while (f < p_Nfaces) {").replace("flux[ef*p_Nfp + n] = bcType * 0.5 * (s_q[n] + s_q[p_Nfp - 1 - n]);", "flux[ef*p_Nfp + n] = 1.0;\n      ++f;");
    expect(oklError(() => parseOkl(whileLoop, DEFINES)).message).toMatch(/^<okl>:11:7: a while loop at 8:5 holding @inner loops or barriers: .*a "continue" before the update of its counter "f" skips it/);
  });
});
