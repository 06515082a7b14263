/**
 * Count granularity (loopy's CountGranularity): per work-item, per sub-group, per work-group.
 * Loopy's published expectations from test_statistics.py (subgroup_size 32, count_redundant_work)
 * with "auto" (loopy's choice per key), and brute force: the distinct work-groups, and the
 * distinct (work-group, sub-group) pairs, that run each instruction, enumerated.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import type { MemAccess, Op } from "../../src/index.js";
import { iterationDomain } from "../../src/ir/index.js";
import { points } from "../../src/poly/index.js";

const SGS = 32;
const n = 512, m = 256, ell = 128;
const params = { n, m, ell };
const divCeil = (a: number, b: number) => Math.ceil(a / b);
const OPTS = { assumptions: "n >= 1 and m >= 1 and ell >= 1" };
const DOM = "[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}";
const LOOPY = { countRedundantWork: true, subgroupSize: SGS, countGranularity: "auto" } as const;
const byKey = (map: lp.CountMap, want: Partial<MemAccess>) =>
  map.entries().filter(([key]) => Object.entries(want).every(([f, v]) => (key as unknown as Record<string, unknown>)[f] === v));
const total = (entries: [lp.CountKey, lp.Count][]) => entries.reduce((s, [, c]) => s + c.eval(params), 0);

describe("loopy's test_statistics.py with count_granularity picked per key (\"auto\")", () => {
  it("test_op_counter_basic: no local axes, one sub-group per work-group: the per-work-item counts, keyed subgroup", () => {
    const k = lp.makeKernel(DOM, ["c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]", "e[i, k+1] = -g[i,k]*h[i,k+1]"],
      ["a, b, c: float32[n, ell, m]", "g, h, e: float64[n, m+1]", "n, m, ell: int32"], OPTS);
    const map = lp.getOpMap(k, { ...LOOPY, countWithinSubscripts: true });
    const op = (dtype: string, name: string): Op => ({ dtype: dtype as Op["dtype"], name, countGranularity: "subgroup" });
    const nSubgroups = 1 * divCeil(1, SGS);
    for (const name of ["add", "mul", "div"]) expect(map.get(op("float32", name)).eval(params)).toBe(n * m * ell * nSubgroups);
    expect(map.get(op("float64", "mul")).eval(params)).toBe(n * m * nSubgroups);
    expect(map.get(op("int32", "add")).eval(params)).toBe(n * m * 2 * nSubgroups);
  });

  it("test_mem_access_counter_mixed: j split by 65 onto g.0/l.0; uniform loads per sub-group, the others per work-item", () => {
    let k = lp.makeKernel(DOM, ["c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]+x[i,k]", "e[i, k] = g[i,k]*(2+h[i,k])"],
      ["a, b, c: float32[n, ell, m]", "g, h, e: float64[n, m]", "x: float32[n, m]", "n, m, ell: int32"], OPTS);
    k = lp.splitIname(k, "j", 65, { outerTag: "g.0", innerTag: "l.0" });
    const map = lp.getMemAccessMap(k, LOOPY);
    const nSubgroups = divCeil(ell, 65) * divCeil(65, SGS);
    expect(total(byKey(map, { variable: "g", countGranularity: "subgroup" })) + total(byKey(map, { variable: "h", countGranularity: "subgroup" }))).toBe(2 * n * m * nSubgroups);
    expect(total(byKey(map, { variable: "x", countGranularity: "subgroup" }))).toBe(m * n * nSubgroups);
    expect(total(byKey(map, { variable: "e", countGranularity: "subgroup" }))).toBe(m * n * nSubgroups);
    const nonconsec = byKey(map, { variable: "a", countGranularity: "workitem" });
    expect((nonconsec[0]![0] as MemAccess).lidStrides[0]!.toString()).toBe("m");
    expect(total(nonconsec) + total(byKey(map, { variable: "b", countGranularity: "workitem" }))).toBe(3 * n * m * ell);
    expect(total(byKey(map, { variable: "c", countGranularity: "workitem" }))).toBe(n * m * ell);
  });

  it("test_all_counters_parallel_matmul: ops and local accesses per sub-group (256-item groups: 8 sub-groups)", () => {
    let k = lp.makeKernel("{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
      ["a: float32[n, m]", "b: float32[m, ell]", "c: float32[n, ell]", "n, m, ell: int32"], OPTS);
    k = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    k = lp.splitIname(k, "k", 16);
    k = lp.addPrefetch(k, "a", { sweepInames: ["k_inner", "i_inner"], defaultTag: "l.auto" });
    k = lp.addPrefetch(k, "b", { sweepInames: ["j_inner", "k_inner"], defaultTag: "l.auto" });
    const nSubgroups = divCeil(n, 16) * divCeil(ell, 16) * divCeil(16 * 16, SGS);
    const ops = lp.getOpMap(k, LOOPY).filterBy({ dtype: "float32", countGranularity: "subgroup" });
    expect(ops.filterBy({ name: ["add", "mul"] }).evalAndSum(params)).toBe(m * 2 * nSubgroups);
    const mem = lp.getMemAccessMap(k, LOOPY);
    expect(mem.filterBy({ mtype: "global", variable: ["a", "b"], countGranularity: "workitem" }).evalAndSum(params)).toBe(2 * (n * m * ell) / 16);
    expect(mem.filterBy({ mtype: "global", variable: "c", countGranularity: "workitem" }).evalAndSum(params)).toBe(n * ell);
    const local = mem.filterBy({ mtype: "local", countGranularity: "subgroup" });
    expect(local.filterBy({ direction: "load" }).evalAndSum(params)).toBe(m * 2 * nSubgroups);
    expect(local.filterBy({ direction: "load", variable: "a_fetch" }).evalAndSum(params)).toBe(m * nSubgroups);
    expect(local.filterBy({ direction: "store" }).evalAndSum(params)).toBe((m * 2 / 16) * nSubgroups);
  });

  it("test_mem_access_tagged_variables: a[i, k] with i on l.1 only is uniform along l.0: per sub-group", () => {
    let k = lp.makeKernel("{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
      ["a: float32[n, m]", "b: float32[m, ell]", "c: float32[n, ell]", "n, m, ell: int32"], OPTS);
    k = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    k = lp.splitIname(k, "k", 16);
    const mem = lp.getMemAccessMap(k, LOOPY);
    const nSubgroups = divCeil(n, 16) * divCeil(ell, 16) * divCeil(16 * 16, SGS);
    expect(mem.filterBy({ variable: "b", countGranularity: "workitem" }).evalAndSum(params)).toBe(n * m * ell);
    expect(mem.filterBy({ variable: "a", countGranularity: "subgroup" }).evalAndSum(params)).toBe(m * nSubgroups);
    expect(mem.filterBy({ variable: "c", countGranularity: "workitem" }).evalAndSum(params)).toBe(n * ell);
  });
});

interface Spec { readonly f0: number; readonly f1: number; readonly splitJ: boolean; readonly sgs: number; readonly a: number; readonly b: number }

/** out[i, j] over both inames, z[i] over i only; i split onto g.0/l.0, j onto g.1/l.1 or sequential. */
function kernelOf(s: Spec): lp.Kernel {
  let k = lp.makeKernel("[n, m] -> {[i, j]: 0 <= i < n and 0 <= j < m}", ["out[i, j] = 2*x[i, j] {id=w}", "z[i] = 3*x[i, 0] {id=s}"],
    ["x, out: float32[n, m]", "z: float32[n]", "n, m: int32"]);
  k = lp.splitIname(k, "i", s.f0, { outerTag: "g.0", innerTag: "l.0" });
  if (s.splitJ) k = lp.splitIname(k, "j", s.f1, { outerTag: "g.1", innerTag: "l.1" });
  return k;
}

