/**
 * CPU targets: affine predicates join the instruction's domain (codegen/lower/predicates.ts), so
 * the work-item loops of OKL's GPU-style kernels become clean counted loops: the 5-point
 * stencil's `if (0 < y && y < n - 1 && 0 < x && x < n - 1)` becomes the bounds of the ty and tx
 * loops. A predicate that is not a conjunction of affine comparisons stays a guard.
 */
import { describe, expect, it } from "vitest";
import { generateCode, makeKernel, parseOkl, run } from "../../src/index.js";
import { availableNative } from "../run/native-helpers.js";

const stencilOkl = `@kernel void stencil(const int n, const float *u, float *v) {
  for (int by = 0; by < (n + 15) / 16; ++by; @outer(1)) {
    for (int bx = 0; bx < (n + 15) / 16; ++bx; @outer(0)) {
      for (int ty = 0; ty < 16; ++ty; @inner(1)) {
        for (int tx = 0; tx < 16; ++tx; @inner(0)) {
          const int y = 16 * by + ty;
          const int x = 16 * bx + tx;
          if (0 < y && y < n - 1 && 0 < x && x < n - 1) {
            v[y * n + x] = 0.25f * (u[y * n + x - 1] + u[y * n + x + 1] + u[(y - 1) * n + x] + u[(y + 1) * n + x]);
          }
        }
      }
    }
  }
}`;

describe("affine predicates become loop bounds on CPU targets", () => {
  const [stencil] = parseOkl(stencilOkl);

  it("the OKL stencil's work-item loops are counted loops without a guard (C, OpenMP, js); OpenCL keeps the guard", () => {
    for (const target of ["c", "openmp"] as const) {
      const code = generateCode(stencil!, target).deviceCode;
      expect(code, target).not.toContain("if (");
      expect(code, target).toContain("for (int tx = loopy_max_int32(-(16 * bx) + 1, 0); tx <= loopy_min_int32(n - 16 * bx - 2, 15); ++tx)\n");
    }
    expect(generateCode(stencil!, "js").deviceCode).not.toMatch(/\bif \(/);
    expect(generateCode(stencil!, "opencl").deviceCode).toContain("if (");
  });

  it("a predicate that is no conjunction of affine comparisons stays a guard", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {if=i < 3 or i > 5}", ["out: float32[n]", "n: int32"], { name: "either" });
    expect(generateCode(k, "c").deviceCode).toContain("if (i < 3 || i > 5)");
    const both = makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {if=i >= 3 and i < 5}", ["out: float32[n]", "n: int32"], { name: "both" });
    expect(generateCode(both, "c").deviceCode).toContain("for (int i = 3; i <= loopy_min_int32(n - 1, 4); ++i)\n    out[i] = 1.0f;");
  });

  it("the stencil gives the interpreter's results on every CPU backend, the border untouched", async () => {
    for (const n of [1, 2, 3, 17, 33]) {
      const u = Float32Array.from({ length: n * n }, (_, q) => ((q * 7919) % 101) / 13 - 3);
      const v = new Float32Array(n * n).fill(-1);
      const want = (await run(stencil!, { n, u, v }, { backend: "interp" })).v!;
      expect(want[0]).toBe(-1);
      for (const backend of ["js" as const, ...availableNative(["c", "openmp"])]) {
        const got = (await run(stencil!, { n, u, v }, { backend })).v!;
        expect(Array.from(got as Float32Array), `${backend} n=${n}`).toEqual(Array.from(want as Float32Array));
      }
    }
  }, 240_000);
});
