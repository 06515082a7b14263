/** The CPU lowering of a schedule (being built): hardware axes become loops, phases split at barriers. */
import { ScheduleError } from "../errors.js";
import type { Schedule } from "./types.js";

/** `s` with group and local axes turned into loops and barrier-crossing values privatized. */
export function lowerForCpu(_s: Schedule): Schedule {
  throw new ScheduleError("lowerForCpu is not built yet");
}
