/**
 * Prefetch as loopy's add_prefetch (issue 15, points 4 and 14; issue 16, points 6 and 7): each
 * kernel from loopy's cases run on every backend against a plain TypeScript reference, and each
 * refusal a TransformError naming its cause.
 */
import { describe, expect, it } from "vitest";
import { TransformError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, mapDomain, setTemporaryAddressSpace, splitIname, tagInames, tile } from "../../transforms/index.js";
import { expectOnEveryBackend } from "./every-backend.js";

const rowSums = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", "out[i] = sum(j, a[i,j])", ["a: float64[n,4]", "out: float64[n]", "n: int32"]);
const rowSumsRef = (a: Float64Array, n: number) => Float64Array.from({ length: n }, (_, i) => a[4 * i]! + a[4 * i + 1]! + a[4 * i + 2]! + a[4 * i + 3]!);
const data = (len: number) => Float64Array.from({ length: len }, (_, x) => ((x * 7) % 11) - 3);

describe("a private prefetch's fetch stays within one work-item (issue 16, point 7)", () => {
  const fetched = () => addPrefetch(rowSums(), "a", { sweepInames: ["j"], temporaryAddressSpace: "private" });
  it("tagging its fetch iname l or g is refused, naming the temporary and the iname", () => {
    for (const tag of ["l.0", "g.0"]) {
      expect(() => tagInames(fetched(), { a_dim_0: tag })).toThrow(/"a_dim_0" cannot be tagged .*private temporary "a_fetch"/);
    }
    expect(() => splitIname(fetched(), "a_dim_0", 2, { innerTag: "l.0" })).toThrow(TransformError);
  });
  it("so is making a temporary private when its fetch iname already is on work-items", () => {
    const local = tagInames(addPrefetch(rowSums(), "a", { sweepInames: ["j"], defaultTag: null, temporaryAddressSpace: "local" }), { a_dim_0: "l.0" });
    expect(() => setTemporaryAddressSpace(local, "a_fetch", "private")).toThrow(/private temporary "a_fetch"/);
  });
  it("the sequential private fetch runs right on every backend, i on work-items", async () => {
    const k: Kernel = splitIname(fetched(), "i", 2, { outerTag: "g.0", innerTag: "l.0" });
    const a = data(24);
    await expectOnEveryBackend(k, { a, n: 6 }, { out: rowSumsRef(a, 6) });
  });
});

const matvec = () => makeKernel("{[i,j]: 0<=i,j<8}", "out[i] = sum(j, d[i,j]*x[j])", ["d: float64[8,8]", "x, out: float64[8]"]);
const d = Float64Array.from({ length: 64 }, (_, x) => ((x * 7) % 5) - 1);
const x = Float64Array.from({ length: 8 }, (_, i) => i + 1);
const matvecRef = Float64Array.from({ length: 8 }, (_, i) => x.reduce((s, xj, j) => s + d[8 * i + j]! * xj, 0));
const spaces = (k: Kernel) => Object.fromEntries(k.temporaries.map((t) => [t.name, t.addressSpace]));
const tiled = () => splitIname(matvec(), "i", 4, { outerTag: "g.0", innerTag: "l.0" });

describe("a footprint subscript with no sweep inames (issue 15, point 4)", () => {
  it("d[:,:] fetches the whole footprint of its axes once, not one element inside j", async () => {
    for (const k of [addPrefetch(matvec(), "d[:,:]"), addPrefetch(tiled(), "d[:,:]")]) {
      expect(k.temporaries.find((t) => t.name === "d_fetch")!.shape.length).toBe(2);
      expect(k.instructions.find((i) => i.id === "d_fetch_rule")!.withinInames.some((n) => n === "j" || n.startsWith("i"))).toBe(false);
      await expectOnEveryBackend(k, { d, x }, { out: matvecRef });
    }
  });
});

describe("loopy's default address space of a fetch (issue 15, point 14)", () => {
  it("private when no fetch iname is parallel: a one-element fetch, or defaultTag null", async () => {
    const one = addPrefetch(tiled(), "d");
    const seq = addPrefetch(tiled(), "x", { sweepInames: ["j"], defaultTag: null });
    expect([spaces(one), spaces(seq)]).toEqual([{ d_fetch: "private" }, { x_fetch: "private" }]);
    for (const k of [one, seq]) await expectOnEveryBackend(k, { d, x }, { out: matvecRef });
  });
  it("local when a fetch iname is on work-items (the default tag l.auto)", () => {
    expect(spaces(addPrefetch(tiled(), "x", { sweepInames: ["j"] }))).toEqual({ x_fetch: "local" });
  });
  it("a local fetch whose redundant writes store one value is no race (fetched within i_inner, which it does not use)", async () => {
    const k = addPrefetch(tiled(), "x", { sweepInames: ["j"], fetchOuterInames: ["i_outer", "i_inner"] });
    expect(spaces(k)).toEqual({ x_fetch: "local" });
    expect(k.inameTags.x_dim_0).toEqual({ kind: "l", axis: 1 });
    await expectOnEveryBackend(k, { d, x }, { out: matvecRef });
    // A fetch whose value does depend on the work-item still is a race.
    expect(() => addPrefetch(tiled(), "d", { sweepInames: ["j"], temporaryAddressSpace: "local", fetchOuterInames: ["i_outer", "i_inner"] })).toThrow(/write race across the iname\(s\) i_inner/);
  });
});

