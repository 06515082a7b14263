/**
 * Kernel statistics against loopy's test_statistics.py: the same kernels, the same expected counts
 * (loopy's counts per work-item, which equal its per-sub-group counts on these sequential kernels
 * where one work-group holds one work-item). Where Loom's language differs (`/` of integers is C's
 * integer division, not Python's true division) the difference is named in the test.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import type { MemAccess, Op } from "../../src/index.js";

const n = 512, m = 256, ell = 128;
const params = { n, m, ell };
const DOM = "[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}";
const OPTS = { assumptions: "n >= 1 and m >= 1 and ell >= 1" };
const op = (dtype: string, name: string): Op => ({ dtype: dtype as Op["dtype"], name, countGranularity: "workitem" });
const mem = (variable: string, dtype: string, direction: "load" | "store", lid: Record<number, number | lp.Count> = {}, gid: Record<number, number | lp.Count> = {}): MemAccess =>
  ({ mtype: "global", dtype: dtype as MemAccess["dtype"], lidStrides: lid, gidStrides: gid, direction, variable, countGranularity: "workitem" });

const basic = () => lp.makeKernel(DOM, ["c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]", "e[i, k+1] = -g[i,k]*h[i,k+1]"],
  ["a, b, c: float32[n, ell, m]", "g, h, e: float64[n, m+1]", "n, m, ell: int32"], { name: "basic", ...OPTS });
const matmul = () => lp.makeKernel("{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a: float32[n, m]", "b: float32[m, ell]", "c: float32[n, ell]", "n, m, ell: int32"], { name: "matmul", ...OPTS });

describe("getOpMap (loopy's test_op_counter_*)", () => {
  it("basic: float adds, muls and divs per point; a negation is no multiplication; index arithmetic only when asked", () => {
    const map = lp.getOpMap(basic(), { countWithinSubscripts: true });
    for (const name of ["add", "mul", "div"]) expect(map.get(op("float32", name)).eval(params), name).toBe(n * m * ell);
    expect(map.get(op("float64", "mul")).eval(params)).toBe(n * m);
    expect(map.get(op("int32", "add")).eval(params)).toBe(n * m * 2);
    expect(map.get(op("float32", "mul")).toString()).toBe("ell*m*n");
    // Without countWithinSubscripts (Loom's default) the two k+1 of the subscripts are not counted.
    expect(lp.getOpMap(basic()).get(op("int32", "add")).eval(params)).toBe(0);
  });

  it("reduction: matmul is n*m*ell adds and muls, symbolic; filterBy and sum", () => {
    const map = lp.getOpMap(matmul());
    expect(map.get(op("float32", "add")).toString()).toBe("ell*m*n");
    expect(map.get(op("float32", "mul")).eval(params)).toBe(n * m * ell);
    expect(map.filterBy({ dtype: "float32" }).evalAndSum(params)).toBe(2 * n * m * ell);
    expect(map.filterBy({ name: ["add", "div"] }).sum().toString()).toBe("ell*m*n");
    expect(map.toString()).toBe("Op(float32, add, workitem) : ell*m*n\nOp(float32, mul, workitem) : ell*m*n");
  });

  it("logic: both branches of if() count; Loom's k/2 on integers is an int32 division (loopy: a float64 one)", () => {
    const k = lp.makeKernel(DOM, "e[i,k] = if(not(k<ell-2) and k>6 or k/2==ell, g[i,k]*2, g[i,k]+h[i,k]/2)",
      ["g: float32[n, m]", "h, e: float64[n, m]", "n, m, ell: int32"], OPTS);
    const map = lp.getOpMap(k);
    expect(map.get(op("float32", "mul")).eval(params)).toBe(n * m);
    expect(map.get(op("float64", "add")).eval(params)).toBe(n * m);
    expect(map.get(op("int32", "add")).eval(params)).toBe(n * m);
    // loopy: f64div == 2*n*m, as Python's k/2 is a true division.
    expect(map.get(op("float64", "div")).eval(params)).toBe(n * m);
    expect(map.get(op("int32", "div")).eval(params)).toBe(n * m);
  });

  it("special operations: %, **, rsqrt, sin", () => {
    const k = lp.makeKernel(DOM, ["c[i, j, k] = (2*a[i,j,k])%(2+b[i,j,k]/3.0)", "e[i, k] = (1+g[i,k])**(1+h[i,k+1])+rsqrt(g[i,k])*sin(g[i,k])"],
      ["a, b, c: float32[n, ell, m]", "g, e: float64[n, m]", "h: float64[n, m+1]", "n, m, ell: int32"], OPTS);
    const map = lp.getOpMap(k, { countWithinSubscripts: true });
    expect(map.get(op("float32", "div")).eval(params)).toBe(2 * n * m * ell);
    expect(map.get(op("float32", "mul")).eval(params)).toBe(n * m * ell);
    expect(map.get(op("float32", "add")).eval(params)).toBe(n * m * ell);
    expect(map.get(op("float64", "add")).eval(params)).toBe(3 * n * m);
    for (const name of ["pow", "func:rsqrt", "func:sin"]) expect(map.get(op("float64", name)).eval(params), name).toBe(n * m);
    expect(map.get(op("int32", "add")).eval(params)).toBe(n * m);
  });

  it("bitwise operations and shifts", () => {
    const k = lp.makeKernel(DOM, ["c[i, j, k] = (a[i,j,k] | 1) + (b[i,j,k] & 1)", "e[i, k] = (g[i,k] ^ k)*(~h[i,k+1]) + (g[i, k] << (h[i,k] >> k))"],
      ["a, b, c: int32[n, ell, m]", "g, e: int64[n, m]", "h: int64[n, m+1]", "n, m, ell: int32"], OPTS);
    const map = lp.getOpMap(k, { countWithinSubscripts: true });
    expect(map.get(op("int32", "add")).eval(params)).toBe(n * m + n * m * ell);
    expect(map.get(op("int32", "bw")).eval(params)).toBe(2 * n * m * ell);
    expect(map.get(op("int64", "bw")).eval(params)).toBe(2 * n * m);
    expect(map.get(op("int64", "mul")).eval(params)).toBe(n * m);
    expect(map.get(op("int64", "add")).eval(params)).toBe(n * m);
    expect(map.get(op("int64", "shift")).eval(params)).toBe(2 * n * m);
  });

  it("triangular domain {0<=i<n, 0<=j<m, i<j}: piecewise polynomial (78 for m=13, n=200)", () => {
    const k = lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<m and i<j}", "a[i, j] = b[i,j] * 2", ["a, b: float64[n, m]", "n, m: int32"], { assumptions: "n >= 1 and m >= 1" });
    const c = lp.getOpMap(k).get(op("float64", "mul"));
    expect(c.eval({ m: 13, n: 200 })).toBe(78);
    expect(c.eval({ m: 200, n: 13 })).toBe(13 * 199 - (13 * 12) / 2);
    expect(c.isSymbolic).toBe(true);
    // The guard n >= 1 of the first piece is implied by the assumptions and left out (loopy's gist).
    expect(c.toString()).toBe("{ m*n - 1/2*n^2 - 1/2*n : n + 1 <= m } + { 1/2*m^2 - 1/2*m : 2 <= m <= n }");
  });

  it("a triangle with one bound per iname is a polynomial, 0 where the domain is empty", () => {
    const k = lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "a[i, j] = 2*b[i,j]", ["a, b: float64[n, n]", "n: int32"]);
    const c = lp.getOpMap(k).get(op("float64", "mul"));
    expect(c.toString()).toBe("{ 1/2*n^2 + 1/2*n : 1 <= n }");
    expect([0, -3, 1, 4].map((v) => c.eval({ n: v }))).toEqual([0, 0, 1, 10]);
    // Under an assumption that implies the guard, the count is the bare polynomial.
    const assumed = lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "a[i, j] = 2*b[i,j]", ["a, b: float64[n, n]", "n: int32"], { assumptions: "n >= 1" });
    expect(lp.getOpMap(assumed).get(op("float64", "mul")).toString()).toBe("1/2*n^2 + 1/2*n");
    expect(lp.getOpMap(assumed).get(op("float64", "mul")).toMathNode().toString()).toBe("1 / 2 * n ^ 2 + 1 / 2 * n");
  });

  it("a matmul tiled 16x16x16 counts in closed form (a product of its independent split factors), exact for any n", () => {
    let k = lp.makeKernel("{[i,k,j]: 0<=i<n and 0<=k<n and 0<=j<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b, c: float32[n, n]", "n: int32"], { assumptions: "n >= 1" });
    for (const x of ["i", "j", "k"]) k = lp.splitIname(k, x, 16);
    const flops = lp.getOpMap(k).sum();
    expect(flops.isSymbolic).toBe(true);
    // Each split pair counts as the iname it came from: the untiled count, not a sum of floor pieces.
    expect(flops.toString()).toBe("2*n^3");
    const nested = lp.tagInames(lp.splitIname(k, "k_inner", 4), { i_outer: "g.0", i_inner: "l.1", j_outer: "g.1", j_inner: "l.0" });
    expect(lp.getMemAccessMap(nested).toString()).toMatch(/load, a, workitem\) : n\^3$/m);
    for (const v of [1, 15, 16, 17, 37, 1000]) expect(flops.eval({ n: v }), `n=${v}`).toBe(2 * v ** 3);
  });

  it("refuses what it does not count, naming it", () => {
    expect(() => lp.getOpMap(matmul(), { countGranularity: "bushel" as never })).toThrow(/countGranularity "bushel" is not one of workitem, subgroup, workgroup, auto/);
    expect(() => lp.getMemAccessMap(matmul(), { countGranularity: "subgroup", subgroupSize: 0 })).toThrow(/subgroupSize 0 is not a positive integer/);
    const parametricGroup = lp.tagInames(matmul(), { i: "l.0" });
    expect(() => lp.getOpMap(parametricGroup, { countGranularity: "subgroup" })).toThrow(/extent of "i" \(l.0\) depends on the parameters/);
    expect(() => lp.getOpMap(matmul()).filterBy({ xxx: "float32" } as never)).toThrow(/unknown field "xxx"/);
    expect(() => lp.getOpMap(matmul()).sum().eval({ n: 1 })).toThrow(/no value for parameters ell, m/);
    const auto = lp.tagInames(matmul(), { i: "l.auto" });
    expect(() => lp.getMemAccessMap(auto)).toThrow(/varies along "i", tagged l.auto, whose axis the scheduler picks; tag it l.N/);
    expect(() => lp.getOpMap(auto, { countRedundantWork: true })).toThrow(/"i" is tagged l.auto/);
  });
});

describe("getMemAccessMap (loopy's test_gmem_access_counter_* and test_mem_access_counter_*)", () => {
  it("basic: loads and stores per variable", () => {
    const k = lp.makeKernel(DOM, ["c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]", "e[i, k] = g[i,k]*h[i,k+1]"],
      ["a, b, c: float32[n, ell, m]", "g, e: float64[n, m]", "h: float64[n, m+1]", "n, m, ell: int32"], OPTS);
    const map = lp.getMemAccessMap(k);
    expect(map.get(mem("a", "float32", "load")).eval(params) + map.get(mem("b", "float32", "load")).eval(params)).toBe(3 * n * m * ell);
    expect(map.get(mem("g", "float64", "load")).eval(params) + map.get(mem("h", "float64", "load")).eval(params)).toBe(2 * n * m);
    expect(map.get(mem("c", "float32", "store")).eval(params)).toBe(n * m * ell);
    expect(map.get(mem("e", "float64", "store")).eval(params)).toBe(n * m);
    expect(map.filterBy({ mtype: "global", direction: "load" }).evalAndSum(params)).toBe(3 * n * m * ell + 2 * n * m);
  });

  it("reduction: matmul loads 2*n*m*ell, stores n*ell", () => {
    const map = lp.getMemAccessMap(matmul());
    expect(map.filterBy({ direction: "load" }).evalAndSum(params)).toBe(2 * n * m * ell);
    expect(map.get(mem("c", "float32", "store")).toString()).toBe("ell*n");
  });

  it("consecutive: k l.0, i g.0, j g.1 give loopy's lid/gid strides (count_redundant_work)", () => {
    const k = lp.tagInames(lp.makeKernel(DOM, ["c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]", "e[i, k] = g[i,k]*(2+h[i,k])"],
      ["a, b, c: float32[n, ell, m]", "g, h, e: float64[n, m]", "n, m, ell: int32"], OPTS), { k: "l.0", i: "g.0", j: "g.1" });
    const map = lp.getMemAccessMap(k, { countRedundantWork: true });
    const keys = map.entries().map(([key]) => lp.Count && (key as MemAccess));
    const a = keys.find((x) => x.variable === "a")!;
    expect(a.lidStrides).toEqual({ 0: 1 });
    expect(Object.fromEntries(Object.entries(a.gidStrides).map(([ax, s]) => [ax, s.toString()]))).toEqual({ 0: "ell*m", 1: "m" });
    const g = keys.find((x) => x.variable === "g")!;
    expect(g.lidStrides).toEqual({ 0: 1 });
    expect(g.gidStrides[0]!.toString()).toBe("m");
    expect(map.filterBy({ variable: ["g", "h"], direction: "load" }).evalAndSum(params)).toBe(2 * n * m * ell);
    expect(map.filterBy({ variable: ["a", "b"], direction: "load" }).evalAndSum(params)).toBe(3 * n * m * ell);
    expect(map.filterBy({ variable: "e" }).evalAndSum(params)).toBe(n * m * ell);
    // Without redundant work, e is stored once per (i, k).
    expect(lp.getMemAccessMap(k).filterBy({ variable: "e" }).evalAndSum(params)).toBe(n * m);
  });

  it("nonconsecutive: i split by 16, i_inner l.0, i_outer g.0: lid stride m*ell, gid stride 16*m*ell", () => {
    const base = lp.makeKernel(DOM, ["c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]", "e[i, k] = g[i,k]*(2+h[i,k])"],
      ["a, b, c: float32[n, ell, m]", "g, h, e: float64[n, m]", "n, m, ell: int32"], OPTS);
    const k = lp.splitIname(base, "i", 16, { outerTag: "g.0", innerTag: "l.0" });
    const map = lp.getMemAccessMap(k);
    const a = map.entries().map(([key]) => key as MemAccess).find((x) => x.variable === "a")!;
    expect(a.lidStrides[0]!.toString()).toBe("ell*m");
    expect(a.gidStrides[0]!.toString()).toBe("16*ell*m");
    expect(map.filterBy({ variable: ["g", "h"], direction: "load" }).evalAndSum(params)).toBe(2 * n * m);
    expect(map.filterBy({ variable: ["a", "b"], direction: "load" }).evalAndSum(params)).toBe(3 * n * m * ell);
    // n not a multiple of 16: the split domain is still counted exactly.
    expect(map.filterBy({ variable: "c" }).evalAndSum({ n: 37, m: 3, ell: 2 })).toBe(37 * 3 * 2);
  });

  it("a strided access x[3*i] has lid stride 3", () => {
    const k = lp.splitIname(lp.makeKernel("{[i]: 0<=i<n}", "z[i] = x[3*i]", ["x: float32[3*n]", "z: float32[n]", "n: int32"]), "i", 64, { outerTag: "g.0", innerTag: "l.0" });
    const x = lp.getMemAccessMap(k).entries().map(([key]) => key as MemAccess).find((e) => e.variable === "x")!;
    expect(x.lidStrides).toEqual({ 0: 3 });
    expect(x.gidStrides).toEqual({ 0: 192 });
  });
});

describe("loopy's test_all_counters_parallel_matmul (16x16 tiles, prefetches of a and b into local memory)", () => {
  const tiled = () => {
    let k = matmul();
    k = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    k = lp.splitIname(k, "k", 16);
    k = lp.addPrefetch(k, "a", { sweepInames: ["k_inner", "i_inner"], defaultTag: "l.auto" });
    return lp.addPrefetch(k, "b", { sweepInames: ["j_inner", "k_inner"], defaultTag: "l.auto" });
  };
  const strides = (s: Readonly<Record<number, number | lp.Count>>) => Object.fromEntries(Object.entries(s).map(([a, v]) => [a, v.toString()]));
  const find = (map: lp.CountMap, mtype: string, variable: string, direction: string) =>
    map.entries().find(([key]) => { const x = key as MemAccess; return x.mtype === mtype && x.variable === variable && x.direction === direction; })!;

  it("global loads with loopy's strides, counted with redundant work: n*m*ell/16 each; c stored n*ell times", () => {
    const map = lp.getMemAccessMap(tiled(), { countRedundantWork: true });
    const [b, bCount] = find(map, "global", "b", "load");
    expect([strides((b as MemAccess).lidStrides), strides((b as MemAccess).gidStrides)]).toEqual([{ 0: "1", 1: "ell" }, { 1: "16" }]);
    expect(bCount.eval(params)).toBe((n * m * ell) / 16);
    const [a, aCount] = find(map, "global", "a", "load");
    expect([strides((a as MemAccess).lidStrides), strides((a as MemAccess).gidStrides)]).toEqual([{ 0: "1", 1: "m" }, { 0: "16*m" }]);
    expect(aCount.eval(params)).toBe((n * m * ell) / 16);
    const [c, cCount] = find(map, "global", "c", "store");
    expect([strides((c as MemAccess).lidStrides), strides((c as MemAccess).gidStrides)]).toEqual([{ 0: "1", 1: "ell" }, { 0: "16*ell", 1: "16" }]);
    expect(cCount.eval(params)).toBe(n * ell);
  });

  it("local loads and stores: loopy's per-sub-group counts times the 32 work-items of a sub-group", () => {
    const nSubgroups = (n / 16) * (ell / 16) * ((16 * 16) / 32);
    const local = lp.getMemAccessMap(tiled(), { countRedundantWork: true }).filterBy({ mtype: "local" });
    expect(local.filterBy({ direction: "load" }).evalAndSum(params)).toBe(m * 2 * nSubgroups * 32);
    expect(strides((find(local, "local", "a_fetch", "load")[0] as MemAccess).lidStrides)).toEqual({ 1: "16" });
    expect(strides((find(local, "local", "b_fetch", "load")[0] as MemAccess).lidStrides)).toEqual({ 0: "1" });
    expect(local.filterBy({ direction: "store" }).evalAndSum(params)).toBe(((m * 2) / 16) * nSubgroups * 32);
  });

  it("two local barriers per k tile, one launch", () => {
    const sync = lp.getSyncMap(tiled());
    expect(sync.size).toBe(2);
    expect(sync.filterBy({ kind: "barrier_local" }).evalAndSum(params)).toBe((2 * m) / 16);
    expect(sync.filterBy({ kind: "kernel_launch" }).evalAndSum(params)).toBe(1);
  });
});

describe("getSyncMap (loopy's test_barrier_counter_*)", () => {
  it("no barriers: one kernel launch", () => {
    const map = lp.getSyncMap(matmul());
    expect(map.size).toBe(1);
    expect(map.filterBy({ kind: "kernel_launch" }).evalAndSum(params)).toBe(1);
  });

  it("barriers the scheduler inserts count once per point of the loops around them (loopy: 50*10*2)", () => {
    const base = lp.makeKernel("{[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}",
      ["c[i,j,k] = 2*a[i,j,k] {id=first}", "e[i,j,k] = c[i,j,k+1]+c[i,j,k-1] {dep=first}"],
      ["a, e: int32[50, 10, 99]", lp.temporary("c", "int32", [50, 10, 99], "local")]);
    const map = lp.getSyncMap(lp.splitIname(base, "k", 128, { innerTag: "l.0" }));
    expect(map.filterBy({ kind: "barrier_local" }).evalAndSum({})).toBe(50 * 10 * 2);
    expect(map.filterBy({ kind: "kernel_launch" }).evalAndSum({})).toBe(1);
  });

  it("a local temporary written and read across work-items: one barrier, inserted by the scheduler", () => {
    const k = lp.tagInames(lp.makeKernel("{[i]: 0<=i<128}", ["<> c[i] = 15*i {id=yoink}", "out[i] = c[127 - i] {dep=yoink}"], ["out: int32[128]"]), { i: "l.0" });
    const map = lp.getSyncMap(k);
    expect(map.filterBy({ kind: "barrier_local" }).evalAndSum({})).toBe(1);
    expect(map.filterBy({ kind: "kernel_launch" }).evalAndSum({})).toBe(1);
  });

  it("an explicit global barrier splits the kernel: two launches", () => {
    const k = lp.tagInames(lp.makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=w}", "... gbarrier {id=gb, dep=w}", "b[i] = t[n-1-i] {dep=gb}"],
      ["a, b, t: float32[n]", "n: int32"]), { i: "g.0" });
    const map = lp.getSyncMap(k);
    expect(map.filterBy({ kind: "kernel_launch" }).evalAndSum({ n: 10 })).toBe(2);
    expect(map.filterBy({ kind: "barrier_global" }).evalAndSum({ n: 10 })).toBe(1);
  });
});
