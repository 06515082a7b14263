/**
 * Derived statistics for reports and tuning metrics: the floating-point operations a kernel
 * performs, the bytes of global memory it moves, and their ratio (arithmetic intensity), at given
 * parameter values.
 *
 * First version: FLOPs are every floating-point operation of `getOpMap` (a reduction's step, a
 * `+`, a `*`, a call each count one); bytes are every global load and store of
 * `getMemAccessMap` times the element size (no cache model yet: an element read twice counts twice).
 */
import { byteSize, type Dtype, type Kernel } from "../../ir/index.js";
import { getMemAccessMap } from "./mem-map.js";
import { getOpMap } from "./op-map.js";

export interface KernelCost {
  /** Floating-point operations (all float dtypes, every kind). */
  readonly flops: number;
  /** Bytes of global memory loaded and stored. */
  readonly bytes: number;
  /** flops / bytes (Infinity when no byte moves, 0 when neither). */
  readonly intensity: number;
}

const FLOAT_DTYPES: readonly Dtype[] = ["float16", "float32", "float64"];

/** The FLOPs, global bytes and arithmetic intensity of `k` at `params`. */
export function kernelCost(k: Kernel, params: Readonly<Record<string, number>>): KernelCost {
  const flops = getOpMap(k).filterBy({ dtype: FLOAT_DTYPES }).evalAndSum(params);
  let bytes = 0;
  for (const [key, count] of getMemAccessMap(k).filterBy({ mtype: "global" }).entries()) {
    if ("mtype" in key) bytes += count.eval(params) * byteSize(key.dtype);
  }
  const intensity = bytes === 0 ? (flops === 0 ? 0 : Infinity) : flops / bytes;
  return { flops, bytes, intensity };
}
