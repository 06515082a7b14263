/**
 * Bayesian optimisation after Kernel Tuner's `bayes_opt` (Willemsen's thesis): a Gaussian process
 * over the parameters' value indices scaled to [0,1], fitted to the logarithm of the cost, picks the
 * unseen point of largest expected improvement.
 */
import { seededRandom } from "../space.js";
import type { TuningPoint } from "../types.js";
import { shuffled, Walk, type SearchContext } from "./common.js";
import { expectedImprovement, GaussianProcess } from "./gp.js";

export const BAYES_DEFAULTS = {
  /** The first sample: at least this many points, or twice the number of varying parameters. */
  initial: 5,
  /** Points chosen per model fit (announced together, so the sweep can compile them in parallel). */
  batch: 4,
  /** Expected improvement's margin, in standard deviations of the observed log costs. */
  xi: 0.01,
  /** The model keeps at most this many observations (the cheapest), which bounds a fit's cost. */
  maxObservations: 100,
  /** Length scale and noise are chosen again when the points seen have grown by this factor since the last choice. */
  refit: 1.25,
  /** Candidates drawn per point of the initial sample, of which the farthest from the others is taken. */
  spread: 20,
} as const;

/** The point's coordinates: each varying parameter's value index divided by (its number of values - 1). */
function coordinates(walk: Walk): (p: TuningPoint) => Float64Array {
  const sizes = walk.names.map((n) => walk.ctx.space[n]!.length);
  const varying = sizes.map((s, i) => (s > 1 ? i : -1)).filter((i) => i >= 0);
  return (p) => {
    const idx = walk.indices(p);
    return Float64Array.from(varying, (i) => idx[i]! / (sizes[i]! - 1));
  };
}

function squaredDistance(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return s;
}

/**
 * A spread-out first sample (a cheap stand-in for Kernel Tuner's maximin Latin hypercube): the
 * first point at random, then each next one the farthest from those taken among `spread` random
 * unseen candidates.
 */
function initialSample(points: readonly TuningPoint[], count: number, at: (p: TuningPoint) => Float64Array, rnd: () => number): TuningPoint[] {
  const pool = shuffled(points, rnd);
  const taken: TuningPoint[] = [pool.pop()!];
  while (taken.length < count && pool.length > 0) {
    let bestI = pool.length - 1;
    let bestD = -1;
    for (let c = 0; c < BAYES_DEFAULTS.spread && c < pool.length; c++) {
      const i = pool.length - 1 - c;
      const d = Math.min(...taken.map((t) => squaredDistance(at(t), at(pool[i]!))));
      if (d > bestD) [bestI, bestD] = [i, d];
    }
    taken.push(pool.splice(bestI, 1)[0]!);
  }
  return taken;
}

/**
 * The observations the model is fitted to: log costs, standardised. A point that was not ok
 * (cost Infinity) counts as the worst ok cost seen, so the model learns to stay away from an
 * invalid region instead of ignoring it. Undefined while fewer than two points are ok.
 */
function observations(walk: Walk, at: (p: TuningPoint) => Float64Array): { x: Float64Array[]; y: number[] } | undefined {
  const seen = [...walk.costs].map(([k, cost]) => ({ p: walk.valid.get(k)!, cost }));
  const ok = seen.filter((s) => Number.isFinite(s.cost)).map((s) => s.cost);
  if (ok.length < 2) return undefined;
  // Times are positive and vary by factors: their logarithm is smoother. Other costs stay as they are.
  const f = Math.min(...ok) > 0 ? Math.log : (c: number) => c;
  const worst = f(Math.max(...ok));
  const kept = seen.map((s) => ({ p: s.p, y: Number.isFinite(s.cost) ? f(s.cost) : worst }))
    .sort((a, b) => a.y - b.y).slice(0, BAYES_DEFAULTS.maxObservations);
  const mean = kept.reduce((a, s) => a + s.y, 0) / kept.length;
  const sd = Math.sqrt(kept.reduce((a, s) => a + (s.y - mean) ** 2, 0) / kept.length) || 1;
  return { x: kept.map((s) => at(s.p)), y: kept.map((s) => (s.y - mean) / sd) };
}

