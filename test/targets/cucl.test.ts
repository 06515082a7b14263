/**
 * The cucl target (boda's CUCL): its structure (annotations, linearized ids, 1-D launches), its
 * CUDA form compiled by `nvcc -ptx` after the CUDA prelude, its OpenCL form run on PoCL after the
 * OpenCL prelude against the interpreter, and the renaming of CUCL's macros. Each toolchain's part
 * is skipped with its reason where the toolchain is absent.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { CUCL_CUDA_PRELUDE, CUCL_OPENCL_PRELUDE } from "../../codegen/targets/cucl.js";
import { main } from "../../src/cli.js";
import { CodegenError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { backendAvailability, run } from "../../src/run/index.js";
import { nativeBackends } from "../../src/run/native.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { loopyClassics } from "../codegen/kernels.js";
import { compileBudgetMs, hasNvcc } from "../codegen/compile-helpers.js";
import { compileCheckKernels, extras, oneTranslationUnit, randomArgs, sameOutputs } from "./hip-cucl-kernels.js";

const opencl = backendAvailability("opencl");
if (!opencl.available) console.warn(`[skip] cucl on PoCL: OpenCL is not available here: ${opencl.reason}`);
if (!hasNvcc) console.warn("[skip] cucl with the CUDA prelude: nvcc not found (it needs the CUDA toolkit)");

const code = (k: Kernel) => generateCode(k, "cucl");

/** A kernel whose names are CUCL's macros and the ids cucl declares (a sequential loop named LOC_ID_1D_l0). */
function hostile(): Kernel {
  const k = makeKernel("{[i, LOC_ID_1D_l0]: 0<=i<GASQ and 0<=LOC_ID_1D_l0<4}",
    "BARRIER_SYNC[i] = sum(LOC_ID_1D_l0, LOCSHAR_MEM[i]*LOC_ID_1D_l0) + CUCL_DEVICE",
    ["LOCSHAR_MEM: float32[GASQ]", "BARRIER_SYNC: float32[GASQ]", "GASQ: int32", "CUCL_DEVICE: float32"], { name: "CUCL_GLOBAL_KERNEL" });
  return splitIname(k, "i", 8, { outerTag: "g.0", innerTag: "l.0" });
}

const MACROS = ["GASQ", "LOCSHAR_MEM", "BARRIER_SYNC", "CUCL_DEVICE", "CUCL_GLOBAL_KERNEL", "LOC_ID_1D_l0"];

