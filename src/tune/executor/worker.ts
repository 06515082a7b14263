/**
 * The worker's side of the queue executor (`loom worker`, `lp.startTuningWorker`): take variant
 * jobs from a BullMQ queue and, each on a measuring thread (thread.ts), read them as data (a job
 * that does not parse is refused and never retried), check the variant against the interpreter's
 * run of the kernel, time it on this machine, and answer with the outcome and this machine's
 * description.
 *
 *   const w = await lp.startTuningWorker({ connection: "redis://127.0.0.1:6379" });
 *   process.on("SIGTERM", () => void w.close());   // finishes the job in flight
 */
import { hostname } from "node:os";
import { BackendUnavailableError, LoomError } from "../../errors.js";
import { backendAvailability } from "../../run/native.js";
import { getBackend, type BackendName } from "../../run/run.js";
import type { TuningPoint, TuningStatus } from "../types.js";
import { checkQueueConfig, connected, firstError, loadEngine } from "./connect.js";
import { JobThread } from "./thread.js";

const BACKENDS: readonly string[] = ["interp", "js", "c", "openmp", "opencl", "cuda"];

export interface TuningWorkerOptions {
  /** The Redis URL, as the sweep's `executor.queue.connection`. */
  readonly connection: string;
  /** The queue's name; default the sweep's default, "loom-tune". */
  readonly queue?: string;
  /** Serve only jobs of this backend (checked available at start); a job of another is refused. Default: any backend available here. */
  readonly backend?: BackendName;
  /** Jobs measured at once; default 1 (more overlap their timed runs on one machine). */
  readonly concurrency?: number;
  /**
   * How long a job stays locked to this worker without renewal, in ms (BullMQ's lockDuration,
   * default 30000): a worker killed mid-job loses its job to another after about this long.
   */
  readonly lockDurationMs?: number;
  /** How often stalled jobs are looked for, in ms (BullMQ's stalledInterval, default 30000). */
  readonly stalledIntervalMs?: number;
  /** Told when a job starts and ends (the command line prints it). */
  readonly onJob?: (event: TuningJobEvent) => void;
}

export type TuningJobEvent =
  | { readonly kind: "start"; readonly id: string; readonly point?: TuningPoint }
  | { readonly kind: "done"; readonly id: string; readonly point: TuningPoint; readonly status: TuningStatus; readonly medianMs: number }
  | { readonly kind: "refused"; readonly id: string; readonly reason: string };

export interface TuningWorker {
  /** Where it measures: this host's name and the queue. */
  readonly host: string;
  readonly queue: string;
  /** Stop taking jobs; with `force` false (default) wait for the jobs in flight to finish. */
  close(force?: boolean): Promise<void>;
  /** Resolves when the worker has closed. */
  readonly closed: Promise<void>;
}

function fail(what: string): never {
  throw new LoomError(`loom worker: ${what}`);
}

const positive = (x: unknown) => Number.isInteger(x) && (x as number) >= 1;

/** Start a worker; rejects with a LoomError naming the URL when Redis is unreachable within seconds. */
export async function startTuningWorker(opts: TuningWorkerOptions): Promise<TuningWorker> {
  if (opts === null || typeof opts !== "object") fail("options must be { connection, queue?, backend?, concurrency? }");
  const cfg = checkQueueConfig({ connection: opts.connection, ...(opts.queue !== undefined ? { name: opts.queue } : {}) }, fail);
  const concurrency = opts.concurrency ?? 1;
  if (!positive(concurrency)) fail(`concurrency must be a positive integer; got ${JSON.stringify(opts.concurrency)}`);
  for (const [name, v] of [["lockDurationMs", opts.lockDurationMs], ["stalledIntervalMs", opts.stalledIntervalMs]] as const) {
    if (v !== undefined && !(positive(v) && v >= 100)) fail(`${name} must be an integer of at least 100 (milliseconds); got ${JSON.stringify(v)}`);
  }
  if (opts.backend !== undefined) {
    getBackend(opts.backend);
    const a = backendAvailability(opts.backend as Parameters<typeof backendAvailability>[0]);
    if (!a.available) throw new BackendUnavailableError(`loom worker: backend "${opts.backend}" is not available here: ${a.reason}`);
  }
  const host = hostname();
  const { bull, client } = await loadEngine();
  const connection = client(cfg.connection);
  let last: Error | undefined;
  connection.on("error", (e: Error) => (last = e)); // reconnecting is ioredis's; a start that never connects is caught below
  // One measuring thread per job run at once (thread.ts: the main thread keeps the locks and the signals).
  const threads: JobThread[] = [];
  const idle: JobThread[] = [];
  const replace = async (dead: JobThread) => {
    const fresh = await JobThread.start();
    threads.splice(threads.indexOf(dead), 1, fresh);
    return fresh;
  };
  const processor = async (job: { id?: string; data: unknown }) => {
    const id = job.id ?? "?";
    const data = job.data as { backend?: unknown; point?: TuningPoint } | null;
    const refuse = (reason: string) => {
      opts.onJob?.({ kind: "refused", id, reason });
      return new bull.UnrecoverableError(`refused by ${host}: ${reason}`);
    };
    const b = typeof data?.backend === "string" ? data.backend : undefined;
    if (b !== undefined && opts.backend !== undefined && b !== opts.backend) throw refuse(`this worker serves backend "${opts.backend}" only; the job is for "${b}" (give backends a queue each: --queue)`);
    const a = b !== undefined && BACKENDS.includes(b) ? backendAvailability(b as Parameters<typeof backendAvailability>[0]) : { available: true };
    if (!a.available) throw refuse(`backend "${b}" is not available on ${host}: ${a.reason}`);
    const thread = idle.pop();
    if (!thread) throw new LoomError(`loom worker: more jobs at once than measuring threads (${concurrency})`);
    try {
      opts.onJob?.({ kind: "start", id, ...(data?.point ? { point: data.point } : {}) });
      const answer = await thread.run(job.data);
      if ("refused" in answer) throw refuse(answer.refused);
      const { outcome } = answer.result;
      opts.onJob?.({ kind: "done", id, point: data!.point!, status: outcome.status, medianMs: outcome.medianMs });
      return answer.result;
    } finally {
      idle.push(thread.dead ? await replace(thread) : thread);
    }
  };
  const worker = new bull.Worker(cfg.name, processor, {
    connection, concurrency, autorun: false,
    ...(opts.lockDurationMs !== undefined ? { lockDuration: opts.lockDurationMs } : {}),
    ...(opts.stalledIntervalMs !== undefined ? { stalledInterval: opts.stalledIntervalMs } : {}),
  });
  worker.on("error", () => undefined); // reconnections are BullMQ's; an unreachable start is caught below
  await connected(cfg.connection, [worker.waitUntilReady(), connection.ping()], firstError(connection), async () => {
    void worker.close(true).catch(() => undefined);
    connection.disconnect();
  }, (m) => new LoomError(`loom worker: ${m}`), () => last);
  try {
    threads.push(...await Promise.all(Array.from({ length: concurrency }, () => JobThread.start())));
  } catch (e) {
    await worker.close(true).catch(() => undefined);
    connection.disconnect();
    throw e;
  }
  idle.push(...threads);
  const closed = worker.run().then(() => undefined);
  return {
    host, queue: cfg.name, closed,
    close: async (force = false) => {
      await worker.close(force);
      await closed.catch(() => undefined);
      await Promise.all(threads.map((t) => t.stop()));
      connection.disconnect();
    },
  };
}
