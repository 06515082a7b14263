/** splitReductionInward/Outward, makeReductionInamesUnique: structure, errors, and the law. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { makeReductionInamesUnique, splitReductionInward, splitReductionOutward } from "../../transforms/reduction.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));
const three = () => makeKernel("{[i,j,l]: 0<=i,j,l<n}", "s[0] = sum((i,j,l), a[i,j]*(l+1)) {id=r}", ["a: float64[n,n]", "s: float64[1]", "n: int32"], { name: "r3" });

async function equivalent(k: Kernel, t: Kernel, n: number): Promise<boolean> {
  const r = await autoTestVsRef(k, t, { params: { n }, seed: n });
  if (!r.ok) throw new Error(`not equivalent for n=${n}: ${r.mismatches.slice(0, 3).join("; ")}`);
  return true;
}

describe("splitReductionInward / splitReductionOutward", () => {
  it("loopy's examples: sum((i,j,k), e) with i -> sum((j,k), sum(i, e)) / sum(i, sum((j,k), e))", () => {
    expect(text(splitReductionInward(three(), "i"))).toEqual(["s[0] = sum((j, l), sum(i, a[i, j]*(l + 1)))"]);
    expect(text(splitReductionOutward(three(), "i"))).toEqual(["s[0] = sum(i, sum((j, l), a[i, j]*(l + 1)))"]);
    expect(text(splitReductionOutward(three(), ["j", "l"]))).toEqual(["s[0] = sum((j, l), sum(i, a[i, j]*(l + 1)))"]);
  });

  it("keeps the operation; within limits the instructions", () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", ["x[0] = max((i,j), a[i,j]) {id=m}", "y[0] = sum((i,j), a[i,j]) {id=s}"], ["a: float64[n,n]", "x, y: float64[1]", "n: int32"]);
    expect(text(splitReductionInward(k, "j", { within: "m" }))).toEqual(["x[0] = max(i, max(j, a[i, j]))", "y[0] = sum((i, j), a[i, j])"]);
  });

  it("errors: unknown iname, nothing to split", () => {
    expect(() => splitReductionInward(three(), "q")).toThrow(/splitReductionInward: no iname "q" in kernel "r3"/);
    expect(() => splitReductionOutward(three(), "i,j,l")).toThrow(/no reduction of kernel "r3" reduces over i, j, l and other inames besides/);
    expect(() => splitReductionInward(three(), [])).toThrow(/inames must be "i,j" or a non-empty list/);
  });
});

describe("makeReductionInamesUnique", () => {
  it("the first reduction keeps k, later ones get k_0, k_1 with the same constraints", () => {
    const k = makeKernel("{[i,k]: 0<=i<n and 0<=k<=i}", ["x[i] = sum(k, a[i,k]) {id=a1}", "y[i] = sum(k, a[k,i]) {id=a2}", "z[i] = max(k, a[i,k]) {id=a3}"],
      ["a: float64[n,n]", "x, y, z: float64[n]", "n: int32"]);
    const u = makeReductionInamesUnique(k);
    expect(text(u)).toEqual(["x[i] = sum(k, a[i, k])", "y[i] = sum(k_0, a[k_0, i])", "z[i] = max(k_1, a[i, k_1])"]);
    expect(u.domains[0]!.dims).toContain("k_0");
    expect(makeReductionInamesUnique(u)).toEqual(u);
  });

  it("an iname that is also a loop iname is copied for every reduction over it", async () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", ["x[i] = sum(j, a[i,j]) {id=a1}", "z[j] = sum(i, a[i,j]) {id=a2}"], ["a: float64[n,n]", "x, z: float64[n]", "n: int32"]);
    const u = makeReductionInamesUnique(k);
    expect(text(u)).toEqual(["x[i] = sum(j_0, a[i, j_0])", "z[j] = sum(i_0, a[i_0, j])"]);
    const out = await run(u, { a: new Float64Array([1, 2, 3, 4]), n: 2 });
    expect([...out.x!]).toEqual([3, 7]);
    expect([...out.z!]).toEqual([4, 6]);
  });

  it("inames and within limit the copies; errors", () => {
    const k = makeKernel("{[i,k,l]: 0<=i,k,l<n}", ["x[i] = sum((k,l), a[i,k]) {id=a1}", "y[i] = sum((k,l), a[k,i]) {id=a2}"], ["a: float64[n,n]", "x, y: float64[n]", "n: int32"]);
    expect(text(makeReductionInamesUnique(k, { inames: "l" }))).toEqual(["x[i] = sum((k, l), a[i, k])", "y[i] = sum((k, l_0), a[k, i])"]);
    expect(text(makeReductionInamesUnique(k, { within: "a1" }))).toEqual(["x[i] = sum((k, l), a[i, k])", "y[i] = sum((k, l), a[k, i])"]);
    expect(() => makeReductionInamesUnique(k, { inames: "q" })).toThrow(/makeReductionInamesUnique: no iname "q"/);
  });
});

// ---- the law -------------------------------------------------------------------------------

const SPLITTABLE = fc.constantFrom(
  makeKernel("{[i,j]: 0<=i,j<n}", "s[0] = sum((i,j), a[i,j]*(j+1))", ["a: float64[n,n]", "s: float64[1]", "n: int32"]),
  makeKernel("{[i,j]: 0<=j<=i<n}", "s[0] = max((i,j), a[i,j] - j)", ["a: float64[n,n]", "s: float64[1]", "n: int32"]),
  makeKernel("{[i,j,l]: 0<=i<n and 0<=j<=i and 0<=l<3}", "out[i] = sum((j,l), a[i,j]*(l+i))", ["a: float64[n,n]", "out: float64[n]", "n: int32"]),
  makeKernel("{[i,j,l]: 0<=i,j,l<n}", "s[0] = product((i,j,l), 1 + a[i,j]*0.01*(l+1))", ["a: float64[n,n]", "s: float64[1]", "n: int32"]),
);

describe("the law: reshaping reductions preserves the meaning of a kernel", () => {
  it("splitReductionInward / splitReductionOutward", async () => {
    await fc.assert(fc.asyncProperty(SPLITTABLE, fc.boolean(), fc.nat(), fc.integer({ min: 0, max: 9 }), async (k, inward, which, n) => {
      const insn = k.instructions[0]!;
      const red = insn.kind === "assign" && insn.rhs.kind === "reduce" ? insn.rhs.inames : [];
      const named = red.filter((_, m) => ((which >> m) & 1) === 1);
      const pick = named.length === 0 || named.length === red.length ? [red[0]!] : named;
      return equivalent(k, (inward ? splitReductionInward : splitReductionOutward)(k, pick), n);
    }), RUNS);
  });

  it("makeReductionInamesUnique on kernels whose reductions share inames", async () => {
    const kernels = fc.constantFrom(
      makeKernel("{[i,k]: 0<=i<n and 0<=k<n}", ["x[i] = sum(k, a[i,k]) {id=a1}", "y[i] = sum(k, a[k,i]*2) {id=a2}"], ["a: float64[n,n]", "x,y: float64[n]", "n: int32"]),
      makeKernel("{[i,k]: 0<=i<n and 0<=k<=i}", ["x[i] = sum(k, a[i,k]) {id=a1}", "y[i] = x[i] + max(k, a[k,i])*2 {id=a2}"], ["a: float64[n,n]", "x,y: float64[n]", "n: int32"]),
      makeKernel("{[k,l]: 0<=k,l<n}", ["s[0] = sum((k,l), a[k,l]) {id=a1}", "s[1] = sum(k, a[k,0]) + sum(l, a[0,l]) {id=a2}"], ["a: float64[n,n]", "s: float64[2]", "n: int32"]),
    );
    await fc.assert(fc.asyncProperty(kernels, fc.integer({ min: 0, max: 9 }), async (k, n) => equivalent(k, makeReductionInamesUnique(k), n)), RUNS);
  });
});
