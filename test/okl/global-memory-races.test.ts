/**
 * Global memory shared by the work-items of one group in imported OKL: OCCA inserts no barrier for
 * it, so the author's @barrier orders it (as CUDA's __syncthreads does) and its absence is a race
 * that the interpreter reports instead of computing one interleaving.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { run } from "../../src/run/index.js";

/** Each element's nodes updated by one @inner loop, then read reversed (another work-item's cell) by the next. */
const kernel = (barrier: string) => `@kernel void twoPass(const int N, double *r) {
  for (int e = 0; e < N; ++e; @outer) {
    for (int i = 0; i < 4; ++i; @inner) r[e*4 + i] += i + 1;
    ${barrier}
    for (int i = 0; i < 4; ++i; @inner) r[e*4 + (3 - i)] *= 2;
  }
}`;

describe("OKL: global memory between the @inner loops of one @outer", () => {
  it("with the author's @barrier: fenced on OpenCL and run as the serial meaning", async () => {
    const [k] = parseOkl(kernel("@barrier();"));
    expect(generateCode(k!, "opencl").deviceCode).toMatch(/barrier\(CLK_LOCAL_MEM_FENCE \| CLK_GLOBAL_MEM_FENCE\)|barrier\(CLK_GLOBAL_MEM_FENCE\)/);
    for (const backend of ["interp", "js"] as const) {
      const out = await run(k!, { N: 2, r: new Float64Array(8).fill(1) }, { backend });
      expect([...out.r!], backend).toEqual([4, 6, 8, 10, 4, 6, 8, 10]);
    }
  });

  it("without it: a race, named with the array, the cell and the two work-items (no interleaving chosen)", async () => {
    const [k] = parseOkl(kernel(""));
    await expect(run(k!, { N: 2, r: new Float64Array(8).fill(1) }, { backend: "interp" }))
      .rejects.toThrow(/race on global array "r" at cell \d: instruction "[^"]+" in work-item \{i: \d\} wrote it and instruction "[^"]+" in work-item \{i: \d\} read it, in one work-group with no barrier fencing global memory between/);
  });

  it("an update of one cell by every work-item (OCCA's addVectors test input) is a race, not the last writer's value", async () => {
    const [k] = parseOkl(`@kernel void k(const int n, const float *b, float *ab) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { ab[1] += b[i]; ab[i] = b[i]; } }`);
    await expect(run(k!, { n: 5, b: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), ab: new Float32Array(8) }, { backend: "interp" }))
      .rejects.toThrow(/races on global array "ab" whenever 2 <= n: every work-item of loop "i_in_tile" .* updates the same cell ab\[\[1\]\]/);
  });
});
