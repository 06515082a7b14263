/**
 * `autotune`: sweep a space of transformation choices, check every variant against the
 * untransformed kernel, time the correct ones, log every record, and return the fastest.
 */
import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { BackendUnavailableError, LoomError } from "../errors.js";
import { checkKernelArg, show, type Kernel } from "../ir/index.js";
import { backendAvailability } from "../run/native.js";
import { getBackend, type BackendName } from "../run/run.js";
import { appendRecord, loadLog, machineInfo } from "./log.js";
import { DEFAULT_REMEASURE, prepareVariant, timeVariant, type Build, type Outcome, type RemeasurePolicy, type VariantContext } from "./measure.js";
import { recordMetrics, sweepCost, type PeakRates } from "./metrics.js";
import { machinePeak } from "./peak.js";
import { Ahead } from "./precompile.js";
import { checkExecutor, openQueue, type QueueExecutor } from "./executor/index.js";
import { measuredOn } from "./executor/job.js";
import { checkRestrictions, checkSpace, enumeratePoints, pointKey, shown, testParams, type Restriction } from "./space.js";
import { getStrategy } from "./strategies.js";
import type { TuningPoint, TuningRecord } from "./types.js";

export interface AutotuneOptions {
  readonly space: Readonly<Record<string, readonly (number | string)[]>>;
  readonly build: Build;
  /** Values of the kernel's parameters for timing. */
  readonly params: Readonly<Record<string, number>>;
  /** Default "js". */
  readonly backend?: BackendName;
  /** Timed runs per variant after one warm-up; default 5. */
  readonly repeats?: number;
  /** A name of STRATEGY_NAMES: "exhaustive" (default), "random", "genetic", "bayes", "greedy_ils" or "simulated_annealing" (docs/tuning-strategies.md). */
  readonly strategy?: string;
  readonly budget?: { readonly variants?: number; readonly seconds?: number };
  readonly restrictions?: readonly Restriction[];
  /** A JSON-lines file: records are appended; an existing one resumes the sweep. */
  readonly log?: string;
  /** Seed of the random and genetic strategies; default 0. */
  readonly seed?: number;
  readonly onProgress?: (done: number, total: number, best?: TuningRecord) => void;
  readonly signal?: AbortSignal;
  readonly executor?: "local" | { readonly queue: { readonly connection: string; readonly name?: string } };
  /** Parameters of the correctness check; default each parameter min(value, 13), raised to the smallest value the kernel's assumptions allow. */
  readonly testParams?: Readonly<Record<string, number>>;
  /**
   * Variants built, checked and compiled ahead at once, in parallel, while the sweep times one
   * (c and openmp backends; see docs/tuning-measurement.md). Default `os.availableParallelism()`;
   * 0 prepares each variant only when it is measured. Records are the same either way.
   */
  readonly compileJobs?: number;
  /**
   * Another round of `repeats` timed runs while a round's spread, (max - min) / median, exceeds
   * `spread` (default 0.15), at most `rounds` rounds in all (default 3); `false`: one round.
   */
  readonly remeasure?: false | { readonly spread?: number; readonly rounds?: number };
  /**
   * The peak the records' `peakFraction` compares with: `true` measures it (`machinePeak`,
   * cached per machine), `false` gives no `peakFraction`, `{ gflops, gbps, gflops32? }` uses
   * these rates. Default: measured on the c and openmp backends, none on the others.
   */
  readonly peak?: boolean | PeakRates;
}

export interface AutotuneResult {
  readonly best: TuningRecord;
  readonly records: TuningRecord[];
  /** What the sweep noticed but forgave (a torn last line in the log, no cost model, no peak). */
  readonly warnings: string[];
  /** How many of the measured variants were built, checked and compiled ahead (`compileJobs`). */
  readonly compiledAhead: number;
}

/** No variant of a sweep was ok: `records` holds every record, with its status and error. */
export class TuningError extends LoomError {
  readonly records: TuningRecord[];
  constructor(message: string, records: TuningRecord[]) {
    super(message);
    this.records = records;
  }
}

function fail(what: string): never {
  throw new LoomError(`autotune: ${what}`);
}

