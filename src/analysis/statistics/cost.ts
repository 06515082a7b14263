/**
 * Derived statistics for reports and tuning metrics: the floating-point operations a kernel
 * performs, the bytes of global memory it moves, and their ratio (arithmetic intensity), at given
 * parameter values; `flopCount` and `globalBytes` are the same, symbolic in the parameters.
 *
 * FLOPs are every floating-point operation of `getOpMap` (a reduction's step, a `+`, a `*`, a call
 * each count one). Bytes follow a simple cache model (traffic.ts): each global element a
 * work-group touches moves once per work-group and direction (a matmul without g axes moves
 * 3*n^2 elements); where that cannot be decided, every load and store of `getMemAccessMap` counts.
 *
 *   kernelCost(matmul, { n: 64 })   // { flops: 2*64^3, bytes: 3*64^2*4, intensity: 42.7, model: "distinct-per-workgroup", … }
 */
import { LoomError } from "../../errors.js";
import { byteSize, type Dtype, type Kernel } from "../../ir/index.js";
import { Count } from "./count.js";
import { getOpMap } from "./op-map.js";
import { globalTraffic, type ArrayTraffic, type TrafficModel, type TrafficOptions } from "./traffic.js";

export interface KernelCost {
  /** Floating-point operations (all float dtypes, every kind). */
  readonly flops: number;
  /** Bytes of global memory loaded and stored. */
  readonly bytes: number;
  /** flops / bytes (Infinity when no byte moves, 0 when neither). */
  readonly intensity: number;
  /**
   * How `bytes` was counted: "distinct-per-workgroup" (the cache model for every array),
   * "every-access" (every load and store, for every array), or "mixed" (some arrays each way:
   * see `arrays`).
   */
  readonly model: TrafficModel | "mixed";
  /** Per global array and direction: elements, bytes and the model used. */
  readonly arrays: readonly { readonly variable: string; readonly direction: "load" | "store"; readonly elements: number; readonly bytes: number; readonly model: TrafficModel }[];
}

export type KernelCostOptions = TrafficOptions;

const FLOAT_DTYPES: readonly Dtype[] = ["float16", "float32", "float64"];

/** The floating-point operations of `k`, symbolic: `flopCount(matmul).toString()` is "2*ell*m*n". */
export function flopCount(k: Kernel): Count {
  return getOpMap(k).filterBy({ dtype: FLOAT_DTYPES }).sum();
}

/** The bytes of global memory `k` moves, symbolic, with the traffic per array (see the module comment). */
export function globalBytes(k: Kernel, opts: KernelCostOptions = {}): { bytes: Count; model: KernelCost["model"]; arrays: readonly ArrayTraffic[] } {
  const arrays = globalTraffic(k, opts);
  let bytes = Count.constant(0);
  for (const a of arrays) bytes = bytes.add(a.elements.scale(byteSize(a.dtype)));
  return { bytes, model: modelOf(arrays), arrays };
}

function modelOf(arrays: readonly { readonly model: TrafficModel }[]): KernelCost["model"] {
  const models = new Set(arrays.map((a) => a.model));
  return models.size === 0 ? "distinct-per-workgroup" : models.size === 1 ? [...models][0]! : "mixed";
}

/** The FLOPs, global bytes and arithmetic intensity of `k` at `params`. */
export function kernelCost(k: Kernel, params: Readonly<Record<string, number>>, opts: KernelCostOptions = {}): KernelCost {
  const flops = flopCount(k).eval(params);
  const traffic = globalTraffic(k, opts);
  const arrays = traffic.map((a) => {
    const elements = evalOrUndefined(a.elements, params);
    const model: TrafficModel = elements === undefined ? "every-access" : a.model;
    const n = elements ?? a.everyAccess.eval(params);
    return { variable: a.variable, direction: a.direction, elements: n, bytes: n * byteSize(a.dtype), model };
  });
  const bytes = arrays.reduce((s, a) => s + a.bytes, 0);
  const intensity = bytes === 0 ? (flops === 0 ? 0 : Infinity) : flops / bytes;
  return { flops, bytes, intensity, model: modelOf(arrays), arrays };
}

/**
 * `c.eval(params)`, or undefined where a part without closed form is too large to count point by
 * point (x[2*i] and x[i] together, at n = 10^8): that array's bytes are then every access.
 */
function evalOrUndefined(c: Count, params: Readonly<Record<string, number>>): number | undefined {
  try {
    return c.eval(params);
  } catch (e) {
    if (e instanceof LoomError && c.isSymbolic === false && !/no value for parameter/.test(e.message)) return undefined;
    throw e;
  }
}
