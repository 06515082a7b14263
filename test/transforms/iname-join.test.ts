/** joinInames and tile: structure, errors, and the law run(t(k)) == run(k). */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { printSet } from "../../src/poly/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { joinInames, tile } from "../../transforms/iname-join.js";
import { tagInames } from "../../transforms/iname.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));
const rect = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", "out[i,j] = 2*a[i,j] + j {id=s}", ["a, out: float64[n,4]", "n: int32"], { name: "r" });

async function equivalent(k: Kernel, t: Kernel, n: number): Promise<boolean> {
  const r = await autoTestVsRef(k, t, { params: { n }, seed: n });
  if (!r.ok) throw new Error(`not equivalent for n=${n}: ${r.mismatches.slice(0, 3).join("; ")}`);
  return true;
}

describe("joinInames", () => {
  it("fuses a rectangular nest: new = i*4 + j, named fastest first as loopy (j_and_i)", () => {
    const k = joinInames(rect(), ["i", "j"]);
    expect(text(k)).toEqual(["out[j_and_i//4, j_and_i%4] = 2*a[j_and_i//4, j_and_i%4] + j_and_i%4"]);
    expect(printSet(k.domains[0]!)).toBe("[n] -> { [j_and_i] : 0 <= j_and_i < 4*n }");
    expect(k.instructions[0]!.withinInames).toEqual(["j_and_i"]);
  });

  it("takes a name and a tag; leaves the input unchanged", () => {
    const k = rect();
    const before = JSON.stringify(k);
    const t = joinInames(k, "i, j", "ij", { tag: "g.0" });
    expect(JSON.stringify(k)).toBe(before);
    expect(t.domains[0]!.dims).toEqual(["ij"]);
    expect(t.inameTags).toEqual({ ij: { kind: "g", axis: 0 } });
  });

  it("subtracts lower bounds (also parametric ones) and joins reductions", async () => {
    const k = makeKernel("{[i,j]: m<=i<n and 1<=j<=3}", "s[0] = sum((i,j), a[i,j]*(j+1))", ["a: float64[n,4]", "s: float64[1]", "m, n: int32"]);
    const t = joinInames(k, ["i", "j"], "ij");
    expect(text(t)).toEqual(["s[0] = sum(ij, a[ij//3 + m, ij%3 + 1]*(ij%3 + 1 + 1))"]);
    expect(printSet(t.domains[0]!)).toBe("[m, n] -> { [ij] : 0 <= ij < -3*m + 3*n }");
    for (const [m, n] of [[0, 4], [2, 5], [3, 3]]) expect((await autoTestVsRef(k, t, { params: { m: m!, n: n! } })).ok).toBe(true);
  });

  it("a non-rectangular domain with a constant bounding box is joined exactly (existentials)", async () => {
    const k = makeKernel("{[i,j]: 0<=j<=i<4}", "out[i,j] = a[i,j] + 1", ["a, out: float64[4,4]"]);
    const t = joinInames(k, ["i", "j"], "ij");
    expect(t.domains[0]!.dims).toEqual(["ij"]);
    expect((await autoTestVsRef(k, t, { params: {} })).ok).toBe(true);
  });

  it("three inames: strides multiply", () => {
    const k = makeKernel("{[i,j,l]: 0<=i<n and 0<=j<3 and 0<=l<2}", "out[i,j,l] = 1", ["out: float64[n,3,2]", "n: int32"]);
    expect(text(joinInames(k, ["i", "j", "l"], "x"))).toEqual(["out[x//6, x//2%3, x%2] = 1"]);
  });

  it("errors: unknown iname, two domains, parametric inner extent, partial use, taken name, dependent domain", () => {
    expect(() => joinInames(rect(), ["i", "q"])).toThrow(new TransformError('joinInames: no iname "q" in kernel "r"; inames are i, j'));
    const two = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<4}"], "out[i,j] = 1", ["out: float64[n,4]", "n: int32"]);
    expect(() => joinInames(two, ["i", "j"])).toThrow(/must be in one domain; "j" is in another/);
    expect(() => joinInames(rect(), ["j", "i"])).toThrow(/iname "i" must have a constant extent \(only the first, slowest iname may be parametric\)/);
    const mv = makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", "y[i] = sum(j, A[i,j])", ["A: float64[n,4]", "y: float64[n]", "n: int32"]);
    expect(() => joinInames(mv, ["i", "j"])).toThrow(/instruction "insn" uses i but not j .* joining would change how often it runs/);
    expect(() => joinInames(rect(), ["i", "j"], "a")).toThrow(/newIname "a" is already a name/);
    expect(() => joinInames(rect(), ["i", "i"])).toThrow(/"i" appears twice/);
    const dep = makeKernel(["{[i,j]: 0<=i<n and 0<=j<4}", "{[l]: 0<=l<=i}"], "out[i,j] = sum(l, a[l])", ["a: float64[n]", "out: float64[n,4]", "n: int32"]);
    expect(() => joinInames(dep, ["i", "j"])).toThrow(/domain 1 depends on i/);
    const multi = makeKernel("{[i,j,l]: 0<=i,l<n and 0<=j<4 and j >= l - 2}", "out[i,j,l] = 1", ["out: float64[n,4,n]", "n: int32"]);
    expect(() => joinInames(multi, ["i", "j"])).toThrow(/iname "j" needs a single affine lower bound/);
  });
});

