/**
 * Evidence that the adaptive strategies beat random sampling at equal budget: each runs through
 * simulateTuning on synthetic logs shaped like real sweeps (a smooth basin over tile sizes in
 * log scale, an invalid region where the tile does not fit, measurement noise from a seeded
 * generator) and on a rugged one, at budgets of 10% and 20% of the space, over ten seeds. The law: the median best
 * cost of each adaptive strategy is at most random's, and strictly smaller on some landscape.
 * Set LOOM_PRINT_EVIDENCE=1 to print the table of medians.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { seededRandom } from "../../src/run/seeded-random.js";

type Point = Record<string, number | string>;

/** A sweep's records: cost(point) ms with a few percent of seeded log-normal noise; undefined is an invalid variant. */
function landscape(space: Record<string, (number | string)[]>, cost: (p: Point) => number | undefined, noiseSeed: number, noise = 0.03): lp.TuningRecord[] {
  const rnd = seededRandom(noiseSeed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const names = Object.keys(space);
  const points: Point[] = names.reduce<Point[]>((acc, n) => acc.flatMap((p) => space[n]!.map((v) => ({ ...p, [n]: v }))), [{}]);
  return points.map((point) => {
    const c = cost(point);
    if (c === undefined) return { point, ok: false, status: "invalid", times: [], medianMs: NaN, error: "too large a tile" };
    const t = c * Math.exp(noise * gauss());
    return { point, ok: true, status: "ok", times: [t], medianMs: t };
  });
}

const log2 = Math.log2;

/**
 * A tiled matmul on a GPU-like target (294 points): tiles ti × tj of work-items, tk deep. Time is
 * a smooth basin in log2 of the tile sizes around 16 × 32 × 8, slower when a group holds under a
 * warp of 32, invalid above 1024 work-items or when the tiles' footprint exceeds local memory.
 */
const matmul = landscape(
  { ti: [1, 2, 4, 8, 16, 32, 64], tj: [1, 2, 4, 8, 16, 32, 64], tk: [1, 2, 4, 8, 16, 32] },
  (p) => {
    const [ti, tj, tk] = [p.ti as number, p.tj as number, p.tk as number];
    if (ti * tj > 1024 || (ti + tj) * tk > 1536) return undefined;
    const [a, b, c] = [log2(ti) - 4, log2(tj) - 5, log2(tk) - 3];
    const basin = Math.exp(0.09 * a * a + 0.07 * b * b + 0.12 * c * c + 0.04 * a * b);
    return 2.0 * basin * Math.max(1, 32 / (ti * tj)) ** 0.6;
  },
  1,
);

/**
 * A 2-D stencil with blocks bx × by, an unroll factor and an array layout (288 points): two
 * basins, one per layout, the "aos" one 15% slower and hit by bank conflicts when bx is a
 * multiple of 32; unrolling pays only with tall blocks; blocks under 32 or over 1024 work-items
 * are invalid.
 */
const stencil = landscape(
  { bx: [4, 8, 16, 32, 64, 128], by: [1, 2, 4, 8, 16, 32], unroll: [1, 2, 4, 8], layout: ["soa", "aos"] },
  (p) => {
    const [bx, by, u] = [p.bx as number, p.by as number, p.unroll as number];
    if (bx * by > 1024 || bx * by < 32) return undefined;
    const soa = p.layout === "soa";
    const [cx, cy] = soa ? [5, 3] : [4, 4];
    const basin = Math.exp(0.1 * (log2(bx) - cx) ** 2 + 0.08 * (log2(by) - cy) ** 2);
    const unroll = Math.exp(0.05 * (log2(u) - Math.min(log2(by), 2)) ** 2) * (u > by ? 1.2 : 1);
    const conflicts = !soa && bx % 32 === 0 ? 1.6 : 1;
    return 5.0 * basin * unroll * conflicts * (soa ? 1 : 1.15);
  },
  2,
);

/**
 * A reduction with work-group size, items per work-item, vector width and a loop order (336
 * points): a narrow ridge (the best items per work-item depends on the group size) over a noisy
 * plateau, and vector widths that do not divide the items invalid.
 */
const reduction = landscape(
  { wg: [32, 64, 128, 256, 512, 1024, 2048], items: [1, 2, 4, 8, 16, 32], vec: [1, 2, 4, 8], order: ["ij", "ji"] },
  (p) => {
    const [wg, items, vec] = [p.wg as number, p.items as number, p.vec as number];
    if (vec > items || wg * items > 16384) return undefined;
    const ridge = log2(items) - (9 - log2(wg) / 2);
    const base = Math.exp(0.25 * ridge * ridge + 0.05 * (log2(wg) - 8) ** 2);
    const v = Math.exp(0.06 * (log2(vec) - 2) ** 2);
    return 1.0 * base * v * (p.order === "ij" ? 1 : 1.3);
  },
  3,
  0.05,
);

/**
 * A rugged landscape (384 points): periodic effects of three parameters (as of bank conflicts or
 * cache associativity) and their products, 10% noise, and a scattered ninth of the points invalid.
 */
const rugged = landscape(
  { x: [0, 1, 2, 3, 4, 5, 6, 7], y: [0, 1, 2, 3, 4, 5, 6, 7], z: [1, 2, 3, 4, 5, 6] },
  (p) => {
    const [x, y, z] = [p.x as number, p.y as number, p.z as number];
    if ((x * 7 + y * 3 + z) % 11 === 0) return undefined;
    return 4 + Math.sin(1.7 * x) + Math.cos(2.3 * y) + 0.8 * Math.sin(1.1 * z * x) + 0.5 * Math.cos(0.9 * y * z);
  },
  4,
  0.1,
);

const LANDSCAPES = { matmul, stencil, reduction, rugged } as const;
const ADAPTIVE = lp.STRATEGY_NAMES.filter((s) => s !== "exhaustive" && s !== "random");
const SEEDS = Array.from({ length: 10 }, (_, i) => i);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function medianBest(records: lp.TuningRecord[], strategy: string, variants: number): Promise<number> {
  const bests = await Promise.all(SEEDS.map(async (seed) => (await lp.simulateTuning(records, strategy, { seed, budget: { variants } })).trace.at(-1)!));
  return median(bests);
}

describe("adaptive strategies against random sampling, at equal budget (simulated)", () => {
  it("each adaptive strategy's median best is at most random's on every landscape, and strictly better on some", async () => {
    const rows: string[] = [];
    let strictly = 0;
    for (const [name, records] of Object.entries(LANDSCAPES)) {
      const optimum = Math.min(...records.filter((r) => r.ok).map((r) => r.medianMs));
      for (const share of [0.1, 0.2]) {
        const variants = Math.round(share * records.length);
        const random = await medianBest(records, "random", variants);
        const row = [`${name} (${records.length} points, optimum ${optimum.toFixed(3)} ms), budget ${variants}: random ${random.toFixed(3)}`];
        for (const s of ADAPTIVE) {
          const m = await medianBest(records, s, variants);
          row.push(`${s} ${m.toFixed(3)}`);
          expect(m, `${s} on ${name} at ${variants} variants`).toBeLessThanOrEqual(random);
          if (m < random) strictly++;
        }
        rows.push(row.join(", "));
      }
    }
    if (process.env.LOOM_PRINT_EVIDENCE) console.log(rows.join("\n"));
    expect(strictly).toBeGreaterThan(0);
  }, 180_000);

  it("bayes learns to avoid an invalid region: under half of random's share of its evaluations are invalid", async () => {
    // A 20 × 20 space whose corner x + y > 22 (a third of it) is invalid, the optimum near its edge.
    const records = landscape({ x: Array.from({ length: 20 }, (_, i) => i), y: Array.from({ length: 20 }, (_, i) => i) },
      (p) => ((p.x as number) + (p.y as number) > 22 ? undefined : 1 + (((p.x as number) - 14) ** 2 + ((p.y as number) - 6) ** 2) / 50), 5);
    const invalidShare = async (strategy: string) => median(await Promise.all(SEEDS.map(async (seed) => {
      const { evaluated } = await lp.simulateTuning(records, strategy, { seed, budget: { variants: 40 } });
      return evaluated.filter((r) => !r.ok).length / evaluated.length;
    })));
    const [random, bayes] = [await invalidShare("random"), await invalidShare("bayes")];
    expect(random).toBeGreaterThan(0.25); // a uniform sample meets the invalid third
    expect(bayes).toBeLessThan(random / 2);
  });
});
