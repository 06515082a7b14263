/** Greedy iterated local search after Kernel Tuner's `greedy_ils`. */
import { pointKey, seededRandom } from "../space.js";
import type { TuningPoint } from "../types.js";
import { shuffled, Walk, type SearchContext } from "./common.js";

export const GREEDY_ILS_DEFAULTS = {
  /** Neighbours evaluated together (announced together, so the sweep can compile them in parallel). */
  batch: 4,
  /** The share of the varying parameters a perturbation changes (at least one). */
  perturbation: 0.3,
  /** Climbs in a row that do not improve the best point before a restart from a random point. */
  restartAfter: 3,
  /** Random points evaluated first (per parameter; at least 4): the first climb starts at the best of them. */
  samplePerParameter: 2,
} as const;

/**
 * One climb from `start` (seen): move to a better neighbour (differing in one parameter) as long
 * as there is one. Neighbours already seen cost nothing and are checked first; unseen ones are
 * evaluated in a random order, a batch at a time, and the climb moves to the best of the first
 * batch that improves. Resolves with the local minimum, or undefined when the sweep stopped.
 */
async function climb(walk: Walk, start: TuningPoint, rnd: () => number): Promise<TuningPoint | undefined> {
  let cur = start;
  let cost = walk.costs.get(pointKey(cur))!;
  for (;;) {
    const around = walk.neighbours(cur);
    let next: TuningPoint | undefined;
    for (const q of around) {
      const c = walk.costs.get(pointKey(q));
      if (c !== undefined && c < cost) [next, cost] = [q, c];
    }
    if (next === undefined) {
      const fresh = shuffled(around.filter((q) => !walk.seen(q)), rnd);
      for (let i = 0; i < fresh.length && next === undefined; i += GREEDY_ILS_DEFAULTS.batch) {
        const chunk = fresh.slice(i, i + GREEDY_ILS_DEFAULTS.batch);
        if (!(await walk.evaluateAll(chunk))) return undefined;
        for (const q of chunk) {
          const c = walk.costs.get(pointKey(q))!;
          if (c < cost) [next, cost] = [q, c];
        }
      }
    }
    if (next === undefined) return cur;
    cur = next;
  }
}

/**
 * An unseen point that differs from `p` in a few parameters (the perturbation's share of the
 * varying ones), or a random unseen point when twenty tries find none.
 */
function perturb(walk: Walk, p: TuningPoint, rnd: () => number): TuningPoint | undefined {
  const varying = walk.names.filter((n) => walk.ctx.space[n]!.length > 1);
  const changes = Math.max(1, Math.round(GREEDY_ILS_DEFAULTS.perturbation * varying.length));
  for (let attempt = 0; attempt < 20 && varying.length > 0; attempt++) {
    const q: Record<string, number | string> = { ...p };
    for (const n of shuffled(varying, rnd).slice(0, changes)) {
      const others = walk.ctx.space[n]!.filter((v) => v !== p[n]);
      q[n] = others[Math.floor(rnd() * others.length)]!;
    }
    const found = walk.valid.get(pointKey(q));
    if (found && !walk.seen(found)) return found;
  }
  const unseen = walk.unseen();
  return unseen[Math.floor(rnd() * unseen.length)];
}

/**
 * Greedy iterated local search: climb from the best of a small random sample to a local minimum (first improvement
 * over the points differing in one parameter), perturb the best minimum found in a few
 * parameters and climb again; after a few climbs that find nothing better, restart from a random
 * point. Every start is an unseen point, so each round evaluates something new.
 */
export async function greedyIls(ctx: SearchContext): Promise<void> {
  const walk = new Walk(ctx);
  const rnd = seededRandom(ctx.seed);
  // The first climb starts at the best of a small random sample: one random start lands on a
  // plateau of slow variants too often, and the sample is evaluated as one batch (compiled ahead).
  const sampleSize = Math.max(4, GREEDY_ILS_DEFAULTS.samplePerParameter * walk.names.length);
  const sample = shuffled(ctx.points, rnd).slice(0, sampleSize);
  if (sample.length === 0 || !(await walk.evaluateAll(sample))) return;
  let start: TuningPoint | undefined = sample.reduce((a, b) => (walk.costs.get(pointKey(b))! < walk.costs.get(pointKey(a))! ? b : a));
  let best: { p: TuningPoint; cost: number } | undefined;
  let fruitless = 0;
  while (start !== undefined && !walk.done) {
    if (!(await walk.evaluateAll([start]))) return;
    const end = await climb(walk, start, rnd);
    if (end === undefined) return;
    const cost = walk.costs.get(pointKey(end))!;
    if (!best || cost < best.cost) [best, fruitless] = [{ p: end, cost }, 0];
    else fruitless++;
    if (fruitless >= GREEDY_ILS_DEFAULTS.restartAfter) {
      fruitless = 0;
      const unseen = walk.unseen();
      start = unseen[Math.floor(rnd() * unseen.length)];
    } else start = perturb(walk, best.p, rnd);
  }
}
