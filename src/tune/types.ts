/** One measured variant of an autotuning sweep (API.md, "Tuning and statistics"). */
export interface TuningRecord {
  readonly point: Readonly<Record<string, number | string>>;
  /** The pipeline that built the variant, in its JSON form, so the exact schedule can be replayed. */
  readonly pipeline: unknown;
  readonly times: readonly number[];
  readonly medianMs: number;
  readonly gflops?: number;
  readonly gbps?: number;
  readonly ok: boolean;
  readonly error?: string;
}
