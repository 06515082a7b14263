/**
 * The rates of a sweep's records: the useful work of the untransformed kernel (`kernelCost` at
 * the timing parameters, counted once per sweep) per median time, and its fraction of the
 * machine's peak (`machinePeak`).
 */
import { getOpMap, kernelCost } from "../analysis/index.js";
import type { Kernel } from "../ir/index.js";
import type { TuningRecord } from "./types.js";

/** The peak rates a record is compared with: float64 FMA GFLOP/s, optionally float32's, and triad GB/s. */
export interface PeakRates {
  readonly gflops: number;
  readonly gflops32?: number;
  readonly gbps: number;
}

/** The useful work of one run: FLOPs (and of them float32 or float16 ones) and global bytes. */
export interface SweepCost {
  readonly flops: number;
  readonly flops32: number;
  readonly bytes: number;
}

/**
 * `kernelCost(ref, params)` and the FLOPs of narrow floats, or a warning saying why there are no
 * metrics. `sweepCost(matmul, { n: 10 }).cost!.flops === 2000`
 */
export function sweepCost(ref: Kernel, params: Readonly<Record<string, number>>): { cost?: SweepCost; warning?: string } {
  try {
    const c = kernelCost(ref, params);
    if (!Number.isFinite(c.flops) || !Number.isFinite(c.bytes) || c.flops < 0 || c.bytes < 0) {
      return { warning: `no gflops or gbps: kernelCost of "${ref.name}" gave ${c.flops} FLOPs and ${c.bytes} bytes` };
    }
    let flops32 = 0;
    try {
      flops32 = getOpMap(ref).filterBy({ dtype: ["float32", "float16"] }).evalAndSum(params);
    } catch {
      flops32 = 0; // counted as float64: the fraction of peak is then an upper bound
    }
    return { cost: { flops: c.flops, flops32: Math.min(Math.max(flops32, 0), c.flops), bytes: c.bytes } };
  } catch (e) {
    return { warning: `no gflops or gbps: the cost of kernel "${ref.name}" cannot be counted (${e instanceof Error ? e.message : String(e)})` };
  }
}

/**
 * The FLOP rate the machine reaches on this mix: time at peak is f64 / peak64 + f32 / peak32, so
 * the effective peak is flops over that (float64's peak alone when float32's is unknown).
 * `effectivePeakGflops({ flops: 2, flops32: 1, bytes: 0 }, { gflops: 1, gflops32: 2, gbps: 1 }) === 4 / 3`
 */
export function effectivePeakGflops(cost: SweepCost, peak: PeakRates): number {
  const p32 = peak.gflops32 ?? peak.gflops;
  if (cost.flops === 0) return peak.gflops;
  const f32 = cost.flops32;
  const f64 = cost.flops - f32;
  return cost.flops / (f64 / peak.gflops + f32 / p32);
}

/**
 * gflops, gbps and peakFraction of an ok record timed at `medianMs`; nothing for others.
 * `recordMetrics({ ok: true, medianMs: 1000 }, { flops: 2e9, flops32: 0, bytes: 4e9 }, undefined)` is `{ gflops: 2, gbps: 4 }`
 */
export function recordMetrics(r: Pick<TuningRecord, "ok" | "medianMs">, cost: SweepCost | undefined, peak: PeakRates | undefined)
  : Pick<TuningRecord, "gflops" | "gbps" | "peakFraction"> {
  if (!r.ok || !cost || !(r.medianMs > 0)) return {};
  const gflops = cost.flops / (r.medianMs * 1e6);
  const gbps = cost.bytes / (r.medianMs * 1e6);
  if (!peak) return { gflops, gbps };
  return { gflops, gbps, peakFraction: { flops: gflops / effectivePeakGflops(cost, peak), bandwidth: gbps / peak.gbps } };
}
