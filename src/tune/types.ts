/** One measured variant of an autotuning sweep (API.md, "Tuning"). */
export type TuningStatus = "ok" | "invalid" | "wrong" | "failed";

/** A point of the search space: one value per space parameter. */
export type TuningPoint = Readonly<Record<string, number | string>>;

/** Where a record was measured: the CPU model and a hostname-independent id of the machine. */
export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly platform: string;
  readonly arch: string;
  /** A hash of cpu, cores, platform and arch: equal on two identical machines, whatever their names. */
  readonly id: string;
}

export interface TuningRecord {
  readonly point: TuningPoint;
  /** The pipeline that built the variant, in its JSON form (replay with `fromJSON`); absent when `build` returned a kernel. */
  readonly pipeline?: unknown;
  /** `ok === (status === "ok")`. */
  readonly ok: boolean;
  /** ok: matched the reference and timed; invalid: a LoomError refused it; wrong: differed from the reference; failed: any other error. */
  readonly status: TuningStatus;
  /** `repeats` kernel times in milliseconds (empty unless ok). */
  readonly times: readonly number[];
  /** Median of `times` (NaN, stored as null in the log, unless ok). */
  readonly medianMs: number;
  /** Smallest of `times`. */
  readonly minMs?: number;
  /** (max - min) / median of `times` (ok records). */
  readonly spread?: number;
  /**
   * How many rounds of `repeats` runs were measured beyond the first because a round's spread
   * exceeded the sweep's `remeasure.spread` (ok records; 0 when the first round was calm).
   * `times` holds the calmest round.
   */
  readonly remeasured?: number;
  /** Useful floating-point work per second: `kernelCost` of the untransformed kernel at `params`, FLOPs / `medianMs`, in 1e9/s. */
  readonly gflops?: number;
  /** Useful global-memory traffic per second: `kernelCost` bytes / `medianMs`, in 1e9 bytes/s. */
  readonly gbps?: number;
  /**
   * `gflops` and `gbps` as fractions of this machine's peak (`machinePeak`): the FMA throughput
   * (float64 and float32 weighted by the kernel's FLOPs of each) and the stream-triad bandwidth.
   */
  readonly peakFraction?: { readonly flops: number; readonly bandwidth: number };
  /**
   * Where the variant's wall-clock time went, in milliseconds (as Kernel Tuner's compile,
   * verification, benchmark and framework times): `buildMs` applying the build and its pipeline;
   * `checkMs` the check against the reference (code generation, compilation, the reference and
   * the variant run on the test parameters); `benchmarkMs` the warm-up and timed runs;
   * `frameworkMs` the sweep's own work for this record: the strategy choosing it, its metrics, the previous record's log line (not waiting on variants built ahead).
   * Built or checked ahead (`compileJobs`), `buildMs` and `checkMs` overlapped other variants.
   */
  readonly phases?: { readonly buildMs: number; readonly checkMs: number; readonly benchmarkMs: number; readonly frameworkMs: number };
  /** The error message (invalid, failed) or a summary of the mismatches (wrong). */
  readonly error?: string;
  /** The first differences against the reference (wrong). */
  readonly mismatches?: readonly string[];
  readonly backend?: string;
  /** The parameters the variant was timed with. */
  readonly params?: Readonly<Record<string, number>>;
  /** Name and content hash of the untransformed kernel the sweep tuned. */
  readonly kernel?: { readonly name: string; readonly hash: string };
  readonly machine?: MachineInfo;
  /** The C compiler and flags (native c/openmp backends). */
  readonly compiler?: string;
  /** The device of the opencl and cuda backends, as the runtime names it (`"NVIDIA H200 (NVIDIA CUDA, compute_90)"`). */
  readonly device?: string;
  /** Loom's version (package.json). */
  readonly loomVersion?: string;
}
