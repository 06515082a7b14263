/**
 * One variant of a sweep: build it, check it against the untransformed kernel on small
 * parameters, then time it. Every outcome is a record; nothing a variant does crashes the sweep.
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
}

/** The part of a record that depends on the variant (the sweep adds machine, version, …). */
export type Outcome = Pick<TuningRecord, "pipeline" | "ok" | "status" | "times" | "medianMs" | "minMs" | "error" | "mismatches">;

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
 * seeded random in [-1, 1), integer elements 0 (safe as indices).
 */
export function timingArgs(k: Kernel, params: Readonly<Record<string, number>>): Record<string, ArgValue> {
  const p = new Map(Object.entries(params));
  const written = writtenNames(k);
  const args: Record<string, ArgValue> = { ...params };
  const rnd = seededRandom(1);
  for (const a of k.args) {
    if (a.kind !== "array") continue;
    const dtype = a.dtype ?? (written.has(a.name) ? undefined : "float64");
    const lay = layoutOf(a, p);
    if (!dtype || !lay) continue;
    const arr: TypedArray = allocStorage(dtype, lay.size, `array "${a.name}"`);
    if (dtypeKind(dtype) === "float" && !(arr instanceof Uint16Array)) {
      const f = arr as Float32Array | Float64Array;
      for (let i = 0; i < f.length; i++) f[i] = rnd() * 2 - 1;
    }
    args[a.name] = arr;
  }
  return args;
}

/** Build, check and time one variant. */
export async function measureVariant(ctx: VariantContext, point: TuningPoint): Promise<Outcome> {
  let pipeline: unknown;
  let kernel: Kernel;
  try {
    const built: unknown = ctx.build(ctx.ref, point);
    if (isStepValue(built)) {
      pipeline = toJSON(built);
      kernel = built(ctx.ref);
    } else if (isKernelValue(built)) {
      kernel = built;
    } else {
      return refused(new Error(`build returned ${shown(built)}; it must return a kernel or a step (lp.pipeline(…))`), undefined);
    }
  } catch (e) {
    return refused(e, pipeline);
  }
  try {
    const check = await autoTestVsRef(ctx.ref, kernel, { params: ctx.testParams, backend: ctx.backend });
    if (!check.ok) {
      const first = check.mismatches[0] ?? `largest relative error ${check.maxRelError}`;
      return {
        pipeline, ok: false, status: "wrong", times: [], medianMs: NaN, mismatches: check.mismatches,
        error: `differs from the untransformed kernel at ${JSON.stringify(ctx.testParams)}: ${first}`,
      };
    }
    const args = timingArgs(kernel, ctx.params);
    const opts = { backend: ctx.backend };
    await runTimed(kernel, args, opts); // warm-up: compiles and loads
    const times: number[] = [];
    for (let r = 0; r < ctx.repeats; r++) {
      const { kernelMs } = await runTimed(kernel, args, opts);
      times.push(kernelMs.reduce((a, b) => a + b, 0));
    }
    return { pipeline, ok: true, status: "ok", times, medianMs: median(times), minMs: Math.min(...times) };
  } catch (e) {
    return refused(e, pipeline);
  }
}