describe("cucl: structure", () => {
  it("one parameter a line with its // CUCL annotation, dimensions named after the shape", () => {
    const c = code(loopyClassics().matmul_tiled_prefetch.knl).deviceCode;
    expect(c).toContain("CUCL_GLOBAL_KERNEL void matmul(\n  GASQ float const * const a, // CUCL IN n:n_1\n  GASQ float const * const b, // CUCL IN n:n_1\n" +
      "  GASQ float * const c, // CUCL OUT n:n_1\n  int32_t const n ) // CUCL IN :\n{");
    expect(c).toContain("LOCSHAR_MEM float a_fetch[256];");
    expect(c).toMatch(/BARRIER_SYNC \/\* for [ab]_fetch/);
    expect(c).not.toMatch(/get_group_id|blockIdx|__local|__syncthreads/);
    const stencil = code(loopyClassics().stencil5_tile.knl).deviceCode;
    expect(stencil).toContain("GASQ float * const z, // CUCL OUT d0:d1");
    // A cell read and written: INOUT.
    expect(code(extras()[0]!).deviceCode).toContain("GASQ int32_t * const h, // CUCL INOUT d0");
  });

  it("2-D axes are linearized through named dimensions (axis 0 fastest), and the launch is 1-D", () => {
    const g = code(loopyClassics().stencil5_tile.knl);
    expect(g.deviceCode).toContain([
      "  // CUCL IX GRP_ID_1D work use_dims=g1:g0",
      "  int32_t const GRP_ID_1D_g0 = (int32_t) GRP_ID_1D % ((n + 15) / 16);",
      "  int32_t const GRP_ID_1D_g1 = (int32_t) GRP_ID_1D / ((n + 15) / 16);",
      "  // CUCL IX LOC_ID_1D work use_dims=l1:l0",
      "  int32_t const LOC_ID_1D_l0 = (int32_t) LOC_ID_1D % 16;",
      "  int32_t const LOC_ID_1D_l1 = (int32_t) LOC_ID_1D / 16;",
    ].join("\n"));
    expect(g.kernels[0]!.globalSize).toEqual(["((n + 15) / 16) * ((n + 15) / 16)"]);
    expect(g.kernels[0]!.localSize).toEqual(["256"]);
    // Three axes: the middle one divided by the first's size and wrapped by its own.
    const k3 = tagInames(makeKernel("{[i,j,k]: 0<=i<2 and 0<=j<3 and 0<=k<n}", "out[i,j,k] = 1", ["out: float32[2,3,n]", "n: int32"]), { i: "l.0", j: "l.1", k: "l.2" });
    expect(code(k3).deviceCode).toContain("int32_t const LOC_ID_1D_l1 = ((int32_t) LOC_ID_1D / 2) % 3;\n  int32_t const LOC_ID_1D_l2 = (int32_t) LOC_ID_1D / (2 * 3);");
    expect(code(k3).kernels[0]!.localSize).toEqual(["6 * n"]);
  });

  it("barriers ordering global memory use BARRIER_SYNC_GLOBAL, which both preludes define", () => {
    const k = makeKernel("{[i]: 0<=i<16}", ["t[i] = a[i] {id=w}", "out[i] = t[15 - i] {dep=w}"], ["a, out, t: float32[16]"], { name: "rev_global" });
    expect(code(tagInames(k, { i: "l.0" })).deviceCode).toContain("BARRIER_SYNC_GLOBAL /*");
    expect(CUCL_OPENCL_PRELUDE).toContain("#define BARRIER_SYNC_GLOBAL barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)");
    expect(CUCL_CUDA_PRELUDE).toContain("#define BARRIER_SYNC_GLOBAL __syncthreads()");
  });

  it("atomics are CUDA's and OpenCL's spellings under CUCL_BACKEND_IX; OpenCL's pragmas too", () => {
    const c = code(extras()[0]!).deviceCode;
    expect(c).toMatch(/#if CUCL_BACKEND_IX == 1\natomicAdd\(&h\[[^\n]*\n#else\natomic_add\(&h\[/);
    expect(c).toContain("#if CUCL_BACKEND_IX == 2\n#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n#endif");
  });

  it("CUCL's macros and the declared ids are renamed where a user names them; float16 is refused", () => {
    const c = code(hostile()).deviceCode;
    const params = [...c.matchAll(/(\w+)(?:,| \)) \/\/ CUCL/g)].map((m) => m[1]!);
    const loops = [...c.matchAll(/for \(int (\w+) =/g)].map((m) => m[1]!);
    const kernel = c.match(/CUCL_GLOBAL_KERNEL void (\w+)\(/)![1]!;
    expect(params).toHaveLength(4);
    expect(loops).toHaveLength(1);
    for (const name of [...params, ...loops, kernel]) expect(MACROS, name).not.toContain(name);
    const half = makeKernel("{[i]: 0<=i<4}", "out[i] = a[i]", ["a, out: float16[4]"], { name: "h" });
    expect(() => code(half)).toThrow(CodegenError);
    expect(() => code(half)).toThrow(/cucl target has no type for float16/);
  });
});

describe("loom lower --target cucl|hip, and loom --help", () => {
  it("lowers OKL to each, and the help lists both among the targets", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "loom-cucl-cli-")), "add.okl");
    writeFileSync(file, "@kernel void addVectors(const int n, const float *a, float *b) {\n  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { b[i] = 2 * a[i]; }\n}\n");
    const cli = async (...argv: string[]) => {
      let out = "";
      let err = "";
      const status = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
      return { status, out, err };
    };
    const cucl = await cli("lower", file, "--target", "cucl");
    expect(cucl.err).toBe("");
    expect(cucl.out).toMatch(/CUCL_GLOBAL_KERNEL void \w*addVectors\w*\(\n(  .* \/\/ CUCL (IN|OUT) [\w:]+\n){3}\{/);
    const hip = await cli("lower", file, "--target", "hip");
    expect(hip.out).toMatch(/^#include <hip\/hip_runtime.h>\n\nextern "C" __global__ void __launch_bounds__\(16\) \w*addVectors\w*\(/);
    const help = await cli("--help");
    expect((help.out + help.err).match(/targets: ([^(\n]*)/)![1]!.split(/, */).map((t) => t.trim())).toEqual(expect.arrayContaining(["hip", "cucl"]));
  });
});

describe.skipIf(!hasNvcc)("cucl: the CUDA prelude's code compiles with nvcc -ptx", () => {
  it("loopy's classics, the extras and the OCCA examples (one translation unit)", () => {
    const kernels = compileCheckKernels(hostile());
    expect(kernels.length).toBeGreaterThanOrEqual(8);
    const file = join(mkdtempSync(join(tmpdir(), "loom-cucl-")), "all.cu");
    const generated = kernels.map(code);
    writeFileSync(file, oneTranslationUnit(generated.map((g) => g.deviceCode), CUCL_CUDA_PRELUDE));
    try {
      execFileSync("nvcc", ["-ptx", "-diag-suppress", "177", file, "-o", `${file}.ptx`], { stdio: "pipe", timeout: compileBudgetMs(1) });
    } catch (e) {
      expect.fail(`nvcc failed on cucl code (${file}):\n${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`);
    }
    // Every kernel is in the PTX.
    const ptx = readFileSync(`${file}.ptx`, "utf8");
    for (const info of generated.flatMap((g) => g.kernels)) expect(ptx).toContain(`.entry ${info.name}(`);
  }, compileBudgetMs(1) + 10_000);
});

describe.skipIf(!opencl.available)("cucl: the OpenCL prelude's code runs on PoCL as the interpreter does", () => {
  for (const [name, c] of Object.entries(loopyClassics())) {
    it(name, async () => {
      for (const params of c.sizes) {
        const args = randomArgs(c.ref, params, 3);
        const want = await run(c.ref, args);
        const got = (await nativeBackends.cucl(c.knl, args, {})).outputs;
        expect(sameOutputs(got, want), `${name} at ${JSON.stringify(params)}`).toBeUndefined();
      }
    }, 60_000);
  }

  it("atomics, integer helpers, float64 math, renamed macros", async () => {
    const ks = [...extras(), hostile()];
    for (const k of ks) {
      const params: Record<string, number> = k.name === "CUCL_GLOBAL_KERNEL" ? { GASQ: 21, CUCL_DEVICE: 0.5 } : { n: 77 };
      const args = randomArgs(k, params, 5);
      const want = await run(k, args);
      // hist's h[idx[i] % 8] is inside h, which the bounds prover cannot see.
      const got = (await nativeBackends.cucl(k, args, { checkBounds: k.name !== "hist" })).outputs;
      expect(sameOutputs(got, want), k.name).toBeUndefined();
    }
  }, 60_000);

  it("a 1-D launch of more groups than one axis of a 2-D grid", async () => {
    // 40 x 3 groups of 4 x 2 work-items: the linearized ids must cover every (g0, g1, l0, l1).
    let k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i,j] = 100*i + j", ["out: int32[n,m]", "n, m: int32"], { name: "ids" });
    k = splitIname(splitIname(k, "j", 4, { outerTag: "g.0", innerTag: "l.0" }), "i", 2, { outerTag: "g.1", innerTag: "l.1" });
    const params = { n: 5, m: 158 };
    const got = (await nativeBackends.cucl(k, params, {})).outputs.out!;
    expect(Array.from(got as ArrayLike<number>)).toEqual(Array.from({ length: 5 * 158 }, (_, x) => 100 * Math.floor(x / 158) + (x % 158)));
  }, 60_000);

  it("refuses a 1-D launch of more work-items than int32 ids number", async () => {
    const k = tagInames(makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i % 2] = 1 {if=i == 0 and j == 0}", ["out: int32[2]", "n, m: int32"], { name: "huge" }), { i: "g.0", j: "g.1" });
    await expect(nativeBackends.cucl(k, { n: 65536, m: 32768 }, {})).rejects.toThrow(/2147483648 groups of 1 work-items in one dimension, more than the 2147483647/);
  });
});
