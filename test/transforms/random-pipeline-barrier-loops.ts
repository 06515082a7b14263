/**
 * The random-pipeline law's kernels of PoCL's uniform-loop class (codegen/lower/uniform-loops.ts):
 * a barrier inside a loop, and after it a loop whose trip count differs between work-items. A
 * sequential loop `s` runs, each time, work-item i (i on l.0) writing its cell of a local
 * temporary `t` and a reduction over `j` reading the cells of other work-items, `j` ranging over
 * a triangle or a band of i (zero trips for some work-items where drawn: `0 <= j < i`), in a full
 * or a partial work-group (`i < n`). Then the random legal moves of gen-kernels.ts act on the
 * other inames (splits, tags, prefetches, layouts…), a local prefetch inside the `j` loop
 * putting a barrier inside the varying loop itself.
 *
 * Every read is of a cell of an earlier (or the same) work-item, so the untagged kernel, run in
 * order, means the same: it is the law's reference.
 *
 *   fc.sample(genBarrierLoopCase, 1)[0].transformed   // i: l.0, a barrier in the s loop
 */
import fc from "fast-check";
import { generateCode } from "../../codegen/index.js";
import { hasBarrierLoop } from "../../codegen/lower/uniform-loops.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { schedule } from "../../src/schedule/index.js";
import { makeStepOf, pipeline, toJSON } from "../../transforms/pipeline.js";
import { buildPipeline, genMove, type Case, type KernelSource } from "./gen-kernels.js";

/**
 * The work-group size, the range of j against the local id i, what is read across work-items,
 * whether `i < n` leaves work-items idle, and whether a loop over the same range follows the
 * barrier loop, under its condition (`0 < m`), as in the case PoCL crashed on.
 */
export interface BarrierLoopShape {
  readonly size: number;
  readonly range: "0<=j<i" | "0<=j<=i" | "i-2<=j<=i and 0<=j";
  readonly read: "t[j]*b[j]" | "t[i-j] + b[j]";
  readonly partial: boolean;
  readonly after: boolean;
}

export const genBarrierLoopShape: fc.Arbitrary<BarrierLoopShape> = fc.record({
  size: fc.integer({ min: 2, max: 8 }),
  range: fc.constantFrom("0<=j<i", "0<=j<=i", "i-2<=j<=i and 0<=j"),
  read: fc.constantFrom("t[j]*b[j]", "t[i-j] + b[j]"),
  partial: fc.boolean(),
  after: fc.boolean(),
});

/** The kernel of `shape`, untagged (the law's reference), as the generator's other families are written. */
export function barrierLoopSource(shape: BarrierLoopShape): KernelSource {
  const L = shape.size;
  return {
    family: "barrierLoop",
    domains: [`{[s,i]: 0<=s<m and 0<=i<${L}${shape.partial ? " and i<n" : ""}}`, `[i] -> {[j]: ${shape.range}}`,
      ...(shape.after ? [`[i] -> {[q]: ${shape.range.replaceAll("j", "q")}}`] : [])],
    instructions: ["t[i] = 2*a[s,i] + s {id=w}", `out[s,i] = sum(j, ${shape.read}) {id=r, dep=w}`, ...(shape.after ? ["c[i,q] = 2*b[q] + q {id=f}"] : [])],
    args: [`a, out: float64[m,${L}]`, `b: float64[${L}]`, ...(shape.after ? [`c: float64[${L},${L}]`] : []), `m${shape.partial ? ", n" : ""}: int32`],
    params: { m: [0, 3], ...(shape.partial ? { n: [0, L] } : {}) },
  };
}

const kernelOf = (source: KernelSource, size: number): Kernel =>
  makeKernel([...source.domains], [...source.instructions], [temporary("t", "float64", [size], "local"), ...source.args], { name: source.family });

/** A kernel of the class with values for its parameters, i tagged l.0, then random legal moves (printed as JSON). */
export const genBarrierLoopCase: fc.Arbitrary<Case> = genBarrierLoopShape.chain((shape) => {
  const source = barrierLoopSource(shape);
  const params = fc.record(Object.fromEntries(Object.entries(source.params).map(([p, [lo, hi]]) => [p, fc.integer({ min: lo, max: hi })])));
  return fc.tuple(fc.constant({ shape, source }), params, fc.array(genMove, { minLength: 0, maxLength: 4 }));
}).map(([{ shape, source }, params, moves]) => {
  const kernel = kernelOf(source, shape.size);
  const local = makeStepOf("tagInames", { i: "l.0" });
  const { pipeline: rest, transformed } = buildPipeline(local(kernel), moves, { scheduled: true });
  const p = pipeline(local, rest);
  const c: Case = { source, kernel, ref: kernel, params: params as Record<string, number>, pipeline: p, json: toJSON(p), transformed };
  Object.defineProperty(c, fc.toStringMethod, {
    value: () => `{ kernel: ${JSON.stringify(source)}, t: float64[${shape.size}] local, params: ${JSON.stringify(params)}, pipeline: ${JSON.stringify(c.json)} }`,
  });
  return c;
});

/**
 * Whether `k` has the class's shape: a device kernel with a barrier inside a loop and a loop
 * whose bounds use a local id (CUDA keeps such bounds; OpenCL and cucl make them uniform).
 */
export function hasUniformLoopShape(k: Kernel): boolean {
  const varying = generateCode(k, "cuda").deviceCode.split("\n").some((l) => /^\s*for \(/.test(l) && l.includes("threadIdx"));
  return varying && schedule(k).deviceKernels.some((dk) => hasBarrierLoop(dk.body));
}
