/**
 * The relational bound of the int32 index check (src/run/index-affine.ts) holds in every iteration
 * that runs: over random loop nests (bounds affine in the outer counters and the parameters, with
 * floor divisions, min and max) and random affine expressions of the counters, `affineMax` is at
 * least the largest value the expression takes over the iterations, and `affineMin` at most the
 * smallest (enumerated). And it is exact where a split's form says so: the partial sum
 * `80*i_oo + 16*i_oi` of a tiled offset domain near the int32 limit.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Ex } from "../../codegen/ast.js";
import { affineMax, affineMin, type Range, type SymBound } from "../../src/run/index-affine.js";

const lit = (value: number): Ex => ({ k: "lit", value, dtype: "idx" });
const v = (name: string): Ex => ({ k: "var", name });
const bin = (op: "+" | "-" | "*" | "//" | "min" | "max", l: Ex, r: Ex): Ex => ({ k: "bin", op, l, r, dtype: "idx" });

function evalEx(e: Ex, at: ReadonlyMap<string, number>): number {
  switch (e.k) {
    case "lit": return e.value;
    case "var": return at.get(e.name)!;
    case "bin": {
      const l = evalEx(e.l, at);
      const r = evalEx(e.r, at);
      switch (e.op) {
        case "+": return l + r;
        case "-": return l - r;
        case "*": return l * r;
        case "//": return Math.floor(l / r);
        case "min": return Math.min(l, r);
        case "max": return Math.max(l, r);
        default: throw new Error(e.op);
      }
    }
    default: throw new Error(e.k);
  }
}

/** An affine form of `names` with small coefficients. */
const affineOf = (names: readonly string[]) =>
  fc.tuple(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: names.length, maxLength: names.length }), fc.integer({ min: -6, max: 6 }))
    .map(([ks, c]) => names.reduce<Ex>((e, n, j) => (ks[j] === 0 ? e : bin("+", e, bin("*", lit(ks[j]!), v(n)))), lit(c)));

/** A loop bound over `names`: affine, a floor division of one, or a min/max of two. */
const boundOf = (names: readonly string[]) => fc.oneof(
  affineOf(names),
  fc.tuple(affineOf(names), fc.integer({ min: 2, max: 5 })).map(([a, d]) => bin("//", a, lit(d))),
  fc.tuple(affineOf(names), affineOf(names), fc.constantFrom("min" as const, "max" as const)).map(([a, b, op]) => bin(op, a, b)),
);

const nest = fc.integer({ min: 1, max: 3 }).chain((depth) => {
  const loops = Array.from({ length: depth }, (_, d) => `v${d}`);
  const bounds = loops.map((_, d) => fc.tuple(boundOf(["p", ...loops.slice(0, d)]), boundOf(["p", ...loops.slice(0, d)])));
  return fc.record({
    p: fc.integer({ min: -8, max: 8 }),
    bounds: fc.tuple(...bounds),
    e: affineOf(["p", ...loops]),
  }).map((r) => ({ ...r, loops }));
});

describe("relational index bounds (index-affine.ts)", () => {
  it("bound the values of an affine expression over every iteration that runs (random nests)", () => {
    let compared = 0;
    fc.assert(fc.property(nest, ({ p, bounds, e, loops }) => {
      // Enumerate the iterations (bounds are small: the counters stay within a few dozen).
      const values: number[] = [];
      let steps = 0;
      const walk = (d: number, at: Map<string, number>): void => {
        if (d === loops.length) return void values.push(evalEx(e, at));
        const [lo, hi] = bounds[d]!;
        for (let x = evalEx(lo, at); x <= evalEx(hi, at) && ++steps < 50_000; x++) walk(d + 1, new Map(at).set(loops[d]!, x));
      };
      walk(0, new Map([["p", p]]));
      if (steps >= 50_000) return; // too many to enumerate (rare)
      const sym = new Map<string, SymBound>(loops.map((n, d) => [n, { depth: d + 1, lo: bounds[d]![0], hi: bounds[d]![1] }]));
      const env = new Map<string, Range>([["p", [p, p]]]);
      const hi = affineMax(e, sym, env);
      const lo = affineMin(e, sym, env);
      if (values.length === 0) return;
      compared++;
      if (hi !== undefined) expect(hi).toBeGreaterThanOrEqual(Math.max(...values));
      if (lo !== undefined) expect(lo).toBeLessThanOrEqual(Math.min(...values));
    }), { numRuns: 300 });
    // Most nests run at least once: the law was exercised.
    expect(compared).toBeGreaterThan(50);
  });

  it("is exact for the partial sum of a tiled offset domain, where intervals are 64 over", () => {
    // i = 80*i_oo + 16*i_oi + i_in over m <= i < m + n: i_oo's bounds as the lowering prints them.
    const m = 2 ** 31 - 41;
    const n = 19;
    const ioi = v("i_oi");
    const lo = bin("+", bin("//", bin("-", bin("-", v("m"), bin("*", lit(16), ioi)), lit(16)), lit(80)), lit(1));
    const hi = bin("//", bin("-", bin("+", v("m"), v("n")), bin("+", bin("*", lit(16), ioi), lit(1))), lit(80));
    const sym = new Map<string, SymBound>([["i_oi", { depth: 1, lo: lit(0), hi: lit(4) }], ["i_oo", { depth: 2, lo, hi }]]);
    const env = new Map<string, Range>([["m", [m, m]], ["n", [n, n]], ["i_oi", [0, 4]]]);
    const partial = bin("+", bin("*", lit(80), v("i_oo")), bin("*", lit(16), ioi));
    expect(affineMax(partial, sym, env)).toBe(m + n - 1);
    expect(affineMin(partial, sym, env)).toBe(m - 15);
  });
});
