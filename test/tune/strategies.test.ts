/**
 * The search strategies, driven by a synthetic cost: each proposes only points the restrictions
 * allow, never costs a point twice, covers the whole space when nothing stops it, and the seeded
 * ones repeat themselves for the same seed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { enumeratePoints, pointKey } from "../../src/tune/space.js";
import { getStrategy, STRATEGY_NAMES } from "../../src/tune/strategies.js";
import type { TuningPoint } from "../../src/tune/types.js";

async function drive(name: string, space: Record<string, number[]>, seed: number, limit = Infinity, allow = (_p: TuningPoint) => true) {
  const points = enumeratePoints(space, [allow]);
  const order: string[] = [];
  const costs = new Map<string, number>();
  await getStrategy(name)({
    space, points, seed,
    evaluate: async (p) => {
      const key = pointKey(p);
      const known = costs.get(key);
      if (known !== undefined) return known;
      if (order.length >= limit) return undefined;
      order.push(key);
      const c = Object.values(p).reduce<number>((a, v) => a + (v as number) ** 2, 0);
      costs.set(key, c);
      return c;
    },
  });
  return { order, points };
}

describe("strategies", () => {
  it("visit only allowed points, each once, all of them when nothing stops them; seeded ones repeat", async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.uniqueArray(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 3 }),
      async (lists, seed, mod) => {
        const space = Object.fromEntries(lists.map((l, i) => [`p${i}`, l]));
        const allow = (p: TuningPoint) => mod === 0 || Object.values(p).reduce<number>((a, v) => a + (v as number), 0) % (mod + 1) !== 0;
        for (const name of STRATEGY_NAMES) {
          const { order, points } = await drive(name, space, seed, Infinity, allow);
          const valid = new Set(points.map(pointKey));
          expect(new Set(order).size).toBe(order.length);
          expect(order.every((k) => valid.has(k))).toBe(true);
          if (name !== "genetic") expect(order.length).toBe(valid.size);
          if (name !== "exhaustive") expect((await drive(name, space, seed, Infinity, allow)).order).toEqual(order);
        }
      }), { numRuns: 40 });
  });

  it("genetic covers a small space within its generations and differs from random for the same seed", async () => {
    const space = { a: [0, 1, 2, 3, 4, 5, 6, 7], b: [0, 1, 2, 3, 4, 5, 6, 7] };
    const g = await drive("genetic", space, 7);
    expect(g.order).toHaveLength(64);
    const r = await drive("random", space, 7, 30);
    expect((await drive("genetic", space, 7, 30)).order).not.toEqual(r.order);
  });

  it("genetic finds the minimum of a smooth cost in fewer evaluations than the space holds", async () => {
    const vals = Array.from({ length: 16 }, (_, i) => i - 8);
    const space = { a: vals, b: vals, c: vals };
    let found = 0;
    for (let seed = 0; seed < 10; seed++) {
      const { order } = await drive("genetic", space, seed, 1200);
      if (order.includes(pointKey({ a: 0, b: 0, c: 0 }))) found++;
    }
    expect(found).toBeGreaterThanOrEqual(8); // 1200 of 4096 points: random sampling finds it ~29% of the time
  });
});
