/** Preprocessing (being built): rules expanded, types inferred, reductions realized, tags checked. */
import { ScheduleError } from "../errors.js";
import type { Kernel } from "../ir/index.js";

export interface PreprocessOptions {
  /** Turn reductions into accumulator instructions (default true); the interpreter keeps them inline. */
  readonly realizeReductions?: boolean;
}

/** Preprocess `k` for scheduling. */
export function preprocess(k: Kernel, _opts: PreprocessOptions = {}): Kernel {
  throw new ScheduleError(`preprocess(${k.name}) is not built yet`);
}
