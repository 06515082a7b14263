/** renameIname, duplicateInames, removeUnusedInames: structure, errors, and the law run(t(k)) == run(k). */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { printSet } from "../../src/poly/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { duplicateInames, removeUnusedInames, renameIname } from "../../transforms/iname-rename.js";
import { prioritizeLoops, tagInames } from "../../transforms/iname.js";
import { expectOnEveryBackend } from "./every-backend.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));
const tri = () => makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<=i}"], "out[i] = sum(j, a[i,j]) {id=s, if=i > 0}", ["a: float64[n,n]", "out: float64[n]", "n: int32"], { name: "t" });
const two = () => makeKernel("{[i,i2]: 0<=i,i2<n}", ["t[i] = 2*a[i] {id=first}", "out[i2] = t[i2] + 1 {id=second}"], ["a, t, out: float64[n]", "n: int32"], { name: "two" });

async function equivalent(k: Kernel, t: Kernel, n: number): Promise<boolean> {
  const r = await autoTestVsRef(k, t, { params: { n }, seed: n });
  if (!r.ok) throw new Error(`not equivalent for n=${n}: ${r.mismatches.slice(0, 3).join("; ")}`);
  return true;
}

describe("renameIname", () => {
  it("renames in domains (also dependent ones), instructions, reductions, predicates, tags and priorities", () => {
    const k = renameIname(prioritizeLoops(tagInames(tri(), { i: "g.0" }), "i"), "i", "row");
    expect(text(k)).toEqual(["out[row] = sum(j, a[row, j])"]);
    expect(exprToString(k.instructions[0]!.predicates[0]!)).toBe("row > 0");
    expect(printSet(k.domains[1]!)).toBe("[row] -> { [j] : 0 <= j <= row }");
    expect(k.inameTags).toEqual({ row: { kind: "g", axis: 0 } });
    expect(k.loopPriority).toEqual([["row"]]);
    expect(text(renameIname(tri(), "j", "col"))).toEqual(["out[i] = sum(col, a[i, col])"]);
  });

  it("with existingOk merges into an existing iname with the same domain (loop fusion)", () => {
    const k = renameIname(two(), "i2", "i", { existingOk: true });
    expect(text(k)).toEqual(["t[i] = 2*a[i]", "out[i] = t[i] + 1"]);
    expect(k.domains[0]!.dims).toEqual(["i"]);
  });

  it("errors: unknown iname, existing iname without existingOk, other name, different domains, both used", () => {
    expect(() => renameIname(tri(), "q", "r")).toThrow(new TransformError('renameIname: no iname "q" in kernel "t"; inames are i, j'));
    expect(() => renameIname(two(), "i2", "i")).toThrow(/iname "i" already exists in kernel "two"; pass \{ existingOk: true \} to merge "i2" into it/);
    expect(() => renameIname(two(), "i2", "a")).toThrow(/"a" is already a name in kernel "two" \(not an iname\)/);
    expect(() => renameIname(two(), "i2", "1x")).toThrow(/newIname must be an identifier/);
    const diff = makeKernel("{[i,i2]: 0<=i<n and 0<=i2<n-1}", ["t[i] = 2*a[i] {id=first}", "out[i2] = 1 {id=second}"], ["a, t, out: float64[n]", "n: int32"]);
    expect(() => renameIname(diff, "i2", "i", { existingOk: true })).toThrow(/inames "i2" and "i" do not iterate over the same domain/);
    const both = makeKernel("{[i,j]: 0<=i,j<n}", "out[i] = sum(j, a[i,j])", ["a: float64[n,n]", "out: float64[n]", "n: int32"]);
    expect(() => renameIname(both, "j", "i", { existingOk: true })).toThrow(/instruction "insn" uses both "j" and "i"/);
  });
});

