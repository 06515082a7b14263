/**
 * Issue 20 (engineer F): plain loops around @inner loops and barriers whose bounds or conditions
 * read memory that every work-item of a group reads alike. A `const` pointer argument the kernel
 * only reads, at a subscript of block indices, is one value for the whole group (read-only.ts,
 * uniform.ts): a tree reduction whose first stride is read per block (`for (int s = blockSize[b];
 * s > 0; s >>= 1)`, geometric.ts's width-bounded form). Kernels in the style of libParanumal's
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
