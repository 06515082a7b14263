/** The scheduler's entry point (being built): preprocess, linearize, barriers, device kernels. */
import { ScheduleError } from "../errors.js";
import type { Kernel } from "../ir/index.js";
import type { PreprocessOptions } from "./preprocess.js";
import type { Schedule } from "./types.js";

/** Schedule `k`: device kernels of loops, instructions and barriers over hardware axes. */
export function schedule(k: Kernel, _opts: PreprocessOptions = {}): Schedule {
  throw new ScheduleError(`schedule(${k.name}) is not built yet`);
}

/** loopy's LINEARIZATION listing of a schedule. */
export function showSchedule(_s: Schedule): string {
  throw new ScheduleError("showSchedule is not built yet");
}
