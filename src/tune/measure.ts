/**
 * One variant of a sweep: build it, check it against the untransformed kernel on small
 * parameters (`prepareVariant`, which a sweep may run ahead, see precompile.ts), then time it
 * (`timeVariant`: a warm-up, `repeats` runs, more rounds while the spread is large). Every outcome
 * is a record; nothing a variant does crashes the sweep.
 */
import { LoomError } from "../errors.js";
import { dtypeKind, type Kernel, type TypedArray } from "../ir/index.js";
import { allocStorage, layoutOf, writtenNames, type ArgValue } from "../run/args.js";
import { autoTestVsRef } from "../run/auto-test.js";
import { runTimed, type BackendName } from "../run/run.js";
import { toJSON, type Step } from "../../transforms/index.js";
import { seededRandom, shown } from "./space.js";
import type { TuningPoint, TuningRecord } from "./types.js";

export type Build = (k: Kernel, point: TuningPoint) => Kernel | Step;

export interface VariantContext {
  readonly ref: Kernel;
  readonly build: Build;
  readonly backend: BackendName;
  readonly params: Readonly<Record<string, number>>;
  readonly testParams: Readonly<Record<string, number>>;
  readonly repeats: number;
  /** When to measure another round (see `measureRounds`); undefined: never. */
  readonly remeasure?: RemeasurePolicy;
  /** The sweep's timing inputs, shared by its variants (see `timingArgs`). */
  readonly argCache?: Map<string, TypedArray>;
}

/** Measure another round of `repeats` runs while (max - min) / median exceeds `spread`, for at most `rounds` rounds in all. */
export interface RemeasurePolicy {
  readonly spread: number;
  readonly rounds: number;
}

/** The default: another round while the spread exceeds 15%, at most 3 rounds in all. */
export const DEFAULT_REMEASURE: RemeasurePolicy = { spread: 0.15, rounds: 3 };

/** The part of a record that depends on the variant (the sweep adds machine, version, …). */
export type Outcome = Pick<TuningRecord, "pipeline" | "ok" | "status" | "times" | "medianMs" | "minMs" | "spread" | "remeasured" | "error" | "mismatches"> & {
  /** Milliseconds spent building, checking and benchmarking this variant (the sweep adds its own time). */
  readonly phaseMs?: { readonly build: number; readonly check: number; readonly benchmark: number };
};

/**
 * A variant built and checked: the kernel to time, or `verdict`, the final outcome of a variant
 * that was refused (build threw or returned junk, the check threw) or differs from the reference.
 */
export type Prepared = (
  | { readonly pipeline: unknown; readonly kernel: Kernel; readonly verdict?: undefined }
  | { readonly pipeline?: unknown; readonly kernel?: undefined; readonly verdict: Outcome }
) & { readonly buildMs?: number; readonly checkMs?: number };

function isStepValue(x: unknown): x is Step {
  return typeof x === "function" && Array.isArray((x as { steps?: unknown }).steps);
}

function isKernelValue(x: unknown): x is Kernel {
  return x !== null && typeof x === "object" && Array.isArray((x as Kernel).domains) && Array.isArray((x as Kernel).instructions);
}

