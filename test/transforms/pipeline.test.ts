/** Pipelines: step forms, composition, JSON round trip, describe, and errors that name the step. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { splitIname, tagInames } from "../../transforms/iname.js";
import {
  applyPipeline, describe as describeStep, fromJSON, join, OP_NAMES, pipeline, PipelineStepError, prefetch, prioritize,
  split, step, tag, toJSON, type Step,
} from "../../transforms/pipeline.js";
import { genCase } from "./gen-kernels.js";

const elementwise = () => makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] {id=s}", ["a, out: float64[n]", "n: int32"], { name: "k" });
const matmul = () => makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul" });
const same = (a: unknown, b: unknown) => expect(JSON.stringify(a)).toBe(JSON.stringify(b));

describe("step forms", () => {
  it("step.X(args)(k) is X(k, args), and the short names are the same steps", () => {
    const k = elementwise();
    same(step.splitIname("i", 16, { outerTag: "g.0", innerTag: "l.0" })(k), splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.0" }));
    same(split("i", 4)(k), splitIname(k, "i", 4));
    same(tag({ i: "unr" })(k), tagInames(k, { i: "unr" }));
    expect(toJSON(prioritize("i"))).toEqual([{ op: "prioritizeLoops", args: ["i"] }]);
    expect(toJSON(join(["i", "j"], "ij"))).toEqual([{ op: "joinInames", args: [["i", "j"], "ij"] }]);
    expect(toJSON(prefetch("a", { sweepInames: ["i_inner"] }))).toEqual([{ op: "addPrefetch", args: ["a", { sweepInames: ["i_inner"] }] }]);
    expect(typeof step.tile).toBe("function");
  });

  it("every registered transformation has a step form", () => {
    for (const op of OP_NAMES) expect(typeof (step as Record<string, unknown>)[op]).toBe("function");
    expect(OP_NAMES).toEqual(expect.arrayContaining(["splitIname", "chunkIname", "tagInames", "prioritizeLoops", "setTemporaryAddressSpace", "joinInames", "tile", "addPrefetch"]));
  });

  it("a step is plain data: frozen, and later changes to the caller's options do not reach it", () => {
    const opts: { outerTag: string; innerTag?: string } = { outerTag: "g.0" };
    const s = split("i", 8, opts);
    opts.outerTag = "g.1";
    expect(s.steps).toEqual([{ op: "splitIname", args: ["i", 8, { outerTag: "g.0" }] }]);
    expect(Object.isFrozen(s.steps[0]!.args)).toBe(true);
  });

  it("rejects arguments that are not JSON data, and ill-shaped ones, with what is accepted", () => {
    expect(() => (step.tagInames as (x: unknown) => Step)({ i: () => "g.0" })).toThrow(/argument 1\.i is a function.*; step arguments must be JSON data/);
    expect(() => split("i", NaN)).toThrow(TransformError);
    expect(() => (split as (...a: unknown[]) => Step)("i", "16")).toThrow(/argument 2 of splitIname must be an integer, got "16"; accepted: splitIname\(a string; an integer; \[an options object/);
    expect(() => (split as (...a: unknown[]) => Step)("i")).toThrow(/takes at least 2 arguments/);
    expect(() => (split as (...a: unknown[]) => Step)("i", 2, {}, 4)).toThrow(/at most 3 arguments/);
    expect(() => (step.tagInames as (x: unknown) => Step)(new Map())).toThrow(/instance of Map/);
  });
});

describe("pipeline", () => {
  it("applies its steps in order and flattens nested pipelines", () => {
    const k = matmul();
    const p = pipeline(split("i", 16, { outerTag: "g.0", innerTag: "l.1" }), pipeline(split("j", 16), pipeline(split("k", 4))), tag({ j_outer: "g.1", j_inner: "l.0" }));
    expect(p.steps.map((s) => s.op)).toEqual(["splitIname", "splitIname", "splitIname", "tagInames"]);
    let direct = splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    direct = tagInames(splitIname(splitIname(direct, "j", 16), "k", 4), { j_outer: "g.1", j_inner: "l.0" });
    same(p(k), direct);
    expect(pipeline()(k)).toBe(k);
    expect(pipeline([split("i", 2), tag({ i_inner: "unr" })]).steps).toHaveLength(2);
  });

  it("a failing step throws a TransformError naming its index and op, and the input kernel is untouched", () => {
    const k = elementwise();
    const before = JSON.stringify(k);
    const p = pipeline(split("i", 4, { innerTag: "l.0" }), split("i_inner", 2), tag({ i_outer: "g.0" }));
    let err: unknown;
    try {
      p(k);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TransformError);
    expect(err).toBeInstanceOf(PipelineStepError);
    expect((err as PipelineStepError).stepIndex).toBe(1);
    expect((err as PipelineStepError).op).toBe("splitIname");
    expect((err as Error).message).toMatch(/^pipeline step 2 of 3 \(splitIname i_inner by 2\): splitIname: cannot split iname "i_inner": it has the hardware tag l.0/);
    expect(JSON.stringify(k)).toBe(before);
  });

  it("refuses what is not a step", () => {
    expect(() => pipeline(((k: unknown) => k) as unknown as Step)).toThrow(/argument 1 is not a step/);
  });
});

describe("JSON form", () => {
  it("is plain data that round-trips exactly, also through JSON text", () => {
    const p = pipeline(split("i", 16, { outerTag: "g.0", innerTag: "l.0", slabs: [0, 1] }), tag("i_inner:l.0"), prioritize(["i_outer", "i_inner"]));
    const json = toJSON(p);
    expect(json).toEqual([
      { op: "splitIname", args: ["i", 16, { outerTag: "g.0", innerTag: "l.0", slabs: [0, 1] }] },
      { op: "tagInames", args: ["i_inner:l.0"] },
      { op: "prioritizeLoops", args: [["i_outer", "i_inner"]] },
    ]);
    expect(toJSON(fromJSON(json))).toEqual(json);
    expect(toJSON(fromJSON(JSON.stringify(json)))).toEqual(json);
    expect(toJSON(fromJSON(json[0]))).toEqual([json[0]]);
    // The JSON is a fresh copy: changing it does not change the step.
    (json[0]!.args as unknown[])[1] = 2;
    expect(toJSON(p)[0]!.args[1]).toBe(16);
  });

  it("an absent argument in the middle is null in JSON and the default when applied", () => {
    const s = step.joinInames(["i", "j"], undefined, { tag: "g.0" });
    expect(toJSON(s)).toEqual([{ op: "joinInames", args: [["i", "j"], null, { tag: "g.0" }] }]);
    expect(toJSON(fromJSON(toJSON(s)))).toEqual(toJSON(s));
    expect(toJSON(split("i", 4, undefined))).toEqual([{ op: "splitIname", args: ["i", 4] }]);
  });

  it("law: toJSON(fromJSON(toJSON(p))) deep-equals toJSON(p), and applyPipeline(k, toJSON(p)) equals p(k)", () => {
    fc.assert(fc.property(genCase, (c) => {
      const json = toJSON(c.pipeline);
      expect(toJSON(fromJSON(JSON.parse(JSON.stringify(json))))).toEqual(json);
      same(applyPipeline(c.kernel, json), c.pipeline(c.kernel));
    }), { numRuns: 100 });
  });

  it("fromJSON validates op names, keys and argument shapes, saying what is accepted", () => {
    expect(() => fromJSON([{ op: "splitInames", args: ["i", 4] }])).toThrow(/fromJSON: step 0: unknown op "splitInames"; accepted ops are splitIname, chunkIname, tagInames/);
    expect(() => fromJSON([{ op: "splitIname", args: ["i", "4"] }])).toThrow(/fromJSON: step 0 \(splitIname\): argument 2 of splitIname must be an integer, got "4"; accepted: splitIname\(/);
    expect(() => fromJSON([{ op: "splitIname", args: "i" }])).toThrow(/args must be a list/);
    expect(() => fromJSON([{ op: "splitIname", args: ["i", 4], extra: 1 }])).toThrow(/unknown key extra; accepted keys are op and args/);
    expect(() => fromJSON(42)).toThrow(/expected a list of steps/);
    expect(() => fromJSON("[{")).toThrow(/not valid JSON/);
    expect(() => fromJSON([null])).toThrow(/step 0 must be an object/);
    expect(() => fromJSON([{ op: "tile", args: [["i"], [1.5]] }])).toThrow(/argument 2 of tile must be an integer or a list of integers/);
    expect(() => toJSON({} as Step)).toThrow(TransformError);
  });

  it("applyPipeline replays a stored pipeline", () => {
    const k = elementwise();
    const stored = JSON.parse(JSON.stringify(toJSON(pipeline(split("i", 4, { outerTag: "g.0", innerTag: "l.0" })))));
    same(applyPipeline(k, stored), splitIname(k, "i", 4, { outerTag: "g.0", innerTag: "l.0" }));
    expect(() => applyPipeline(k, [{ op: "tagInames", args: [{ q: "g.0" }] }])).toThrow(/pipeline step 1 \(tagInames q:g.0\): tagInames: no iname "q"/);
  });
});

describe("describe", () => {
  it("is one readable line per transformation", () => {
    const p = pipeline(
      split("i", 16, { outerTag: "g.0", innerTag: "l.0" }), split("k", 4, { outerIname: "ko", slabs: [0, 1] }), step.chunkIname("j", 4),
      tag({ j_outer: "g.1", k_inner: "unr" }), prioritize("i_outer,ko"), step.setTemporaryAddressSpace("t", "local"),
      step.tile(["i", "j"], [16, 8]), step.renameIname("i", "ii"), prefetch("a", { sweepInames: ["i_inner", "k_inner"] }),
    );
    expect(describeStep(p).split("\n")).toEqual([
      "splitIname i by 16 (outer g.0, inner l.0)",
      "splitIname k by 4 (outer ko, slabs 0/1)",
      "chunkIname j into 4 chunks",
      "tagInames j_outer:g.1, k_inner:unr",
      "prioritizeLoops i_outer, ko",
      "setTemporaryAddressSpace t local",
      "tile i, j by 16x8",
      "renameIname i to ii",
      "addPrefetch a (sweepInames i_inner, k_inner)",
    ]);
    expect(describeStep(pipeline())).toBe("");
  });
});
