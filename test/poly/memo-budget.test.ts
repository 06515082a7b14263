/**
 * The memos' budget (src/poly/memo.ts): all memos together hold at most a budget of entries, then
 * are emptied, so a long sweep's memory stays bounded. Emptying them loses only sharing: a sweep
 * that crosses the budget many times generates the same code as one that never does.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos, polyWork } from "../../src/poly/index.js";
import { polyMemoHeld, setPolyMemoBudget } from "../../src/poly/memo.js";
import { pipeline, prefetch, split } from "../../transforms/pipeline.js";

const matmul = () => makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 16 = 0 and n >= 16" });
const tiled = (ti: number, tj: number, tk: number) => pipeline(
  split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
  prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }));
const sizes = [[4, 8, 2], [8, 4, 4], [16, 16, 8], [3, 5, 7], [8, 8, 16], [4, 16, 4]] as const;
const sweep = () => sizes.map(([a, b, c]) => generateCode(tiled(a, b, c)(matmul()), "opencl").deviceCode);

describe("the poly memos' budget", () => {
  it("memos past the budget are emptied: at most the budget is held, and the code is the same as with room for everything", () => {
    clearPolyMemos();
    const w0 = polyWork();
    const roomy = sweep();
    const roomyWork = polyWork() - w0;
    const was = setPolyMemoBudget(40);
    try {
      clearPolyMemos();
      const w1 = polyWork();
      let most = 0;
      const tight = sizes.map(([a, b, c]) => {
        const code = generateCode(tiled(a, b, c)(matmul()), "opencl").deviceCode;
        most = Math.max(most, polyMemoHeld());
        return code;
      });
      expect(tight).toEqual(roomy);
      expect(most).toBeLessThanOrEqual(40);
      // It did forget: the tight sweep computed more answers than the roomy one.
      expect(polyWork() - w1).toBeGreaterThan(roomyWork);
    } finally {
      setPolyMemoBudget(was);
      clearPolyMemos();
    }
  });
});