function refused(e: unknown, pipeline: unknown): Outcome {
  const loom = e instanceof LoomError;
  const message = e instanceof Error ? `${loom ? `${e.name}: ` : ""}${e.message}` : String(e);
  return { pipeline, ok: false, status: loom ? "invalid" : "failed", times: [], medianMs: NaN, error: message };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Inputs for timing `k` at `params`: every array argument allocated from its layout (an array
 * the kernel only writes and whose dtype is inferred is left to `run`); float elements are
 * seeded random in [-1, 1), integer elements 0 (safe as indices). With `cache` (one per sweep),
 * an array of the same name, dtype and size is made once and shared by the variants: filling
 * 64 MiB arrays costs more than timing a kernel on them, and `run` never changes its inputs
 * (the arrays a kernel writes are copied first).
 */
export function timingArgs(k: Kernel, params: Readonly<Record<string, number>>, cache?: Map<string, TypedArray>): Record<string, ArgValue> {
  const p = new Map(Object.entries(params));
  const written = writtenNames(k);
  const args: Record<string, ArgValue> = { ...params };
  for (const a of k.args) {
    if (a.kind !== "array") continue;
    const dtype = a.dtype ?? (written.has(a.name) ? undefined : "float64");
    const lay = layoutOf(a, p);
    if (!dtype || !lay) continue;
    const key = JSON.stringify([a.name, dtype, lay.size]);
    let arr = cache?.get(key);
    if (!arr) {
      arr = allocStorage(dtype, lay.size, `array "${a.name}"`);
      if (dtypeKind(dtype) === "float" && !(arr instanceof Uint16Array)) {
        // Seeded per array (by its name), so a cached array equals a fresh one.
        let seed = 1;
        for (const ch of a.name) seed = (Math.imul(seed, 31) + ch.charCodeAt(0)) | 0;
        const rnd = seededRandom(seed);
        const f = arr as Float32Array | Float64Array;
        for (let i = 0; i < f.length; i++) f[i] = rnd() * 2 - 1;
      }
      cache?.set(key, arr);
    }
    args[a.name] = arr;
  }
  return args;
}

/** (max - min) / median of `times` (0 for fewer than two times or a median of 0). `spreadOf([2, 4, 3]) === 2 / 3` */
export function spreadOf(times: readonly number[]): number {
  if (times.length < 2) return 0;
  const m = median(times);
  return m > 0 ? (Math.max(...times) - Math.min(...times)) / m : 0;
}

/** What `measureRounds` kept: one round of `repeats` times, its spread, and how many rounds it measured beyond the first. */
export interface Rounds {
  readonly times: number[];
  readonly spread: number;
  readonly remeasured: number;
}

/**
 * `repeats` calls of `once` (one timed run each, in ms), then, while the round's spread exceeds
 * `policy.spread` and fewer than `policy.rounds` rounds were measured, another round. Keeps one
 * round, so `times` always has `repeats` entries: the round of the smallest spread (the last one
 * whenever a re-measurement came out calm; ties go to the later round).
 *
 *   const { times, remeasured } = await measureRounds(async () => timeOneRun(), 5, { spread: 0.15, rounds: 3 });
 */
export async function measureRounds(once: () => Promise<number>, repeats: number, policy?: RemeasurePolicy): Promise<Rounds> {
  const rounds = Math.max(1, policy?.rounds ?? 1);
  let kept: { times: number[]; spread: number } | undefined;
  let n = 0;
  while (n < rounds) {
    const times: number[] = [];
    for (let r = 0; r < repeats; r++) times.push(await once());
    n++;
    const spread = spreadOf(times);
    if (!kept || spread <= kept.spread) kept = { times, spread };
    if (policy === undefined || spread <= policy.spread) break;
  }
  return { times: kept!.times, spread: kept!.spread, remeasured: n - 1 };
}

/**
 * Build the variant of `point` and check it against the reference on the test parameters (on c
 * and openmp this compiles the library the timed runs use).
 *
 *   const v = await prepareVariant(ctx, { ti: 8 });  // v.verdict: refused or wrong; else v.kernel
 */
export async function prepareVariant(ctx: VariantContext, point: TuningPoint): Promise<Prepared> {
  const t0 = performance.now();
  const built = buildVariant(ctx, point);
  const buildMs = performance.now() - t0;
  const phases = (checkMs: number) => ({ build: buildMs, check: checkMs, benchmark: 0 });
  if (built.verdict) return { ...built, verdict: { ...built.verdict, phaseMs: phases(0) }, buildMs, checkMs: 0 };
  const { pipeline, kernel } = built;
  const t1 = performance.now();
  try {
    const check = await autoTestVsRef(ctx.ref, kernel, { params: ctx.testParams, backend: ctx.backend });
    const checkMs = performance.now() - t1;
    if (check.ok) return { pipeline, kernel, buildMs, checkMs };
    const first = check.mismatches[0] ?? `largest relative error ${check.maxRelError}`;
    return {
      pipeline, buildMs, checkMs,
      verdict: {
        pipeline, ok: false, status: "wrong", times: [], medianMs: NaN, mismatches: check.mismatches,
        error: `differs from the untransformed kernel at ${JSON.stringify(ctx.testParams)}: ${first}`, phaseMs: phases(checkMs),
      },
    };
  } catch (e) {
    const checkMs = performance.now() - t1;
    return { pipeline, buildMs, checkMs, verdict: { ...refused(e, pipeline), phaseMs: phases(checkMs) } };
  }
}

/** Apply `build` (and its pipeline) to the reference: the kernel, or the verdict of a refused build. */
function buildVariant(ctx: VariantContext, point: TuningPoint): Prepared {
  let pipeline: unknown;
  try {
    const built: unknown = ctx.build(ctx.ref, point);
    if (isStepValue(built)) {
      pipeline = toJSON(built);
      return { pipeline, kernel: built(ctx.ref) };
    }
    if (isKernelValue(built)) return { pipeline, kernel: built };
    return { verdict: refused(new Error(`build returned ${shown(built)}; it must return a kernel or a step (lp.pipeline(…))`), undefined) };
  } catch (e) {
    return { pipeline, verdict: refused(e, pipeline) };
  }
}

/**
 * Time a checked variant at the timing parameters: a warm-up run (it loads the compiled code),
 * then `measureRounds`. `(await timeVariant(ctx, v)).times.length === ctx.repeats`
 */
export async function timeVariant(ctx: VariantContext, v: Prepared & { readonly kernel: Kernel }): Promise<Outcome> {
  const { pipeline, kernel } = v;
  const t0 = performance.now();
  const phaseMs = () => ({ build: v.buildMs ?? 0, check: v.checkMs ?? 0, benchmark: performance.now() - t0 });
  try {
    const args = timingArgs(kernel, ctx.params, ctx.argCache);
    const opts = { backend: ctx.backend };
    const once = async () => (await runTimed(kernel, args, opts)).kernelMs.reduce((a, b) => a + b, 0);
    await once(); // warm-up: compiles (unless the check did) and loads
    const { times, spread, remeasured } = await measureRounds(once, ctx.repeats, ctx.remeasure);
    return { pipeline, ok: true, status: "ok", times, medianMs: median(times), minMs: Math.min(...times), spread, remeasured, phaseMs: phaseMs() };
  } catch (e) {
    return { ...refused(e, pipeline), phaseMs: phaseMs() };
  }
}

/** Build, check and time one variant. `(await measureVariant(ctx, { ti: 8 })).status` */
export async function measureVariant(ctx: VariantContext, point: TuningPoint): Promise<Outcome> {
  const p = await prepareVariant(ctx, point);
  return p.verdict ?? timeVariant(ctx, p);
}
