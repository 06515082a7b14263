/**
 * addPrefetch and precompute remembered by value (transforms/fetch-memo.ts): a kernel equal in
 * content gets the same frozen answer, which equals what is computed without the memo; anything
 * that JSON would confuse has no key.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { TransformError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, precompute, splitIname } from "../../transforms/index.js";
import { kernelKey, valueKey } from "../../transforms/fetch-memo.js";
import { pipeline, prefetch, split } from "../../transforms/pipeline.js";

const matmul = () => makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"],
  { name: "matmul", assumptions: "n mod 16 = 0 and n >= 16" });
const tiled = (t: number, tk: number) => {
  let k = splitIname(matmul(), "i", t, { outerTag: "g.0", innerTag: "l.1" });
  k = splitIname(k, "j", t, { outerTag: "g.1", innerTag: "l.0" });
  return splitIname(k, "k", tk);
};
/** A copy that is not frozen: the memo cannot key it, so the fetch is computed afresh. */
const unfrozen = (k: Kernel): Kernel => structuredClone(k);

describe("fetch memo", () => {
  it("law: a rebuilt kernel gets the same answer object, equal to the one computed without the memo", () => {
    fc.assert(fc.property(fc.constantFrom(2, 4, 8, 16), fc.constantFrom(2, 4, 8, 16), (t, tk) => {
      const opts = { sweepInames: ["i_inner", "k_inner"] };
      const x = addPrefetch(tiled(t, tk), "a", opts);
      const y = addPrefetch(tiled(t, tk), "a", { sweepInames: ["i_inner", "k_inner"] });
      expect(y).toBe(x);
      const fresh = addPrefetch(unfrozen(tiled(t, tk)), "a", opts);
      expect(fresh).not.toBe(x);
      expect(JSON.stringify(fresh)).toBe(JSON.stringify(x));
      expect(generateCode(addPrefetch(unfrozen(x), "b", { sweepInames: ["k_inner", "j_inner"] }), "opencl").deviceCode)
        .toBe(generateCode(addPrefetch(x, "b", { sweepInames: ["k_inner", "j_inner"] }), "opencl").deviceCode);
    }), { numRuns: 6 });
  });

  it("other arguments or another kernel content are other answers", () => {
    const k = tiled(16, 16);
    const a = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] });
    expect(addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"], dimArgNames: ["x", "y"] })).not.toBe(a);
    expect(addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"], temporaryName: "t" })).not.toBe(a);
    expect(addPrefetch(tiled(16, 8), "a", { sweepInames: ["i_inner", "k_inner"] })).not.toBe(a);
    const rule = () => makeKernel("{[i]: 0<=i<16}", ["f(x) := 2*a[x]", "out[i] = f(i)"], ["a, out: float32[16]"]);
    const f = rule();
    expect(precompute(f, "f", ["i"])).toBe(precompute(rule(), "f", ["i"]));
    expect(precompute(f, "f", ["i"], { temporaryName: "g" })).not.toBe(precompute(f, "f", ["i"]));
  });

  it("a refused fetch throws the same error every time (nothing is remembered)", () => {
    const k = tiled(16, 16);
    const msg = (() => { try { addPrefetch(k, "a", { sweepInames: ["nope"] }); } catch (e) { return e; } })();
    expect(msg).toBeInstanceOf(TransformError);
    expect(() => addPrefetch(tiled(16, 16), "a", { sweepInames: ["nope"] })).toThrow((msg as Error).message);
  });

  it("law: a pipeline's kernels are keyed by their derivation; equal keys mean equal content, the same steps equal keys", () => {
    const base = matmul();
    const steps = fc.uniqueArray(fc.record({ iname: fc.constantFrom("i", "j", "k"), factor: fc.constantFrom(1, 2, 3, 16) }), { selector: (s) => s.iname, maxLength: 3 });
    const build = (ss: readonly { iname: string; factor: number }[]) => pipeline(...ss.map((s) => split(s.iname, s.factor)));
    fc.assert(fc.property(steps, steps, (xs, ys) => {
      const x = build(xs)(base);
      const y = build(ys)(base);
      if (kernelKey(x) === kernelKey(y)) expect(JSON.stringify(x)).toBe(JSON.stringify(y));
      expect(kernelKey(build(xs)(base))).toBe(kernelKey(x));
      // The fetch answer a derived key finds equals the one computed afresh.
      if (xs.length > 0) {
        const p = prefetch("a", { sweepInames: [] });
        expect(JSON.stringify(p(x))).toBe(JSON.stringify(p(unfrozen(x))));
      }
    }), { numRuns: 25 });
    const p = pipeline(split("i", 16, { outerTag: "g.0", innerTag: "l.1" }), split("j", 16, { outerTag: "g.1", innerTag: "l.0" }), split("k", 8), prefetch("a", { sweepInames: ["i_inner", "k_inner"] }));
    expect(p(base)).toBe(p(base));
  });

  it("values JSON would confuse have no key, or distinct ones", () => {
    expect(valueKey({ a: undefined })).not.toBe(valueKey({}));
    expect(valueKey([undefined])).not.toBe(valueKey([null]));
    for (const x of [-0, NaN, Infinity, new Map(), () => 1, "a\u0000u", 1n, Symbol("s")]) expect(valueKey([x])).toBeUndefined();
    expect(valueKey({ x: [1, "a", null, true] })).toBe(valueKey({ x: [1, "a", null, true] }));
    expect(kernelKey(unfrozen(matmul()))).toBeUndefined();
    expect(kernelKey(matmul())).toBe(kernelKey(matmul()));
    expect(kernelKey(matmul())).not.toBe(kernelKey(tiled(16, 16)));
  });
});
