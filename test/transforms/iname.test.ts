/** splitIname, chunkIname, tagInames, prioritizeLoops, setTemporaryAddressSpace: structure and errors. */
import { describe, expect, it } from "vitest";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { printSet } from "../../src/poly/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { generateCode } from "../../codegen/index.js";
import { chunkIname, prioritizeLoops, setTemporaryAddressSpace, splitIname, tagInames } from "../../transforms/index.js";

const elementwise = () => makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] {id=s}", ["a: float64[n]", "out: float64[n]", "n: int32"], { name: "k" });
const matvec = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, A[i,j]*x[j]) {id=mv}", ["A: float64[n,n]", "x, y: float64[n]", "n: int32"], { name: "mv" });
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));

describe("splitIname", () => {
  it("rewrites i as i_inner + i_outer*factor, in loopy's order of terms", () => {
    const k = splitIname(elementwise(), "i", 16);
    expect(text(k)).toEqual(["out[i_inner + i_outer*16] = 2*a[i_inner + i_outer*16]"]);
    expect(printSet(k.domains[0]!)).toBe("[n] -> { [i_outer, i_inner] : -16*i_outer <= i_inner < n - 16*i_outer and 0 <= i_inner <= 15 }");
    expect(k.instructions[0]!.withinInames).toEqual(["i_inner", "i_outer"]);
  });

  it("leaves the input kernel unchanged", () => {
    const k = elementwise();
    const before = JSON.stringify(k);
    splitIname(k, "i", 4, { outerTag: "g.0", slabs: [0, 1] });
    expect(JSON.stringify(k)).toBe(before);
  });

  it("turns a reduction over j into one over (j_outer, j_inner)", () => {
    const k = splitIname(matvec(), "j", 4);
    expect(text(k)).toEqual(["y[i] = sum((j_outer, j_inner), A[i, j_inner + j_outer*4]*x[j_inner + j_outer*4])"]);
    expect(k.domains[0]!.dims).toEqual(["i", "j_outer", "j_inner"]);
  });

  it("rewrites predicates, loop priorities and dependent domains", () => {
    let k = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<=i}"], "out[i] = sum(j, a[j]) {id=t, if=i > 1}", ["a, out: float64[n]", "n: int32"]);
    k = prioritizeLoops(k, "i");
    const s = splitIname(k, "i", 3);
    expect(exprToString(s.instructions[0]!.predicates[0]!)).toBe("i_inner + i_outer*3 > 1");
    expect(s.loopPriority).toEqual([["i_outer", "i_inner"]]);
    expect(printSet(s.domains[1]!)).toBe("[i_outer, i_inner] -> { [j] : 0 <= j <= 3*i_outer + i_inner }");
  });

  it("takes given names, uniquifies default ones, and sets the given tags", () => {
    const named = splitIname(elementwise(), "i", 8, { outerIname: "io", innerIname: "ii", outerTag: "g.0", innerTag: "l.0" });
    expect(named.domains[0]!.dims).toEqual(["io", "ii"]);
    expect(named.inameTags).toEqual({ io: { kind: "g", axis: 0 }, ii: { kind: "l", axis: 0 } });
    const taken = makeKernel("{[i, i_outer]: 0<=i<n and 0<=i_outer<2}", "out[i, i_outer] = 1", ["out: float64[n, 2]", "n: int32"]);
    expect(splitIname(taken, "i", 2).domains[0]!.dims).toEqual(["i_outer_0", "i_inner", "i_outer"]);
  });

  it("records slabs on the outer iname", () => {
    expect(splitIname(elementwise(), "i", 4, { slabs: [0, 1] }).inameSlabs).toEqual({ i_outer: [0, 1] });
    expect(() => splitIname(elementwise(), "i", 4, { slabs: [-1, 0] as unknown as [number, number] })).toThrow(/slabs\[0\] must be an integer >= 0/);
  });

  it("slabs over a range never longer than the slabs: no bulk loop, the reference's results (found by the random-pipeline law)", async () => {
    // j_outer takes at most 2 values for each i: the bulk slab is empty everywhere.
    const k = makeKernel(["{[i]: 0<=i<8}", "[i] -> {[j]: i-2<=j<=i and 0<=j}"], ["out[i] = sum(j, b[j])"], ["out: float64[8]", "b: float64[8]"], { name: "window" });
    const s = splitIname(k, "j", 7, { slabs: [1, 1] });
    const code = generateCode(s, "c").deviceCode;
    expect(code).toContain("initial slab for 'j_outer'");
    expect(code).not.toContain("bulk slab");
    for (const backend of ["interp", "js"] as const) expect((await autoTestVsRef(k, s, { params: {}, backend })).mismatches, backend).toEqual([]);
  });

  it("with within, only the matched instructions use the new inames", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=first}", "out[i] = t[i] + 1 {id=second}"], ["a, t, out: float64[n]", "n: int32"]);
    const s = splitIname(k, "i", 4, { within: "sec*" });
    expect(text(s)).toEqual(["t[i] = 2*a[i]", "out[i_inner + i_outer*4] = t[i_inner + i_outer*4] + 1"]);
    expect(s.domains[0]!.dims).toEqual(["i", "i_outer", "i_inner"]);
    for (const n of [0, 5, 8]) expect((await autoTestVsRef(k, s, { params: { n } })).ok).toBe(true);
    // Matching every instruction leaves the original iname unused: it is dropped.
    expect(splitIname(k, "i", 4, { within: ["first", "second"] }).domains[0]!.dims).toEqual(["i_outer", "i_inner"]);
    expect(() => splitIname(k, "i", 4, { within: "nope" })).toThrow(/within "nope" matches no instruction .* ids are first, second/);
  });

  it("errors: unknown iname, bad factor, tagged iname, taken name", () => {
    expect(() => splitIname(elementwise(), "q", 4)).toThrow(new TransformError('splitIname: no iname "q" in kernel "k"; inames are i'));
    for (const f of [0, -2, 1.5, NaN]) expect(() => splitIname(elementwise(), "i", f)).toThrow(/factor must be an integer >= 1/);
    const tagged = tagInames(elementwise(), { i: "g.0" });
    expect(() => splitIname(tagged, "i", 4)).toThrow(/cannot split iname "i": it has the hardware tag g.0/);
    expect(() => splitIname(elementwise(), "i", 4, { outerIname: "a" })).toThrow(/outerIname "a" is already a name/);
    expect(() => splitIname(elementwise(), "i", 4, { innerTag: "bogus" })).toThrow(TransformError);
  });
});

