/**
 * The sycl target (issue 22): SYCL 2020 device code — a host function per device kernel that
 * submits `parallel_for(nd_range<3>, [=](nd_item<3>) …)` to a queue, `local_accessor`s for local
 * temporaries, `group_barrier`, `atomic_ref` — checked by a C++17 syntax-only compile against
 * test/targets/headers/sycl/sycl.hpp (no SYCL compiler is installable here).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { atomicKernel, classics, hostLoops, syntaxCheckSuite } from "./sycl-metal-alpaka-ispc-cases.js";

const HOSTILE = ["sycl", "loopy_item", "loopy_cgh", "loopy_queue", "template"] as const;

describe("sycl: generated code", () => {
  const [vecadd, matmul, reduction] = classics();

  it("one host function per device kernel submits a parallel_for over an nd_range<3>, axis 0 last (DPC++'s order)", () => {
    const code = generateCode(vecadd!, "sycl");
    expect(code.deviceCode).toContain("sycl::event vecadd(sycl::queue &loopy_queue, float const *__restrict__ a,");
    expect(code.deviceCode).toContain("loopy_cgh.parallel_for(sycl::nd_range<3>(sycl::range<3>(1, 1, ((n + 127) / 128) * 128), sycl::range<3>(1, 1, 128)), [=](sycl::nd_item<3> loopy_item)");
    expect(code.deviceCode).toContain("((int) loopy_item.get_group(2))");
    expect(code.deviceCode).toContain("((int) loopy_item.get_local_id(2))");
    expect(code.hostCode).toContain("vecadd(loopy_queue, a, b, out, n).wait();");
  });

  it("global barriers inside a sequential loop: the host function loops around the submissions; the host iname is no parameter of it", () => {
    expect(generateCode(hostLoops(), "sycl").hostCode).toBe([
      "void knl_host(sycl::queue &loopy_queue, float const *a, float *c, int n, float *out)",
      "{",
      "  for (int k = 0; k <= 2; ++k)",
      "  {",
      "    knl(loopy_queue, a, c, n, k).wait();",
      "    knl_0(loopy_queue, c, out, n, k).wait();",
      "  }",
      "}",
      "",
    ].join("\n"));
  });

  it("local temporaries are local_accessors of the command group; each barrier a group_barrier", () => {
    const code = generateCode(matmul!, "sycl").deviceCode;
    expect(code).toContain("sycl::local_accessor<float, 1> a_fetch(sycl::range<1>(256), loopy_cgh);");
    expect(code).toContain("sycl::local_accessor<float, 1> b_fetch(sycl::range<1>(256), loopy_cgh);");
    // l.1 is dimension 1, l.0 dimension 2
    expect(code).toContain("loopy_item.get_local_id(1)");
    const opencl = generateCode(matmul!, "opencl").deviceCode;
    expect(code.split("sycl::group_barrier(loopy_item.get_group())").length).toBe(opencl.split("barrier(CLK_").length);
    expect(generateCode(reduction!, "sycl").deviceCode).toMatch(/group_barrier/);
  });

  it("atomics are atomic_refs at the work-group scope in local memory, the device scope in global memory", () => {
    expect(generateCode(atomicKernel("+", "int32"), "sycl").deviceCode)
      .toContain("sycl::atomic_ref<int, sycl::memory_order::relaxed, sycl::memory_scope::device, sycl::access::address_space::global_space>(r[");
    expect(generateCode(atomicKernel("max", "float32", true), "sycl").deviceCode)
      .toContain("sycl::atomic_ref<float, sycl::memory_order::relaxed, sycl::memory_scope::work_group, sycl::access::address_space::local_space>(t[0]).fetch_max(");
  });

  it("an atomic SYCL lacks is a CodegenError naming target, update and what there is", () => {
    expect(() => generateCode(atomicKernel("|", "int16"), "sycl")).toThrow(/the sycl target has no atomic "\|" update of int16; it has atomics \(sycl::atomic_ref\) on 32- and 64-bit integers and floats/);
  });
});

syntaxCheckSuite("sycl", {
  against: "the SYCL declaration header", hostile: HOSTILE, misspell: ["sycl::group_barrier", "sycl::group_barier"],
  atomics: [atomicKernel("min", "float64", true), atomicKernel("^", "uint64", true)],
});
