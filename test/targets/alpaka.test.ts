/**
 * The alpaka target (issue 22): alpaka 1.x kernel functors (`template<typename TAcc> ALPAKA_FN_ACC
 * void operator()(TAcc const &acc, …) const`) with `getIdx` ids (index 0 the slowest axis),
 * `declareSharedVar` with distinct ids, `syncBlockThreads`, atomics at a hierarchy level, and a host
 * function launching them with `WorkDivMembers` and `exec` — checked by a C++17 syntax-only compile
 * against test/targets/headers/alpaka/alpaka.hpp (alpaka's headers are not installable here).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { atomicKernel, classics, syntaxCheckSuite } from "./sycl-metal-alpaka-ispc-cases.js";

const HOSTILE = ["alpaka", "loopy_acc", "TAcc", "loopy_block", "loopy_queue"] as const;

describe("alpaka: generated code", () => {
  const [vecadd, matmul] = classics();

  it("a functor whose ids index alpaka's vectors from the slowest axis: loopy's axis 0 is index 2", () => {
    const code = generateCode(vecadd!, "alpaka").deviceCode;
    expect(code).toContain("struct vecadd\n{\n  template<typename TAcc>\n  ALPAKA_FN_ACC void operator()(TAcc const &loopy_acc, float const *__restrict__ a,");
    expect(code).toContain("auto const loopy_block = alpaka::getIdx<alpaka::Grid, alpaka::Blocks>(loopy_acc);");
    expect(code).toContain("auto const loopy_thread = alpaka::getIdx<alpaka::Block, alpaka::Threads>(loopy_acc);");
    expect(code).toContain("128 * ((int) loopy_block[2]) + ((int) loopy_thread[2]) < n");
    expect(generateCode(matmul!, "alpaka").deviceCode).toContain("((int) loopy_thread[1])");
  });

  it("local temporaries are shared variables with distinct ids; barriers syncBlockThreads", () => {
    const code = generateCode(matmul!, "alpaka").deviceCode;
    const ids = [...code.matchAll(/alpaka::declareSharedVar<float\[256\], (\d+)>\(loopy_acc\)/g)].map((m) => m[1]);
    expect(ids.sort()).toEqual(["0", "1"]);
    expect(code).toMatch(/alpaka::syncBlockThreads\(loopy_acc\) \/\* for a_fetch/);
  });

  it("the host function launches each kernel with a 3-dimensional WorkDivMembers (slowest first) and exec", () => {
    const host = generateCode(vecadd!, "alpaka").hostCode!;
    expect(host).toContain("template<typename TAcc, typename TQueue>\nvoid vecadd_host(TQueue &loopy_queue, float const *a, float const *b, float *out, int n)");
    expect(host).toContain("alpaka::exec<TAcc>(loopy_queue, alpaka::WorkDivMembers<alpaka::DimInt<3u>, std::size_t>(loopy_vec(1u, 1u, static_cast<std::size_t>((n + 127) / 128)), loopy_vec(1u, 1u, 128u), loopy_vec(1u, 1u, 1u)),");
    expect(host).toContain("  vecadd{}, a, b, out, n);");
  });

  it("atomics name the hierarchy level sharing the cell: Blocks for shared memory, Grids for global", () => {
    expect(generateCode(atomicKernel("min", "float32"), "alpaka").deviceCode).toContain("(void) alpaka::atomicMin(loopy_acc, &r[");
    expect(generateCode(atomicKernel("min", "float32"), "alpaka").deviceCode).toContain("alpaka::hierarchy::Grids{})");
    expect(generateCode(atomicKernel("+", "int32", true), "alpaka").deviceCode).toContain("alpaka::atomicAdd(loopy_acc, &t[0], static_cast<int>(v[8 * ((int) loopy_block[2]) + ((int) loopy_thread[2])]), alpaka::hierarchy::Blocks{})");
    expect(() => generateCode(atomicKernel("max", "int16"), "alpaka")).toThrow(/the alpaka target has no atomic "max" update of int16; it has atomics on 32- and 64-bit integers and floats/);
  });
});

syntaxCheckSuite("alpaka", {
  against: "the alpaka declaration header, host templates instantiated", hostile: HOSTILE, misspell: ["alpaka::syncBlockThreads", "alpaka::syncBlockThread"],
  atomics: [atomicKernel("max", "float64", true), atomicKernel("|", "uint64", true)],
});
