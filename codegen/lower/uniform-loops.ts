/**
 * Uniform loop bounds (OpenCL on PoCL): a sequential loop inside a work-item whose bounds depend on
 * the local ids, in a device kernel with a barrier inside a loop, is written as a loop over bounds every
 * work-item of the group shares, its body guarded by the bounds that vary:
 *
 *   for (int j = 0; j <= min(p - 2 * lid(0) - 1, 1); ++j) c[j] = acc[j];
 *     becomes
 *   for (int j = 0; j <= 1; ++j) if (j <= p - 2 * lid(0) - 1) c[j] = acc[j];
 *
 * The same iterations run with the same values of `j` (the guard is exactly the varying bounds),
 * so the rewrite is equivalent. Why: PoCL 3.1's work-group function generation miscompiles a loop
 * whose trip count is zero for some work-items and not others when it follows a loop around a
 * barrier under the same condition (`for (k < m) barrier; if (0 < m) for (j < 1 - lid(0))`): the
 * launch segfaults (or hangs with POCL_WORK_GROUP_METHOD=loopvec). The uniform loop is what PoCL
 * runs correctly (see test/native/opencl-uniform-loops.test.ts).
 */
import { dimBounds, eliminateExact, factorOf, intersect, type BasicSet, type Bound } from "../../src/poly/index.js";
import type { ScheduleNode } from "../../src/schedule/index.js";
import { LoopContext, type Ctx } from "./context.js";

/**
 * Whether a barrier is scheduled inside a loop under `nodes` (PoCL runs a barrier outside loops
 * with a varying loop after it correctly; only a loop around a barrier needs the rewrite).
 */
export function hasBarrierLoop(nodes: readonly ScheduleNode[], inLoop = false): boolean {
  return nodes.some((n) => (n.kind === "barrier" && inLoop) || (n.kind === "loop" && hasBarrierLoop(n.body, true)));
}

/** A loop's bounds split into uniform ones (the loop's) and varying ones (the guard's). */
export interface UniformSplit {
  readonly lower: readonly Bound[];
  readonly upper: readonly Bound[];
  readonly guardLower: readonly Bound[];
  readonly guardUpper: readonly Bound[];
}

function mentions(b: Bound, varying: (name: string) => boolean): boolean {
  const t = b.aff.terms;
  for (const n in t) if (t[n] !== 0 && varying(n)) return true;
  return false;
}

/**
 * `lower`/`upper` of `iname` split by whether a bound mentions a varying iname; undefined where
 * none does (the loop is uniform already). A side with only varying bounds takes its uniform
 * bounds from `whole` (the iname's domain) within `ctx` with the varying inames projected out;
 * undefined where that leaves the side unbounded (the loop stays as it was).
 */
export function uniformSplit(
  iname: string, lower: readonly Bound[], upper: readonly Bound[], varying: (name: string) => boolean,
  outer: readonly string[], whole: BasicSet | undefined, ctx: Ctx,
): UniformSplit | undefined {
  // Most loops of a kernel with a barrier loop have no varying bound: asked first, once per bound.
  if (!lower.some((b) => mentions(b, varying)) && !upper.some((b) => mentions(b, varying))) return undefined;
  const guardLower = lower.filter((b) => mentions(b, varying));
  const guardUpper = upper.filter((b) => mentions(b, varying));
  let uLower = lower.filter((b) => !mentions(b, varying));
  let uUpper = upper.filter((b) => !mentions(b, varying));
  if (uLower.length === 0 || uUpper.length === 0) {
    if (!whole) return undefined;
    // Only the context's factors over the domain's inames can bound them (smaller, and repeated
    // across a sweep where the whole context is new). A loop's context is asked for its set only
    // here, where a side is all varying (most loops are not split so).
    const s = intersect(whole, ctx instanceof LoopContext ? ctx.factorOf(whole.dims) : factorOf(ctx, whole.dims));
    const drop = s.dims.filter((n) => n !== iname && varying(n));
    const p = drop.length > 0 ? eliminateExact(s, drop).set : s;
    const b = dimBounds(p, iname, outer.filter((n) => p.dims.includes(n) && !varying(n)));
    if (uLower.length === 0) uLower = b.lower.filter((x) => !mentions(x, varying));
    if (uUpper.length === 0) uUpper = b.upper.filter((x) => !mentions(x, varying));
    if (uLower.length === 0 || uUpper.length === 0) return undefined;
  }
  return { lower: uLower, upper: uUpper, guardLower, guardUpper };
}
