/**
 * The `loom` command (API.md "Command line"), on the public API only: a dispatcher over one module
 * per command in src/cli/.
 *
 *   loom lower|check|normalize FILE.okl …   (src/cli/okl.ts)
 *   loom run FILE …                          (src/cli/run.ts)
 *   loom tune SPEC …                         (src/cli/tune.ts)
 *   loom plot LOG.jsonl …                    (src/cli/plot.ts)
 *   loom worker --connection URL …           (src/cli/worker.ts)
 *
 * Exit status 0 on success, 1 on a user error with a message on stderr, 130 when `tune` was
 * stopped by Ctrl-C.
 */
import { oklCommand } from "./cli/okl.js";
import { plotCommand } from "./cli/plot.js";
import { runCommand } from "./cli/run.js";
import { tune } from "./cli/tune.js";
import { USAGE, UsageError, type CliIo } from "./cli/usage.js";
import { workerCommand } from "./cli/worker.js";

export { formatError } from "./cli/okl.js";
export type { CliIo } from "./cli/usage.js";

const COMMANDS = ["lower", "check", "normalize", "run", "tune", "plot", "worker"];

function usageStatus(e: UsageError, io: CliIo): number {
  io.err(`${e.message ? `loom: error: ${e.message}\n` : ""}${USAGE}\n`);
  return e.message ? 1 : 0;
}

/**
 * Run the command line `argv` (without `node loom`); returns the exit status, or a promise of it
 * for the commands that run asynchronously (run, tune).
 */
export function main(argv: readonly string[], io: CliIo = processIo()): number | Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === "-h" || command === "--help") throw new UsageError("");
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"`);
    if (command === "tune") return tune(rest, io).catch((e: unknown) => (e instanceof UsageError ? usageStatus(e, io) : Promise.reject(e)));
    if (command === "run") return runCommand(rest, io).catch((e: unknown) => (e instanceof UsageError ? usageStatus(e, io) : Promise.reject(e)));
    if (command === "plot") return plotCommand(rest, io);
    if (command === "worker") return workerCommand(rest, io).catch((e: unknown) => (e instanceof UsageError ? usageStatus(e, io) : Promise.reject(e)));
    return oklCommand(command, rest, io);
  } catch (e) {
    if (e instanceof UsageError) return usageStatus(e, io);
    throw e;
  }
}

function processIo(): CliIo {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: process.stderr.isTTY === true,
    columns: process.stderr.columns || Number(process.env.COLUMNS) || 80,
  };
}

/** What bin/loom runs: `main` on the process's arguments and streams, its status as the exit code. */
export async function runCommandLine(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await main(argv, processIo());
}