describe("duplicateInames", () => {
  it("gives the matched instructions copies with the same constraints (default names i_0)", () => {
    const k = makeKernel("{[i,j]: 0<=j<=i<n}", ["t[i,j] = a[i,j] {id=first}", "out[i,j] = t[i,j] {id=second}"], ["a, t, out: float64[n,n]", "n: int32"]);
    const d = duplicateInames(k, "i,j", "second");
    expect(text(d)).toEqual(["t[i, j] = a[i, j]", "out[i_0, j_0] = t[i_0, j_0]"]);
    expect(d.domains[0]!.dims).toEqual(["i", "i_0", "j", "j_0"]);
    expect(printSet(d.domains[0]!)).toContain("j_0 <= i_0");
    expect(d.instructions[1]!.withinInames).toEqual(["i_0", "j_0"]);
  });

  it("takes new names; duplicates reduction inames", () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", "out[i] = sum(j, a[i,j]) {id=mv}", ["a: float64[n,n]", "out: float64[n]", "n: int32"]);
    expect(text(duplicateInames(k, ["j"], "mv", ["jj"]))).toEqual(["out[i] = sum(jj, a[i, jj])"]);
  });

  it("errors: unknown iname, no match, bad or taken names, dependent domain", () => {
    expect(() => duplicateInames(two(), "q", "first")).toThrow(/duplicateInames: no iname "q"/);
    expect(() => duplicateInames(two(), "i", "nope")).toThrow(/within "nope" matches no instruction/);
    expect(() => duplicateInames(two(), "i", "first", ["a"])).toThrow(/new iname "a" is already a name/);
    expect(() => duplicateInames(two(), "i", "first", ["x", "y"])).toThrow(/newNames must have one name per iname \(1\); got 2/);
    expect(() => duplicateInames(tri(), "i", "s")).toThrow(/domain 1 depends on i/);
  });
});

describe("removeUnusedInames", () => {
  it("projects unused inames out exactly, keeping what they imply", () => {
    const k = makeKernel("{[i,j,l]: 0<=i<n and 0<=j<m and 0<=l<4}", "out[i] = 2*a[i]", ["a, out: float64[n]", "n, m: int32"]);
    const r = removeUnusedInames(k);
    expect(printSet(r.domains[0]!)).toBe("[n, m] -> { [i] : 1 <= m and 0 <= i < n }");
    expect(removeUnusedInames(k, "l").domains[0]!.dims).toEqual(["i", "j"]);
  });

  it("keeps parents of used inames and drops domains left without inames", () => {
    expect(removeUnusedInames(tri())).toEqual(tri());
    const k = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], "out[i] = 1", ["out: float64[n]", "n: int32"]);
    expect(removeUnusedInames(k).domains.length).toBe(1);
    const after = removeUnusedInames(duplicateInames(two(), "i", "first"));
    expect(after.domains[0]!.dims).toEqual(["i_0", "i2"]);
  });

  it("errors: unknown iname", () => {
    expect(() => removeUnusedInames(two(), ["zz"])).toThrow(/removeUnusedInames: no iname "zz"/);
  });
});

// ---- the law -------------------------------------------------------------------------------

const KERNELS = fc.constantFrom(
  makeKernel("{[i,i2]: 0<=i,i2<n}", ["t[i] = 2*a[i] {id=first}", "out[i2] = t[i2] + 1 {id=second}"], ["a, t, out: float64[n]", "n: int32"]),
  makeKernel("{[i,j]: 0<=j<=i<n}", ["t[i,j] = a[i,j]*j {id=first}", "out[i] = sum(j, t[i,j]) {id=second}"], ["a, t: float64[n,n]", "out: float64[n]", "n: int32"]),
  makeKernel("{[i,i2]: 0<=i<n and 1<=i2<n}", ["t[i] = 2*a[i] {id=first}", "out[i2] = a[i2] + 1 {id=second}"], ["a, t, out: float64[n]", "n: int32"]),
  makeKernel("{[i,l]: 0<=i<n and i<=l<4}", ["t[i] = 2*a[i] {id=first}", "out[i] = t[i] - i {id=second}"], ["a, t, out: float64[n]", "n: int32"]),
  makeKernel("{[i,j,l]: 0<=i,j<n and 0<=l<3}", ["y[i] = sum(j, A[i,j]*x[j]) {id=first}", "z[j] = x[j] + 1 {id=second}"], ["A: float64[n,n]", "x, y, z: float64[n]", "n: int32"]),
);

