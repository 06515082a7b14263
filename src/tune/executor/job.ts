/**
 * One variant of a sweep as a job on a tuning queue, and what a worker does with it. A job is
 * JSON only: the untransformed kernel (`kernelToJSON`) and its hash, the point, the variant as a
 * pipeline (lp.toJSON's form) or as a kernel, the backend and what else the measurement depends
 * on. `readJob` checks every field (a `JobRefused` otherwise: never retried); `measureJob` then
 * checks the variant against the interpreter's run of the kernel and times it, exactly as a
 * local sweep does (measure.ts), and returns the outcome with where it was measured.
 */
import { createHash } from "node:crypto";
import { show, type Kernel } from "../../ir/index.js";
import { defaultCompiler } from "../../run/native-compile.js";
import { deviceOf } from "../../run/native.js";
import { getBackend, type BackendName } from "../../run/run.js";
import { fromJSON, type Step } from "../../../transforms/index.js";
import { loomVersion, machineInfo } from "../log.js";
import { measureVariant, type Outcome, type RemeasurePolicy } from "../measure.js";
import type { MachineInfo, TuningPoint } from "../types.js";
import { JobRefused, kernelFromJSON } from "./kernel-json.js";

/** The format of a job's data; a worker refuses any other. */
export const JOB_FORMAT = 1;

export interface VariantJob {
  readonly format: typeof JOB_FORMAT;
  /** The untransformed kernel (`kernelToJSON`) and the hash of its text (autotune's kernel hash). */
  readonly kernel: unknown;
  readonly kernelHash: string;
  readonly point: TuningPoint;
  /** The variant: a pipeline applied to the kernel, or (when build returned a kernel) the variant's kernel JSON. */
  readonly pipeline?: unknown;
  readonly variant?: unknown;
  readonly backend: BackendName;
  readonly params: Readonly<Record<string, number>>;
  readonly testParams: Readonly<Record<string, number>>;
  readonly repeats: number;
  readonly remeasure?: RemeasurePolicy;
}

/** Where a job was measured: the worker's machine, compiler (c, openmp) and Loom version. */
export interface MeasuredOn {
  readonly machine: MachineInfo;
  readonly compiler?: string;
  /** The GPU or OpenCL device of opencl and cuda (`deviceOf`): a worker on a GPU node names its GPU. */
  readonly device?: string;
  readonly loomVersion: string;
}

/** A worker's answer to a job (JSON: a NaN median travels as null). */
export interface JobResult {
  readonly outcome: Outcome;
  readonly on: MeasuredOn;
}

/** The hash of a kernel's text, as autotune's records carry it. */
export function kernelHash(k: Kernel): string {
  return createHash("sha256").update(show(k)).digest("hex").slice(0, 16);
}

function numbers(x: unknown, where: string): Record<string, number> {
  if (x === null || typeof x !== "object" || Array.isArray(x) || Object.values(x).some((v) => typeof v !== "number" || !Number.isFinite(v))) {
    throw new JobRefused(`${where} must be an object of numbers`);
  }
  return { ...(x as Record<string, number>) };
}

/** The reference kernels this worker has read, by hash (a sweep sends the same one with every job). */
const kernels = new Map<string, Kernel>();

/** What `readJob` gives: the job's parts, read and checked. */
export interface ReadJob {
  readonly job: VariantJob;
  readonly ref: Kernel;
  /** The variant as the build of a local sweep would return it. */
  readonly build: () => Kernel | Step;
}

