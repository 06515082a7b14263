/**
 * One route, one meaning (issue 14): the interpreter and every target run the same scheduling
 * passes, so they see the same preprocessed kernel — the same realized reductions, address
 * spaces and device kernels — and `lowerStages` shows each pass.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCodeAndSchedule, lowerStages, passNames } from "../../codegen/index.js";
import { LoomError } from "../../src/errors.js";
import { walkExpr, insnExprs, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { compileKernel } from "../../src/run/interp.js";
import { run } from "../../src/run/index.js";
import { SCHEDULE_PASSES, type Schedule } from "../../src/schedule/index.js";
import { genCase } from "../transforms/gen-kernels.js";
import { availableNative } from "../run/native-helpers.js";

/** What the routes must agree on, as plain data. */
function facts(s: Schedule) {
  let inlineReductions = 0;
  for (const insn of s.kernel.instructions) for (const e of insnExprs(insn)) walkExpr(e, (n) => { if (n.kind === "reduce") inlineReductions++; });
  return {
    inlineReductions,
    instructions: s.kernel.instructions.map((x) => x.id),
    temporaries: s.kernel.temporaries.map((t) => `${t.name}:${t.addressSpace}:${t.dtype}`),
    deviceKernels: s.deviceKernels.map((dk) => ({
      name: dk.name,
      axes: [...dk.groupAxes, ...dk.localAxes].map((a) => `${a.iname}:${a.tag}.${a.axis}`),
      args: dk.args,
    })),
  };
}

function routesAgree(k: Kernel): boolean {
  let interp: Schedule;
  try {
    const c = compileKernel(k);
    interp = { kernel: c.kernel, deviceKernels: [] };
    const gpu = generateCodeAndSchedule(k, "opencl").schedule;
    // The interpreter compiled the very schedule the GPU targets lower.
    expect(c.kernel).toBe(gpu.kernel);
    expect(facts(gpu).inlineReductions).toBe(0);
    expect(facts(interp).temporaries).toEqual(facts(gpu).temporaries);
    // CPU targets start from the same schedule: the same device kernels before the CPU lowering.
    const cpu = generateCodeAndSchedule(k, "c").schedule;
    expect(cpu.deviceKernels.map((dk) => dk.name)).toEqual(gpu.deviceKernels.map((dk) => dk.name));
    expect(cpu.kernel.temporaries.filter((t) => gpu.kernel.temporaries.some((g) => g.name === t.name)).map((t) => t.name))
      .toEqual(gpu.kernel.temporaries.map((t) => t.name));
    return true;
  } catch (e) {
    // A kernel one route refuses, every route refuses, with the same error.
    if (!(e instanceof LoomError)) throw e;
    let other: unknown;
    try {
      generateCodeAndSchedule(k, "js");
    } catch (e2) {
      other = e2;
    }
    expect(other, `the interpreter refused with "${(e as Error).message}" but js did not`).toBeInstanceOf(LoomError);
    return false;
  }
}

describe("the interpreter and the targets take one route", () => {
  it("for random kernels and pipelines: the same realized reductions, address spaces and device kernels", () => {
    let agreed = 0;
    fc.assert(fc.property(genCase, (c) => {
      if (routesAgree(c.transformed)) agreed++;
    }), { numRuns: 60 });
    expect(agreed).toBeGreaterThan(20);
  });

  it("a reduction is realized for the interpreter too: one accumulator, as the targets have it", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "out[i] = sum(j, a[i,j]) {id=s}", ["a: float32[n,n]", "out: float32[n]", "..."]);
    const c = compileKernel(k);
    expect(c.kernel.temporaries.map((t) => t.name)).toEqual(["acc_j"]);
    expect(c.kernel.instructions.map((x) => x.id)).toEqual(["s_j_init", "s_j_update", "s"]);
  });
});

describe("reduction identities are exact in every dtype", () => {
  it("max/min over int64 and uint64 extremes, empty reductions included", async () => {
    const k = makeKernel(["{[i]: 0<=i<2}", "{[j]: 0<=j<n}"], ["mx[i] = max(j, a[i,j])", "mn[i] = min(j, a[i,j])"],
      ["a: int64[2,n]", "mx: int64[2]", "mn: int64[2]", "..."]);
    const lo = -(2n ** 63n), hi = 2n ** 63n - 1n;
    // c where the native addon and gcc are here (skipped with the reason where not).
    const backends = ["interp", "js", ...availableNative(["c"])] as const;
    for (const backend of backends) {
      const full = await run(k, { a: new BigInt64Array([lo, lo, hi, hi]), n: 2 }, { backend });
      expect([...full.mx!], backend).toEqual([lo, hi]);
      expect([...full.mn!], backend).toEqual([lo, hi]);
      const empty = await run(k, { a: new BigInt64Array(0), n: 0 }, { backend });
      expect([...empty.mx!], backend).toEqual([lo, lo]);
      expect([...empty.mn!], backend).toEqual([hi, hi]);
    }
    const ku = makeKernel(["{[i]: 0<=i<1}", "{[j]: 0<=j<n}"], "mn[i] = min(j, a[j])", ["a: uint64[n]", "mn: uint64[1]", "..."]);
    for (const backend of backends) {
      expect([...(await run(ku, { a: new BigUint64Array(0), n: 0 }, { backend })).mn!], backend).toEqual([2n ** 64n - 1n]);
    }
  });
});

describe("lowerStages shows each pass", () => {
  const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "out[i] = sum(j, a[i,j]) {id=s}", ["a: float32[n,n]", "out: float32[n]", "..."]);

  it("names the passes in order, the scheduling passes first, and ends in the generated code", () => {
    const cpu = lowerStages(k, "c");
    expect(cpu.map((s) => s.name)).toEqual(["types", "preprocess", "linearize", "barriers", "device kernels", "cpu lowering", "names", "lower", "render"]);
    expect(cpu.map((s) => s.name)).toEqual(passNames("c"));
    expect(lowerStages(k, "opencl").map((s) => s.name)).toEqual([...SCHEDULE_PASSES.map((p) => p.name), "names", "lower", "render"]);
    expect(cpu.find((s) => s.name === "preprocess")!.text).toContain("acc_j");
    expect(cpu.find((s) => s.name === "linearize")!.text).toContain("for j");
    expect(cpu.at(-1)!.text).toContain("#include");
    for (const s of cpu) expect(s.text.length, s.name).toBeGreaterThan(0);
  });

  it("its last stage is exactly what generateCode returns", () => {
    for (const target of ["c", "openmp", "opencl", "cuda", "js", "okl"] as const) {
      expect(lowerStages(k, target).at(-1)!.value).toEqual(generateCodeAndSchedule(k, target).code);
    }
  });
});
