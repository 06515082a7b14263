/**
 * Search strategies: each walks the space by asking the sweep to evaluate points. `evaluate`
 * returns the point's cost (its median time, Infinity when it is not ok) or undefined when the
 * sweep stops (budget, signal, every point seen). Evaluating a point twice costs nothing: the
 * sweep answers from its records.
 */
import { LoomError } from "../errors.js";
import { pointKey, seededRandom, shown, type Space } from "./space.js";
import type { TuningPoint } from "./types.js";

export interface SearchContext {
  readonly space: Space;
  /** Every point of the space that the restrictions allow, in lexicographic order. */
  readonly points: readonly TuningPoint[];
  readonly seed: number;
  evaluate(p: TuningPoint): Promise<number | undefined>;
  /**
   * A hint: the points the strategy will evaluate next, in order (a population, the rest of a
   * shuffled list). The sweep may build and compile them ahead, in parallel, while it times
   * others; it never changes what is evaluated. Strategies call it whenever they know.
   */
  upcoming?(points: readonly TuningPoint[]): void;
}

export type Strategy = (ctx: SearchContext) => Promise<void>;

export const STRATEGY_NAMES = ["exhaustive", "random", "genetic"] as const;

async function exhaustive(ctx: SearchContext): Promise<void> {
  for (const p of ctx.points) if ((await ctx.evaluate(p)) === undefined) return;
}

/** A seeded Fisher–Yates shuffle of a copy of `xs`. */
function shuffled<T>(xs: readonly T[], rnd: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function random(ctx: SearchContext): Promise<void> {
  for (const p of shuffled(ctx.points, seededRandom(ctx.seed))) if ((await ctx.evaluate(p)) === undefined) return;
}

/** Kernel Tuner's defaults: a population of 20, at most 100 generations, a 1-in-10 mutation chance per gene. */
const POPULATION = 20;
const GENERATIONS = 100;
const MUTATION = 0.1;

/**
 * A genetic search after Kernel Tuner's `genetic_algorithm`: a random first population; each
 * generation is evaluated and ranked by time; parents are drawn with weights falling linearly
 * with their rank; a child takes each parameter from either parent (uniform crossover), then each
 * parameter mutates with probability 1/10 to another value of its list. A child the restrictions
 * exclude, or already in the new population, is redrawn; after a few tries an unseen point
 * of the space is taken instead so the search keeps moving. The best individual survives (elitism).
 */
async function genetic(ctx: SearchContext): Promise<void> {
  const rnd = seededRandom(ctx.seed);
  const names = Object.keys(ctx.space);
  const valid = new Map(ctx.points.map((p) => [pointKey(p), p]));
  const seen = new Set<string>();
  const size = Math.min(POPULATION, ctx.points.length);
  let population = shuffled(ctx.points, rnd).slice(0, size);
  for (let gen = 0; gen < GENERATIONS && seen.size < valid.size; gen++) {
    const ranked: { p: TuningPoint; cost: number }[] = [];
    for (const p of population) {
      const cost = await ctx.evaluate(p);
      if (cost === undefined) return;
      seen.add(pointKey(p));
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
    const fresh = () => (unseen ??= shuffled([...valid].filter(([k]) => !seen.has(k) && !next.has(k)).map(([, p]) => p), rnd)).pop();
    while (next.size < size) {
      let child: TuningPoint | undefined;
      for (let attempt = 0; attempt < 10 && child === undefined; attempt++) {
        const [a, b] = [pick(), pick()];
        const c: Record<string, number | string> = {};
        for (const n of names) {
          const values = ctx.space[n]!;
          c[n] = rnd() < MUTATION ? values[Math.floor(rnd() * values.length)]! : rnd() < 0.5 ? a[n]! : b[n]!;
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

const STRATEGIES: Readonly<Record<(typeof STRATEGY_NAMES)[number], Strategy>> = { exhaustive, random, genetic };

export function getStrategy(name: unknown): Strategy {
  if (typeof name === "string" && (STRATEGY_NAMES as readonly string[]).includes(name)) return STRATEGIES[name as keyof typeof STRATEGIES];
  throw new LoomError(`autotune: unknown strategy ${shown(name)}; strategies are ${STRATEGY_NAMES.join(", ")}`);
}
