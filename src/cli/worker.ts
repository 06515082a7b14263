/**
 * `loom worker --connection URL [--queue NAME] [--backend B] [--concurrency N]
 * [--lock-duration MS] [--stalled-interval MS]`: measure the variants a sweep on the queue
 * executor submits (lp.startTuningWorker), printing one line per job, until SIGTERM or SIGINT:
 * the first finishes the jobs in flight and exits 0; a second stops at once (the job in flight
 * goes back to the queue for another worker). See docs/tuning-distributed.md.
 */
import * as lp from "../index.js";
import { eachArg, UsageError, type CliIo } from "./usage.js";

interface WorkerArgs {
  connection?: string;
  queue?: string;
  backend?: lp.BackendName;
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

function parseWorkerArgs(argv: readonly string[]): WorkerArgs {
  const a: WorkerArgs = {};
  eachArg(argv, "worker: ", ({ flag, arg, value }) => {
    const integer = (min: number): number => {
      const s = value();
      const v = Number(s);
      if (s.trim() === "" || !Number.isInteger(v) || v < min) throw new UsageError(`worker: ${flag} needs an integer of at least ${min}; got "${s}"`);
      return v;
    };
    if (flag === "--connection") a.connection = value();
    else if (flag === "--queue") a.queue = value();
    else if (flag === "--backend") a.backend = value() as lp.BackendName;
    else if (flag === "--concurrency") a.concurrency = integer(1);
    else if (flag === "--lock-duration") a.lockDurationMs = integer(100);
    else if (flag === "--stalled-interval") a.stalledIntervalMs = integer(100);
    else if (flag.startsWith("-")) throw new UsageError(`worker: unknown option "${flag}"`);
    else throw new UsageError(`worker: unexpected argument "${arg}"`);
  });
  if (a.connection === undefined) throw new UsageError("worker: missing --connection URL (the Redis of the sweep, such as redis://127.0.0.1:6379)");
  return a;
}

/** One line per job event: `start ID {"ti":4}`, `done ID ok 1.234 ms {"ti":4}`, `refused ID why`. */
function eventLine(e: lp.TuningJobEvent): string {
  if (e.kind === "start") return `start ${e.id} ${JSON.stringify(e.point ?? {})}\n`;
  if (e.kind === "done") return `done ${e.id} ${e.status}${Number.isFinite(e.medianMs) ? ` ${e.medianMs.toPrecision(4)} ms` : ""} ${JSON.stringify(e.point)}\n`;
  return `refused ${e.id} ${e.reason.split("\n")[0]}\n`;
}

/** Run a worker until a signal; resolves with the exit status. */
export async function workerCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const a = parseWorkerArgs(argv);
  let worker: lp.TuningWorker;
  try {
    worker = await lp.startTuningWorker({
      connection: a.connection!, ...(a.queue !== undefined ? { queue: a.queue } : {}), ...(a.backend !== undefined ? { backend: a.backend } : {}),
      ...(a.concurrency !== undefined ? { concurrency: a.concurrency } : {}),
      ...(a.lockDurationMs !== undefined ? { lockDurationMs: a.lockDurationMs } : {}),
      ...(a.stalledIntervalMs !== undefined ? { stalledIntervalMs: a.stalledIntervalMs } : {}),
      onJob: (e) => io.out(eventLine(e)),
    });
  } catch (e) {
    if (e instanceof lp.LoomError) {
      io.err(`loom: error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  io.err(`loom worker: ${worker.host} serving queue "${worker.queue}"${a.backend ? ` (backend ${a.backend})` : ""}; SIGTERM or Ctrl-C finishes the job in flight and exits\n`);
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    signals++;
    io.err(signals === 1 ? `loom worker: ${signal}: finishing the job in flight (again to stop at once)\n` : `loom worker: ${signal}: stopping now\n`);
    void worker.close(signals > 1);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  try {
    await worker.closed;
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
  return 0;
}
