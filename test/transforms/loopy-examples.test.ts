/**
 * loopy's own transformation examples (test_linalg.py's rank-one update variants, ILP register
 * tiling of a matrix product): each variant must equal the untransformed kernel on the
 * interpreter and on the js backend, and generate OpenCL and CUDA.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";

async function equivalent(ref: lp.Kernel, k: lp.Kernel, params: Record<string, number>): Promise<void> {
  for (const backend of ["interp", "js"] as const) {
    const r = await lp.autoTestVsRef(ref, k, { params, backend });
    expect(r.ok, `${backend} n=${JSON.stringify(params)}: ${r.mismatches.slice(0, 3).join("; ")}`).toBe(true);
  }
  for (const target of ["opencl", "cuda"] as const) expect(lp.generateCode(k, target).deviceCode.length).toBeGreaterThan(0);
}

describe("rank-one update c[i, j] = a[i]*b[j] (loopy's test_rank_one variants)", () => {
  const ref = lp.makeKernel("{[i, j]: 0 <= i, j < n}", "c[i, j] = a[i]*b[j]", ["a, b: float32[n]", "c: float32[n, n]", "n: int32"], { name: "rank_one" });
  const tiled = lp.splitIname(lp.splitIname(ref, "i", 16, { outerTag: "g.0", innerTag: "l.0" }), "j", 16, { outerTag: "g.1", innerTag: "l.1" });

  it("variant 1: 16x16 work-groups", async () => {
    for (const n of [0, 5, 37]) await equivalent(ref, tiled, { n });
  });

  it("variant 2: prefetch a and b into local memory", async () => {
    let k = lp.addPrefetch(tiled, "a", { sweepInames: ["i_inner"] });
    k = lp.addPrefetch(k, "b", { sweepInames: ["j_inner"] });
    expect(k.temporaries.map((t) => `${t.name}:${t.addressSpace}`).sort()).toEqual(["a_fetch:local", "b_fetch:local"]);
    expect(lp.generateCode(k, "opencl").deviceCode).toMatch(/__local float a_fetch\[16\]/);
    for (const n of [0, 5, 37]) await equivalent(ref, k, { n });
  });

  it("variant 3: 4 work-items each computing a 4x4 block with ilp", async () => {
    let k = lp.splitIname(ref, "i", 16, { outerTag: "g.0" });
    k = lp.splitIname(k, "i_inner", 4, { outerTag: "l.0", innerTag: "ilp" });
    k = lp.splitIname(k, "j", 16, { outerTag: "g.1" });
    k = lp.splitIname(k, "j_inner", 4, { outerTag: "l.1", innerTag: "ilp" });
    for (const n of [0, 7, 33]) await equivalent(ref, k, { n });
  });
});

describe("ILP register tiling of a matrix product", () => {
  const ref = lp.makeKernel("{[i, j, k]: 0 <= i, j, k < n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });

  it("each work-item accumulates a 4-row block in registers (ilp), k split by 8", async () => {
    let k = lp.splitIname(ref, "i", 16, { outerTag: "g.0" });
    k = lp.splitIname(k, "i_inner", 4, { outerTag: "l.1", innerTag: "ilp" });
    k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    k = lp.splitIname(k, "k", 8);
    const code = lp.generateCode(k, "opencl").deviceCode;
    // The accumulator is privatized per ilp lane and the lanes are unrolled.
    expect(code).toMatch(/float acc_k_outer_k_inner\[4\]/);
    expect(code).toMatch(/acc_k_outer_k_inner\[3\]/);
    for (const n of [0, 9, 35]) await equivalent(ref, k, { n });
  });
});