const FRESH = ["p", "q", "r", "s", "i"];

describe("the law: rename, duplicate and remove preserve the meaning of a kernel", () => {
  it("renameIname (fresh names, and merges where the domains are equal)", async () => {
    await fc.assert(fc.asyncProperty(KERNELS, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 9 }), async (k, a, b, n) => {
      const inames = k.domains.flatMap((d) => d.dims);
      const old = inames[a % inames.length]!;
      const target = FRESH[b % FRESH.length]!;
      let t: Kernel;
      try {
        t = renameIname(k, old, target, { existingOk: true });
      } catch (e) {
        if (e instanceof TransformError && /same domain|uses both/.test(e.message)) return true;
        throw e;
      }
      return equivalent(k, t, n);
    }), RUNS);
  });

  it("duplicateInames followed by removeUnusedInames", async () => {
    await fc.assert(fc.asyncProperty(KERNELS, fc.nat(), fc.subarray(["first", "second"], { minLength: 1 }), fc.boolean(), fc.integer({ min: 0, max: 9 }),
      async (k, a, within, remove, n) => {
        const inames = k.domains.flatMap((d) => d.dims);
        const t = duplicateInames(k, inames[a % inames.length]!, within);
        return equivalent(k, remove ? removeUnusedInames(t) : t, n);
      }), RUNS);
  });

  it("removeUnusedInames", async () => {
    await fc.assert(fc.asyncProperty(KERNELS, fc.integer({ min: 0, max: 9 }), async (k, n) => equivalent(k, removeUnusedInames(k), n)), RUNS);
  });
});

describe("duplicateInames never splits a value from its reader (issue 16, point 5)", () => {
  const scalar = () => makeKernel("{[i]: 0<=i<n}", ["<float64> t = 2*a[i] {id=s1}", "out[i] = t {id=s2}"], ["a, out: float64[n]", "n: int32"]);
  it("refuses to give a private scalar's writer its own loop, naming the variable and both instructions", () => {
    expect(() => duplicateInames(scalar(), "i", "id:s1")).toThrow(/"s1" writes "t" once per iteration of "i".*"s2" reads it/);
    expect(() => duplicateInames(scalar(), "i", "id:s2")).toThrow(TransformError);
  });
  it("a value read as a loop's bound is read too (found by the pipeline law: paramBarrier, duplicateInames i for the reader)", async () => {
    // t bounds r ([t] -> {[r]: 0<=r<t}): the reader's own loop over a copy of i read only the last t.
    const bound = makeKernel(["{[i]: 0<=i<n}", "[t] -> {[r]: 0<=r<t}"], ["<int32> t = n - i {id=wt}", "out[i] = sum(r, a[i] + r) {id=use, dep=wt}"],
      ["a, out: float64[n]", "n: int32"]);
    expect(() => duplicateInames(bound, "i", "id:use")).toThrow(/"wt" writes "t" once per iteration of "i".*"use" reads it/);
    const a = Float64Array.from({ length: 5 }, (_, i) => i - 2);
    await expectOnEveryBackend(duplicateInames(bound, "i", "id:wt or id:use"), { a, n: 5 }, { out: a.map((x, i) => (5 - i) * x + ((5 - i) * (4 - i)) / 2) });
  });
  it("accepts duplicating for both, or a value indexed by the iname; the result runs right on every backend", async () => {
    const both = duplicateInames(scalar(), "i", "id:s1 or id:s2");
    const arr = makeKernel("{[i]: 0<=i<n}", ["tmp[i] = 2*a[i] {id=s1}", "out[i] = tmp[i] {id=s2}"], ["a, out, tmp: float64[n]", "n: int32"]);
    const split = duplicateInames(arr, "i", "id:s1");
    const a = Float64Array.from({ length: 7 }, (_, i) => i * i - 3);
    await expectOnEveryBackend(both, { a, n: 7 }, { out: a.map((x) => 2 * x) });
    await expectOnEveryBackend(split, { a, n: 7 }, { out: a.map((x) => 2 * x) });
  });
});
