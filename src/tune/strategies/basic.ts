/** The two strategies that do not learn: every point in order, and every point in a seeded random order. */
import { seededRandom } from "../space.js";
import { shuffled, Walk, type SearchContext } from "./common.js";

/** Every allowed point in lexicographic order (the first parameter varies slowest). */
export async function exhaustive(ctx: SearchContext): Promise<void> {
  await new Walk(ctx).evaluateAll(ctx.points);
}

/** Every allowed point in a seeded random order: under a budget, a uniform sample without repeats. */
export async function random(ctx: SearchContext): Promise<void> {
  await new Walk(ctx).evaluateAll(shuffled(ctx.points, seededRandom(ctx.seed)));
}
