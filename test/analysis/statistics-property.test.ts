/**
 * Property: on random small kernels (rectangular, triangular and min-bounded domains, optionally
 * split) the symbolic counts equal brute force, the points of each instruction's domain enumerated
 * one by one times the operations and accesses written per point, for parameters including 0 and 1.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import type { MemAccess } from "../../src/index.js";
import { iterationDomain, type Kernel } from "../../src/ir/index.js";
import { count } from "../../src/poly/index.js";
import { countSet } from "../../src/analysis/index.js";
import { collapseSplits } from "../../src/analysis/statistics/splits.js";

interface Spec {
  readonly dims: { lower: number; upper: number; extraUpper: boolean }[];
  readonly adds: number;
  readonly muls: number;
  readonly split: number;
  /** Further splits: [dimension, factor, split the inner part again by 2]. */
  readonly tiles?: readonly (readonly [number, number, boolean])[];
}

const LOWERS = (t: number) => ["0", "1", `d${t - 1}`];
const UPPERS = (t: number) => ["n", "m", `d${t - 1} + 1`, `n - d${t - 1}`];

function kernelOf(s: Spec): Kernel {
  const cs = s.dims.map((d, t) => {
    const lo = LOWERS(t)[t === 0 ? d.lower % 2 : d.lower]!;
    const hi = UPPERS(t)[t === 0 ? d.upper % 2 : d.upper]!;
    return `${lo} <= d${t} < ${hi}${d.extraUpper ? ` and d${t} < m` : ""}`;
  });
  const names = s.dims.map((_, t) => `d${t}`);
  const idx = names.join(", ");
  const rhs = `x[${idx}]${" + 1.5".repeat(s.adds)}${" * 2.0".repeat(s.muls)}`;
  const shape = names.map(() => "24").join(", ");
  let k = lp.makeKernel(`[n, m] -> {[${names.join(",")}]: ${cs.join(" and ")}}`, `out[${idx}] = ${rhs}`, [`x, out: float64[${shape}]`, "n, m: int32"]);
  if (s.split > 1) k = lp.splitIname(k, "d0", s.split);
  const done = new Set<number>();
  for (const [d, f, nested] of s.tiles ?? []) {
    const name = `d${d}`;
    if (d >= s.dims.length || (d === 0 && s.split > 1) || done.has(d)) continue;
    done.add(d);
    k = lp.splitIname(k, name, f);
    if (nested) k = lp.splitIname(k, `${name}_inner`, 2);
    // d1 tiled onto the hardware: its outer part a work-group, its innermost part a work-item.
    if (d === 1) k = lp.tagInames(k, { [`${name}_outer`]: "g.0", [nested ? `${name}_inner_inner` : `${name}_inner`]: "l.0" });
  }
  return k;
}

const specArb = fc.record({
  dims: fc.array(fc.record({ lower: fc.integer({ min: 0, max: 2 }), upper: fc.integer({ min: 0, max: 3 }), extraUpper: fc.boolean() }), { minLength: 1, maxLength: 3 }),
  adds: fc.integer({ min: 0, max: 3 }),
  muls: fc.integer({ min: 0, max: 3 }),
  split: fc.constantFrom(1, 1, 2, 3, 4),
  tiles: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom(2, 3, 4, 16), fc.boolean()), { maxLength: 2 }),
});
const paramsArb = fc.record({ n: fc.integer({ min: 0, max: 9 }), m: fc.integer({ min: 0, max: 9 }) });

