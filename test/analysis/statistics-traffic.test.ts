/**
 * kernelCost's cache model against brute force: on random small kernels (affine reads of x at
 * several offsets and strides, a store, optionally a reduction, a split onto g/l axes and a g tag),
 * the elements moved equal the distinct (work-group, element) pairs found by enumerating every
 * instruction's points — a work-group being the values of the g axes, 0 on an axis the
 * instruction does not use.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { iterationDomain } from "../../src/ir/index.js";
import { points } from "../../src/poly/index.js";

/** An index c0*d0 + c1*d1 + c, written over the original inames d0, d1. */
interface Index { readonly c0: number; readonly c1: number; readonly c: number }
interface Spec {
  readonly reads: Index[][];
  readonly store: Index[];
  readonly rank: number;
  readonly triangular: boolean;
  readonly reduce: boolean;
  readonly split: number;
  readonly tagD1: boolean;
}

const text = (x: Index) => `${x.c0}*d0 + ${x.c1}*d1 + ${x.c + 40}`;
const value = (x: Index, d0: number, d1: number) => x.c0 * d0 + x.c1 * d1 + x.c + 40;

function kernelOf(s: Spec): lp.Kernel {
  const dom = `[n, m] -> {[d0, d1]: 0 <= d0 < n and 0 <= d1 < ${s.triangular ? "d0 + 1" : "m"}}`;
  const reads = s.reads.map((r) => `x[${r.map(text).join(", ")}]`).join(" + ");
  const shape = Array.from({ length: s.rank }, () => "200").join(", ");
  const lhs = s.reduce ? `out[${text({ ...s.store[0]!, c1: 0 })}${", 0".repeat(s.rank - 1)}]` : `out[${s.store.map(text).join(", ")}]`;
  const rhs = s.reduce ? `sum(d1, ${reads})` : reads;
  let k = lp.makeKernel(dom, `${lhs} = ${rhs}`, [`x, out: float32[${shape}]`, "n, m: int32"]);
  if (s.split > 1) k = lp.splitIname(k, "d0", s.split, { outerTag: "g.0", innerTag: "l.0" });
  if (s.tagD1 && !s.reduce) k = lp.tagInames(k, { d1: "g.1" });
  return k;
}

/** Distinct (work-group, element) pairs per array and direction, enumerated. */
function bruteForce(s: Spec, k: lp.Kernel, params: Record<string, number>): Map<string, number> {
  const insn = k.instructions[0]!;
  const inames = [...new Set([...insn.withinInames, ...(s.reduce ? ["d1"] : [])])];
  const dom = iterationDomain(k, inames);
  const seen = new Map<string, Set<string>>();
  const add = (key: string, pair: string) => (seen.get(key) ?? seen.set(key, new Set()).get(key)!).add(pair);
  for (const p of points(dom, params)) {
    const at = (name: string) => p[dom.dims.indexOf(name)];
    const d0 = s.split > 1 ? at("d0_outer")! * s.split + at("d0_inner")! : at("d0")!;
    const d1 = at("d1") ?? 0;
    const g0 = s.split > 1 ? at("d0_outer")! : 0;
    const g1 = s.tagD1 && !s.reduce ? d1 : 0;
    const group = `${g0},${g1}`;
    for (const r of s.reads) add("x load", `${group}|${r.map((x) => value(x, d0, d1)).join(",")}`);
    const store = s.reduce ? [value({ ...s.store[0]!, c1: 0 }, d0, d1), ...Array(s.rank - 1).fill(0)] : s.store.map((x) => value(x, d0, d1));
    add("out store", `${group}|${store.join(",")}`);
  }
  return new Map([...seen].map(([key, set]) => [key, set.size]));
}

const index = fc.record({ c0: fc.integer({ min: -1, max: 2 }), c1: fc.integer({ min: -1, max: 2 }), c: fc.integer({ min: -2, max: 2 }) });
const specArb = fc.integer({ min: 1, max: 2 }).chain((rank) => fc.record({
  reads: fc.array(fc.array(index, { minLength: rank, maxLength: rank }), { minLength: 1, maxLength: 3 }),
  store: fc.array(index, { minLength: rank, maxLength: rank }),
  rank: fc.constant(rank),
  triangular: fc.boolean(),
  reduce: fc.boolean(),
  split: fc.constantFrom(1, 2, 3),
  tagD1: fc.boolean(),
}));
const paramsArb = fc.record({ n: fc.integer({ min: 0, max: 7 }), m: fc.integer({ min: 0, max: 5 }) });

