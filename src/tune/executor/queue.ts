/**
 * The coordinator's side of the queue executor: each variant a sweep measures becomes a BullMQ
 * job (JSON only, see job.ts) that some `loom worker` measures; its result comes back as the
 * job's return value. Points the strategy announces (`upcoming`) are submitted ahead, so every
 * worker has work while the strategy waits for the next result in order; an adaptive strategy
 * announces its next points as results arrive.
 *
 * Job ids are the sweep's run id and a hash of the point and its variant: a point is one job,
 * whatever submits it twice; a coordinator restarted with the same log computes the same ids,
 * takes the records of its log, and collects from Redis the jobs finished meanwhile. A worker
 * killed mid-job leaves a stalled job that BullMQ gives to another worker.
 */
import { createHash, randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { LoomError } from "../../errors.js";
import type { Kernel } from "../../ir/index.js";
import { toJSON } from "../../../transforms/index.js";
import type { Build, Outcome } from "../measure.js";
import { pointKey } from "../space.js";
import type { TuningPoint } from "../types.js";
import { connected, firstError, loadEngine, type QueueConfig } from "./connect.js";
import { JOB_FORMAT, readResult, type MeasuredOn, type VariantJob } from "./job.js";
import { kernelToJSON } from "./kernel-json.js";

/** Jobs submitted ahead of the one the strategy waits for, at most. */
const WINDOW = 256;
/** How often jobs in flight are looked up in Redis besides listening to its events (an event can be missed across a reconnection). */
const POLL_MS = 3000;
/** How long finished jobs stay in Redis for a restarted coordinator to collect (seconds). */
const KEEP_S = 7 * 24 * 3600;
/**
 * Take a job back from the lists a worker takes jobs from (KEYS: wait, paused, prioritized,
 * delayed; ARGV[1]: the job id), in one step no worker's move to active can interleave with:
 * how many lists held it (0: a worker has it, or it finished).
 */
const TAKE_BACK = `local n = 0
for i = 1, 2 do n = n + redis.call("LREM", KEYS[i], 0, ARGV[1]) end
for i = 3, 4 do n = n + redis.call("ZREM", KEYS[i], ARGV[1]) end
return n`;

/** What the sweep hands the queue executor. */
export interface QueueSweep {
  readonly ref: Kernel;
  readonly kernelHash: string;
  readonly build: Build;
  readonly job: Omit<VariantJob, "format" | "kernel" | "kernelHash" | "point" | "pipeline" | "variant">;
  /** The sweep's log: the run id is derived from it, so a restarted sweep finds its jobs. */
  readonly log?: string;
  /** How many more points the sweep may evaluate (its budget), besides those in flight. */
  readonly remaining: () => number;
  /** Whether a point needs no job (in the log already). */
  readonly skip: (key: string) => boolean;
  readonly signal?: AbortSignal;
  /** When the sweep's time budget ends (performance.now() milliseconds). */
  readonly deadline?: number;
}

/** A measured variant: the outcome and where; undefined when the sweep stopped first. */
export type Remote = (Outcome & { readonly on?: MeasuredOn }) | undefined;

interface Pending {
  readonly id: string;
  readonly promise: Promise<Remote>;
  settle(r: Remote): void;
}

type BullQueue = import("bullmq").Queue;
type BullEvents = import("bullmq").QueueEvents;
/** The queue's Redis connection, as far as taking jobs back needs it. */
interface Evaluator {
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/** The time-bounded connection: the queue and its event listener, ready. */
export async function openQueue(cfg: QueueConfig, sweep: QueueSweep, error: (message: string) => Error): Promise<QueueExecutor> {
  const { bull, client } = await loadEngine();
  const clients = [client(cfg.connection), client(cfg.connection)];
  let last: Error | undefined;
  for (const c of clients) c.on("error", (e: Error) => (last = e)); // reconnecting is ioredis's; a start that never connects is caught below
  const queue = new bull.Queue(cfg.name, { connection: clients[0]! });
  const events = new bull.QueueEvents(cfg.name, { connection: clients[1]! });
  queue.on("error", () => undefined);
  events.on("error", () => undefined);
  const disconnect = async () => {
    for (const c of clients) c.disconnect();
  };
  await connected(cfg.connection, [queue.waitUntilReady(), events.waitUntilReady(), clients[0]!.ping()], firstError(clients[0]!), disconnect, error, () => last);
  return new QueueExecutor(queue, events, sweep, disconnect, clients[0]! as unknown as Evaluator);
}

export class QueueExecutor {
  /** The jobs in flight, by point key and by job id. */
  private readonly pending = new Map<string, Pending>();
  private readonly byId = new Map<string, Pending>();
  private readonly runId: string;
  private readonly kernelJson: unknown;
  private readonly poller: NodeJS.Timeout;

  constructor(
    private readonly queue: BullQueue, private readonly events: BullEvents, private readonly sweep: QueueSweep,
    private readonly disconnect: () => Promise<void>, private readonly redis: Evaluator,
  ) {
    const identity = [sweep.kernelHash, sweep.job, sweep.log !== undefined ? resolve(sweep.log) : randomUUID()];
    this.runId = createHash("sha256").update(JSON.stringify(identity)).digest("hex").slice(0, 16);
    this.kernelJson = kernelToJSON(sweep.ref);
    events.on("completed", ({ jobId, returnvalue }) => this.finished(jobId, returnvalue, undefined));
    events.on("failed", ({ jobId, failedReason }) => this.finished(jobId, undefined, failedReason));
    this.poller = setInterval(() => void this.poll(), POLL_MS);
    this.poller.unref();
  }

  /** The strategy's hint: submit the announced points, within the budget and the window. */
  upcoming(points: readonly TuningPoint[]): void {
    let room = Math.min(WINDOW, this.sweep.remaining()) - this.pending.size;
    for (const p of points) {
      if (room <= 0) break;
      const key = pointKey(p);
      if (this.sweep.skip(key) || this.pending.has(key)) continue;
      this.submit(p, key);
      room--;
    }
  }

  /** The measured variant of `p` (submitted now unless it was ahead); undefined when the sweep's signal or time budget ended first. */
  async take(p: TuningPoint): Promise<Remote> {
    const key = pointKey(p);
    const pending = this.pending.get(key) ?? this.submit(p, key);
    const stop = new Promise<undefined>((res) => {
      const timer = this.sweep.deadline !== undefined ? setTimeout(() => res(undefined), Math.max(0, this.sweep.deadline - performance.now())) : undefined;
      const onAbort = () => res(undefined);
      this.sweep.signal?.addEventListener("abort", onAbort, { once: true });
      if (this.sweep.signal?.aborted) res(undefined);
      void pending.promise.finally(() => {
        clearTimeout(timer);
        this.sweep.signal?.removeEventListener("abort", onAbort);
      });
    });
    const r = await Promise.race([pending.promise, stop]);
    if (r !== undefined) {
      this.pending.delete(key);
      this.byId.delete(pending.id);
    }
    return r;
  }

  /**
   * Remove the jobs of this sweep no worker has taken, stop listening, disconnect. A job is taken
   * back from the queue's lists in one Redis step before its data is removed: a state read first
   * and a removal after it would race with a worker that takes and finishes the job in between
   * (its finished job removed, a restarted sweep would queue and measure it again). Jobs a worker
   * has, and finished jobs, stay for a restarted sweep to collect.
   */
  async close(): Promise<void> {
    clearInterval(this.poller);
    const ids = [...this.pending.values()].map((q) => q.id);
    const keys = this.queue.keys;
    const lists = [keys.wait!, keys.paused!, keys.prioritized!, keys.delayed!];
    await Promise.allSettled(ids.map(async (id) => {
      if (Number(await this.redis.eval(TAKE_BACK, lists.length, ...lists, id)) > 0) await this.queue.remove(id);
    }));
    for (const q of this.pending.values()) q.settle(undefined);
    this.pending.clear();
    this.byId.clear();
    await Promise.allSettled([this.events.close(), this.queue.close()]);
    await this.disconnect();
  }

  /** The job of `p`: its variant built here (the build function stays on this machine), its data JSON. */
  private submit(p: TuningPoint, key: string): Pending {
    let settle!: (r: Remote) => void;
    const promise = new Promise<Remote>((res) => (settle = res));
    const variant = this.variantOf(p);
    const id = `${this.runId}.${createHash("sha256").update(JSON.stringify([key, variant])).digest("hex").slice(0, 16)}`;
    const pending: Pending = { id, promise, settle };
    this.pending.set(key, pending);
    this.byId.set(id, pending);
    if ("verdict" in variant) {
      settle(variant.verdict);
      return pending;
    }
    const data: VariantJob = { format: JOB_FORMAT, kernel: this.kernelJson, kernelHash: this.sweep.kernelHash, point: p, ...variant, ...this.sweep.job };
    void this.queue.add("variant", data, { jobId: id, attempts: 1, removeOnComplete: { age: KEEP_S }, removeOnFail: { age: KEEP_S } })
      .then(() => this.lookUp(pending))
      .catch((e: unknown) => settle(failed(`the job could not be queued: ${(e as Error).message}`)));
    return pending;
  }

  /** Build the variant here: a pipeline (JSON), a kernel (JSON), or the verdict of a refused build. */
  private variantOf(p: TuningPoint): { pipeline: unknown } | { variant: unknown } | { verdict: Outcome } {
    try {
      const built: unknown = this.sweep.build(this.sweep.ref, p);
      if (typeof built === "function" && Array.isArray((built as { steps?: unknown }).steps)) return { pipeline: toJSON(built as Parameters<typeof toJSON>[0]) };
      if (built !== null && typeof built === "object" && Array.isArray((built as Kernel).instructions)) return { variant: kernelToJSON(built as Kernel) };
      return { verdict: failed(`build returned ${typeof built}; it must return a kernel or a step (lp.pipeline(…))`) };
    } catch (e) {
      const loom = e instanceof LoomError;
      return { verdict: { ...failed(e instanceof Error ? `${loom ? `${e.name}: ` : ""}${e.message}` : String(e)), status: loom ? "invalid" : "failed" } };
    }
  }

  private finished(jobId: string, returnvalue: unknown, failedReason: string | undefined): void {
    this.byId.get(jobId)?.settle(failedReason !== undefined ? failed(`the job failed on the queue: ${failedReason}`) : resultOf(returnvalue));
  }

  /** Settle `q` from the job's state in Redis when it finished (before its events were listened to, or the event was missed). */
  private async lookUp(q: Pending): Promise<void> {
    const job = await this.queue.getJob(q.id);
    if (!job?.finishedOn) return;
    if (job.returnvalue == null) q.settle(failed(`the job failed on the queue: ${job.failedReason}`));
    else q.settle(resultOf(job.returnvalue));
  }

  private async poll(): Promise<void> {
    await Promise.allSettled([...this.pending.values()].map((q) => this.lookUp(q)));
  }
}

function failed(error: string): Outcome {
  return { ok: false, status: "failed", times: [], medianMs: NaN, error };
}

function resultOf(x: unknown): Remote {
  try {
    const r = readResult(x);
    return { ...r.outcome, on: r.on };
  } catch (e) {
    return failed((e as Error).message);
  }
}
