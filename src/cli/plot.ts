/**
 * `loom plot LOG.jsonl [-o OUT.svg] [--x P] [--series P] [--heatmap P,Q] [--metric M] [--title T]`:
 * the SVG plot of a tuning log (lp.plotTuning), to OUT or to standard output.
 */
import { writeFileSync } from "node:fs";
import { LoomError, plotTuning, readTuningLog, type PlotTuningOptions } from "../index.js";
import { eachArg, UsageError, type CliIo } from "./usage.js";

export function plotCommand(argv: readonly string[], io: CliIo): number {
  let log = "";
  let out: string | undefined;
  const opts: { -readonly [K in keyof PlotTuningOptions]: PlotTuningOptions[K] } = {};
  eachArg(argv, "", ({ flag, arg, value }) => {
    if (flag === "-o") out = value();
    else if (flag === "--x") opts.x = value();
    else if (flag === "--series") opts.series = value();
    else if (flag === "--title") opts.title = value();
    else if (flag === "--metric") opts.metric = value() as PlotTuningOptions["metric"];
    else if (flag === "--heatmap") {
      const v = value().split(",");
      if (v.length !== 2) throw new UsageError(`--heatmap needs two parameters as P,Q; got "${v.join(",")}"`);
      opts.heatmap = [v[0]!, v[1]!];
    } else if (flag.startsWith("-")) throw new UsageError(`plot: unknown option "${flag}"`);
    else if (log === "") log = arg;
    else throw new UsageError(`plot: unexpected argument "${arg}"`);
  });
  if (log === "") throw new UsageError("plot: missing LOG (a tuning log, JSON lines)");
  try {
    const records = readTuningLog(log);
    if (records.torn) io.err(`${log}: warning: ${records.torn}\n`);
    const svg = plotTuning(records, opts);
    if (out !== undefined) writeFileSync(out, svg);
    else io.out(svg);
    return 0;
  } catch (e) {
    if (e instanceof LoomError) {
      io.err(`${log}: error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
