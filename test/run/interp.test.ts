/** The interpreter's meaning of domains, reductions, predicates and array layouts. */
import { describe, expect, it } from "vitest";
import { makeKernel, globalArg } from "../../src/parse/index.js";
import { parseInameTag, withKernel, type InameTag } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";

const iota = (n: number) => Float64Array.from({ length: n }, (_, x) => x);

describe("domains", () => {
  it("runs an instruction once per point of its domain", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a: float64[n]", "..."]);
    expect([...(await run(k, { a: iota(4), n: 4 })).out!]).toEqual([0, 2, 4, 6]);
  });

  it("enumerates triangular domains exactly", async () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "out[i,j] = 1", ["out: int32[n,n]", "..."]);
    expect([...(await run(k, { n: 3 })).out!]).toEqual([1, 0, 0, 1, 1, 0, 1, 1, 1]);
  });

  it("respects mod and existential constraints", async () => {
    const k = makeKernel("{[i]: 0<=i<n and i mod 3 = 0}", "out[i] = 1", ["out: int32[n]", "..."]);
    expect([...(await run(k, { n: 8 })).out!]).toEqual([1, 0, 0, 1, 0, 0, 1, 0]);
    const e = makeKernel("[n] -> {[i]: exists q: i = 4*q + 1 and 0<=i<n}", "out[i] = 1", ["out: int32[n]", "..."]);
    expect([...(await run(e, { n: 8 })).out!]).toEqual([0, 1, 0, 0, 0, 1, 0, 0]);
  });

  it("runs nothing on an empty domain", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 1", ["out: int32[4]", "..."]);
    expect([...(await run(k, { n: 0 })).out!]).toEqual([0, 0, 0, 0]);
  });

  it("a loop covers every instruction inside it, each guarded by its own domain", async () => {
    // i = 0 has no j, but `row` still runs there.
    const k = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<i}"], ["row[i] = 1 {id=row, inames=i}", "tri[i,j] = 1 {id=tri}"],
      ["row: int32[n]", "tri: int32[n,n]", "..."]);
    const { row, tri } = await run(k, { n: 3 });
    expect([...row!]).toEqual([1, 1, 1]);
    expect([...tri!]).toEqual([0, 0, 0, 1, 0, 0, 1, 1, 0]);
  });

  it("takes 64-bit parameters as BigInt", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = n - i", ["out: int64[4]", "n: int64"]);
    expect([...(await run(k, { n: 3n })).out!]).toEqual([3n, 2n, 1n, 0n]);
  });

  it("nests a child domain inside the iname it uses as a parameter", async () => {
    const k = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<=i}"], "out[i,j] = i + 10*j", ["out: int32[n,n]", "..."]);
    expect([...(await run(k, { n: 3 })).out!]).toEqual([0, 0, 0, 1, 11, 0, 2, 12, 22]);
  });

  it("supports data-dependent loop bounds from scalars written in the parent loop", async () => {
    // CSR-style rows: row i holds entries rowstart[i] .. rowstart[i+1]-1.
    const k = makeKernel(["{[i]: 0<=i<n}", "[jstart, jend] -> {[j]: jstart<=j<jend}"], [
      "<int32> jstart = rowstart[i] {id=s}",
      "<int32> jend = rowstart[i+1] {id=e}",
      "out[i] = sum(j, values[j]) {dep=s:e}",
    ], ["rowstart: int32[n+1]", "values: float64[6]", "out: float64[n]", "n: int32"]);
    const { out } = await run(k, { rowstart: Int32Array.of(0, 2, 2, 6), values: Float64Array.of(1, 2, 3, 4, 5, 6), n: 3 });
    expect([...out!]).toEqual([3, 0, 18]);
  });
});

describe("reductions", () => {
  const reduce = (op: string, d = "float64") => makeKernel("{[i]: 0<=i<n}", `out[0] = ${op}(i, a[i])`, [`a: ${d}[n]`, `out: ${d}[1]`, "n: int32"]);

  it("sum, product, max and min over a domain", async () => {
    const a = Float64Array.of(3, -1, 4, 1.5);
    expect((await run(reduce("sum"), { a, n: 4 })).out![0]).toBe(7.5);
    expect((await run(reduce("product"), { a, n: 4 })).out![0]).toBe(-18);
    expect((await run(reduce("max"), { a, n: 4 })).out![0]).toBe(4);
    expect((await run(reduce("min"), { a, n: 4 })).out![0]).toBe(-1);
  });

  it("an empty reduction is its identity", async () => {
    const a = new Float64Array(0);
    expect((await run(reduce("sum"), { a, n: 0 })).out![0]).toBe(0);
    expect((await run(reduce("product"), { a, n: 0 })).out![0]).toBe(1);
    expect((await run(reduce("max"), { a, n: 0 })).out![0]).toBe(-Infinity);
    expect((await run(reduce("min"), { a, n: 0 })).out![0]).toBe(Infinity);
    expect((await run(reduce("max", "int32"), { a: new Int32Array(0), n: 0 })).out![0]).toBe(-2147483648);
  });

  it("reduces over a triangular domain given the outer iname", async () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "out[i] = sum(j, a[j])", ["a: float64[n]", "..."]);
    expect([...(await run(k, { a: Float64Array.of(1, 2, 3, 4), n: 4 })).out!]).toEqual([1, 3, 6, 10]);
  });

  it("nests reductions and reduces over several inames", async () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", ["out[0] = sum((i, j), a[i,j])", "out[1] = max(i, sum(j, a[i,j]))"],
      ["a: float64[n,n]", "out: float64[2]", "..."]);
    expect([...(await run(k, { a: Float64Array.of(1, 2, 3, 4), n: 2 })).out!]).toEqual([10, 7]);
  });

  it("computes a matmul", async () => {
    const k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b: float64[n,n]", "..."]);
    const { c } = await run(k, { a: Float64Array.of(1, 2, 3, 4), b: Float64Array.of(5, 6, 7, 8), n: 2 });
    expect([...c!]).toEqual([19, 22, 43, 50]);
  });
});

