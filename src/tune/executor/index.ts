/**
 * Executors of a sweep: "local" (the sweep measures its variants itself) or a BullMQ queue on
 * Redis served by `loom worker` processes (queue.ts, worker.ts). Nothing here imports BullMQ
 * before a queue is used.
 */
import { checkQueueConfig, type QueueConfig } from "./connect.js";

export { DEFAULT_QUEUE, type QueueConfig } from "./connect.js";
export { openQueue, QueueExecutor, type QueueSweep, type Remote } from "./queue.js";
export { startTuningWorker, type TuningJobEvent, type TuningWorker, type TuningWorkerOptions } from "./worker.js";
export { kernelFromJSON, kernelToJSON, JobRefused } from "./kernel-json.js";

/** autotune's `executor` option: undefined for "local", else the queue's settings. */
export function checkExecutor(x: unknown, fail: (what: string) => never): QueueConfig | undefined {
  if (x === undefined || x === "local") return undefined;
  if (x !== null && typeof x === "object" && !Array.isArray(x) && "queue" in x && Object.keys(x).length === 1) return checkQueueConfig((x as { queue: unknown }).queue, fail);
  return fail(`executor must be "local" or { queue: { connection: "redis://127.0.0.1:6379", name? } }; got ${JSON.stringify(x)}`);
}
