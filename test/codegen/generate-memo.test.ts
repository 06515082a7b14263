/**
 * A repeated variant's code is remembered: generateCode on the same frozen kernel hands back the
 * same frozen result (per target and options), equal to what a fresh generation prints.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { fromJSON, toJSON } from "../../transforms/index.js";
import { pipeline, prefetch, split } from "../../transforms/pipeline.js";
import { clearPolyMemos } from "../../src/poly/index.js";
import { makeKernel } from "../../src/parse/index.js";

const mm = () => makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b, c: float32[n, n]", "n: int32"], { name: "mm" });
const p = pipeline(split("i", 16, { outerTag: "g.0", innerTag: "l.0" }), split("j", 16, { outerTag: "g.1", innerTag: "l.1" }),
  split("k", 16), prefetch("a", { sweepInames: ["i_inner", "k_inner"] }));

describe("generateCode remembers the code of a frozen kernel", () => {
  it("returns the same frozen object for the same kernel, target and options; others differ", () => {
    const k = p(mm());
    const first = generateCode(k, "opencl");
    expect(generateCode(k, "opencl")).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.kernels) && Object.isFrozen(first.kernels[0]!.globalSize)).toBe(true);
    expect(generateCode(k, "cuda")).not.toBe(first);
    expect(generateCode(k, "opencl", { kernelNames: "occa" }).kernels[0]!.name).toMatch(/^_occa_mm_0$/);
    expect(generateCode(k, "opencl").kernels[0]!.name).toBe("mm");
  });

  it("the remembered code equals a fresh generation of an equal kernel built again", () => {
    const k = p(mm());
    const targets = ["opencl", "c", "js"] as const;
    const remembered = targets.map((t) => generateCode(k, t));
    // Pipeline steps, fetches and code are remembered by content too: with the memos emptied, `again`
    // is built anew, an equal kernel and not the same object, and its code generated fresh.
    clearPolyMemos();
    const again = fromJSON(JSON.parse(JSON.stringify(toJSON(p))))(mm());
    expect(again).not.toBe(k);
    targets.forEach((t, x) => {
      const fresh = generateCode(again, t);
      expect(fresh).not.toBe(remembered[x]);
      expect(fresh).toEqual(remembered[x]);
    });
  });
});