describe("kernelCost's cache model: each distinct element once per work-group", () => {
  it("equals the distinct (work-group, element) pairs enumerated, per array and direction", () => {
    fc.assert(fc.property(specArb, paramsArb, (spec, params) => {
      const k = kernelOf(spec);
      const want = bruteForce(spec, k, params);
      const cost = lp.kernelCost(k, params);
      expect(cost.model).toBe("distinct-per-workgroup");
      for (const a of cost.arrays) {
        expect(a.elements, `${a.variable} ${a.direction} ${JSON.stringify({ spec, params })}`).toBe(want.get(`${a.variable} ${a.direction}`) ?? 0);
        expect(a.bytes).toBe(4 * a.elements);
      }
      expect(cost.bytes).toBe(4 * [...want.values()].reduce((x, y) => x + y, 0));
    }), { numRuns: 80 });
  });

  it("a matmul without g axes moves 3*n^2 elements; tiled onto 16x16 work-groups, a and b move once per work-group", () => {
    let k = lp.makeKernel("{[i,k,j]: 0<=i<n and 0<=k<n and 0<=j<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b, c: float32[n, n]", "n: int32"], { assumptions: "n >= 1" });
    const plain = lp.globalBytes(k);
    expect(plain.model).toBe("distinct-per-workgroup");
    expect(plain.bytes.toString()).toBe("12*n^2");
    expect(lp.flopCount(k).toString()).toBe("2*n^3");
    for (const n of [1, 5, 64]) expect(lp.kernelCost(k, { n })).toMatchObject({ flops: 2 * n ** 3, bytes: 12 * n * n, intensity: (2 * n ** 3) / (12 * n * n) });
    k = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    const tiles = (n: number) => Math.ceil(n / 16);
    // The work-group's tile of the footprint, 16*group <= element <= 16*group + 15, counts as the element.
    expect(lp.globalTraffic(k).map((a) => a.elements.toString())).toEqual(["floor((n - 1)/16)*n^2 + n^2", "floor((n - 1)/16)*n^2 + n^2", "n^2"]);
    for (const n of [1, 16, 37, 64]) {
      const cost = lp.kernelCost(k, { n });
      // Each row tile of a is read by every column tile's work-group (and b alike); c is written once.
      expect(cost.arrays.map((a) => [a.variable, a.elements])).toEqual([["a", n * n * tiles(n)], ["b", n * n * tiles(n)], ["c", n * n]]);
    }
  });

  it("falls back to every access where the footprint is not affine, and says so", () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "z[i] = x[idx[i]] + x[i]", ["x: float32[100]", "idx: int32[n]", "z: float32[n]", "n: int32"]);
    const cost = lp.kernelCost(k, { n: 10 });
    expect(cost.model).toBe("mixed");
    expect(cost.arrays.find((a) => a.variable === "x")).toMatchObject({ model: "every-access", elements: 20 });
    expect(cost.arrays.find((a) => a.variable === "idx")).toMatchObject({ model: "distinct-per-workgroup", elements: 10 });
    const every = lp.kernelCost(k, { n: 10 }, { model: "every-access" });
    expect(every.model).toBe("every-access");
    expect(every.bytes).toBe(4 * (20 + 10 + 10));
  });

  it("a one-to-one strided read x[3*i] counts as its domain, in closed form", () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "z[i] = x[3*i]", ["x: float32[3*n]", "z: float32[n]", "n: int32"], { assumptions: "n >= 1" });
    const x = lp.globalTraffic(k).find((a) => a.variable === "x")!;
    expect([x.elements.toString(), x.elements.isSymbolic, x.model]).toEqual(["n", true, "distinct-per-workgroup"]);
  });

  it("a repeated read of the same element counts once; x[2*i] and x[2*i + 1] are disjoint", () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "z[i] = x[2*i] + x[2*i + 1] + x[2*i] * x[i]", ["x: float32[2*n]", "z: float32[n]", "n: int32"]);
    for (const n of [0, 1, 7]) expect(lp.kernelCost(k, { n }).arrays.find((a) => a.variable === "x")!.elements).toBe(2 * n);
  });
});
