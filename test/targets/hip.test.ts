/**
 * The hip target: CUDA's dialect with HIP's header, compiled for real by Debian's hipcc for AMD
 * (`HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -c`, no GPU needed) in one translation unit:
 * loopy's classics, atomics and helpers, names HIP reserves, and the OCCA examples Loom imports.
 * Skipped with the reason where hipcc is absent (CI installs it: hipcc libamdhip64-dev).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT_TARGETS, generateCode } from "../../codegen/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { splitIname } from "../../transforms/index.js";
import { loopyClassics } from "../codegen/kernels.js";
import { compileBudgetMs, has } from "../codegen/compile-helpers.js";
import { compileCheckKernels, extras, oneTranslationUnit } from "./hip-cucl-kernels.js";

const hasHipcc = has("hipcc", ["--version"]);
if (!hasHipcc) console.warn("[skip] the hip compile check: hipcc not found (apt-get install --no-install-recommends hipcc libamdhip64-dev)");

/** A kernel whose names are HIP's built-ins and API (and CUDA's, which HIP shares). */
function hostile(): Kernel {
  const k = makeKernel("{[i]: 0<=i<warpSize}", "hipThreadIdx_x[i] = __shfl[i] * hipLaunchKernelGGL + threadIdx",
    ["__shfl: float32[warpSize]", "hipThreadIdx_x: float32[warpSize]", "warpSize: int32", "hipLaunchKernelGGL, threadIdx: float32"], { name: "hipMalloc" });
  return splitIname(k, "i", 64, { outerTag: "g.0", innerTag: "l.0" });
}

const code = (k: Kernel) => generateCode(k, "hip").deviceCode;

describe("hip: generated code", () => {
  it("is CUDA's with HIP's header, and launch bounds of the constant block size", () => {
    expect(BUILT_TARGETS).toContain("hip");
    const matmul = code(loopyClassics().matmul_tiled_prefetch.knl);
    expect(matmul.startsWith("#include <hip/hip_runtime.h>\n")).toBe(true);
    expect(matmul).toContain('extern "C" __global__ void __launch_bounds__(256) matmul(');
    expect(matmul).toContain("__shared__ float a_fetch[256];");
    expect(matmul).toMatch(/__syncthreads\(\) \/\* for [ab]_fetch/);
    expect(matmul).toBe(generateCode(loopyClassics().matmul_tiled_prefetch.knl, "cuda").deviceCode.replace(/^/, "#include <hip/hip_runtime.h>\n\n"));
    const parametric = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i,j] = 2*a[i,j]", ["a, out: float32[n,m]", "n, m: int32"], { name: "scale" });
    const p = code(splitIname(splitIname(parametric, "j", 32, { outerTag: "g.0", innerTag: "l.0" }), "i", 1, { innerTag: "l.1" }));
    expect(p).toContain('extern "C" __global__ void __launch_bounds__(32) scale(');
    expect(code(extras()[0]!)).toMatch(/atomicAdd\(&h\[/);
  });

  it("its host listing launches with HIP's (CUDA's) triple chevrons", () => {
    const g = generateCode(loopyClassics().matmul_tiled_prefetch.knl, "hip");
    expect(g.hostCode).toContain(`matmul<<<dim3(${g.kernels[0]!.globalSize.join(", ")}), dim3(${g.kernels[0]!.localSize.join(", ")})>>>(`);
  });

  it("renames HIP's reserved names", () => {
    const c = code(hostile());
    const head = c.split("\n").find((l) => l.startsWith('extern "C"'))!;
    for (const name of ["hipMalloc", "__shfl", "hipThreadIdx_x", "warpSize", "hipLaunchKernelGGL"]) expect(head).not.toMatch(new RegExp(`[ *]${name}[,)]`));
    expect(head).toMatch(/float const threadIdx_0[,)]/);
  });
});

describe.skipIf(!hasHipcc)("hip: hipcc compiles for AMD (HIP_PLATFORM=amd, gfx90a)", () => {
  it("loopy's classics, the extras, HIP's reserved names and the OCCA examples (one translation unit)", () => {
    const kernels = compileCheckKernels(hostile());
    expect(kernels.length).toBeGreaterThanOrEqual(8);
    const generated = kernels.map((k) => generateCode(k, "hip"));
    const file = join(mkdtempSync(join(tmpdir(), "loom-hip-")), "all.hip");
    writeFileSync(file, oneTranslationUnit(generated.map((g) => g.deviceCode)));
    try {
      execFileSync("hipcc", ["--offload-arch=gfx90a", "-c", file, "-o", `${file}.o`], {
        stdio: "pipe", timeout: compileBudgetMs(1), env: { ...process.env, HIP_PLATFORM: "amd" },
      });
    } catch (e) {
      expect.fail(`hipcc failed on hip code (${file}):\n${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`);
    }
    // Every kernel has its host-side launch stub in the object.
    const symbols = execFileSync("nm", [`${file}.o`], { encoding: "utf8" });
    for (const info of generated.flatMap((g) => g.kernels)) expect(symbols).toMatch(new RegExp(` T __device_stub__${info.name}$`, "m"));
  }, compileBudgetMs(1) + 10_000);
});
