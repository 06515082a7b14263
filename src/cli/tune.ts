/**
 * `loom tune SPEC [--json] [--log FILE] [--backend B] [--strategy S] [--seed N] [--repeats N]
 * [--variants N] [--seconds S] [--top N] [--plot FILE.svg]`: run the sweep a spec describes (in a
 * worker thread, see tune-worker.ts), show progress, then the best variants, the best pipeline and
 * the log. Ctrl-C stops after the variant in flight and reports what was found (exit 130); a second
 * Ctrl-C stops at once. Running it again resumes from the log.
 */
import { writeFileSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { plotTuning, type TuningRecord } from "../index.js";
import { barLine, counts, countsText, duration, plainLine, printable, ranked, table, type ProgressState } from "./progress.js";
import type { TuneJob, TuneMessage } from "./tune-worker.js";
import { eachArg, UsageError, type CliIo } from "./usage.js";

interface TuneArgs {
  spec: string;
  json: boolean;
  log?: string;
  top: number;
  plot?: string;
  overrides: Record<string, unknown>;
}

function parseTuneArgs(argv: readonly string[]): TuneArgs {
  const a: TuneArgs = { spec: "", json: false, top: 5, overrides: {} };
  const budget: Record<string, number> = {};
  eachArg(argv, "", ({ flag, arg, value }) => {
    const number = (what: string, integer: boolean): number => {
      const s = value();
      const v = Number(s);
      if (s.trim() === "" || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < 0) throw new UsageError(`${flag} needs ${what}; got "${s}"`);
      return v;
    };
    if (flag === "--json") a.json = true;
    else if (flag === "--log") a.log = value();
    else if (flag === "--plot") a.plot = value();
    else if (flag === "--backend" || flag === "--strategy") a.overrides[flag.slice(2)] = value();
    else if (flag === "--seed") a.overrides.seed = number("a number", false);
    else if (flag === "--repeats") a.overrides.repeats = number("a positive integer", true);
    else if (flag === "--variants") budget.variants = number("a positive integer", true);
    else if (flag === "--seconds") budget.seconds = number("a positive number of seconds", false);
    else if (flag === "--top") a.top = Math.max(1, number("a positive integer", true));
    else if (flag.startsWith("-")) throw new UsageError(`tune: unknown option "${flag}"`);
    else if (a.spec === "") a.spec = arg;
    else throw new UsageError(`tune: unexpected argument "${arg}"`);
  });
  if (a.spec === "") throw new UsageError("tune: missing SPEC (a .json file or a .js/.ts module)");
  if (Object.keys(budget).length > 0) a.overrides.budget = budget;
  return a;
}

/** The CommonJS bootstrap of the worker: registers tsx where needed, then imports the worker module. */
const BOOT = `const { workerData, parentPort } = require("node:worker_threads");
(async () => {
  if (workerData.registerTsx) (await import(workerData.tsxApi)).register();
  await import(workerData.module);
})().catch((e) => parentPort.postMessage({ kind: "error", message: String((e && e.stack) || e), user: false, stopped: false }));`;

function tsxApiUrl(): string | undefined {
  try {
    return import.meta.resolve("tsx/esm/api");
  } catch {
    return undefined;
  }
}

type Outcome = TuneMessage | { kind: "killed" };

export async function tune(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseTuneArgs(argv);
  const ext = extname(fileURLToPath(import.meta.url));
  const tsxApi = tsxApiUrl();
  const stop = new SharedArrayBuffer(4);
  const job: TuneJob & { registerTsx: boolean } = {
    spec: args.spec, overrides: args.overrides, ...(args.log !== undefined ? { log: args.log } : {}), stop,
    ...(tsxApi !== undefined ? { tsxApi } : {}), module: new URL(`./tune-worker${ext}`, import.meta.url).href,
    registerTsx: ext === ".ts" && tsxApi !== undefined,
  };
  const started = performance.now();
  const state: ProgressState = { done: 0, total: 0, freshMs: 0, fresh: 0 };
  let last = started;
  let interrupts = 0;
  let start: Extract<TuneMessage, { kind: "start" }> | undefined;
  const tty = io.isTTY === true;
  const showProgress = tty || !args.json;
  const draw = () => {
    if (tty && start) io.err(`\r${barLine(state, performance.now() - started, io.columns || 80)}\u001b[K`);
  };
  const clear = () => {
    if (tty && start) io.err("\r\u001b[K");
  };

  const worker = new Worker(BOOT, { eval: true, workerData: job });
  const timer = tty ? setInterval(draw, 250) : undefined;
  let settle!: (o: Outcome) => void;
  const outcome = new Promise<Outcome>((res) => (settle = res));
  worker.on("message", (m: TuneMessage) => {
    if (m.kind === "start") {
      start = m;
      last = performance.now(); // loading the library and the spec is no variant's time
      if (showProgress) {
        io.err(`loom tune: kernel ${printable(m.kernel)}, ${m.strategy} on ${m.backend}; log ${printable(m.log)}\n`);
      }
    } else if (m.kind === "progress") {
      const now = performance.now();
      if (m.fresh) {
        state.freshMs += now - last;
        state.fresh++;
      }
      last = now;
      Object.assign(state, { done: m.done, total: m.total, best: m.best });
      if (tty) draw();
      else if (showProgress) io.err(`${plainLine(state, now - started)}\n`);
    } else settle(m);
  });
  worker.on("error", (e) => settle({ kind: "error", message: `${e.name}: ${e.message}`, user: false, stopped: interrupts > 0 }));
  worker.on("exit", () => settle({ kind: "error", message: "the sweep's worker ended without a result", user: false, stopped: interrupts > 0 }));
  const stopFlag = new Int32Array(stop);
  const onSigint = () => {
    interrupts++;
    Atomics.store(stopFlag, 0, 1);
    clear();
    if (interrupts === 1) io.err("loom tune: stopping after the variant in flight (Ctrl-C again to stop at once)\n");
    else settle({ kind: "killed" });
  };
  process.on("SIGINT", onSigint);
  let o: Outcome;
  try {
    o = await outcome;
  } finally {
    process.off("SIGINT", onSigint);
    if (timer) clearInterval(timer);
    clear();
    await worker.terminate();
  }
  const elapsed = performance.now() - started;
  const interrupted = interrupts > 0;
  const log = start?.log;
  if (o.kind === "killed") {
    io.err(`loom tune: stopped at once; the log keeps every finished record${log ? ` (${printable(log)})` : ""}; run again to resume\n`);
    return 130;
  }
  if (o.kind === "error") {
    const c = o.records ? counts(o.records) : undefined;
    if (args.json) {
      io.out(`${JSON.stringify({ status: interrupted ? "interrupted" : "error", error: o.message, ...(c ? { counts: c, variants: o.records!.length } : {}), ...(log ? { log } : {}), elapsedMs: elapsed })}\n`);
    }
    io.err(`${args.spec}: error: ${o.message}\n`);
    if (o.records && o.records.length > 0) {
      const first = o.records.find((r) => r.error);
      if (first) io.err(`first error (${printable(Object.entries(first.point).map(([k, v]) => `${k}=${String(v)}`).join(", "))}): ${first.error!.split("\n")[0]}\n`);
    }
    if (!o.user && !interrupted) io.err("(this is a bug in Loom, not in the spec: please report it with the spec)\n");
    return interrupted ? 130 : 1;
  }
  if (o.kind !== "done") return 1;
  const top = ranked(o.records, args.top);
  const c = counts(o.records);
  for (const w of o.warnings) io.err(`loom tune: warning: ${w}\n`);
  let plotted: string | undefined;
  if (args.plot !== undefined) {
    try {
      writeFileSync(args.plot, plotTuning(o.records));
      plotted = args.plot;
    } catch (e) {
      io.err(`loom tune: warning: no plot written to ${args.plot}: ${(e as Error).message}\n`);
    }
  }
  if (args.json) {
    io.out(`${JSON.stringify({
      status: interrupted ? "interrupted" : "ok", kernel: start?.kernel, best: o.best, top, counts: c, variants: o.records.length,
      elapsedMs: elapsed, log, warnings: o.warnings, ...(plotted ? { plot: plotted } : {}),
    })}\n`);
    return interrupted ? 130 : 0;
  }
  io.out(report(o.records, o.best, top, c, elapsed, interrupted, log, plotted, start?.kernel));
  return interrupted ? 130 : 0;
}

function report(records: readonly TuningRecord[], best: TuningRecord, top: readonly TuningRecord[], c: Record<string, number>,
  elapsed: number, interrupted: boolean, log: string | undefined, plotted: string | undefined, kernel: string | undefined): string {
  const lines = [
    `${interrupted ? "stopped by Ctrl-C: " : ""}${records.length} variant${records.length === 1 ? "" : "s"} of ${printable(kernel ?? "the kernel")} in ${duration(elapsed)} (${countsText(c)})`,
    "",
    `best variant${top.length === 1 ? "" : "s"}:`,
    table(top),
    "",
    best.pipeline !== undefined ? "best pipeline (lp.applyPipeline(kernel, pipeline) rebuilds it):" : "best pipeline: none (build returned a kernel, not a step)",
    ...(best.pipeline !== undefined ? [printable(JSON.stringify(best.pipeline))] : []),
    "",
    ...(log ? [`log: ${printable(log)} (run again to resume; lp.replay(log, kernel) rebuilds the best)`] : []),
    ...(plotted ? [`plot: ${printable(plotted)}`] : []),
  ];
  return `${lines.join("\n")}\n`;
}
