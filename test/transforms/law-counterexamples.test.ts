/**
 * A scheduler bug the random-pipeline law found (seed 20240531, 320 runs, kernel family
 * paramTemp): a dependency through a global variable between an instruction inside a `g` loop
 * and one outside it is accepted in one device kernel. The instruction outside runs in every
 * work-group, so it reads cells other groups write, with no global barrier between (loopy's
 * MissingBarrierError). The interpreter finds the race at run time; js, c and opencl run it as if
 * groups were ordered. These expected failures pass once the scheduler refuses such kernels:
 * then drop `.fails` here and the law's crossGroupBlindSpot filter (test/transforms/gen-families.ts).
 */
import { describe, expect, it } from "vitest";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { schedule } from "../../src/schedule/index.js";
import { applyPipeline } from "../../transforms/index.js";
import { crossGroupBlindSpot } from "./gen-families.js";

// The law's shrunk counterexample, with the no-op splits left out.
const paramTemp = makeKernel("{[i]: 0<=i<n}", ["<> z[i] = 2*a[i] {id=w}", "out[i] = z[i] + 1 {id=r, dep=w}"], ["a, out: float64[n]", "n: int32"], { name: "paramTemp" });
const pipelineJson = [
  { op: "duplicateInames", args: ["i", "id:w", "i_d0"] }, { op: "splitIname", args: ["i_d0", 8] }, { op: "tagInames", args: [{ i_d0_inner: "g.0" }] },
];
// The same with two domains and a global argument: no duplicateInames needed.
const twoLoops = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], ["z[i] = 2*a[i] {id=w}", "out[j] = z[j] + 1 {id=r, dep=w}"],
  ["a, z, out: float64[n]", "n: int32"], { name: "twoLoops" });

describe("known bug: a dependency between an instruction inside a g loop and one outside it, in one device kernel", () => {
  const cases = [["paramTemp after duplicateInames", applyPipeline(paramTemp, pipelineJson)], ["two loops, one on g.0", applyPipeline(twoLoops, [{ op: "tagInames", args: [{ i: "g.0" }] }])]] as const;

  for (const [what, k] of cases) {
    it(`${what}: the law's filter sees it, and the interpreter reports the race at run time`, async () => {
      expect(crossGroupBlindSpot(k)).toBe(true);
      const ref = what.startsWith("two") ? twoLoops : paramTemp;
      const r = await autoTestVsRef(ref, k, { params: { n: 3 }, backend: "interp" });
      expect(r.mismatches.join("\n")).toMatch(/race on global (array|temporary) "z" .* in the same device kernel/);
    });

    it.fails(`${what}: is refused by the scheduler (expected to fail until the scheduler's cross-group check covers it)`, () => {
      expect(() => schedule(k)).toThrow(ScheduleError);
    });
  }
});
