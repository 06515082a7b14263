/** mapDomain: structure, errors, and the law run(mapDomain(k, m)) == run(k) for affine bijections m. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { printSet } from "../../src/poly/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { tagInames } from "../../transforms/iname.js";
import { mapDomain } from "../../transforms/map-domain.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));
const elementwise = () => makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] {id=s}", ["a, out: float64[n]", "n: int32"], { name: "k" });
const tri = () => makeKernel("{[i,j]: 0<=j<=i<n}", "out[i,j] = a[i,j] + j {id=s}", ["a, out: float64[n,n]", "n: int32"], { name: "tri" });

async function equivalent(k: Kernel, t: Kernel, n: number): Promise<boolean> {
  const r = await autoTestVsRef(k, t, { params: { n }, seed: n });
  if (!r.ok) throw new Error(`not equivalent for n=${n}: ${r.mismatches.slice(0, 3).join("; ")}`);
  return true;
}

describe("mapDomain", () => {
  it("a split written as a map: i = 4*io + ii", () => {
    const k = mapDomain(elementwise(), "{[i] -> [io, ii]: i = 4*io + ii and 0 <= ii < 4}");
    expect(text(k)).toEqual(["out[io*4 + ii] = 2*a[io*4 + ii]"]);
    expect(k.domains[0]!.dims).toEqual(["io", "ii"]);
    expect(printSet(k.domains[0]!)).toBe("[n] -> { [io, ii] : -4*io <= ii < n - 4*io and 0 <= ii <= 3 }");
    expect(k.instructions[0]!.withinInames).toEqual(["ii", "io"]);
  });

  it("a skew of a triangle (loopy's diamond-tiling style map) and a reversal with a parameter", () => {
    const skew = mapDomain(tri(), "{[i,j] -> [p,q]: p = i - j and q = j}");
    expect(text(skew)).toEqual(["out[p + q, q] = a[p + q, q] + q"]);
    expect(printSet(skew.domains[0]!)).toBe("[n] -> { [p, q] : 0 <= p and 0 <= q < n - p }");
    const rev = mapDomain(elementwise(), "[n] -> {[i] -> [r]: r = n - 1 - i}");
    expect(text(rev)).toEqual(["out[-r + n - 1] = 2*a[-r + n - 1]"]);
  });

  it("rewrites reductions and dependent domains; leaves the input unchanged", () => {
    const k = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<=i}"], "s[0] = sum((i,j), a[i,j])", ["a: float64[n,n]", "s: float64[1]", "n: int32"]);
    const before = JSON.stringify(k);
    const t = mapDomain(k, "[n] -> {[i] -> [r]: r = n - 1 - i}");
    expect(JSON.stringify(k)).toBe(before);
    expect(text(t)).toEqual(["s[0] = sum((r, j), a[-r + n - 1, j])"]);
    expect(printSet(t.domains[1]!)).toBe("[n, r] -> { [j] : 0 <= j < n - r }");
  });

  it("errors: parse, unknown iname, taken output name, not invertible, not bijective, hardware tag, partial use", () => {
    expect(() => mapDomain(elementwise(), "{[i] -> [io, ii]: i = ")).toThrow(/mapDomain: cannot parse the map/);
    expect(() => mapDomain(elementwise(), "{[z] -> [y]: y = z}")).toThrow(/mapDomain: no iname "z" in kernel "k"; inames are i/);
    expect(() => mapDomain(elementwise(), "{[i] -> [a]: a = i}")).toThrow(/output iname "a" is already a name in kernel "k"; output inames must be new/);
    expect(() => mapDomain(elementwise(), "{[i] -> [y]: 2*i = y}")).toThrow(/not invertible affinely: "i" would involve a fraction of "y"/);
    expect(() => mapDomain(elementwise(), "{[i] -> [y]: y >= i}")).toThrow(/not invertible affinely: its equalities do not determine "i"/);
    expect(() => mapDomain(elementwise(), "{[i] -> [y]: i = y and y <= 3}")).toThrow(/not defined on every point of the domain/);
    expect(() => mapDomain(elementwise(), "{[i] -> [a1, a2]: i = a1 + a2 and 0 <= a2 <= 1}")).toThrow(/not one-to-one on the domain/);
    expect(() => mapDomain(tagInames(elementwise(), { i: "g.0" }), "{[i] -> [y]: y = i}")).toThrow(/iname "i" has the hardware tag g.0; untag it/);
    expect(() => mapDomain(elementwise(), "[m] -> {[i] -> [y]: y = i + m}")).toThrow(/the map's parameter "m" is not a name of kernel "k"/);
    const mv = makeKernel("{[i,j]: 0<=i,j<n}", "y[i] = sum(j, A[i,j])", ["A: float64[n,n]", "y: float64[n]", "n: int32"]);
    expect(() => mapDomain(mv, "{[i,j] -> [p,q]: p = i + j and q = j}")).toThrow(/instruction "insn" uses i but not j/);
    expect(() => mapDomain(elementwise(), 3 as unknown as string)).toThrow(TransformError);
  });

  it("drops non-hardware tags of the mapped inames", () => {
    expect(mapDomain(tagInames(elementwise(), { i: "unr" }), "{[i] -> [y]: y = i + 1}").inameTags).toEqual({});
  });
});

// ---- the law -------------------------------------------------------------------------------

/** Affine bijections of a 2-D domain {[i, j]}: unimodular skews/permutations, shifts, splits. */
const MAPS2 = fc.oneof(
  fc.record({ a: fc.integer({ min: -2, max: 2 }), s: fc.integer({ min: -3, max: 3 }), swap: fc.boolean() }).map(({ a, s, swap }) =>
    swap ? `[n] -> {[i,j] -> [p,q]: p = j and q = i + ${a}*j + ${s}}` : `[n] -> {[i,j] -> [p,q]: p = i + ${a}*j and q = j - ${s}}`),
  fc.integer({ min: 1, max: 5 }).map((f) => `{[i] -> [io, ii]: i = ${f}*io + ii and 0 <= ii < ${f}}`),
  fc.integer({ min: -3, max: 3 }).map((s) => `[n] -> {[j] -> [r]: r = n - 1 - j + ${s}}`),
);

describe("the law: mapDomain by an affine bijection preserves the meaning of a kernel", () => {
  it("elementwise, reduction, triangular and 2-D kernels", async () => {
    const kernels = fc.constantFrom(
      makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "out[i,j] = 2*a[i,j] - i + j", ["a, out: float64[n,n]", "n: int32"]),
      makeKernel("{[i,j]: 0<=j<=i<n}", "out[i,j] = a[i,j] + j", ["a, out: float64[n,n]", "n: int32"]),
      makeKernel("{[i,j]: 0<=i,j<n and i + j < n}", "s[0] = sum((i,j), a[i,j]*(j+1))", ["a: float64[n,n]", "s: float64[1]", "n: int32"]),
      makeKernel("{[i,j]: 0<=i<n and 0<=j<3}", "out[i,j] = a[i,j] + j*i {if=i > j}", ["a, out: float64[n,3]", "n: int32"]),
    );
    await fc.assert(fc.asyncProperty(kernels, MAPS2, fc.integer({ min: 0, max: 9 }), async (k, m, n) => {
      let t: Kernel;
      try {
        t = mapDomain(k, m);
      } catch (e) {
        // A split of i alone is refused where a reduction uses i and j together.
        if (e instanceof TransformError && /uses i but not j|uses j but not i/.test(e.message)) return true;
        throw e;
      }
      return equivalent(k, t, n);
    }), RUNS);
  });
});