describe("statistics against brute-force enumeration", () => {
  it("Count.eval of every op and access equals the enumerated points times the per-point count", () => {
    fc.assert(fc.property(specArb, fc.array(paramsArb, { minLength: 1, maxLength: 4 }), (spec, paramList) => {
      const k = kernelOf(spec);
      const insn = k.instructions[0]!;
      const dom = iterationDomain(k, insn.withinInames);
      const ops = lp.getOpMap(k);
      const mem = lp.getMemAccessMap(k);
      for (const params of [{ n: 0, m: 0 }, { n: 1, m: 1 }, ...paramList]) {
        const points = count(dom, params);
        expect(ops.filterBy({ name: "add" }).evalAndSum(params), JSON.stringify({ spec, params })).toBe(spec.adds * points);
        expect(ops.filterBy({ name: "mul" }).evalAndSum(params)).toBe(spec.muls * points);
        expect(mem.filterBy({ direction: "load", variable: "x" }).evalAndSum(params)).toBe(points);
        expect(mem.filterBy({ direction: "store" }).evalAndSum(params)).toBe(points);
      }
    }), { numRuns: 60 });
  });

  it("splits and tiles (nested, onto g/l axes) leave the printed count as it was before them", () => {
    fc.assert(fc.property(specArb, (spec) => {
      const before = kernelOf({ ...spec, split: 1, tiles: [] });
      const after = kernelOf(spec);
      const text = (k: Kernel) => lp.getOpMap(k).toString();
      expect(text(after), JSON.stringify(spec)).toBe(text(before));
      expect(lp.getMemAccessMap(after).sum().toString()).toBe(lp.getMemAccessMap(before).sum().toString());
    }), { numRuns: 60 });
  });

  it("collapsing split pairs and tiles keeps the number of points of random sets (pattern or not)", () => {
    const row = fc.record({ a: fc.integer({ min: -2, max: 2 }), b: fc.integer({ min: -1, max: 1 }), c: fc.integer({ min: -1, max: 1 }), d: fc.integer({ min: -3, max: 8 }) });
    fc.assert(fc.property(
      fc.integer({ min: 2, max: 4 }), fc.integer({ min: -1, max: 1 }), fc.array(row, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean(), fc.boolean(), paramsArb,
      (f, lo, rows, tile, noise, strided, params) => {
        // A split pair (o, x): x in a box of f values, rows over f*o + x; or a tile 0 <= e - f*o < f.
        const inner = tile ? `${lo} <= e - ${f}*o <= ${lo + f - 1}` : `${lo} <= x <= ${lo + f - 1}`;
        const combo = tile ? "e" : `(${f}*o + x)`;
        const body = rows.map((r) => `${r.a}*${combo} + ${r.b}*y + ${r.c}*n + ${r.d} >= 0`).join(" and ");
        // An existential (a stride) over the combination and y, or a row on o alone that breaks the pattern.
        const extra = `${noise ? " and o <= m" : ""}${strided ? ` and (${combo} + y) mod 2 = 0` : ""}`;
        const dims = tile ? "[o, e, y]" : "[o, x, y]";
        const text = `[n, m] -> {${dims}: ${inner} and 0 <= y < n and -4 <= ${combo} <= n + 4 and ${body}${extra}}`;
        const set = lp.isl.parseSet(text);
        const collapsed = collapseSplits(set);
        expect(count(collapsed, params), `${text} at ${JSON.stringify(params)}`).toBe(count(set, params));
        // The pair (or tile) is one dimension now (an equality may have taken y too).
        if (!noise && !lp.isl.isEmpty(set)) expect(collapsed.dims.length, text).toBeLessThanOrEqual(2);
      }), { numRuns: 150 });
  });

  it("countSet of a random 2-D set with min/max bounds equals enumeration (closed form or not)", () => {
    const bound = fc.record({ a: fc.integer({ min: -2, max: 2 }), b: fc.integer({ min: -1, max: 1 }), c: fc.integer({ min: -3, max: 3 }) });
    fc.assert(fc.property(fc.array(bound, { minLength: 1, maxLength: 2 }), fc.array(bound, { minLength: 1, maxLength: 2 }), paramsArb, (lows, highs, params) => {
      const term = (x: { a: number; b: number; c: number }) => `${x.a}*i + ${x.b}*n + ${x.c}`;
      const text = `[n, m] -> {[i, j]: 0 <= i < n and ${lows.map((x) => `j >= ${term(x)}`).join(" and ")} and ${highs.map((x) => `j <= ${term(x)} + m`).join(" and ")}}`;
      const s = lp.isl.parseSet(text);
      const c = countSet(s);
      for (const p of [{ n: 0, m: 0 }, { n: 1, m: 1 }, params]) expect(c.eval(p), `${text} at ${JSON.stringify(p)}: ${c.toString()}`).toBe(count(s, p));
    }), { numRuns: 80 });
    // Most of these have a closed form: two bounds with denominators compared is what has none.
    const s = lp.isl.parseSet("[n, m] -> {[i, j]: 0 <= i < n and j >= -n and j >= -2*i and j <= 2*i + m}");
    expect(countSet(s).isSymbolic).toBe(false);
    expect(countSet(lp.isl.parseSet("[n, m] -> {[i, j]: 0 <= i < n and j >= -n and j >= i - m and j <= 2*i + m and j <= n}")).isSymbolic).toBe(true);
  });
});

describe("redundant work and strides on random tagged kernels", () => {
  it("an instruction that does not use the g.1 axis counts once per point of it; strides equal the flat-address step", () => {
    fc.assert(fc.property(
      fc.integer({ min: 2, max: 5 }), fc.integer({ min: -2, max: 2 }), fc.integer({ min: -2, max: 2 }), fc.integer({ min: 0, max: 2 }), paramsArb,
      (f, a0, a1, b1, params) => {
        const idx0 = `${a0}*i + 20`;
        const idx1 = `${a1}*i + ${b1}*j + 20`;
        let k = lp.makeKernel("[n, m] -> {[i, j]: 0 <= i < n and 0 <= j < m}", [`out[i, j] = x[${idx0}, ${idx1}] {id=w}`, "y[i] = 2*z[i] {id=s}"],
          ["x: float64[n + 40, m + 60]", "out: float64[n, m]", "y, z: float64[n]", "n, m: int32"]);
        k = lp.tagInames(lp.splitIname(k, "i", f, { outerTag: "g.0", innerTag: "l.0" }), { j: "g.1" });
        const mem = lp.getMemAccessMap(k, { countRedundantWork: true });
        // i's points: the projection of the one domain {[i, j]}, empty when m <= 0 (as loopy's).
        const pointsI = params.m >= 1 ? Math.max(params.n, 0) : 0;
        const pointsJ = Math.max(params.m, 0);
        expect(mem.filterBy({ variable: "z" }).evalAndSum(params)).toBe(pointsI * pointsJ);
        expect(mem.filterBy({ variable: "x" }).evalAndSum(params)).toBe(pointsI * pointsJ);
        expect(lp.getMemAccessMap(k).filterBy({ variable: "z" }).evalAndSum(params)).toBe(pointsI);
        // Flat address of x: idx0 * (m + 60) + idx1; one step of i_inner is one step of i.
        const x = mem.entries().map(([key]) => key as MemAccess).find((e) => e.variable === "x")!;
        const valueOf = (v: number | lp.Count | undefined) => (v === undefined ? 0 : typeof v === "number" ? v : v.eval(params));
        const stepI = a0 * (params.m + 60) + a1;
        expect(valueOf(x.lidStrides[0])).toBe(stepI);
        expect(valueOf(x.gidStrides[0])).toBe(f * stepI);
        expect(valueOf(x.gidStrides[1])).toBe(b1);
      }), { numRuns: 40 });
  });
});
