/**
 * The alpaka target (issue 22): alpaka 1.x kernel functors (`template<typename TAcc> ALPAKA_FN_ACC
 * void operator()(TAcc const &acc, …) const`) with `getIdx` ids (index 0 the slowest axis),
 * `declareSharedVar` with distinct ids, `syncBlockThreads`, atomics at a hierarchy level, and a host
 * function launching them with `WorkDivMembers` and `exec` — checked by a C++17 syntax-only compile
 * against test/targets/headers/alpaka/alpaka.hpp (alpaka's headers are not installable here).
 * `ilp` inames are alpaka's element level: a loop over `getWorkDiv<Thread, Elems>` elements, the
 * host's work division giving each ilp iname's extent; a register tile runs on a serial emulation
 * of alpaka's work division (headers/alpaka-serial-emulation, not alpaka) against the reference.
 */
import fc from "fast-check";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { CodegenError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { splitIname } from "../../transforms/index.js";
import { compileBudgetMs } from "../codegen/compile-helpers.js";
import { atomicKernel, classics, hasGxx, HEADERS, syntaxCheckSuite } from "./sycl-metal-alpaka-ispc-cases.js";

const HOSTILE = ["alpaka", "loopy_acc", "TAcc", "loopy_block", "loopy_queue"] as const;

/**
 * A matmul register tile: i split for g.1 / l.1 with `fi` rows per thread tagged ilp, j for g.0 /
 * l.0 with `fj` columns per thread tagged ilp (none when `fj` is 0); more ilp inames `extra`.
 */
function registerTile(fi: number, fj = 0, extra = 0): Kernel {
  const more = Array.from({ length: extra }, (_, n) => `e${n}`);
  let k = makeKernel(`{[i,j,k${more.map((e) => `,${e}`).join("")}]: 0<=i,j,k<n${more.map((e) => ` and 0<=${e}<2`).join("")}}`,
    `c[i,j] = sum((k${more.map((e) => `,${e}`).join("")}), a[i,k]*b[k,j])`, ["a, b, c: float32[n,n]", "n: int32"], { name: "tile", assumptions: "n >= 1" });
  k = splitIname(k, "i", 4 * fi, { outerTag: "g.1" });
  k = splitIname(k, "i_inner", fi, { outerTag: "l.1", innerTag: "ilp" });
  if (fj === 0) k = splitIname(k, "j", 16, { outerTag: "g.0", innerTag: "l.0" });
  else k = splitIname(splitIname(k, "j", 16 * fj, { outerTag: "g.0" }), "j_inner", fj, { outerTag: "l.0", innerTag: "ilp" });
  for (const e of more) k = splitIname(k, e, 2, { innerTag: "ilp" });
  return k;
}

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

  it("an ilp register tile is the element level: a loop over getWorkDiv<Thread, Elems>, per-lane accumulators, the elements in WorkDivMembers", () => {
    const { deviceCode, hostCode } = generateCode(registerTile(4), "alpaka");
    expect(deviceCode).toContain("float acc_k[4];");
    // Three element loops (initialize, accumulate within k, store), no unrolled copies.
    const loop = "int const i_inner_inner_elems = static_cast<int>\\(alpaka::getWorkDiv<alpaka::Thread, alpaka::Elems>\\(loopy_acc\\)\\[2\\]\\);\n" +
      " *for \\(int i_inner_inner = 0; i_inner_inner <= i_inner_inner_elems - 1; \\+\\+i_inner_inner\\)";
    expect(deviceCode.match(new RegExp(loop, "g"))).toHaveLength(3);
    expect(deviceCode).toMatch(new RegExp(`for \\(int k = 0; k <= n - 1; \\+\\+k\\)\\s*\\{\\s*${loop}`));
    expect(deviceCode).toContain("acc_k[i_inner_inner] = acc_k[i_inner_inner] + a[");
    expect(deviceCode.match(/acc_k\[\d\]/g)).toEqual(["acc_k[4]"]); // the declaration only
    expect(hostCode).toContain("loopy_vec(1u, 4u, 16u), loopy_vec(1u, 1u, 4u)),");
    // The docs' listing of this kernel (its c++ block in the alpaka section) is generated.
    const page = readFileSync(join(import.meta.dirname, "../../docs/targets-sycl-metal-alpaka-ispc.md"), "utf8");
    const section = page.slice(page.indexOf("## alpaka 1.x"), page.indexOf("\n## ", page.indexOf("## alpaka 1.x") + 1));
    const listed = [...section.matchAll(/```c\+\+\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n")).map((l) => l.trim()).filter((l) => l !== "" && !l.includes("…"));
    expect(listed.length).toBeGreaterThan(5);
    const lines = new Set(deviceCode.split("\n").map((l) => l.trim()));
    for (const l of listed) expect(lines.has(l), l).toBe(true);
    // The other targets still unroll ilp into copies.
    expect(generateCode(registerTile(4), "cuda").deviceCode).toContain("acc_k[3] = acc_k[3] + a[");
  });

  it("law: each ilp iname is one element axis, its loop counting the axis' elements and the work division giving its extent", () => {
    fc.assert(fc.property(fc.integer({ min: 2, max: 5 }), fc.integer({ min: 0, max: 4 }), (fi, fj) => {
      const { deviceCode, hostCode } = generateCode(registerTile(fi, fj), "alpaka");
      const elems = /, loopy_vec\((\d+)u, (\d+)u, (\d+)u\)\),$/m.exec(hostCode!);
      expect(elems, hostCode).not.toBeNull();
      const extents = { i_inner_inner: fi, ...(fj > 0 ? { j_inner_inner: fj } : {}) };
      const axes = Object.entries(extents).map(([iname, extent]) => {
        const re = `int const ${iname}_elems = static_cast<int>\\(alpaka::getWorkDiv<alpaka::Thread, alpaka::Elems>\\(loopy_acc\\)\\[(\\d)\\]\\);\\n *` +
          `for \\(int ${iname} = 0; ${iname} <= ${iname}_elems - 1; \\+\\+${iname}\\)`;
        const m = new RegExp(re).exec(deviceCode);
        expect(m, `${iname} in\n${deviceCode}`).not.toBeNull();
        const axis = 2 - Number(m![1]);
        expect(Number(elems![1 + (2 - axis)])).toBe(extent);
        return axis;
      });
      expect(new Set(axes).size).toBe(axes.length);
      // Axes without an ilp iname have one element.
      for (let a = 0; a < 3; a++) if (!axes.includes(a)) expect(elems![1 + (2 - a)]).toBe("1");
    }), { numRuns: 6 });
  });

  it("more than three ilp inames is a CodegenError naming alpaka's three element axes", () => {
    expect(() => generateCode(registerTile(2, 2, 2), "alpaka")).toThrow(CodegenError);
    expect(() => generateCode(registerTile(2, 2, 2), "alpaka")).toThrow(/are tagged ilp, but the alpaka target makes each ilp iname one of its 3 element axes; tag at most 3 inames ilp/);
    expect(generateCode(registerTile(2, 2, 1), "alpaka").hostCode).toContain("loopy_vec(2u, 2u, 2u)),");
  });
});

describe.skipIf(!hasGxx)("alpaka: runs on a serial emulation of alpaka's work division (headers/alpaka-serial-emulation, not alpaka)", () => {
  it("a register tile on three element axes (3 x 2 x 2 elements) equals the reference; with 1 element per thread it does not", () => {
    // c = sum over k and e0 (0..1) of a*b: twice the matrix product; n not a multiple of the tiles.
    const { deviceCode, hostCode } = generateCode(registerTile(3, 2, 1), "alpaka");
    const division = /, (loopy_vec\(\d+u, \d+u, \d+u\))\),$/m.exec(hostCode!);
    expect(division?.[1]).toBe("loopy_vec(2u, 2u, 3u)");
    // The test's switch: the element extents of the work division, or 1 element per thread.
    const host = hostCode!.replace(division![0], `, (loopy_test_one ? loopy_vec(1u, 1u, 1u) : ${division![1]})),`);
    const sizes = [13, 24];
    const main = `static bool loopy_test_one = false;\n${deviceCode}\n${host}\n#include <cstdio>\n#include <vector>\nstruct loopy_test_queue {};
int main() {
  for (int one = 0; one < 2; ++one) for (int n : {${sizes.join(", ")}}) {
    std::vector<float> a(n * n), b(n * n), c(n * n, -1.0f);
    for (int x = 0; x < n * n; ++x) { a[x] = (float) (x * 7 % 11 - 5); b[x] = (float) (x * 5 % 13 - 6); }
    loopy_test_one = one;
    loopy_test_queue q;
    tile_host<alpaka::AccSerialEmulation>(q, a.data(), b.data(), c.data(), n);
    for (float v : c) std::printf("%g ", v);
    std::printf("\\n");
  }
}\n`;
    const dir = mkdtempSync(join(tmpdir(), "loom-alpaka-run-"));
    try {
      writeFileSync(join(dir, "main.cpp"), main);
      execFileSync("g++", ["-std=c++17", "-O1", "-I", join(HEADERS, "alpaka-serial-emulation"), "-o", join(dir, "main"), join(dir, "main.cpp")], { stdio: "pipe", timeout: compileBudgetMs(1) });
      const out = execFileSync(join(dir, "main"), { encoding: "utf8" }).trim().split("\n").map((l) => l.trim().split(" ").map(Number));
      const reference = sizes.map((n) => Array.from({ length: n * n }, (_, x) => {
        const [i, j] = [Math.floor(x / n), x % n];
        let sum = 0;
        for (let k = 0; k < n; k++) sum += 2 * ((i * n + k) * 7 % 11 - 5) * ((k * n + j) * 5 % 13 - 6);
        return sum;
      }));
      expect(out.slice(0, 2)).toEqual(reference);
      for (const [x, r] of reference.entries()) expect(out[2 + x]).not.toEqual(r);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, compileBudgetMs(1));
});

syntaxCheckSuite("alpaka", {
  against: "the alpaka declaration header, host templates instantiated", hostile: HOSTILE, misspell: ["alpaka::syncBlockThreads", "alpaka::syncBlockThread"],
  atomics: [atomicKernel("max", "float64", true), atomicKernel("|", "uint64", true)],
  extra: [registerTile(4), registerTile(3, 2, 1)],
});
