/**
 * What `loom tune` prints while it sweeps and at the end: a progress bar redrawn in place on a
 * terminal (done/total, best so far, elapsed, ETA), plain lines elsewhere; the table of the best
 * variants.
 */
import type { TuningRecord } from "../index.js";

/** 0.4 s, 12.3 s, 4m05s, 1h02m. */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export function ms(v: number): string {
  return Number.isFinite(v) ? (v >= 100 ? v.toFixed(1) : Number(v.toPrecision(4)).toString()) : "-";
}

export function pointText(p: Readonly<Record<string, unknown>>): string {
  return Object.entries(p).map(([k, v]) => `${k}=${String(v)}`).join(", ");
}

/** Control characters of user strings would move the terminal's cursor: show them escaped. */
export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export interface ProgressState {
  done: number;
  total: number;
  best?: TuningRecord;
  /** Milliseconds spent on variants measured now (not read back from the log), and how many. */
  freshMs: number;
  fresh: number;
}

/** The estimated time left: the mean time of a measured variant times the variants left. */
export function eta(s: ProgressState): number | undefined {
  return s.fresh === 0 ? undefined : (s.freshMs / s.fresh) * Math.max(0, s.total - s.done);
}

function bestText(s: ProgressState): string {
  if (s.total === 0) return "measuring the first variant";
  return s.best ? `best ${ms(s.best.medianMs)} ms (${printable(pointText(s.best.point))})` : "no ok variant yet";
}

/** One plain line: `[12/32] best 0.412 ms (ti=4, tj=8); 3.2 s elapsed, about 5.1 s left`. */
export function plainLine(s: ProgressState, elapsedMs: number): string {
  const left = eta(s);
  return `[${s.done}/${s.total}] ${bestText(s)}; ${duration(elapsedMs)} elapsed${left !== undefined && s.done < s.total ? `, about ${duration(left)} left` : ""}`;
}

/** The bar, fitted to `columns`. */
export function barLine(s: ProgressState, elapsedMs: number, columns: number): string {
  const width = 20;
  const filled = s.total > 0 ? Math.round((width * s.done) / s.total) : 0;
  const left = eta(s);
  const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${s.done}/${s.total}  ${bestText(s)}  ${duration(elapsedMs)}${left !== undefined && s.done < s.total ? `, ETA ${duration(left)}` : ""}`;
  return [...line].slice(0, Math.max(10, columns - 1)).join("");
}

/** The status counts of records: "30 ok, 1 wrong, 1 invalid". */
export function counts(records: readonly TuningRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

export function countsText(c: Record<string, number>): string {
  return Object.entries(c).map(([s, n]) => `${n} ${s}`).join(", ");
}

/** The best `top` ok records, fastest first. */
export function ranked(records: readonly TuningRecord[], top: number): TuningRecord[] {
  return records.filter((r) => r.ok).sort((a, b) => a.medianMs - b.medianMs).slice(0, top);
}

/** A table of the best variants: one column per parameter, median and min ms, GFLOP/s and GB/s when present. */
export function table(rows: readonly TuningRecord[]): string {
  const params = [...new Set(rows.flatMap((r) => Object.keys(r.point)))];
  const hasG = rows.some((r) => typeof r.gflops === "number");
  const hasB = rows.some((r) => typeof r.gbps === "number");
  const header = ["#", ...params, "median ms", "min ms", ...(hasG ? ["GFLOP/s"] : []), ...(hasB ? ["GB/s"] : [])];
  const body = rows.map((r, i) => [
    String(i + 1), ...params.map((p) => (r.point[p] === undefined ? "" : String(r.point[p]))),
    ms(r.medianMs), ms(r.minMs ?? NaN),
    ...(hasG ? [typeof r.gflops === "number" ? Number(r.gflops.toPrecision(4)).toString() : "-"] : []),
    ...(hasB ? [typeof r.gbps === "number" ? Number(r.gbps.toPrecision(4)).toString() : "-"] : []),
  ].map((c) => printable([...c].slice(0, 24).join(""))));
  const widths = header.map((h, j) => Math.max([...h].length, ...body.map((row) => [...row[j]!].length)));
  const numeric = (j: number) => j === 0 || j > params.length;
  const line = (cells: readonly string[]) => cells.map((c, j) => (numeric(j) ? c.padStart(widths[j]!) : c.padEnd(widths[j]!))).join("  ").trimEnd();
  return [line(header), ...body.map(line)].join("\n");
}
