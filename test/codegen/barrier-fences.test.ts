/**
 * A work-group barrier orders the memory its work-items share: OpenCL's `barrier(CLK_LOCAL_MEM_FENCE)`
 * does not order global memory, so a barrier between work-items that share a global array (loopy's
 * weird2 with `c` an argument) must fence global memory. The barrier pass records which memory on
 * the BarrierNode (from the variables that need it); OpenCL prints the flags, CUDA's
 * `__syncthreads()` orders both, OKL (whose @barrier OCCA prints as a local fence) refuses.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { CodegenError } from "../../src/errors.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { schedule, type BarrierNode, type ScheduleNode } from "../../src/schedule/index.js";
import { addPrefetch, splitIname } from "../../transforms/index.js";
import { thrownBy } from "../thrown.js";
import { tag, tiledMatmul } from "./kernels.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

/** loopy's weird2: `c` written by one work-item, read by its neighbours along l.0. */
function weird2(cLocal: boolean) {
  const k = makeKernel("{[i,k,j]: 0<=i<3 and 1<=k<98 and 0<=j<2}", [
    cLocal ? "c[k] = 2*a[i,j,k] {id=first}" : "c[i,j,k] = 2*a[i,j,k] {id=first}",
    cLocal ? "e[i,j,k] = c[k+1]+c[k-1] {dep=first, if=k >= 2 and k <= 96}" : "e[i,j,k] = c[i,j,k+1]+c[i,j,k-1] {dep=first}",
  ], cLocal ? ["a, e: int32[3,2,99]", temporary("c", "int32", [99], "local")] : ["a, c, e: int32[3,2,99]"]);
  return splitIname(k, "k", 128, { innerTag: "l.0" });
}

/** A local array and a global one, both written before one barrier and read across work-items after it. */
function mixed() {
  return tag(makeKernel("{[i]: 0<=i<16}", [
    "t[i] = a[i] {id=w1}",
    "out[i] = 2*a[i] {id=w2}",
    "b[i] = t[15 - i] + out[15 - i] {id=r, dep=w1:w2}",
  ], [temporary("t", "float32", [16], "local"), "a, out, b: float32[16]"], { name: "mixed" }), { i: "l.0" });
}

/** An explicit barrier: local unless mem_kind says global. */
function explicit(memKind?: "global") {
  return tag(makeKernel("{[i]: 0<=i<16}", [
    "out[i] = a[i] {id=w, nosync=r}",
    `... lbarrier {id=b, dep=w${memKind ? `, mem_kind=${memKind}` : ""}}`,
    "b[i] = 1 {id=r, dep=b}",
  ], ["a, out, b: float32[16]"], { name: "explicit" }), { i: "l.0" });
}

function barriers(nodes: readonly ScheduleNode[], out: BarrierNode[] = []): BarrierNode[] {
  for (const n of nodes) {
    if (n.kind === "barrier") out.push(n);
    else if (n.kind === "loop") barriers(n.body, out);
  }
  return out;
}

const fences = (code: string) => [...code.matchAll(/barrier\(([^)]*)\)/g)].map((m) => m[1]);

describe("barrier fences follow the memory the work-items share", () => {
  it("weird2 with c an argument: the schedule records global, OpenCL fences global memory", () => {
    const k = weird2(false);
    expect(barriers(schedule(k).deviceKernels[0]!.body).map((b) => b.memory)).toEqual(["global", "global"]);
    const code = generateCode(k, "opencl").deviceCode;
    expect(fences(code)).toEqual(["CLK_GLOBAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE"]);
    expect(code).not.toContain("CLK_LOCAL_MEM_FENCE)");
  });

  it("weird2 with c a local temporary: a local fence", () => {
    const k = weird2(true);
    expect(barriers(schedule(k).deviceKernels[0]!.body).map((b) => b.memory)).toEqual(["local", "local"]);
    expect(fences(generateCode(k, "opencl").deviceCode)).toEqual(["CLK_LOCAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE"]);
  });

  it("a local and a global array pending at one barrier: both fences", () => {
    expect(barriers(schedule(mixed()).deviceKernels[0]!.body).map((b) => b.memory)).toEqual(["local+global"]);
    expect(fences(generateCode(mixed(), "opencl").deviceCode)).toEqual(["CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"]);
  });

  it("global arrays only read (a tiled matmul's a and b beside their local fetches) ask for no global fence", () => {
    let k = tiledMatmul();
    k = addPrefetch(k, "a", { sweepInames: ["ii", "ki"], temporaryAddressSpace: "local" });
    k = addPrefetch(k, "b", { sweepInames: ["ki", "ji"], temporaryAddressSpace: "local" });
    const code = generateCode(k, "opencl").deviceCode;
    expect(fences(code).length).toBeGreaterThan(0);
    expect(new Set(fences(code))).toEqual(new Set(["CLK_LOCAL_MEM_FENCE"]));
  });

  it("an explicit lbarrier is local unless mem_kind=global", () => {
    expect(fences(generateCode(explicit(), "opencl").deviceCode)).toEqual(["CLK_LOCAL_MEM_FENCE"]);
    expect(fences(generateCode(explicit("global"), "opencl").deviceCode)).toEqual(["CLK_GLOBAL_MEM_FENCE"]);
  });

  it("CUDA's __syncthreads() orders both: the same barriers, one spelling", () => {
    const code = generateCode(weird2(false), "cuda").deviceCode;
    expect(code.match(/__syncthreads\(\)/g)).toHaveLength(2);
  });

  it("OKL refuses a barrier that must order global memory (OCCA's @barrier is a local fence on OpenCL); a local one prints", () => {
    const e = thrownBy(CodegenError, () => generateCode(weird2(false), "okl"));
    expect(e.message).toMatch(/must order global memory[\s\S]*@barrier orders local memory only/);
    expect(generateCode(weird2(true), "okl").deviceCode).toContain("@barrier");
  });

  it("the mixed kernel computes the reference on every backend", async () => {
    const a = Float32Array.from({ length: 16 }, (_, i) => i * 1.5 - 4);
    const out = a.map((x) => 2 * x);
    const b = Float32Array.from({ length: 16 }, (_, i) => a[15 - i]! + out[15 - i]!);
    await expectOnEveryBackend(mixed(), { a }, { out, b });
  });
});
