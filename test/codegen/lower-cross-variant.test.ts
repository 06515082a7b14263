/**
 * The lowering's memos across variants (issue 21: loop bounds remembered by interned factor,
 * `inContext` answers by context facts and row) never change code: a variant lowered right after
 * another of the sweep, with everything the first left behind, gets the code it gets lowered
 * alone after `clearPolyMemos`. Tiled matmuls with two prefetches, as bench/transforms.ts sweeps.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCodeFromSchedule, scheduleForTarget } from "../../codegen/index.js";
import type { TargetName } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos } from "../../src/poly/index.js";
import { pipeline, prefetch, split } from "../../transforms/pipeline.js";

const matmul = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });

type Tiles = readonly [number, number, number];

function code([ti, tj, tk]: Tiles, target: TargetName): string {
  const k = pipeline(split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
    prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }))(matmul);
  return generateCodeFromSchedule(scheduleForTarget(k, target), target).deviceCode;
}

const tile = fc.constantFrom(2, 4, 8, 16, 32, 64);
const tiles = fc.tuple(tile, tile, fc.constantFrom(4, 8, 16)) as fc.Arbitrary<Tiles>;

describe("the lowering's memos across sweep variants", () => {
  it("give a variant lowered after others the code it gets lowered alone", () => {
    fc.assert(fc.property(fc.array(tiles, { minLength: 1, maxLength: 2 }), tiles, fc.constantFrom<TargetName>("opencl", "cuda", "c"), (before, t, target) => {
      clearPolyMemos();
      const alone = code(t, target);
      clearPolyMemos();
      for (const b of before) code(b, target);
      expect(code(t, target)).toBe(alone);
    }), { numRuns: 5 });
  });
});