describe("chunkIname", () => {
  it("a constant extent is a split by ceil(extent / numChunks)", () => {
    const k = makeKernel("{[i]: 0<=i<10}", "out[i] = a[i]", ["a, out: float64[10]"]);
    expect(text(chunkIname(k, "i", 3))).toEqual(["out[i_inner + i_outer*4] = a[i_inner + i_outer*4]"]);
  });

  it("a parametric extent gets exactly numChunks outer iterations and stays equivalent", async () => {
    const k = makeKernel("{[i]: 2<=i<n}", "out[i] = 2*a[i]", ["a, out: float64[n]", "n: int32"]);
    const c = chunkIname(k, "i", 3);
    expect(printSet(c.domains[0]!)).toBe("[n] -> { [i_outer, i_inner] : 0 <= i_outer <= 2 and -i_outer <= 3*i_inner < n - i_outer - 2 }");
    expect(chunkIname(k, "i", 3, { outerTag: "g.0" }).inameTags.i_outer).toEqual({ kind: "g", axis: 0 });
    for (let n = 0; n < 12; n++) expect((await autoTestVsRef(k, c, { params: { n } })).ok).toBe(true);
  });

  it("errors: coupled bounds, bad numChunks", () => {
    const tri = makeKernel("{[i,j]: 0<=j<=i<n}", "out[i] = sum(j, a[j])", ["a, out: float64[n]", "n: int32"]);
    expect(() => chunkIname(tri, "j", 2)).toThrow(/chunkIname: the bounds of "j" must be one affine lower and one affine upper bound/);
    expect(() => chunkIname(elementwise(), "i", 0)).toThrow(/numChunks must be an integer >= 1/);
    expect(() => chunkIname(elementwise(), "z", 2)).toThrow(/chunkIname: no iname "z"/);
  });
});

