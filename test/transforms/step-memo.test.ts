/**
 * Pipeline steps remembered by derivation (transforms/fetch-memo.ts, stepMemo): a sweep's variants
 * that share a prefix of their pipelines get that prefix's kernels back, the same frozen objects.
 * The law: every prefix of a random pipeline on a random kernel, applied after the shorter ones
 * (each then finds its predecessors' steps remembered), is the kernel (JSON, field order too) or
 * the refusal that applying it with the memo off gives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos } from "../../src/poly/index.js";
import { stepMemoHits, useStepMemo } from "../../transforms/fetch-memo.js";
import { addPrefetch } from "../../transforms/prefetch.js";
import { applyPipeline, pipeline, prefetch, split, type PipelineJSON } from "../../transforms/pipeline.js";
import type { Kernel } from "../../src/ir/index.js";
import { genCase } from "./gen-kernels.js";

/** The kernel as JSON, or the refusal's class and message. */
function outcome(run: () => Kernel): string {
  try {
    return JSON.stringify(run());
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return `${e.constructor.name}: ${e.message}`;
  }
}

/** Each prefix of `json` applied to `k` in turn, longest last. */
function prefixes(k: Kernel, json: PipelineJSON): string[] {
  return json.map((_, n) => outcome(() => applyPipeline(k, json.slice(0, n + 1))));
}

describe("pipeline steps remembered by derivation", () => {
  it("law: each prefix of a random pipeline, after the shorter ones, is what it is with the memo off", () => {
    const before = stepMemoHits();
    fc.assert(fc.property(genCase, (c) => {
      let remembered: string[];
      let fresh: string[];
      try {
        clearPolyMemos();
        useStepMemo(true);
        remembered = prefixes(c.kernel, c.json);
        // The whole pipeline again: every step is found.
        remembered.push(outcome(() => applyPipeline(c.kernel, c.json)));
        clearPolyMemos();
        useStepMemo(false);
        fresh = prefixes(c.kernel, c.json);
        fresh.push(outcome(() => applyPipeline(c.kernel, c.json)));
      } finally {
        useStepMemo(true);
      }
      expect(remembered).toEqual(fresh);
    }), { numRuns: 15 });
    expect(stepMemoHits() - before).toBeGreaterThan(10);
  });

  it("the variants of a tile sweep share the kernels of their common prefix (same objects)", () => {
    const k = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
      ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
    const tiled = (ti: number, tj: number, tk: number) => pipeline(
      split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
      prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }));
    clearPolyMemos();
    const ij = pipeline(split("i", 16, { outerTag: "g.0", innerTag: "l.1" }), split("j", 8, { outerTag: "g.1", innerTag: "l.0" }));
    const before = stepMemoHits();
    const a = tiled(16, 8, 16)(k);
    const b = tiled(16, 8, 32)(k);
    // Two steps found again (the splits of i and j), and their kernel is the one object.
    expect(stepMemoHits() - before).toBe(2);
    expect(ij(k)).toBe(ij(k));
    expect(a).not.toBe(b);
    useStepMemo(false);
    try {
      clearPolyMemos();
      expect(JSON.stringify(tiled(16, 8, 32)(k))).toBe(JSON.stringify(b));
    } finally {
      useStepMemo(true);
    }
  });
});

describe("one memo per answer", () => {
  it("a prefetch step's answer is kept by the step memo alone: addPrefetch asked directly computes it anew, equal in content", () => {
    const k = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
      ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
    const tiled = pipeline(split("i", 16, { outerTag: "g.0", innerTag: "l.1" }), split("j", 16, { outerTag: "g.1", innerTag: "l.0" }), split("k", 8))(k);
    const viaStep = prefetch("a", { sweepInames: ["i_inner", "k_inner"] })(tiled);
    expect(prefetch("a", { sweepInames: ["i_inner", "k_inner"] })(tiled)).toBe(viaStep);
    const direct = addPrefetch(tiled, "a", { sweepInames: ["i_inner", "k_inner"] });
    expect(direct).not.toBe(viaStep);
    expect(JSON.stringify(direct)).toBe(JSON.stringify(viaStep));
  });
});

describe("stepMemo and what is no kernel", () => {
  it("a frozen object that is no kernel reaches the step, which refuses it", () => {
    const loose = split("i", 4) as unknown as (k: unknown) => Kernel;
    expect(() => loose(Object.freeze({}))).toThrow(/step 1 \(splitIname i by 4\): splitIname: the first argument must be a kernel/);
    expect(() => loose(Object.freeze({ domains: Object.freeze([]) }))).toThrow(/splitIname: the first argument must be a kernel/);
  });
});
