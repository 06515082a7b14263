/**
 * A loop whose instructions have different ranges runs over their union; a range that another one
 * contains (within the loop's context) adds nothing to it and is dropped, so the CPU work-item loop
 * of a privatized bound prints `m <= 15`, not `m <= max(15, min(e_item - s_item - 1, 15))` with a
 * guard `0 <= m && m <= 15` inside (codegen/lower/loops.ts, dropContained). The meaning is the
 * random-pipeline laws' (the privateBounds family runs natively against the interpreter) and
 * test/schedule/cpu-domain-params.test.ts's (the same made kernel on interp, js, c, openmp, opencl).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { tagInames } from "../../transforms/index.js";
import { applyPipeline } from "../../transforms/pipeline.js";
import { privateBoundsSource } from "../transforms/gen-families.js";
import { privatizedBounds } from "../schedule/schedule-kernels.js";

describe("a loop over contained ranges runs over the containing one", () => {
  it("the CPU work-item loops of privatized bounds print their constant range, without max/min or an inner guard", () => {
    const source = privateBoundsSource("8*(i % 2)");
    const fam = tagInames(makeKernel([...source.domains], [...source.instructions], [...source.args], { name: source.family }), { ...source.tags });
    for (const [k, last] of [[fam, 7], [privatizedBounds(), 15]] as const) {
      const code = generateCode(k, "c").deviceCode;
      const loops = code.split("\n").filter((l) => /^\s*for \(int [imn] /.test(l));
      expect(loops.length).toBe(2);
      for (const l of loops) expect(l).toMatch(new RegExp(`= 0; [imn] <= ${last}; `));
      expect(code).not.toMatch(/if \(0 <= [imn] && [imn] <= \d+\)/);
    }
  });

  it("found by the random-pipeline law: instructions with one range in two objects keep the single-range route (an unrolled loop's constant trip count)", () => {
    const k = makeKernel(["{[i,j]: 0<=i<n and 0<=j<4}"], ["<> t[j] = 2*x[j] + 1 {id=w}", "out[i] = sum(j, t[j]*a[i,j]) {id=r, dep=w}"],
      ["a: float64[n,4]", "x: float64[4]", "out: float64[n]", "n: int32"], { name: "tempArray" });
    const p = applyPipeline(k, [{ op: "splitIname", args: ["i", 1] }, { op: "tagInames", args: [{ i_outer: "g.0", i_inner: "l.0" }] },
      { op: "splitIname", args: ["j", 4] }, { op: "tagInames", args: ["j_inner:unr"] }] as never);
    expect(generateCode(p, "c").deviceCode).toMatch(/t\[4 \* j_outer \+ 3\] = /); // unrolled: four copies
    for (const t of ["js", "opencl"] as const) expect(generateCode(p, t).deviceCode).toContain("j_outer");
  });
});
