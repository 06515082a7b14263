/**
 * Uniform loops (OpenCL, codegen/lower/uniform-loops.ts) keep as a guard only the varying bounds
 * that the uniform bounds and the context do not imply (issue 21): a prefetch whose sweep is a
 * whole number of work-group widths needs no guard; one whose last pass is partial keeps the
 * upper bound that cuts it, and drops the lower bound that always holds.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { pipeline, prefetch, split } from "../../transforms/pipeline.js";

const matmul = () => makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });

const tiled = (ti: number, tj: number, tk: number) => generateCode(pipeline(
  split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
  prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }),
)(matmul()), "opencl").deviceCode;

describe("uniform loop guards (issue 21)", () => {
  it("a fetch loop of two whole passes over l.0 has no guard", () => {
    const code = tiled(16, 8, 16);
    expect(code).toContain("for (int a_dim_1_outer = 0; a_dim_1_outer <= 1; ++a_dim_1_outer)\n      a_fetch[16 * lid(1) + 8 * a_dim_1_outer + lid(0)] = ");
    expect(code).not.toMatch(/if \([^)]*a_dim_1_outer/);
  });

  it("a partial last pass keeps the bound that cuts it, not the one that always holds", () => {
    const code = tiled(16, 16, 24);
    expect(code).toContain("for (int a_dim_1_outer = 0; a_dim_1_outer <= 1; ++a_dim_1_outer)");
    expect(code).toContain("if (lid(0) + 16 * a_dim_1_outer <= 23)");
    expect(code).not.toMatch(/0 <= 16 \* a_dim_1_outer/);
  });
});