describe("prefetching what the kernel writes, and into one temporary twice (issue 15, point 14)", () => {
  it("a local temporary fetched into private memory (local into private)", async () => {
    const k0 = tagInames(makeKernel("{[i,j]: 0<=i<16 and 0<=j<4}", ["<> t[i] = 2*a[i] {id=w}", "out[i] = sum(j, t[j])*a[i] {id=r, dep=w}"], ["a, out: float64[16]"]), { i: "l.0" });
    const k = addPrefetch(k0, "t", { sweepInames: ["j"], defaultTag: null });
    expect(spaces(k).t_fetch).toBe("private");
    expect(k.instructions.find((i) => i.id === "t_fetch_rule")!.dependsOn).toContain("w");
    const a = data(16);
    await expectOnEveryBackend(k, { a }, { out: a.map((v) => 2 * (a[0]! + a[1]! + a[2]! + a[3]!) * v) });
  });
  it("an array written earlier in the kernel, for the readers within selects", async () => {
    const k0 = tagInames(makeKernel("{[i,j]: 0<=i,j<8}", [
      "tmp[i] = 2*a[i] {id=w}", "out[i] = sum(j, tmp[j]*m[i,j]) {id=r, dep=w}", "out2[i] = tmp[i] + 1 {id=r2, dep=w}",
    ], ["a, tmp, out, out2: float64[8]", "m: float64[8,8]"]), { i: "l.0" });
    const k = addPrefetch(k0, "tmp", { sweepInames: ["j"], within: "id:r" });
    const a = data(8);
    const m = Float64Array.from({ length: 64 }, (_, v) => ((v * 3) % 7) - 2);
    const out = Float64Array.from({ length: 8 }, (_, i) => a.reduce((s, aj, j) => s + 2 * aj * m[8 * i + j]!, 0));
    await expectOnEveryBackend(k, { a, m }, { out, out2: a.map((v) => 2 * v + 1) });
  });
  it("refuses an instruction that reads and writes the array, and a writer in no fixed order with the readers", () => {
    const upd = makeKernel("{[i]: 0<=i<8}", "a[i] = a[i] + 1 {id=u}", ["a: float64[8]"]);
    expect(() => addPrefetch(upd, "a")).toThrow(/"u" read and write a/);
    const loose = makeKernel("{[i]: 0<=i<8}", ["b[i] = 1 {id=w}", "out[i] = b[i] {id=r, dep=*}"], ["b, out: float64[8]"]);
    expect(() => addPrefetch(loose, "b")).toThrow(/"w" writes b in no fixed order/);
  });
  it("two prefetches into one temporary name (loopy's test_prefetch_to_same_temp_var)", async () => {
    const ref = makeKernel("{[i0, i1, j0, j1]: 0<=i0, i1<20 and 0<=j0, j1<10}", ["y0[i0] = sum(j0, A[j0]*x0[i0, j0])", "y1[i1] = sum(j1, A[j1]*x1[i1, j1])"],
      ["A: float64[10]", "x0, x1: float64[20, 10]", "y0, y1: float64[20]"]);
    let k = addPrefetch(ref, "A", { sweepInames: ["j0"], within: "iname:i0", temporaryName: "A_fetch", prefetchInsnId: "first_fetch" });
    k = addPrefetch(k, "A", { sweepInames: ["j1"], within: "iname:i1", temporaryName: "A_fetch", prefetchInsnId: "second_fetch" });
    expect(k.temporaries.map((t) => t.name)).toEqual(["A_fetch"]);
    const A = data(10);
    const [x0, x1] = [data(200), data(200).map((v) => v * 2 + 1)];
    const mv = (xx: Float64Array) => Float64Array.from({ length: 20 }, (_, i) => A.reduce((s, aj, j) => s + aj * xx[10 * i + j]!, 0));
    await expectOnEveryBackend(k, { A, x0, x1 }, { y0: mv(x0), y1: mv(x1) });
  });
});

describe("a private fetch inside a reduction stays in step with it (issue 16, point 6)", () => {
  const ref = () => makeKernel("{[i,j]: 0<=i,j<n}", "out[i] = sum(j, a[i,j]*x[j])", ["a: float64[n,n]", "x, out: float64[n]", "n: int32"]);
  const inputs = (n: number) => ({ a: data(n * n), x: data(n).map((v) => v + 0.5), n });
  const want = (n: number) => { const { a, x } = inputs(n); return Float64Array.from({ length: n }, (_, i) => x.reduce((s, xj, j) => s + a[n * i + j]! * xj, 0)); };
  it("a later tile whose priority nests the reduction outside the reader's loop is refused, naming the store", () => {
    for (const array of ["x", "a"]) {
      const k = addPrefetch(ref(), array, { temporaryAddressSpace: "private" });
      expect(() => tile(k, ["i", "j"], [4, 4])).toThrow(new RegExp(`reduction iname of instruction "insn", outside i_inner.*"${array}_fetch_rule" runs inside that reduction`));
    }
  });
  it("so is the prefetch into a tiled kernel; splitting or remapping the reduction iname afterwards runs right on every backend", async () => {
    expect(() => addPrefetch(tile(ref(), ["i", "j"], [4, 4]), "x", { temporaryAddressSpace: "private" })).toThrow(/Sweep j_outer/);
    const ks = [
      splitIname(addPrefetch(ref(), "x", { temporaryAddressSpace: "private" }), "j", 4),
      mapDomain(addPrefetch(ref(), "x", { temporaryAddressSpace: "private" }), "{[j] -> [jo, ji]: j = 4*jo + ji and 0 <= ji < 4}"),
    ];
    for (const k of ks) await expectOnEveryBackend(k, inputs(9), { out: want(9) });
  });
});