describe("tagInames", () => {
  const k = () => makeKernel("{[i,j,l]: 0<=i,j,l<n}", "out[i,j,l] = 1", ["out: float64[n,n,n]", "n: int32"]);
  it("accepts a record, a string and a list of pairs", () => {
    const want = { i: { kind: "g", axis: 0 }, j: { kind: "l", axis: 0 } };
    expect(tagInames(k(), { i: "g.0", j: "l.0" }).inameTags).toEqual(want);
    expect(tagInames(k(), "i:g.0, j:l.0").inameTags).toEqual(want);
    expect(tagInames(k(), [["i", "g.0"], ["j", "l.0"]]).inameTags).toEqual(want);
  });
  it("resolves like.INAME, unused.g, unused.l and globs", () => {
    const t = tagInames(k(), "i:l.0, j:unused.l, l:like.i");
    expect(t.inameTags).toEqual({ i: { kind: "l", axis: 0 }, j: { kind: "l", axis: 1 }, l: { kind: "l", axis: 0 } });
    expect(tagInames(k(), { i: "unused.g" }).inameTags.i).toEqual({ kind: "g", axis: 0 });
    expect(Object.keys(tagInames(k(), { "*": "unr" }).inameTags)).toEqual(["i", "j", "l"]);
  });
  it("for / null removes a tag; the same tag again is fine", () => {
    const t = tagInames(k(), { i: "g.0" });
    expect(tagInames(t, { i: "g.0" }).inameTags).toEqual(t.inameTags);
    expect(tagInames(t, { i: "for" }).inameTags).toEqual({});
    expect(tagInames(t, { i: null }).inameTags).toEqual({});
  });
  it("errors: unknown iname, unknown tag, tag clash, bad form", () => {
    expect(() => tagInames(k(), { q: "g.0" })).toThrow(new TransformError('tagInames: no iname "q" in kernel "loopy_kernel"; inames are i, j, l'));
    expect(() => tagInames(k(), { i: "x.9" })).toThrow(/unknown iname tag "x.9"; expected one of for, ord, g.N/);
    expect(() => tagInames(tagInames(k(), { i: "g.0" }), { i: "l.0" })).toThrow(/tag clash on iname "i": it is already tagged g.0, cannot also be l.0/);
    expect(() => tagInames(k(), "i=g.0")).toThrow(/not of the form iname:tag/);
    expect(() => tagInames(k(), { i: "like.zz" })).toThrow(/no iname "zz"/);
  });
});

describe("prioritizeLoops", () => {
  it("appends a priority; calls accumulate", () => {
    const k = prioritizeLoops(prioritizeLoops(matvec(), "i,j"), ["j", "i"]);
    expect(k.loopPriority).toEqual([["i", "j"], ["j", "i"]]);
  });
  it("errors: unknown iname, repeated iname, empty", () => {
    expect(() => prioritizeLoops(matvec(), "i,q")).toThrow(/prioritizeLoops: no iname "q" in kernel "mv"; inames are i, j/);
    expect(() => prioritizeLoops(matvec(), "i,i")).toThrow(/appears twice/);
    expect(() => prioritizeLoops(matvec(), "")).toThrow(TransformError);
  });
});

describe("setTemporaryAddressSpace", () => {
  const k = () => makeKernel("{[i]: 0<=i<n}", ["<> t = 2*a[i] {id=a}", "out[i] = t {id=b}"], ["a, out: float64[n]", "n: int32"]);
  it("sets the address space", () => {
    expect(setTemporaryAddressSpace(k(), "t", "local").temporaries[0]!.addressSpace).toBe("local");
    expect(setTemporaryAddressSpace(k(), ["t"], "global").temporaries[0]!.addressSpace).toBe("global");
  });
  it("errors: unknown temporary, unknown space", () => {
    expect(() => setTemporaryAddressSpace(k(), "u", "local")).toThrow(/no temporary "u" in kernel "loopy_kernel"; temporaries are t/);
    expect(() => setTemporaryAddressSpace(k(), "t", "shared" as never)).toThrow(/must be one of private, local, global/);
  });
});
