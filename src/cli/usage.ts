/** What every command of `loom` shares: the output streams, usage errors and the usage text. */
import { BUILT_TARGETS, TARGET_NAMES } from "../index.js";

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Whether stderr is a terminal (a progress bar redrawn in place) and its width. */
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** A mistake on the command line: the message, then the usage text, exit 1 (0 for --help). */
export class UsageError extends Error {}

export const USAGE = `usage:
  loom lower FILE.okl --target TARGET [-o OUT] [-D NAME=VALUE]... [-I DIR]... [--library LIB=DIR]... [--opener PREFIX=DIR]...
             [--normalized] [--host] [--kernel-names occa|loom]   (--library: where #include "occa://LIB/..." reads, OCCA's addLibraryPath;
             --opener: where #include "PREFIX..." reads, a host's occa::io::fileOpener such as mfem's mfem-occa://;
             OpenCL/CUDA device kernels: _occa_NAME_K, the default, or NAME, NAME_0, …;
             --host: the host code too: SYCL's submissions, alpaka's exec, ISPC's launch, Metal's dispatch)
  loom check FILE.okl [-D NAME=VALUE]... [-I DIR]... [--library LIB=DIR]... [--opener PREFIX=DIR]... [--strict]   (--strict: OCCA's leniencies, printed as warnings, are errors)
  loom normalize FILE.okl [-o OUT]
  loom run FILE [--backend B] [-D NAME=VALUE]... [-I DIR]... [--library LIB=DIR]... [--opener PREFIX=DIR]... [--kernel NAME] [--size N] [--length ARRAY=N]...
             [--seed N] [--repeats N] [--check] [--rtol X] [--json]
             (FILE: .okl, a .json kernel spec or a .js/.ts module; runs on seeded random inputs, prints
             the kernel time and a checksum of each written array; see docs/running.md)
  loom tune SPEC [--json] [--log FILE] [--backend B] [--strategy S] [--seed N] [--repeats N]
             [--variants N] [--seconds S] [--top N] [--plot FILE.svg]
             (SPEC: a .json file or a .js/.ts module; see docs/tuning.md. Ctrl-C stops after the
             variant in flight, exit 130; run again to resume from the log)
  loom plot LOG.jsonl [-o OUT.svg] [--x P] [--series P] [--heatmap P,Q] [--metric time|gflops|gbps] [--title T]
  loom worker --connection URL [--queue NAME] [--backend B] [--concurrency N] [--lock-duration MS] [--stalled-interval MS]
             (measures the variants of sweeps on the queue executor, lp.autotune(k, { executor: { queue } });
             see docs/tuning-distributed.md. SIGTERM or Ctrl-C finishes the job in flight, then exits)
targets: ${BUILT_TARGETS.join(", ")}${plannedTargets()}`;

/** ` (planned: …)` while some target of the API is not built, else nothing. */
function plannedTargets(): string {
  const planned = TARGET_NAMES.filter((t) => !BUILT_TARGETS.includes(t));
  return planned.length > 0 ? ` (planned: ${planned.join(", ")})` : "";
}

/** One argument of a command line: its flag (`--log` of `--log=x`), the whole argument, and a reader of its value. */
export interface Arg {
  readonly flag: string;
  readonly arg: string;
  /** The value: after "=" (`--log=x`) or the next argument; a UsageError naming the flag when there is none. */
  value(): string;
}

/**
 * Walk `argv`, calling `visit` once per argument (an option's value, read with `value()`, is
 * skipped). `who` prefixes the message of a missing value (`run: --seed needs a value`).
 *
 *   eachArg(argv, "plot: ", ({ flag, arg, value }) => { if (flag === "-o") out = value(); … });
 */
export function eachArg(argv: readonly string[], who: string, visit: (a: Arg) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const [flag, inline] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    visit({
      flag, arg,
      value: () => {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new UsageError(`${who}${flag} needs a value`);
        return v;
      },
    });
  }
}