describe("predicates, conditionals and temporaries", () => {
  it("runs an instance only where its predicates hold", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] {if=a[i] > 0 and i != 1}", ["a: float64[n]", "..."]);
    expect([...(await run(k, { a: Float64Array.of(1, 2, -3, 4), n: 4 })).out!]).toEqual([1, 0, 0, 4]);
  });

  it("if-blocks guard the instructions inside them", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["for i", "  if i >= 2", "    out[i] = a[i]", "  end", "end"], ["a: float64[n]", "..."]);
    expect([...(await run(k, { a: Float64Array.of(1, 2, 3, 4), n: 4 })).out!]).toEqual([0, 0, 3, 4]);
  });

  it("evaluates only the chosen branch of if(…)", async () => {
    // The untaken branch would read a[-1].
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = if(i > 0, a[i-1], 0)", ["a: float64[n]", "..."]);
    expect([...(await run(k, { a: Float64Array.of(5, 6, 7), n: 3 })).out!]).toEqual([0, 5, 6]);
  });

  it("a private scalar written then read interleaves per iteration", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = 2*a[i]", "out[i] = t + 1"], ["a: float64[n]", "..."]);
    expect([...(await run(k, { a: Float64Array.of(1, 2, 3), n: 3 })).out!]).toEqual([3, 5, 7]);
  });

  it("a loop entered again after a reduction sees the reduced value", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", [
      "b[i] = 2*a[i] {id=first}",
      "<> s = sum(i, b[i]) {id=total, dep=first}",
      "out[i] = b[i] / s {id=norm, dep=total}",
    ], ["a: float64[n]", "..."]);
    const { out, b } = await run(k, { a: Float64Array.of(1, 3), n: 2 });
    expect([...b!]).toEqual([2, 6]);
    expect([...out!]).toEqual([0.25, 0.75]);
  });

  it("types untyped temporaries from the arrays passed", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = a[i] * 0.5", "out[i] = t"], ["a: float32[n]", "out: float64[n]", "..."]);
    expect([...(await run(k, { a: Float32Array.of(3), n: 1 })).out!]).toEqual([1.5]);
  });

  it("expands substitution rules", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["f(x, y) := x*y + 1", "out[i] = f(a[i], 3)"], ["a: float64[n]", "..."]);
    expect([...(await run(k, { a: Float64Array.of(1, 2), n: 2 })).out!]).toEqual([4, 7]);
  });
});

describe("array layouts", () => {
  it("linear subscripts index the flat storage", async () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", "out[[n*j + i]] = a[i,j]", ["a, out: float64[n,n]", "..."]);
    expect([...(await run(k, { a: iota(4), n: 2 })).out!]).toEqual([0, 2, 1, 3]);
  });

  it("F order makes the first axis fastest", async () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i,j] = 10*i + j", [globalArg("out", "int32", ["n", "m"], { order: "F" }), "..."]);
    expect([...(await run(k, { n: 2, m: 3 })).out!]).toEqual([0, 10, 1, 11, 2, 12]);
  });

  it("explicit dim tags: N0/N1, stride and vec", async () => {
    const mk = (dimTags: string) => makeKernel("{[i,j]: 0<=i<2 and 0<=j<3}", "out[i,j] = 10*i + j", [globalArg("out", "int32", [2, 3], { dimTags })]);
    expect([...(await run(mk("N0,N1"), {})).out!]).toEqual([0, 10, 1, 11, 2, 12]);
    const padded = (await run(mk("stride:4,stride:1"), { out: new Int32Array(8).fill(-1) })).out!;
    expect([...padded]).toEqual([0, 1, 2, -1, 10, 11, 12, -1]);
    expect([...(await run(mk("vec,c"), {})).out!]).toEqual([0, 10, 1, 11, 2, 12]);
  });

  it("sep axes are not supported yet", async () => {
    const k = makeKernel("{[i,j]: 0<=i<2 and 0<=j<3}", "out[i,j] = 1", [globalArg("out", "int32", [2, 3], { dimTags: "sep,c" })]);
    await expect(run(k, {})).rejects.toThrow(/sep.*not supported yet/);
  });
});

describe("storage comes from the scheduled kernel", () => {
  it("an ilp-privatized temporary (preprocessing adds an axis) gets its new shape", async () => {
    const k = makeKernel("{[io,ii]: 0<=ii<4 and 0<=4*io+ii<n}", [
      "<> t = 2*a[4*io+ii] {id=w}",
      "out[4*io+ii] = t + 1 {id=r, dep=w}",
    ], ["a, out: float32[n]", "n: int32"]);
    const ilp = withKernel(k, { inameTags: { ...k.inameTags, ii: parseInameTag("ilp") as InameTag } });
    for (const n of [0, 3, 8, 10]) {
      const a = Float32Array.from({ length: n }, (_, x) => x - 2.5);
      const want = [...(await run(k, { a, n })).out!];
      expect(want).toEqual([...a].map((x) => 2 * x + 1));
      expect([...(await run(ilp, { a, n })).out!]).toEqual(want);
    }
  });
});