/** Per instruction: the distinct work-groups and (work-group, sub-group) pairs that run it; an unused local axis runs whole. */
function bruteForce(s: Spec, k: lp.Kernel, p: Record<string, number>, id: string): { groups: number; subgroups: number } {
  const insn = k.instructions.find((x) => x.id === id)!;
  const dom = iterationDomain(k, [...insn.withinInames]);
  const local = s.splitJ ? [["i_inner", s.f0], ["j_inner", s.f1]] as const : [["i_inner", s.f0]] as const;
  const groups = new Set<string>();
  const subgroups = new Set<string>();
  for (const pt of points(dom, p)) {
    const group = dom.dims.filter((d) => !d.endsWith("_inner")).map((d) => pt[dom.dims.indexOf(d)]).join(",");
    groups.add(group);
    // Every work-item along a local axis the instruction does not use runs it too.
    let lids = [0];
    let stride = 1;
    for (const [name, extent] of local) {
      const at = dom.dims.indexOf(name);
      const values = at >= 0 ? [pt[at]!] : Array.from({ length: extent }, (_, v) => v);
      lids = lids.flatMap((l) => values.map((v) => l + stride * v));
      stride *= extent;
    }
    for (const lid of lids) subgroups.add(`${group}|${Math.floor(lid / s.sgs)}`);
  }
  return { groups: groups.size, subgroups: subgroups.size };
}

describe("count granularity against brute force (full tiles)", () => {
  it("per work-group: the distinct work-groups that run it; per sub-group: the distinct (work-group, sub-group) pairs", () => {
    const spec = fc.record({
      f0: fc.constantFrom(1, 2, 3, 4, 8), f1: fc.constantFrom(1, 2, 4), splitJ: fc.boolean(), sgs: fc.constantFrom(1, 2, 4, 8, 32),
      a: fc.integer({ min: 0, max: 4 }), b: fc.integer({ min: 0, max: 4 }),
    });
    fc.assert(fc.property(spec, (s) => {
      const k = kernelOf(s);
      const p = { n: s.a * s.f0, m: s.splitJ ? s.b * s.f1 : s.b };
      const ops = lp.getOpMap(k, { countGranularity: "workgroup" });
      const opsSub = lp.getOpMap(k, { countGranularity: "subgroup", subgroupSize: s.sgs });
      const mem = lp.getMemAccessMap(k, { countGranularity: "subgroup", subgroupSize: s.sgs });
      const w = bruteForce(s, k, p, "w");
      const z = bruteForce(s, k, p, "s");
      const where = JSON.stringify({ s, p });
      // out[i, j] = 2*x[i, j] is one mul per point; z[i] = 3*x[i, 0] another.
      expect(ops.filterBy({ name: "mul" }).evalAndSum(p), where).toBe(w.groups + z.groups);
      expect(opsSub.filterBy({ name: "mul" }).evalAndSum(p), where).toBe(w.subgroups + z.subgroups);
      expect(mem.filterBy({ variable: "out" }).evalAndSum(p), where).toBe(w.subgroups);
      expect(mem.filterBy({ variable: "z" }).evalAndSum(p), where).toBe(z.subgroups);
      expect(mem.entries().every(([key]) => (key as MemAccess).countGranularity === "subgroup")).toBe(true);
    }), { numRuns: 60 });
  });
});
