/** A genetic search after Kernel Tuner's `genetic_algorithm`. */
import { pointKey, seededRandom } from "../space.js";
import type { TuningPoint } from "../types.js";
import { shuffled, Walk, type SearchContext } from "./common.js";

/** Kernel Tuner's defaults: a population of 20, at most 100 generations, a 1-in-10 mutation chance per gene. */
export const GENETIC_DEFAULTS = { population: 20, generations: 100, mutation: 0.1 } as const;

/**
 * A random first population; each generation is evaluated and ranked by time; parents are drawn
 * with weights falling linearly with their rank; a child takes each parameter from either parent
 * (uniform crossover), then each parameter mutates with probability 1/10 to another value of its
 * list. A child the restrictions exclude, or already in the new population, is redrawn; after a
 * few tries an unseen point of the space is taken instead so the search keeps moving. The best
 * individual survives (elitism). Each population is announced before it is evaluated.
 */
export async function genetic(ctx: SearchContext): Promise<void> {
  const { population: POPULATION, generations, mutation } = GENETIC_DEFAULTS;
  const rnd = seededRandom(ctx.seed);
  const walk = new Walk(ctx);
  const valid = walk.valid;
  const size = Math.min(POPULATION, ctx.points.length);
  let population = shuffled(ctx.points, rnd).slice(0, size);
  for (let gen = 0; gen < generations && !walk.done; gen++) {
    walk.announce(population);
    const ranked: { p: TuningPoint; cost: number }[] = [];
    for (const p of population) {
      const cost = await walk.evaluate(p);
      if (cost === undefined) return;
      ranked.push({ p, cost });
    }
    ranked.sort((a, b) => a.cost - b.cost);
    const weights = ranked.map((_, i) => ranked.length - i);
    const total = weights.reduce((a, b) => a + b, 0);
    const pick = (): TuningPoint => {
      let r = rnd() * total;
      for (let i = 0; i < ranked.length; i++) if ((r -= weights[i]!) < 0) return ranked[i]!.p;
      return ranked[ranked.length - 1]!.p;
    };
    const next = new Map<string, TuningPoint>([[pointKey(ranked[0]!.p), ranked[0]!.p]]);
    let unseen: TuningPoint[] | undefined; // drawn only when crossover keeps failing
    const fresh = () => (unseen ??= shuffled([...valid].filter(([k, p]) => !walk.seen(p) && !next.has(k)).map(([, p]) => p), rnd)).pop();
    while (next.size < size) {
      let child: TuningPoint | undefined;
      for (let attempt = 0; attempt < 10 && child === undefined; attempt++) {
        const [a, b] = [pick(), pick()];
        const c: Record<string, number | string> = {};
        for (const n of walk.names) {
          const values = ctx.space[n]!;
          c[n] = rnd() < mutation ? values[Math.floor(rnd() * values.length)]! : rnd() < 0.5 ? a[n]! : b[n]!;
        }
        const key = pointKey(c);
        if (valid.has(key) && !next.has(key)) child = valid.get(key);
      }
      child ??= fresh();
      if (child === undefined) break;
      next.set(pointKey(child), child);
    }
    population = [...next.values()];
  }
}