/** Read a job's data; a `JobRefused` naming the field when it is not a job this worker can run. */
export function readJob(data: unknown): ReadJob {
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new JobRefused("the job's data must be an object");
  const j = data as Record<string, unknown>;
  if (j.format !== JOB_FORMAT) throw new JobRefused(`the job's format is ${JSON.stringify(j.format)}; this worker reads format ${JOB_FORMAT} (run loom worker of the coordinator's Loom version)`);
  if (typeof j.kernelHash !== "string") throw new JobRefused("job.kernelHash must be a string");
  let ref = kernels.get(j.kernelHash);
  if (!ref) {
    ref = kernelFromJSON(j.kernel, "job.kernel");
    const hash = kernelHash(ref);
    if (hash !== j.kernelHash) throw new JobRefused(`job.kernel does not read back as the kernel it names (hash ${hash}, the job says ${j.kernelHash})`);
    if (kernels.size > 16) kernels.clear();
    kernels.set(hash, ref);
  }
  const point = j.point;
  if (point === null || typeof point !== "object" || Array.isArray(point) || Object.values(point).some((v) => typeof v !== "string" && (typeof v !== "number" || !Number.isFinite(v)))) {
    throw new JobRefused("job.point must be an object of numbers and strings");
  }
  if (typeof j.backend !== "string") throw new JobRefused("job.backend must be a string");
  try {
    getBackend(j.backend as BackendName);
  } catch (e) {
    throw new JobRefused(`job.backend: ${(e as Error).message}`);
  }
  if (!Number.isInteger(j.repeats) || (j.repeats as number) < 1 || (j.repeats as number) > 10_000) throw new JobRefused("job.repeats must be a positive integer");
  let remeasure: RemeasurePolicy | undefined;
  if (j.remeasure !== undefined) {
    const r = j.remeasure as { spread?: unknown; rounds?: unknown };
    if (r === null || typeof r !== "object" || typeof r.spread !== "number" || !(r.spread >= 0) || !Number.isInteger(r.rounds) || (r.rounds as number) < 1 || (r.rounds as number) > 100) {
      throw new JobRefused("job.remeasure must be { spread: a non-negative number, rounds: a positive integer }");
    }
    remeasure = { spread: r.spread, rounds: r.rounds as number };
  }
  let build: () => Kernel | Step;
  if (j.pipeline !== undefined && j.variant !== undefined) throw new JobRefused("a job carries a pipeline or a variant kernel, not both");
  if (j.pipeline !== undefined) {
    let step: Step;
    try {
      step = fromJSON(j.pipeline);
    } catch (e) {
      throw new JobRefused(`job.pipeline does not parse: ${(e as Error).message}`);
    }
    build = () => step;
  } else if (j.variant !== undefined) {
    const v = kernelFromJSON(j.variant, "job.variant");
    build = () => v;
  } else throw new JobRefused("a job carries the variant: a pipeline or a variant kernel");
  const job: VariantJob = {
    format: JOB_FORMAT, kernel: j.kernel, kernelHash: j.kernelHash, point: { ...(point as TuningPoint) },
    ...(j.pipeline !== undefined ? { pipeline: j.pipeline } : { variant: j.variant }),
    backend: j.backend as BackendName, params: numbers(j.params, "job.params"), testParams: numbers(j.testParams, "job.testParams"),
    repeats: j.repeats as number, ...(remeasure ? { remeasure } : {}),
  };
  return { job, ref, build };
}

/** Where this process measures (`backend` decides whether a C compiler is part of it). */
export function measuredOn(backend: BackendName): MeasuredOn {
  const native = backend === "c" || backend === "openmp";
  const device = deviceOf(backend);
  return {
    machine: machineInfo(), ...(native ? { compiler: [defaultCompiler().cc, ...defaultCompiler().flags].join(" ") } : {}),
    ...(device ? { device } : {}), loomVersion: loomVersion(),
  };
}

/** Build, check against the untransformed kernel and time the variant of a job read by `readJob`. */
export async function measureJob(r: ReadJob): Promise<JobResult> {
  const { job, ref, build } = r;
  const outcome = await measureVariant({
    ref, build, backend: job.backend, params: job.params, testParams: job.testParams, repeats: job.repeats,
    ...(job.remeasure ? { remeasure: job.remeasure } : {}), argCache: argCache(job),
  }, job.point);
  return { outcome, on: measuredOn(job.backend) };
}

/** One cache of timing inputs per kernel and parameters (the jobs of one sweep share it, as a local sweep's variants do). */
let cache: { key: string; map: Map<string, import("../../ir/index.js").TypedArray> } | undefined;
function argCache(job: VariantJob) {
  const key = JSON.stringify([job.kernelHash, job.params]);
  if (cache?.key !== key) cache = { key, map: new Map() };
  return cache.map;
}

/** A result received from a worker, its NaN restored (JSON has none). */
export function readResult(x: unknown): JobResult {
  const r = x as JobResult;
  if (r === null || typeof r !== "object" || r.outcome === null || typeof r.outcome !== "object" || typeof r.on?.machine !== "object") {
    throw new JobRefused("a worker's result must be { outcome, on }");
  }
  const o = r.outcome as Outcome & { medianMs: number | null };
  return { outcome: { ...o, medianMs: typeof o.medianMs === "number" ? o.medianMs : NaN }, on: r.on };
}
