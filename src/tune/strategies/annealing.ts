/** Simulated annealing after Kernel Tuner's `simulated_annealing`. */
import { pointKey, seededRandom } from "../space.js";
import type { TuningPoint } from "../types.js";
import { shuffled, Walk, type SearchContext } from "./common.js";

export const ANNEALING_DEFAULTS = {
  /** Starting and final temperature, in relative cost: at T a move 10% worse is taken with probability e^(-0.1/T). */
  start: 1,
  end: 0.001,
  /** The chance that a move may change one parameter to any value rather than to an adjacent one. */
  jump: 0.2,
  /** Moves in a row over seen points before a jump to a random unseen one. */
  stuck: 20,
} as const;

/**
 * Whether to move from cost `from` to cost `to` at temperature `t`: always onto a better point or
 * off an invalid one, never onto an invalid one, else with probability e^(-relative loss / t).
 */
function accept(from: number, to: number, t: number, rnd: () => number): boolean {
  if (!Number.isFinite(from)) return true;
  if (!Number.isFinite(to)) return false;
  if (to < from) return true;
  const loss = from === 0 ? to - from : (to - from) / Math.abs(from);
  return rnd() < Math.exp(-loss / t);
}

/**
 * A random neighbour of `p`: mostly one parameter moved to an adjacent value of its list, and
 * with chance `jump` one parameter set to any other value. Only valid points; undefined if none.
 */
function neighbour(walk: Walk, p: TuningPoint, rnd: () => number): TuningPoint | undefined {
  const all = walk.neighbours(p);
  if (rnd() >= ANNEALING_DEFAULTS.jump) {
    const at = walk.indices(p);
    const adjacent = all.filter((q) => walk.indices(q).reduce((d, v, i) => d + Math.abs(v - at[i]!), 0) === 1);
    if (adjacent.length > 0) return adjacent[Math.floor(rnd() * adjacent.length)];
  }
  return all.length > 0 ? all[Math.floor(rnd() * all.length)] : undefined;
}

/**
 * Simulated annealing: a walk from a random point that always takes a better neighbour and
 * sometimes a worse one, less often as the temperature falls geometrically from `start` to `end`
 * over the sweep's budget (or over the space when no budget is known), counted in distinct
 * points evaluated. A walk that only meets seen points for a while jumps to a random unseen one.
 */
export async function annealing(ctx: SearchContext): Promise<void> {
  const walk = new Walk(ctx);
  const rnd = seededRandom(ctx.seed);
  const { start, end, stuck } = ANNEALING_DEFAULTS;
  const span = Math.max(1, Math.min(ctx.budget ?? Infinity, ctx.points.length) - 1);
  const temperature = () => start * (end / start) ** Math.min(1, walk.costs.size / span);
  let cur: TuningPoint | undefined = shuffled(ctx.points, rnd)[0];
  let idle = 0;
  if (cur === undefined || !(await walk.evaluateAll([cur]))) return;
  while (!walk.done) {
    let next = neighbour(walk, cur, rnd);
    const restart = next === undefined || (walk.seen(next) && ++idle > stuck);
    if (restart) {
      const unseen = walk.unseen();
      next = unseen[Math.floor(rnd() * unseen.length)]!;
    }
    if (!walk.seen(next!)) {
      idle = 0;
      if (!(await walk.evaluateAll([next!]))) return;
    }
    const [from, to] = [walk.costs.get(pointKey(cur))!, walk.costs.get(pointKey(next!))!];
    if (restart || accept(from, to, temperature(), rnd)) cur = next!;
  }
}
