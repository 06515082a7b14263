/**
 * The scheduler's entry point, as a list of passes: preprocess → linearize → barriers (loops that
 * need one get work-group-uniform bounds) → device kernels. Memoized by kernel identity and options: kernels are frozen, and sweeps schedule many.
 */
import type { Kernel } from "../ir/index.js";
import { insertBarriers } from "./barriers.js";
import { deviceKernels } from "./device.js";
import { linearizeWithBarriers } from "./preprocess-uniform.js";
import { preprocess, type PreprocessOptions } from "./preprocess.js";
import type { Schedule } from "./types.js";

export { showSchedule } from "./show.js";

const memo = new WeakMap<Kernel, Map<string, Schedule>>();

/**
 * Schedule `k`: device kernels of loops, instructions and barriers over hardware axes.
 * `schedule(k).deviceKernels[0].body` is the loop tree; `showSchedule(schedule(k))` lists it.
 */
export function schedule(k: Kernel, opts: PreprocessOptions = {}): Schedule {
  const key = `r${opts.realizeReductions ?? true}`;
  let forKernel = memo.get(k);
  if (!forKernel) memo.set(k, (forKernel = new Map()));
  const hit = forKernel.get(key);
  if (hit) return hit;
  const { kernel, nodes } = linearizeWithBarriers(preprocess(k, opts), insertBarriers);
  const s: Schedule = Object.freeze({ kernel, deviceKernels: Object.freeze(deviceKernels(kernel, nodes)) });
  forKernel.set(key, s);
  return s;
}
