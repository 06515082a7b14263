/**
 * A local temporary written inside an ilp loop, used by no work-item but its writer (addPrefetch
 * into local memory without local axes), gets one copy per ILP lane as a private one does: the
 * lanes, unrolled, must not share it. Counterexamples of the random-pipeline law (seeds 19 and 25).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { applyPipeline, type PipelineJSON } from "../../transforms/pipeline.js";
import { compile, GCC_FLAGS, hasGcc } from "./compile-helpers.js";

const reduceToTemp = () => makeKernel(["{[i,j]: 0<=i<n and 0<=j<m}"],
  ["<float64> acc = sum(j, a[i,j]) {id=r}", "out[i] = acc*acc + b[i] {id=w, dep=r}"],
  ["a: float64[n,m]", "b, out: float64[n]", "n, m: int32"], { name: "reduceToTemp" });

const CASES: { seed: number; pipeline: PipelineJSON }[] = [
  { seed: 19, pipeline: [{ op: "addPrefetch", args: ["b", { temporaryAddressSpace: "local" }] }, { op: "splitIname", args: ["i", 5] }, { op: "tagInames", args: [{ i_inner: "ilp" }] }] as PipelineJSON },
  { seed: 25, pipeline: [{ op: "addPrefetch", args: ["b", { temporaryAddressSpace: "local" }] }, { op: "tile", args: [["i"], 2] }, { op: "tagInames", args: ["i_inner:ilp"] }, { op: "splitIname", args: ["i_outer", 1] }] as PipelineJSON },
];

describe("ilp lanes get their own copy of an unshared local temporary", () => {
  for (const c of CASES) {
    it(`seed ${c.seed}`, async () => {
      const ref = reduceToTemp();
      const k = applyPipeline(ref, c.pipeline);
      for (let n = 0; n <= 12; n++) {
        for (const m of [1, 3]) {
          const r = await autoTestVsRef(ref, k, { params: { n, m }, backend: "js", seed: 7 });
          expect(r.mismatches.slice(0, 3), `n=${n} m=${m}`).toEqual([]);
        }
      }
      expect(generateCode(k, "js").deviceCode).toMatch(/b_fetch\[\d\] = b\[/);
      if (hasGcc) compile({ ...k, name: `reduceToTemp_s${c.seed}` }, "c", "c", "gcc", GCC_FLAGS);
    });
  }
});
