/**
 * What every strategy shares: the context a sweep hands it, a seeded shuffle, and a `Walk` that
 * evaluates each point at most once, remembers its cost, announces what comes next, and knows
 * the neighbours of a point (the points that differ from it in one parameter).
 */
import { pointKey, type Space } from "../space.js";
import type { TuningPoint } from "../types.js";

export interface SearchContext {
  readonly space: Space;
  /** Every point of the space that the restrictions allow, in lexicographic order. */
  readonly points: readonly TuningPoint[];
  readonly seed: number;
  /**
   * The most distinct points the sweep will evaluate, when it knows (its budget of variants).
   * Strategies that pace themselves (annealing's cooling) use it; none needs it to stop.
   */
  readonly budget?: number;
  evaluate(p: TuningPoint): Promise<number | undefined>;
  /**
   * A hint: the points the strategy will evaluate next, in order (a population, the rest of a
   * shuffled list). The sweep may build and compile them ahead, in parallel, while it times
   * others; it never changes what is evaluated. Strategies call it whenever they know.
   */
  upcoming?(points: readonly TuningPoint[]): void;
}

export type Strategy = (ctx: SearchContext) => Promise<void>;

/** A seeded Fisher–Yates shuffle of a copy of `xs`. */
export function shuffled<T>(xs: readonly T[], rnd: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * One search's view of the space: the valid points by key, the cost of each point it evaluated,
 * and whether the sweep has stopped. `evaluate` asks the sweep only about unseen points, so a
 * strategy built on a Walk evaluates each point at most once.
 */
export class Walk {
  readonly names: readonly string[];
  readonly valid: ReadonlyMap<string, TuningPoint>;
  readonly costs = new Map<string, number>();
  /** Whether the sweep answered undefined (budget, signal): the strategy must return. */
  stopped = false;
  private readonly index: ReadonlyMap<string, ReadonlyMap<number | string, number>>;

  constructor(readonly ctx: SearchContext) {
    this.names = Object.keys(ctx.space);
    this.valid = new Map(ctx.points.map((p) => [pointKey(p), p]));
    this.index = new Map(this.names.map((n) => [n, new Map(ctx.space[n]!.map((v, i) => [v, i]))]));
  }

  /** Whether every valid point has a cost, or the sweep stopped. */
  get done(): boolean {
    return this.stopped || this.costs.size >= this.valid.size;
  }

  seen(p: TuningPoint): boolean {
    return this.costs.has(pointKey(p));
  }

  /** The valid points without a cost yet, in lexicographic order. */
  unseen(): TuningPoint[] {
    return this.ctx.points.filter((p) => !this.seen(p));
  }

  /** Tell the sweep which points come next: the unseen ones of `points`, once each, in order. */
  announce(points: readonly TuningPoint[]): void {
    if (!this.ctx.upcoming) return;
    const keys = new Set<string>();
    const fresh = points.filter((p) => {
      const k = pointKey(p);
      if (this.costs.has(k) || keys.has(k)) return false;
      keys.add(k);
      return true;
    });
    if (fresh.length > 0) this.ctx.upcoming(fresh);
  }

  /** The cost of `p`: remembered if seen, else asked of the sweep; undefined once the sweep stops. */
  async evaluate(p: TuningPoint): Promise<number | undefined> {
    const key = pointKey(p);
    const known = this.costs.get(key);
    if (known !== undefined) return known;
    if (this.stopped) return undefined;
    const cost = await this.ctx.evaluate(p);
    if (cost === undefined) {
      this.stopped = true;
      return undefined;
    }
    this.costs.set(key, cost);
    return cost;
  }

  /** Announce `points`, then evaluate them in order; false when the sweep stopped on the way. */
  async evaluateAll(points: readonly TuningPoint[]): Promise<boolean> {
    this.announce(points);
    for (const p of points) if ((await this.evaluate(p)) === undefined) return false;
    return true;
  }

  /** The index of each parameter's value in its list: the point's position on the grid. */
  indices(p: TuningPoint): number[] {
    return this.names.map((n) => this.index.get(n)!.get(p[n]!)!);
  }

  /** The valid points that differ from `p` in exactly one parameter (Hamming distance 1). */
  neighbours(p: TuningPoint): TuningPoint[] {
    const out: TuningPoint[] = [];
    for (const n of this.names) {
      for (const v of this.ctx.space[n]!) {
        if (v === p[n]) continue;
        const q = this.valid.get(pointKey({ ...p, [n]: v }));
        if (q) out.push(q);
      }
    }
    return out;
  }

  /** The seen point of smallest cost, if any. */
  best(): { p: TuningPoint; cost: number } | undefined {
    let best: { p: TuningPoint; cost: number } | undefined;
    for (const [k, cost] of this.costs) if (!best || cost < best.cost) best = { p: this.valid.get(k)!, cost };
    return best;
  }
}
