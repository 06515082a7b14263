/** Tuning records as a table, the best one marked, and the plot of the tuner (lp.plotTuning) where it is built. */
import * as tune from "../tune/index.js";
import type { TuningRecord } from "../tune/index.js";

/** The index of the ok record with the smallest median time, or -1. */
export function bestIndex(records: readonly TuningRecord[]): number {
  let best = -1;
  records.forEach((r, i) => {
    if (r.ok && Number.isFinite(r.medianMs) && (best < 0 || r.medianMs < records[best]!.medianMs)) best = i;
  });
  return best;
}

const MAX_ERROR = 80;

/** One column per parameter of the space, then status, times, rates and the error (shortened). */
export function tuningTable(records: readonly TuningRecord[]): { header: string[]; rows: (string | number)[][] } {
  const params = [...new Set(records.flatMap((r) => Object.keys(r.point)))];
  const rates = records.some((r) => r.gflops !== undefined) ? ["GFLOP/s"] : [];
  const bw = records.some((r) => r.gbps !== undefined) ? ["GB/s"] : [];
  const header = [...params, "status", "median ms", "min ms", ...rates, ...bw, "error"];
  const rows = records.map((r) => {
    const err = (r.error ?? "").replace(/\s+/g, " ");
    return [
      ...params.map((p) => (r.point[p] === undefined ? "–" : String(r.point[p]))),
      r.status,
      r.medianMs ?? NaN,
      r.minMs ?? (r.times.length > 0 ? Math.min(...r.times) : NaN),
      ...(rates.length > 0 ? [r.gflops ?? NaN] : []),
      ...(bw.length > 0 ? [r.gbps ?? NaN] : []),
      err.length > MAX_ERROR ? err.slice(0, MAX_ERROR - 1) + "…" : err,
    ];
  });
  return { header, rows };
}

/**
 * The SVG plot of the records by `lp.plotTuning` (src/tune) when that exists and has something
 * to plot; undefined otherwise (the table alone is shown).
 */
export function tuningPlot(records: readonly TuningRecord[]): string | undefined {
  const plot = (tune as Record<string, unknown>)["plotTuning"];
  if (typeof plot !== "function" || !records.some((r) => r.ok)) return undefined;
  try {
    const svg = (plot as (r: readonly TuningRecord[]) => unknown)(records);
    return typeof svg === "string" ? svg : undefined;
  } catch {
    return undefined; // a plot it cannot draw leaves the table
  }
}
