/**
 * What a script or a tuning log may get wrong when calling a transformation: a misspelt option
 * (a typo, loopy's snake_case names), options that are not an object, or something that is not a
 * kernel. Each is a TransformError naming the transformation and what it accepts; none is ignored.
 */
import { describe, expect, it } from "vitest";
import { LoomError, TransformError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import * as T from "../../transforms/index.js";
import { fromJSON, OP_NAMES, split, step } from "../../transforms/pipeline.js";
import { REGISTRY } from "../../transforms/registry.js";

const matmul = () => makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j]) {id=mm}",
  ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul" });
const same = (a: unknown, b: unknown) => expect(JSON.stringify(a)).toBe(JSON.stringify(b));
// JavaScript callers (notebooks, tuning logs) are not held to the types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loose = <F>(f: F) => f as any;

/** Each transformation with options: a call that works, and where its options object goes. */
const withOptions: [string, (o: unknown) => unknown][] = [
  ["splitIname", (o) => loose(T.splitIname)(matmul(), "i", 4, o)],
  ["chunkIname", (o) => loose(T.chunkIname)(matmul(), "i", 4, o)],
  ["joinInames", (o) => loose(T.joinInames)(makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", "out[i, j] = 1", ["out: int32[n,4]", "n: int32"]), ["i", "j"], "ij", o)],
  ["tile", (o) => loose(T.tile)(matmul(), ["i", "j"], 4, o)],
  ["renameIname", (o) => loose(T.renameIname)(matmul(), "i", "ii", o)],
  ["splitReductionInward", (o) => loose(T.splitReductionInward)(T.splitIname(matmul(), "k", 4), "k_inner", o)],
  ["splitReductionOutward", (o) => loose(T.splitReductionOutward)(T.splitIname(matmul(), "k", 4), "k_outer", o)],
  ["makeReductionInamesUnique", (o) => loose(T.makeReductionInamesUnique)(matmul(), o)],
  ["fixParameters", (o) => loose(T.fixParameters)(matmul(), { n: 8 }, o)],
  ["splitArrayAxis", (o) => loose(T.splitArrayAxis)(makeKernel("{[i]: 0<=i<16}", "out[i] = a[i]", ["a, out: float32[16]"]), "a", 0, 4, o)],
  ["addPrefetch", (o) => loose(T.addPrefetch)(matmul(), "a", o)],
  ["extractSubst", (o) => loose(T.extractSubst)(matmul(), "ab", "a[i, k]*b[k, j]", [], o)],
  ["addBarrier", (o) => loose(T.addBarrier)(makeKernel("{[i]: 0<=i<4}", ["<int32> t[i] = i {id=w}", "out[i] = t[i] {id=r, dep=w}"], ["out: int32[4]"]), "w", "r", "global", o)],
];

describe("options are checked", () => {
  it.each(withOptions)("%s: null or undefined options are no options; a misspelt one is refused", (who, call) => {
    same(call(null), call(undefined));
    same(call({}), call(undefined));
    expect(() => call({ definitelyNotAnOption: 1 })).toThrow(TransformError);
    expect(() => call({ definitelyNotAnOption: 1 })).toThrow(new RegExp(`^${who}: unknown option "definitelyNotAnOption"; options are \\w`));
    expect(() => call("outerTag")).toThrow(new RegExp(`^${who}: options must be an object`));
    expect(() => call([1])).toThrow(TransformError);
  });

  it("suggests the option meant: another case, or loopy's snake_case name", () => {
    expect(() => T.splitIname(matmul(), "i", 4, loose({ outertag: "g.0" }))).toThrow(/unknown option "outertag" \(did you mean "outerTag"\?\); options are outerIname, innerIname, outerTag/);
    expect(() => T.addPrefetch(matmul(), "a", loose({ sweep_inames: ["k"] }))).toThrow(/unknown option "sweep_inames" \(did you mean "sweepInames"\?\)/);
    expect(() => T.renameIname(matmul(), "i", "j", loose({ existing_ok: true }))).toThrow(/did you mean "existingOk"/);
    expect(() => T.addPrefetch(matmul(), "a", loose({ fetch_bounding_box: true }))).toThrow(/did you mean "fetchBoundingBox"/);
  });

  it("a transposition of two neighbouring letters is one edit", () => {
    expect(() => T.splitIname(matmul(), "i", 4, loose({ outerTga: "g.0" }))).toThrow(/unknown option "outerTga" \(did you mean "outerTag"\?\)/);
    // Three letters: two substitutions would be too far, one transposition is near enough.
    expect(() => T.joinInames(T.splitIname(matmul(), "i", 4), ["i_outer", "i_inner"], "ii", loose({ tga: "g.0" }))).toThrow(/unknown option "tga" \(did you mean "tag"\?\)/);
  });

  it("tile's tags must be a list or an object, not a string", () => {
    expect(() => T.tile(matmul(), ["i", "j"], 4, loose({ outerTags: "g.0" }))).toThrow(/tile: outerTags must be a list of tags, one per iname, or an object \{iname: tag\}; got "g.0"/);
  });

  it("a step or a stored pipeline with a misspelt option is refused when it is made or read, before it runs", () => {
    expect(() => step.splitIname("i", 16, loose({ outertag: "g.0" }))).toThrow(TransformError);
    expect(() => split("i", 16, loose({ innertag: "l.0" }))).toThrow(/did you mean "innerTag"/);
    expect(() => fromJSON([{ op: "addPrefetch", args: ["a", { sweep_inames: ["k"] }] }])).toThrow(/addPrefetch: unknown option "sweep_inames" \(did you mean "sweepInames"\?\)/);
    // Correct spellings read back as before.
    expect(() => fromJSON([{ op: "addPrefetch", args: ["a", { sweepInames: ["k"] }] }])).not.toThrow();
  });
});

describe("the kernel argument is checked", () => {
  it.each(OP_NAMES.map((op) => [op]))("%s(nonKernel, …) is a TransformError", (op) => {
    const fn = REGISTRY[op].fn as (...a: unknown[]) => unknown;
    for (const bad of [null, undefined, 3, "k", {}, { name: "k", domains: [] }]) {
      expect(() => fn(bad, "i", 4)).toThrow(TransformError);
      expect(() => fn(bad, "i", 4)).toThrow(new RegExp(`^${op}: the first argument must be a kernel \\(from makeKernel or parseOkl\\)`));
    }
  });

  it("an iname that is not a string is named safely in the error (even an object without toString)", () => {
    for (const bad of [Object.create(null), 3, null, { toString: () => { throw new Error("no"); } }]) {
      expect(() => T.splitIname(matmul(), bad, 4)).toThrow(TransformError);
      expect(() => T.renameIname(matmul(), bad, "x")).toThrow(/^renameIname: no iname .* in kernel "matmul"; inames are i, j, k$/);
    }
  });

  it("a step applied to something that is not a kernel says which step", () => {
    expect(() => loose(split("i", 4))(null)).toThrow(LoomError);
    expect(() => loose(split("i", 4))(null)).toThrow(/step 1 \(splitIname i by 4\): splitIname: the first argument must be a kernel/);
  });
});