function checkOptions(k: Kernel, o: AutotuneOptions) {
  if (o === null || typeof o !== "object") fail(`options must be an object { space, build, params, … }; got ${shown(o)}`);
  checkKernelArg(k, "autotune", (m) => new LoomError(m));
  const space = checkSpace(o.space);
  if (typeof o.build !== "function") fail(`build must be a function (kernel, point) => kernel or step; got ${shown(o.build)}`);
  const params = o.params ?? {};
  if (params === null || typeof params !== "object" || Array.isArray(params) || Object.values(params).some((v) => typeof v !== "number" || !Number.isFinite(v))) {
    fail(`params must be an object of numbers such as { n: 256 }; got ${shown(o.params)}`);
  }
  const backend = (o.backend ?? "js") as BackendName;
  getBackend(backend);
  if (backend === "c" || backend === "openmp" || backend === "opencl" || backend === "cuda") {
    const a = backendAvailability(backend);
    if (!a.available) throw new BackendUnavailableError(`autotune: backend "${backend}" is not available here: ${a.reason}`);
  }
  const queue = checkExecutor(o.executor, fail);
  const repeats = o.repeats ?? 5;
  if (!Number.isInteger(repeats) || repeats < 1) fail(`repeats must be a positive integer; got ${shown(o.repeats)}`);
  const budget = o.budget ?? {};
  if (budget === null || typeof budget !== "object") fail(`budget must be an object { variants?, seconds? }; got ${shown(o.budget)}`);
  if (budget.variants !== undefined && (!Number.isInteger(budget.variants) || budget.variants < 1)) fail(`budget.variants must be a positive integer; got ${shown(budget.variants)}`);
  if (budget.seconds !== undefined && !(typeof budget.seconds === "number" && budget.seconds > 0)) fail(`budget.seconds must be a positive number; got ${shown(budget.seconds)}`);
  const seed = o.seed ?? 0;
  if (!Number.isFinite(seed)) fail(`seed must be a number; got ${shown(o.seed)}`);
  if (o.onProgress !== undefined && typeof o.onProgress !== "function") fail(`onProgress must be a function; got ${shown(o.onProgress)}`);
  return {
    space, params, backend, repeats, budget, seed, queue, strategy: getStrategy(o.strategy ?? "exhaustive"), restrictions: checkRestrictions(o.restrictions),
    ...checkMeasurement(o, backend),
  };
}

/** The options of measurement: compile-ahead jobs, re-measurement, the peak. */
function checkMeasurement(o: AutotuneOptions, backend: BackendName) {
  const jobs = o.compileJobs ?? availableParallelism();
  if (!Number.isInteger(jobs) || jobs < 0) fail(`compileJobs must be a non-negative integer (0: no compiling ahead); got ${shown(o.compileJobs)}`);
  let remeasure: RemeasurePolicy | undefined = DEFAULT_REMEASURE;
  if (o.remeasure === false) remeasure = undefined;
  else if (o.remeasure !== undefined) {
    const r = o.remeasure as { spread?: unknown; rounds?: unknown };
    if (r === null || typeof r !== "object") fail(`remeasure must be false or an object { spread?, rounds? }; got ${shown(o.remeasure)}`);
    const spread = r.spread ?? DEFAULT_REMEASURE.spread;
    const rounds = r.rounds ?? DEFAULT_REMEASURE.rounds;
    if (typeof spread !== "number" || !(spread >= 0) || !Number.isFinite(spread)) fail(`remeasure.spread must be a non-negative number such as 0.15; got ${shown(r.spread)}`);
    if (!Number.isInteger(rounds) || (rounds as number) < 1) fail(`remeasure.rounds must be a positive integer (rounds in all); got ${shown(r.rounds)}`);
    remeasure = { spread, rounds: rounds as number };
  }
  const p = o.peak;
  const positive = (x: unknown) => typeof x === "number" && Number.isFinite(x) && x > 0;
  if (p !== undefined && typeof p !== "boolean" && !(p !== null && typeof p === "object" && positive(p.gflops) && positive(p.gbps) && (p.gflops32 === undefined || positive(p.gflops32)))) {
    fail(`peak must be true, false or { gflops, gbps, gflops32? } with positive numbers (GFLOP/s, GB/s); got ${shown(p)}`);
  }
  const peak: PeakRates | "measure" | undefined = p === undefined ? (backend === "c" || backend === "openmp" ? "measure" : undefined)
    : p === true ? "measure" : p === false ? undefined : p;
  const ahead = jobs > 0 && (backend === "c" || backend === "openmp") && (o.executor ?? "local") === "local" ? jobs : 0;
  return { ahead, remeasure, peak };
}