/**
 * The next batch: the unseen point of largest expected improvement, then (kriging believer) the
 * model pretends it saw its predicted mean there, which leaves the mean unchanged and shrinks the
 * variance around it, and picks again.
 */
function nextBatch(model: GaussianProcess, y: readonly number[], unseen: readonly TuningPoint[], at: (p: TuningPoint) => Float64Array, rnd: () => number): TuningPoint[] {
  const post = model.predict(unseen.map(at));
  const best = Math.min(...y);
  const variance = Float64Array.from(post.variance);
  const updates: Float64Array[] = [];
  const chosen: number[] = [];
  const { batch, xi } = BAYES_DEFAULTS;
  while (chosen.length < Math.min(batch, unseen.length)) {
    let pick = -1;
    let top = 0;
    for (let c = 0; c < unseen.length; c++) {
      if (chosen.includes(c)) continue;
      const ei = expectedImprovement(post.mean[c]!, Math.sqrt(Math.max(variance[c]!, 0)), best, xi);
      if (ei > top) [pick, top] = [c, ei];
    }
    if (pick < 0) { // no improvement expected anywhere: explore at random
      const rest = unseen.map((_, c) => c).filter((c) => !chosen.includes(c));
      pick = rest[Math.floor(rnd() * rest.length)]!;
    }
    const u = new Float64Array(unseen.length);
    const scale = Math.sqrt(Math.max(variance[pick]!, 0) + post.noise);
    for (let c = 0; c < unseen.length; c++) {
      let cov = post.covariance(c, pick);
      for (const w of updates) cov -= w[c]! * w[pick]!;
      u[c] = cov / scale;
      variance[c] = variance[c]! - u[c]! * u[c]!;
    }
    updates.push(u);
    chosen.push(pick);
  }
  return chosen.map((c) => unseen[c]!);
}

/**
 * Bayesian optimisation: a spread-out initial sample, then batches of points of largest expected
 * improvement under a Matérn 5/2 Gaussian process, refitted after each batch (its length scale
 * and noise chosen by marginal likelihood whenever the points seen have grown by a quarter).
 * Random points are taken while fewer than two are ok.
 */
export async function bayes(ctx: SearchContext): Promise<void> {
  if (ctx.points.length === 0) return;
  const walk = new Walk(ctx);
  const rnd = seededRandom(ctx.seed);
  const at = coordinates(walk);
  const cache = new Map<TuningPoint, Float64Array>();
  const coords = (p: TuningPoint) => cache.get(p) ?? cache.set(p, at(p)).get(p)!;
  const varying = at(ctx.points[0]!).length;
  const first = initialSample(ctx.points, Math.min(ctx.points.length, Math.max(BAYES_DEFAULTS.initial, 2 * varying)), coords, rnd);
  if (!(await walk.evaluateAll(first))) return;
  let chosen: { lengthScale: number; noise: number; at: number } | undefined;
  const fit = (x: Float64Array[], y: number[]): GaussianProcess => {
    const again = chosen === undefined || walk.costs.size >= BAYES_DEFAULTS.refit * chosen.at;
    const model = GaussianProcess.fit(x, y, again ? undefined : chosen);
    if (again) chosen = { lengthScale: model.lengthScale, noise: model.noise, at: walk.costs.size };
    return model;
  };
  while (!walk.done) {
    const unseen = walk.unseen();
    const obs = observations(walk, coords);
    const batch = obs === undefined || varying === 0
      ? shuffled(unseen, rnd).slice(0, BAYES_DEFAULTS.batch)
      : nextBatch(fit(obs.x, obs.y), obs.y, unseen, coords, rnd);
    if (!(await walk.evaluateAll(batch))) return;
  }
}
