/**
 * The metal target (issue 22): Metal Shading Language kernels — `kernel void` with arguments bound
 * to `[[buffer(i)]]`, ids from `[[threadgroup_position_in_grid]]` / `[[thread_position_in_threadgroup]]`,
 * `threadgroup` temporaries, `threadgroup_barrier`, atomics on atomic types — checked by a C++17
 * syntax-only compile against test/targets/headers/metal_stdlib (no Metal compiler here); the host
 * function, in metal-cpp, against test/targets/headers/Metal/Metal.hpp.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { CodegenError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { atomicKernel, classics, syntaxCheckSuite } from "./sycl-metal-alpaka-ispc-cases.js";

const HOSTILE = ["kernel", "device", "threadgroup", "loopy_local", "uint"] as const;

describe("metal: generated code", () => {
  const [vecadd, matmul] = classics();

  it("arguments are bound to buffers in order, values by constant reference; ids from the position attributes", () => {
    const code = generateCode(vecadd!, "metal").deviceCode;
    expect(code).toContain("kernel void vecadd(device float const *a [[buffer(0)]], device float const *b [[buffer(1)]], device float *out [[buffer(2)]], constant int &n [[buffer(3)]], "
      + "uint3 loopy_group [[threadgroup_position_in_grid]], uint3 loopy_local [[thread_position_in_threadgroup]])");
    expect(code).toContain("128 * ((int) loopy_group.x) + ((int) loopy_local.x) < n");
  });

  it("the host function (metal-cpp) binds each buffer and value at its [[buffer(i)]] and dispatches the threadgroups", () => {
    expect(generateCode(vecadd!, "metal").hostCode).toBe([
      "void vecadd_host(MTL::ComputeCommandEncoder *loopy_encoder, MTL::ComputePipelineState *loopy_pipeline_0, MTL::Buffer *a, MTL::Buffer *b, MTL::Buffer *out, int n)",
      "{",
      "  loopy_encoder->setComputePipelineState(loopy_pipeline_0);",
      "  loopy_encoder->setBuffer(a, 0, 0);",
      "  loopy_encoder->setBuffer(b, 0, 1);",
      "  loopy_encoder->setBuffer(out, 0, 2);",
      "  loopy_encoder->setBytes(&n, sizeof(n), 3);",
      "  loopy_encoder->dispatchThreadgroups(MTL::Size((n + 127) / 128, 1, 1), MTL::Size(128, 1, 1));",
      "}",
      "",
    ].join("\n"));
  });

  it("local temporaries are threadgroup arrays; barriers threadgroup_barrier with the memory they order", () => {
    const code = generateCode(matmul!, "metal").deviceCode;
    expect(code).toContain("threadgroup float a_fetch[256];");
    expect(code).toContain("((int) loopy_local.y)");
    expect(code).toMatch(/threadgroup_barrier\(mem_flags::mem_threadgroup\) \/\* for a_fetch/);
  });

  it("atomics cast the cell to an atomic type of its address space", () => {
    expect(generateCode(atomicKernel("max", "int32"), "metal").deviceCode).toContain("atomic_fetch_max_explicit((device atomic_int *) &r[");
    expect(generateCode(atomicKernel("+", "uint32", true), "metal").deviceCode).toContain("atomic_fetch_add_explicit((threadgroup atomic_uint *) &t[0], ");
    expect(generateCode(atomicKernel("+", "float32"), "metal").deviceCode).toContain("atomic_fetch_add_explicit((device atomic_float *) &r[");
  });

  it("what Metal lacks is a CodegenError naming target, feature and what there is: float64, 64-bit and float min atomics", () => {
    const dbl = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*x[i]", ["x, out: float64[n]", "n: int32"], { name: "dbl" });
    expect(() => generateCode(dbl, "metal")).toThrow(CodegenError);
    expect(() => generateCode(dbl, "metal")).toThrow(/the metal target has no type for float64; it has float16, float32, int8/);
    expect(() => generateCode(atomicKernel("+", "int64"), "metal")).toThrow(/the metal target has no atomic "\+" update of int64; it has atomics on int32 and uint32/);
    expect(() => generateCode(atomicKernel("min", "float32"), "metal")).toThrow(/the metal target has no atomic "min" update of float32/);
  });

  it("an OKL float kernel computing with an unsuffixed (double) literal is refused, saying to write 0.5f; with 0.5f it prints", () => {
    const okl = (lit: string) => parseOkl(`@kernel void half(const int n, const float *x, float *y) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { y[i] = x[i] * ${lit}; }
}`)[0]!;
    expect(() => generateCode(okl("0.5"), "metal")).toThrow(/no type for float64; .*the literal 0\.5 is computed in float64 here .*write 0\.5f for float arithmetic/);
    expect(generateCode(okl("0.5f"), "metal").deviceCode).toMatch(/\* 0\.5f/);
  });
});

syntaxCheckSuite("metal", {
  against: "the MSL and metal-cpp declaration headers", hostile: HOSTILE, misspell: ["mem_flags::mem_threadgroup", "mem_flags::mem_local"],
  atomics: [atomicKernel("^", "uint32", true), atomicKernel("=", "float32")],
  refuses: {
    buggy_kernel: /the metal target has no atomic "\+" update of float32; it has atomics on int32 and uint32, and add, subtract and exchange of float32 in global/,
    // pow(3.14159, j) is C++'s pow(double, int): double arithmetic, which Metal lacks (OCCA's Metal would compute it in float).
    powerOfPi: /the metal target has no type for float64; it has .*; the literal 3\.14159 is computed in float64 here .*write 3\.14159f for float arithmetic/,
  },
});
