/**
 * A worker's measuring thread. A variant on the js or interp backend runs without yielding to the
 * event loop, and so may a native run: measured on the worker's main thread, it would starve
 * BullMQ's lock renewal (another worker would take the job as stalled and measure it again) and
 * the SIGTERM handler. So each job is read and measured on a thread of its own (one per job the
 * worker runs at once), while the main thread keeps the job's lock and listens for signals.
 *
 *   const t = await JobThread.start();  const answer = await t.run(job.data);  await t.stop();
 */
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { parentPort, Worker, workerData } from "node:worker_threads";
import { LoomError } from "../../errors.js";
import { measureJob, readJob, type JobResult } from "./job.js";

/** What a thread answers for a job: the result, or why the job was refused. */
export type ThreadAnswer = { readonly result: JobResult } | { readonly refused: string };

interface Boot {
  readonly jobThread: true;
  readonly module: string;
  readonly tsxApi?: string;
}

/** CommonJS bootstrap: registers tsx where this module is TypeScript (from the sources), then loads it. */
const BOOT = `const { workerData, parentPort } = require("node:worker_threads");
(async () => {
  if (workerData.tsxApi) (await import(workerData.tsxApi)).register();
  await import(workerData.module);
  parentPort.postMessage({ ready: true });
})().catch((e) => parentPort.postMessage({ fatal: String((e && e.stack) || e) }));`;

function tsxApi(): string | undefined {
  try {
    return import.meta.resolve("tsx/esm/api");
  } catch {
    return undefined;
  }
}

export class JobThread {
  private pending?: { resolve: (a: ThreadAnswer) => void; reject: (e: Error) => void };
  /** Whether the thread died (an error it did not catch, out of memory): start another. */
  dead = false;

  private constructor(private readonly worker: Worker) {
    worker.on("message", (m: ThreadAnswer) => this.settle((p) => p.resolve(m)));
    worker.on("error", (e) => {
      this.dead = true;
      this.settle((p) => p.reject(e));
    });
    worker.on("exit", (code) => {
      this.dead = true;
      this.settle((p) => p.reject(new LoomError(`the measuring thread exited (code ${code})`)));
    });
  }

  /** A thread with the library loaded. */
  static async start(): Promise<JobThread> {
    const here = fileURLToPath(import.meta.url);
    const ts = extname(here) === ".ts";
    const api = ts ? tsxApi() : undefined;
    const boot: Boot = { jobThread: true, module: import.meta.url, ...(api ? { tsxApi: api } : {}) };
    const worker = new Worker(BOOT, { eval: true, workerData: boot });
    const first = await new Promise<{ ready?: true; fatal?: string }>((res, rej) => {
      worker.once("message", res);
      worker.once("error", rej);
    });
    if (first.fatal !== undefined) {
      await worker.terminate();
      throw new LoomError(`loom worker: the measuring thread could not load Loom: ${first.fatal}`);
    }
    return new JobThread(worker);
  }

  /** Read and measure one job's data (one job at a time per thread). */
  run(data: unknown): Promise<ThreadAnswer> {
    if (this.pending) return Promise.reject(new LoomError("a measuring thread runs one job at a time"));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(data);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private settle(f: (p: NonNullable<JobThread["pending"]>) => void): void {
    const p = this.pending;
    this.pending = undefined;
    if (p) f(p);
  }
}

/** The thread's side: answer each job posted to it. */
async function answer(data: unknown): Promise<ThreadAnswer> {
  let read;
  try {
    read = readJob(data);
  } catch (e) {
    return { refused: e instanceof LoomError ? e.message : String(e) };
  }
  return { result: await measureJob(read) };
}

if (parentPort && (workerData as Boot | undefined)?.jobThread === true) {
  const port = parentPort;
  port.on("message", (data: unknown) => void answer(data).then((a) => port.postMessage(a), (e: unknown) => port.postMessage({ refused: `the measurement failed: ${String(e)}` })));
}