describe("tile", () => {
  it("splits each iname and prefers outer loops before inner ones", () => {
    const k = tile(rect(), ["i", "j"], [8, 2]);
    expect(k.domains[0]!.dims).toEqual(["i_outer", "i_inner", "j_outer", "j_inner"]);
    expect(k.loopPriority).toEqual([["i_outer", "j_outer", "i_inner", "j_inner"]]);
  });

  it("tags outer and inner inames, as lists or records", () => {
    const k = tile(rect(), "i,j", 2, { outerTags: ["g.1", "g.0"], innerTags: { i: "l.1", j: "l.0" } });
    expect(k.inameTags).toEqual({ i_outer: { kind: "g", axis: 1 }, j_outer: { kind: "g", axis: 0 }, i_inner: { kind: "l", axis: 1 }, j_inner: { kind: "l", axis: 0 } });
  });

  it("errors: sizes, tags, unknown iname, tagged iname", () => {
    expect(() => tile(rect(), ["i", "j"], [8])).toThrow(/sizes must be a number or one size per iname \(2\)/);
    expect(() => tile(rect(), ["i", "j"], [8, 0])).toThrow(/size of "j" must be an integer >= 1; got 0/);
    expect(() => tile(rect(), ["i", "j"], 2, { outerTags: ["g.0"] })).toThrow(/outerTags must have one entry per iname \(2\)/);
    expect(() => tile(rect(), ["i", "z"], 2)).toThrow(/tile: no iname "z"/);
    expect(() => tile(tagInames(rect(), { i: "g.0" }), ["i", "j"], 2)).toThrow(/cannot split iname "i": it has the hardware tag g.0/);
  });
});

// ---- the law -------------------------------------------------------------------------------

/** Kernels with a joinable pair: the second iname of `order` has a constant extent. */
const JOINABLE = fc.oneof(
  fc.constantFrom("2*a[i,j] + j", "a[i,j]*i - 1").map((f) => ({
    k: makeKernel("{[i,j]: 0<=i<n and 0<=j<3}", `out[i,j] = ${f}`, ["a, out: float64[n,3]", "n: int32"]), orders: [["i", "j"]],
  })),
  fc.constant({
    k: makeKernel("{[i,j]: 1<=i<=4 and 2<=j<5}", "s[0] = sum((i,j), a[i,j]*(i + 2*j))", ["a: float64[5,5]", "s: float64[1]"]), orders: [["i", "j"], ["j", "i"]],
  }),
  fc.constant({
    k: makeKernel("{[i,j,l]: 0<=i<n and 0<=j<=l<3}", "out[i] = sum((j,l), a[i,l]*(j+1))", ["a: float64[n,3]", "out: float64[n]", "n: int32"]), orders: [["j", "l"], ["l", "j"]],
  }),
  fc.constant({
    k: makeKernel("{[i,j]: 0<=j<=i<4 and i < n}", "out[i,j] = a[i,j] + i - j", ["a, out: float64[4,4]", "n: int32"]), orders: [["i", "j"], ["j", "i"]],
  }),
);

describe("the law: joinInames and tile preserve the meaning of a kernel", () => {
  it("joinInames on elementwise, reduction, triangular and 2-D domains", async () => {
    await fc.assert(fc.asyncProperty(JOINABLE, fc.nat(), fc.integer({ min: 0, max: 9 }), async ({ k, orders }, which, n) =>
      equivalent(k, joinInames(k, orders[which % orders.length]!), n)), RUNS);
  });

  it("tile on matvec, triangular and 2-D elementwise kernels", async () => {
    const kernels = fc.constantFrom(
      makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, A[i,j]*x[j])", ["A: float64[n,n]", "x, y: float64[n]", "n: int32"]),
      makeKernel("{[i,j]: 0<=j<=i<n}", "out[i,j] = a[i,j]*2 + j", ["a, out: float64[n,n]", "n: int32"]),
      makeKernel("{[i,j]: 0<=i,j<n}", "out[i,j] = a[j,i] - i", ["a, out: float64[n,n]", "n: int32"]),
    );
    await fc.assert(fc.asyncProperty(kernels, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 9 }),
      async (k, s1, s2, n) => equivalent(k, tile(k, ["i", "j"], [s1, s2]), n)), RUNS);
  });
});

describe("joinInames regressions", () => {
  it("a joined iname's bounds never refer to a reduction iname of its uses (law seeds 4, 16, 21)", async () => {
    let k = makeKernel("{[i,j]: 0<=j<=i<n}", "out[i] = sum(j, a[i,j]*(j + 1))", ["a: float64[n,n]", "out: float64[n]", "n: int32"]);
    k = tile(k, ["i"], 1);
    const joined = joinInames(k, ["i_outer", "i_inner"], "J");
    expect(printSet(joined.domains[0]!)).toBe("[n] -> { [J, j] : J < n and 0 <= j <= J }");
    for (const n of [0, 1, 3, 6]) expect((await autoTestVsRef(k, joined, { params: { n } })).ok).toBe(true);
  });
});