/** The peak rates of the sweep: given, measured (a failure is a warning), or none. */
async function peakRates(peak: PeakRates | "measure" | undefined, warnings: string[]): Promise<PeakRates | undefined> {
  if (peak !== "measure") return peak;
  try {
    const m = await machinePeak();
    warnings.push(...m.warnings);
    return m;
  } catch (e) {
    warnings.push(`no peakFraction: the machine peak could not be measured (${e instanceof Error ? e.message : String(e)})`);
    return undefined;
  }
}

/**
 * Sweep `opts.space`: for each point chosen by the strategy, `build(k, point)` gives a kernel or a
 * step; the variant is checked against `k` on small parameters, then timed. Resolves with the ok
 * record of the smallest median time and every record; rejects with a TuningError if none is ok.
 *
 *   const { best } = await lp.autotune(k, { space: { ti: [4, 8, 16] }, params: { n: 256 },
 *     build: (k, p) => lp.split("i", p.ti as number, { outerTag: "g.0", innerTag: "l.0" }) });
 */
export async function autotune(k: Kernel, opts: AutotuneOptions): Promise<AutotuneResult> {
  const o = checkOptions(k, opts);
  const points = enumeratePoints(o.space, o.restrictions);
  const hash = createHash("sha256").update(show(k)).digest("hex").slice(0, 16);
  const machine = machineInfo();
  const paramsKey = JSON.stringify(Object.entries(o.params).sort());
  const warnings: string[] = [];
  const reusable = new Map<string, TuningRecord>();
  let newlineFirst = false;
  if (opts.log !== undefined) {
    const log = loadLog(opts.log);
    if (log.torn) warnings.push(`tuning log ${opts.log}: ${log.torn}`);
    newlineFirst = log.needsNewline;
    for (const r of log.records) {
      if (r.kernel && r.kernel.hash !== hash) {
        fail(`the log ${opts.log} holds records of another kernel ("${r.kernel.name}", hash ${r.kernel.hash}; this one is "${k.name}", hash ${hash}); give another log file`);
      }
      // A queue's records come from its workers' machines.
      if (r.kernel && r.backend === o.backend && (o.queue !== undefined || r.machine?.id === machine.id) && JSON.stringify(Object.entries(r.params ?? {}).sort()) === paramsKey) {
        reusable.set(pointKey(r.point), r);
      }
    }
  }
  const ctx: VariantContext = {
    ref: k, build: opts.build, backend: o.backend, params: o.params, testParams: testParams(o.params, opts.testParams, k.assumptions), repeats: o.repeats, remeasure: o.remeasure, argCache: new Map(),
  };
  const { cost, warning } = sweepCost(k, o.params);
  if (warning) warnings.push(warning);
  // Before any compile starts: the microbenchmark wants every core.
  if (o.queue && o.peak === "measure" && opts.peak !== undefined) warnings.push("no peakFraction: the peak of the workers' machines is not measured by a queue sweep; give peak: { gflops, gbps }");
  const peak = points.length > 0 ? await peakRates(o.queue && o.peak === "measure" ? undefined : o.peak, warnings) : undefined;
  // Where this process measures (machine, compiler, device); a queue's records say where each worker did.
  const common = { backend: o.backend, params: o.params, kernel: { name: k.name, hash }, ...measuredOn(o.backend) };
  const total = Math.min(points.length, o.budget.variants ?? Infinity);
  const started = performance.now();
  let lastEnd = started;
  const records: TuningRecord[] = [];
  const done = new Map<string, TuningRecord>();
  let best: TuningRecord | undefined;
  const costOf = (r: TuningRecord) => (r.ok ? r.medianMs : Infinity);
  let evaluating = 0;
  const ahead = o.ahead > 0 ? new Ahead({
    prepare: (p) => prepareVariant(ctx, p), jobs: o.ahead,
    skip: (key) => done.has(key) || reusable.has(key), remaining: () => total - done.size - evaluating,
    stopped: () => opts.signal?.aborted === true,
  }) : undefined;
  const remote: QueueExecutor | undefined = o.queue && points.length > 0 ? await openQueue(o.queue, {
    ref: k, kernelHash: hash, build: opts.build, log: opts.log, signal: opts.signal, remaining: () => total - done.size,
    skip: (key) => done.has(key) || reusable.has(key), ...(o.budget.seconds !== undefined ? { deadline: started + o.budget.seconds * 1000 } : {}),
    job: { backend: o.backend, params: o.params, testParams: ctx.testParams, repeats: o.repeats, ...(o.remeasure ? { remeasure: o.remeasure } : {}) },
  }, (m) => new TuningError(`autotune: ${m}`, [])) : undefined;
  /** Build, check, then time (quietly: no compiler runs meanwhile); on a queue, by a worker (undefined: the sweep stopped first). */
  const measure = async (p: TuningPoint): Promise<(Outcome & { on?: object }) | undefined> => {
    if (remote) return remote.take(p);
    const v = ahead ? await ahead.take(p) : await prepareVariant(ctx, p);
    if (v.verdict) return v.verdict;
    await ahead?.quiet();
    try {
      return await timeVariant(ctx, v);
    } finally {
      ahead?.resume();
    }
  };

  const evaluate = async (p: TuningPoint): Promise<number | undefined> => {
    const key = pointKey(p);
    const seen = done.get(key);
    if (seen) return costOf(seen);
    if (done.size >= total || opts.signal?.aborted) return undefined;
    if (o.budget.seconds !== undefined && (performance.now() - started) / 1000 >= o.budget.seconds) return undefined;
    let r = reusable.get(key);
    if (!r) {
      // The sweep's own time for this record: the strategy's since the last record (and that
      // record's log line), then this record's metrics; not the variant's phases or waiting on them.
      const strategyMs = performance.now() - lastEnd;
      evaluating++;
      let outcome: (Outcome & { on?: object }) | undefined;
      try {
        outcome = await measure(p);
      } finally {
        evaluating--;
      }
      if (!outcome) return undefined;
      const t1 = performance.now();
      const { phaseMs, on, ...measured } = outcome;
      const ph = phaseMs ?? { build: 0, check: 0, benchmark: 0 };
      const round = (x: number) => Math.round(x * 1000) / 1000;
      const partial = { point: p, ...measured, ...recordMetrics(outcome, cost, peak), ...common, ...on };
      const frameworkMs = strategyMs + (performance.now() - t1);
      r = { ...partial, phases: { buildMs: round(ph.build), checkMs: round(ph.check), benchmarkMs: round(ph.benchmark), frameworkMs: round(frameworkMs) } };
      lastEnd = performance.now();
      if (opts.log !== undefined) {
        appendRecord(opts.log, r, newlineFirst);
        newlineFirst = false;
      }
    } else {
      lastEnd = performance.now();
    }
    done.set(key, r);
    records.push(r);
    if (r.ok && (!best || r.medianMs < best.medianMs)) best = r;
    opts.onProgress?.(records.length, total, best);
    return costOf(r);
  };
  if (points.length > 0) {
    try {
      await o.strategy({ space: o.space, points, seed: o.seed, evaluate, ...(o.budget.variants !== undefined ? { budget: total } : {}), ...(ahead ? { upcoming: (ps: readonly TuningPoint[]) => ahead.upcoming(ps) } : {}), ...(remote ? { upcoming: (ps: readonly TuningPoint[]) => remote.upcoming(ps) } : {}) });
    } finally {
      await ahead?.close();
      await remote?.close();
    }
  }
  if (!best) {
    const why = points.length === 0 ? "the restrictions exclude every point of the space"
      : records.length === 0 ? "the sweep stopped before any variant was measured"
      : `none of the ${records.length} variants was ok (${summary(records)})`;
    throw new TuningError(`autotune: no correct variant to report: ${why}; see this error's records`, records);
  }
  return { best, records, warnings, compiledAhead: ahead?.stats.taken ?? 0 };
}

function summary(records: readonly TuningRecord[]): string {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const first = records.find((r) => r.error)?.error;
  return `${[...counts].map(([s, n]) => `${n} ${s}`).join(", ")}${first ? `; first error: ${first.split("\n")[0]}` : ""}`;
}
