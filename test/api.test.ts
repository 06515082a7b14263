/**
 * The public API of shared/design/API.md is a contract: every name it lists is exported from
 * src/index.ts. Entries of later issues exist and throw a LoomError saying they are not built yet.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../src/index.js";

const BUILT = [
  "makeKernel", "globalArg", "valueArg", "temporary", "addDtypes", "show", "run", "autoTestVsRef",
  "generateCode", "schedule", "showSchedule",
  // transformations (API.md table), direct forms
  "splitIname", "chunkIname", "joinInames", "tagInames", "tile", "prioritizeLoops", "renameIname",
  "duplicateInames", "removeUnusedInames", "splitReductionInward", "splitReductionOutward",
  "makeReductionInamesUnique", "mapDomain", "assume", "fixParameters", "addPrefetch", "precompute",
  "extractSubst", "assignmentToSubst", "expandSubst", "tagArrayAxes", "dimOrder", "splitArrayAxis",
  "setTemporaryAddressSpace", "privatize", "addDependency", "addBarrier", "removeInstructions",
  "setInstructionPriority",
  // short steps and pipelines
  "split", "join", "tag", "prioritize", "prefetch", "pipeline", "toJSON", "fromJSON", "describe",
  // OKL
  "parseOkl", "normalizeOkl",
  // tuning
  "autotune", "readTuningLog",
  // statistics
  "getOpMap", "getMemAccessMap", "getSyncMap",
] as const;

const ERRORS = [
  "LoomError", "ParseError", "OklError", "TransformError", "ScheduleError", "CodegenError",
  "BackendUnavailableError", "ExecutionError",
] as const;

describe("the public API (API.md)", () => {
  it("exports every built function", () => {
    for (const name of BUILT) expect(typeof (lp as Record<string, unknown>)[name], name).toBe("function");
  });

  it("has a step form for every direct transformation, and steps round-trip through JSON", () => {
    const steps = lp.step as unknown as Record<string, unknown>;
    for (const name of BUILT.slice(11, 40)) expect(typeof steps[name], `step.${name}`).toBe("function");
    expect(typeof steps.tile).toBe("function");
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"]);
    const p = lp.pipeline(lp.split("i", 16, { outerTag: "g.0", innerTag: "l.0" }));
    const again = lp.fromJSON(JSON.parse(JSON.stringify(lp.toJSON(p))));
    expect(lp.show(again(k))).toBe(lp.show(lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.0" })));
    expect(lp.describe(p)).toMatch(/splitIname i by 16/);
  });

  it("exports the error hierarchy, every class a LoomError", () => {
    for (const name of ERRORS) {
      const E = (lp as Record<string, unknown>)[name] as new (...a: unknown[]) => Error;
      expect(typeof E, name).toBe("function");
      expect(E.prototype instanceof lp.LoomError || E === lp.LoomError, name).toBe(true);
    }
    const pe = new lp.ParseError("bad", "a = 1\nb = = 2", 2, 5);
    expect([pe.line, pe.column, pe.excerpt]).toEqual([2, 5, "b = = 2\n    ^"]);
  });

  it("lists the dtypes and targets of the contract", () => {
    expect([...lp.DTYPES]).toEqual(["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]);
    expect([...lp.TARGET_NAMES]).toEqual(["c", "openmp", "opencl", "cuda", "hip", "sycl", "metal", "ispc", "okl", "alpaka", "cucl", "js", "wgsl"]);
  });
});
