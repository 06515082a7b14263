/**
 * The sweep of `loom tune`, in a worker thread. A variant on the js backend runs without ever
 * yielding to the event loop, so a SIGINT handler on the thread doing the sweep would not run
 * until the sweep ends; the main thread stays free instead, and sets a shared flag that this
 * thread reads after each variant (autotune's onProgress) to abort the sweep.
 */
import { parentPort, workerData } from "node:worker_threads";
import * as lp from "../index.js";
import { checkSpec, readSpec } from "./tune-spec.js";

export interface TuneJob {
  readonly spec: string;
  /** Options of the command line that replace the spec's. */
  readonly overrides: Readonly<Record<string, unknown>>;
  readonly log?: string;
  /** Int32Array over a SharedArrayBuffer: [0] is 1 once the sweep should stop. */
  readonly stop: SharedArrayBuffer;
  readonly tsxApi?: string;
  /** The worker module's URL (the bootstrap imports it). */
  readonly module: string;
}

/** What the worker tells the main thread. */
export type TuneMessage =
  | { kind: "start"; kernel: string; log: string; backend: string; strategy: string; space: Record<string, unknown> }
  | { kind: "progress"; done: number; total: number; fresh: boolean; best?: lp.TuningRecord }
  | { kind: "done"; best: lp.TuningRecord; records: lp.TuningRecord[]; warnings: string[]; stopped: boolean }
  | { kind: "error"; message: string; user: boolean; records?: lp.TuningRecord[]; stopped: boolean };

async function sweep(job: TuneJob, post: (m: TuneMessage) => void): Promise<void> {
  const stop = new Int32Array(job.stop);
  const controller = new AbortController();
  const stopped = () => Atomics.load(stop, 0) !== 0;
  try {
    const raw = await readSpec(job.spec, job.tsxApi);
    const budget = job.overrides.budget as object | undefined;
    const merged = { ...raw, ...job.overrides, ...(budget ? { budget: { ...(raw.budget as object | undefined), ...budget } } : {}) };
    const spec = checkSpec(merged, job.spec);
    const log = job.log ?? spec.log;
    if (stopped()) {
      post({ kind: "error", message: "stopped before the first variant; nothing was measured", user: true, stopped: true });
      return;
    }
    let built = 0;
    let lastBuilt = 0;
    const build: lp.AutotuneOptions["build"] = (k, p) => {
      built++;
      return spec.options.build(k, p);
    };
    post({
      kind: "start", kernel: spec.kernel.name, log, backend: String(spec.options.backend ?? "js"),
      strategy: String(spec.options.strategy ?? "exhaustive"), space: { ...spec.options.space },
    });
    const result = await lp.autotune(spec.kernel, {
      ...spec.options, build, log, signal: controller.signal,
      onProgress: (done, total, best) => {
        if (stopped()) controller.abort();
        post({ kind: "progress", done, total, fresh: built > lastBuilt, ...(best ? { best } : {}) });
        lastBuilt = built;
      },
    });
    post({ kind: "done", best: result.best, records: result.records, warnings: result.warnings, stopped: stopped() });
  } catch (e) {
    const records = e instanceof lp.TuningError ? e.records : undefined;
    post({
      kind: "error", message: e instanceof Error ? (e instanceof lp.LoomError ? e.message : `${e.name}: ${e.message}\n${e.stack ?? ""}`) : String(e),
      user: e instanceof lp.LoomError, stopped: stopped(), ...(records ? { records } : {}),
    });
  }
}

if (parentPort && workerData && (workerData as TuneJob).stop) {
  const port = parentPort;
  await sweep(workerData as TuneJob, (m) => port.postMessage(m));
}
