/** `replay`: rebuild the best kernel of a sweep from its records (or its log) and its pipeline JSON. */
import { LoomError } from "../errors.js";
import type { Kernel } from "../ir/index.js";
import { applyPipeline } from "../../transforms/index.js";
import { readTuningLog } from "./log.js";
import type { Build } from "./measure.js";
import type { TuningRecord } from "./types.js";

/**
 * The kernel of the ok record with the smallest median time, rebuilt by applying its pipeline to
 * `k`; a record without a pipeline (its build returned a kernel) needs `build` again.
 *
 *   const fastest = lp.replay("matmul.jsonl", k);
 */
export function replay(log: string | readonly TuningRecord[], k: Kernel, build?: Build): Kernel {
  const records = typeof log === "string" ? readTuningLog(log) : log;
  if (!Array.isArray(records)) throw new LoomError(`replay: expected a log path or an array of tuning records; got ${typeof log}`);
  let best: TuningRecord | undefined;
  for (const r of records) if (r.ok && (!best || r.medianMs < best.medianMs)) best = r;
  if (!best) throw new LoomError(`replay: no ok record among ${records.length}; nothing to rebuild`);
  if (best.pipeline !== undefined) return applyPipeline(k, best.pipeline);
  if (!build) throw new LoomError(`replay: the best record (point ${JSON.stringify(best.point)}) has no pipeline (its build returned a kernel); pass build to rebuild it`);
  const built = build(k, best.point);
  return typeof built === "function" ? built(k) : built;
}
