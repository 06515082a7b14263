/**
 * The search strategies, driven by a synthetic cost: each proposes only points the restrictions
 * allow, never costs a point twice, covers the whole space when nothing stops it, and the seeded
 * ones repeat themselves for the same seed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../src/run/seeded-random.js";
import { enumeratePoints, pointKey } from "../../src/tune/space.js";
import { getStrategy, STRATEGY_NAMES } from "../../src/tune/strategies.js";
import type { TuningPoint } from "../../src/tune/types.js";

interface Drive {
  limit?: number;
  allow?: (p: TuningPoint) => boolean;
  /** The cost of a point; default the sum of squares of its values. */
  cost?: (p: TuningPoint) => number;
  /** Record the upcoming() hints. */
  hints?: boolean;
}

async function drive(name: string, space: Record<string, number[]>, seed: number, opts: Drive = {}) {
  const { limit = Infinity, allow = () => true, cost = (p) => Object.values(p).reduce<number>((a, v) => a + (v as number) ** 2, 0) } = opts;
  const points = enumeratePoints(space, [allow]);
  const order: string[] = [];
  const costs = new Map<string, number>();
  const announced: string[][] = [];
  await getStrategy(name)({
    space, points, seed,
    evaluate: async (p) => {
      const key = pointKey(p);
      const known = costs.get(key);
      if (known !== undefined) return known;
      if (order.length >= limit) return undefined;
      order.push(key);
      const c = cost(p);
      costs.set(key, c);
      return c;
    },
    ...(opts.hints ? { upcoming: (ps: readonly TuningPoint[]) => { announced.push(ps.map(pointKey)); } } : {}),
  });
  return { order, points, announced };
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
          const { order, points } = await drive(name, space, seed, { allow });
          const valid = new Set(points.map(pointKey));
          expect(new Set(order).size).toBe(order.length);
          expect(order.every((k) => valid.has(k))).toBe(true);
          if (name !== "genetic") expect(order.length).toBe(valid.size);
          expect((await drive(name, space, seed, { allow })).order).toEqual(order);
        }
      }), { numRuns: 40 });
  });

  const spaces = fc.array(fc.uniqueArray(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 })
    .map((lists) => Object.fromEntries(lists.map((l, i) => [`p${i}`, l])));
  /** Costs of several shapes: smooth, a random table (negative ones too), an invalid region (Infinity), all invalid. */
  const costs = fc.tuple(fc.constantFrom("squares", "table", "region", "invalid"), fc.integer({ min: 0, max: 1000 })).map(([kind, seed]) => {
    const table = new Map<string, number>();
    const rnd = seededRandom(seed);
    const squares = (p: TuningPoint) => Object.values(p).reduce<number>((a, v) => a + (v as number) ** 2, 0);
    return (p: TuningPoint): number => {
      if (kind === "squares") return squares(p);
      if (kind === "invalid") return Infinity;
      if (kind === "region") return Object.values(p).some((v) => (v as number) > 2) ? Infinity : squares(p);
      const key = pointKey(p);
      if (!table.has(key)) table.set(key, Math.round((rnd() - 0.3) * 100));
      return table.get(key)!;
    };
  });

  it("a budget only cuts a strategy's sequence short, whatever the costs (Infinity for invalid points included)", async () => {
    await fc.assert(fc.asyncProperty(spaces, fc.integer({ min: 0, max: 1000 }), costs, fc.integer({ min: 1, max: 40 }), async (space, seed, cost, limit) => {
      for (const name of STRATEGY_NAMES) {
        const full = await drive(name, space, seed, { cost });
        const cut = await drive(name, space, seed, { cost, limit });
        expect(cut.order).toEqual(full.order.slice(0, limit));
        expect(new Set(full.order).size).toBe(full.order.length);
        if (name !== "genetic") expect(full.order.length).toBe(full.points.length);
      }
    }), { numRuns: 30 });
  });

  it("upcoming() announces exactly the points evaluated next, in order, and changes nothing", async () => {
    await fc.assert(fc.asyncProperty(spaces, fc.integer({ min: 0, max: 1000 }), costs, fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }), async (space, seed, cost, limit) => {
      for (const name of STRATEGY_NAMES) {
        const plain = await drive(name, space, seed, { cost, limit });
        const hinted = await drive(name, space, seed, { cost, limit, hints: true });
        expect(hinted.order).toEqual(plain.order);
        const said = hinted.announced.flat();
        expect(new Set(said).size).toBe(said.length); // nothing announced twice, so nothing seen is announced
        if (limit === undefined) expect(said).toEqual(hinted.order);
        else expect(said.slice(0, hinted.order.length)).toEqual(hinted.order);
      }
    }), { numRuns: 30 });
  });

  it("genetic covers a small space within its generations and differs from random for the same seed", async () => {
    const space = { a: [0, 1, 2, 3, 4, 5, 6, 7], b: [0, 1, 2, 3, 4, 5, 6, 7] };
    const g = await drive("genetic", space, 7);
    expect(g.order).toHaveLength(64);
    const r = await drive("random", space, 7, { limit: 30 });
    expect((await drive("genetic", space, 7, { limit: 30 })).order).not.toEqual(r.order);
  });

  it("genetic finds the minimum of a smooth cost in fewer evaluations than the space holds", async () => {
    const vals = Array.from({ length: 16 }, (_, i) => i - 8);
    const space = { a: vals, b: vals, c: vals };
    let found = 0;
    for (let seed = 0; seed < 10; seed++) {
      const { order } = await drive("genetic", space, seed, { limit: 1200 });
      if (order.includes(pointKey({ a: 0, b: 0, c: 0 }))) found++;
    }
    expect(found).toBeGreaterThanOrEqual(8); // 1200 of 4096 points: random sampling finds it ~29% of the time
  });
});
