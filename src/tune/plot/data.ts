/**
 * What a tuning plot shows, before any drawing: the options checked, the axis parameters chosen,
 * each record's metric, and the best value of every cell (best over the parameters not shown).
 */
import { LoomError } from "../../errors.js";
import { shown } from "../space.js";
import { clip } from "./svg.js";
import type { TuningRecord, TuningStatus } from "../types.js";

export type Metric = "time" | "gflops" | "gbps";
export const METRICS: readonly Metric[] = ["time", "gflops", "gbps"];

export interface PlotTuningOptions {
  /** "time" (median ms, default; lower is better), "gflops" (GFLOP/s) or "gbps" (GB/s): higher is better. */
  readonly metric?: Metric;
  /** The parameter on the x axis; default the one with the most distinct values. */
  readonly x?: string;
  /** A second parameter: one coloured line per value. */
  readonly series?: string;
  /** Two parameters [columns, rows]: a heatmap of the metric instead of lines. */
  readonly heatmap?: readonly [string, string];
  readonly title?: string;
  /** Pixels; default 760 × 460. */
  readonly width?: number;
  readonly height?: number;
  /** A logarithmic metric axis (lines); default when the ok values span more than 30×. */
  readonly logY?: boolean;
}

export type Value = number | string;

export interface PlotData {
  readonly records: readonly TuningRecord[];
  readonly metric: Metric;
  readonly metricLabel: string;
  /** Higher is better (GFLOP/s, GB/s) or lower (time). */
  readonly higherBetter: boolean;
  readonly params: readonly string[];
  /** Each parameter's values in axis order (numbers ascending, then strings as first seen). */
  readonly values: ReadonlyMap<string, readonly Value[]>;
  /** The metric of an ok record (undefined when not ok or missing). */
  readonly valueOf: (r: TuningRecord) => number | undefined;
  readonly best?: TuningRecord;
  readonly title: string;
  readonly subtitle: string;
  readonly width: number;
  readonly height: number;
  readonly logY?: boolean;
}

const fail = (what: string): never => {
  throw new LoomError(`plotTuning: ${what}`);
};

const STATUSES: readonly TuningStatus[] = ["ok", "invalid", "wrong", "failed"];

function checkRecords(records: unknown): readonly TuningRecord[] {
  if (!Array.isArray(records)) fail(`records must be an array of tuning records (lp.autotune's records, lp.readTuningLog(path)); got ${shown(records)}`);
  const list = records as unknown[];
  if (list.length === 0) fail("there are no records to plot");
  list.forEach((r, i) => {
    const rec = r as Partial<TuningRecord> | null;
    if (rec === null || typeof rec !== "object" || rec.point === null || typeof rec.point !== "object" || !STATUSES.includes(rec.status as TuningStatus)) {
      fail(`record ${i} is not a tuning record: it needs point (an object) and status (${STATUSES.join(", ")}); got ${shown(r).slice(0, 120)}`);
    }
  });
  return list as TuningRecord[];
}

function checkParam(name: unknown, what: string, params: readonly string[]): string {
  if (typeof name !== "string" || !params.includes(name)) {
    fail(`${what} ${shown(name)} is not a parameter of the records; parameters are ${params.join(", ")}`);
  }
  return name as string;
}

/** Numbers ascending, then strings in the order first seen. */
function axisOrder(vs: readonly Value[]): Value[] {
  const nums = [...new Set(vs.filter((v): v is number => typeof v === "number"))].sort((a, b) => a - b);
  const strs = [...new Set(vs.filter((v): v is string => typeof v === "string"))];
  return [...nums, ...strs];
}

/** Keys of a value that cannot collide between the number 1 and the string "1". */
export function valueKey(v: unknown): string {
  return typeof v === "number" ? `n${v}` : `s${String(v)}`;
}

export function showPoint(p: Readonly<Record<string, unknown>>, leave: readonly string[] = []): string {
  return Object.entries(p).filter(([k]) => !leave.includes(k)).map(([k, v]) => `${k}=${String(v)}`).join(", ");
}

/** A point as legend lines `name=value`, the name shortened first so that the value stays readable. */
export function pointLines(p: Readonly<Record<string, unknown>>, width: number): string[] {
  return Object.entries(p).map(([k, v]) => {
    const value = clip(String(v), Math.max(8, width - 8));
    return `${clip(k, Math.max(6, width - 1 - [...value].length))}=${value}`;
  });
}

export interface Chosen {
  readonly kind: "lines" | "heatmap";
  readonly x: string;
  /** Series (lines) or rows (heatmap). */
  readonly by?: string;
}

/** Check the options and the records; choose the axes. */
export function prepare(recordsIn: unknown, opts: PlotTuningOptions | undefined): { data: PlotData; chosen: Chosen } {
  const records = checkRecords(recordsIn);
  const o = opts ?? {};
  if (o === null || typeof o !== "object") fail(`options must be an object such as { metric: "gflops", x: "ti" }; got ${shown(o)}`);
  const metric = o.metric ?? "time";
  if (!METRICS.includes(metric)) fail(`metric must be one of ${METRICS.join(", ")}; got ${shown(metric)}`);
  for (const side of ["width", "height"] as const) {
    const v = o[side];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 200 && v <= 10000)) fail(`${side} must be a number of pixels between 200 and 10000; got ${shown(v)}`);
  }
  if (o.title !== undefined && typeof o.title !== "string") fail(`title must be a string; got ${shown(o.title)}`);
  if (o.logY !== undefined && typeof o.logY !== "boolean") fail(`logY must be true or false; got ${shown(o.logY)}`);

  const params = [...new Set(records.flatMap((r) => Object.keys(r.point)))];
  if (params.length === 0) fail("the records' points have no parameters");
  const values = new Map(params.map((p) => [p, axisOrder(records.map((r) => r.point[p]).filter((v): v is Value => v !== undefined))]));

  let chosen: Chosen;
  if (o.heatmap !== undefined) {
    if (!Array.isArray(o.heatmap) || o.heatmap.length !== 2) fail(`heatmap must be two parameters [columns, rows]; got ${shown(o.heatmap)}`);
    const [x, y] = [checkParam(o.heatmap[0], "heatmap column parameter", params), checkParam(o.heatmap[1], "heatmap row parameter", params)];
    if (x === y) fail(`heatmap needs two different parameters; got "${x}" twice`);
    if (o.x !== undefined || o.series !== undefined) fail("give either heatmap or x/series, not both");
    chosen = { kind: "heatmap", x, by: y };
  } else {
    const x = o.x !== undefined ? checkParam(o.x, "x", params)
      : params.reduce((a, b) => (values.get(b)!.length > values.get(a)!.length ? b : a));
    const by = o.series !== undefined ? checkParam(o.series, "series", params) : undefined;
    if (by === x) fail(`series must differ from x; both are "${x}"`);
    chosen = { kind: "lines", x, ...(by !== undefined ? { by } : {}) };
  }

  const field = metric === "time" ? "medianMs" : metric;
  const valueOf = (r: TuningRecord): number | undefined => {
    const v = (r as unknown as Record<string, unknown>)[field];
    return r.status === "ok" && typeof v === "number" && Number.isFinite(v) ? v : undefined;
  };
  const ok = records.filter((r) => r.status === "ok");
  if (metric !== "time" && ok.length > 0 && ok.every((r) => valueOf(r) === undefined)) {
    fail(`no ok record has ${field} (the sweep measured none: it needs the kernel's statistics); plot metric "time" instead`);
  }
  const higherBetter = metric !== "time";
  let best: TuningRecord | undefined;
  for (const r of ok) {
    const v = valueOf(r);
    if (v === undefined) continue;
    const b = best && valueOf(best)!;
    if (b === undefined || (higherBetter ? v > b : v < b)) best = r;
  }
  const metricLabel = metric === "time" ? "median time (ms)" : metric === "gflops" ? "GFLOP/s" : "GB/s";
  const counts = STATUSES.map((s) => [s, records.filter((r) => r.status === s).length] as const).filter(([, n]) => n > 0);
  const first = records[0]!;
  const shownAgainst = chosen.kind === "heatmap" ? `${chosen.x} × ${chosen.by}` : `${chosen.x}${chosen.by ? ` by ${chosen.by}` : ""}`;
  const title = o.title ?? `${first.kernel?.name ?? "tuning"}: ${metricLabel} against ${shownAgainst}`;
  const facts = [
    `${records.length} variant${records.length === 1 ? "" : "s"} (${counts.map(([s, n]) => `${n} ${s}`).join(", ")})`,
    first.backend ? `backend ${first.backend}` : "",
    first.params ? showPoint(first.params) : "",
  ].filter((s) => s !== "");
  const rest = params.filter((p) => p !== chosen.x && p !== chosen.by);
  if (rest.length > 0) facts.push(`best over ${rest.join(", ")}`);
  return {
    chosen,
    data: {
      records, metric, metricLabel, higherBetter, params, values, valueOf, best, title, subtitle: facts.join(" · "),
      width: o.width ?? 760, height: o.height ?? 460, ...(o.logY !== undefined ? { logY: o.logY } : {}),
    },
  };
}

/** The best metric value among `rs` (undefined when none is ok). */
export function bestOf(data: PlotData, rs: readonly TuningRecord[]): number | undefined {
  let b: number | undefined;
  for (const r of rs) {
    const v = data.valueOf(r);
    if (v !== undefined && (b === undefined || (data.higherBetter ? v > b : v < b))) b = v;
  }
  return b;
}

/** Records grouped by the values of the given parameters. */
export function groupBy(records: readonly TuningRecord[], names: readonly string[]): Map<string, TuningRecord[]> {
  const out = new Map<string, TuningRecord[]>();
  for (const r of records) {
    const key = names.map((n) => valueKey(r.point[n])).join("\u0000");
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
}

export const NOT_OK: readonly Exclude<TuningStatus, "ok">[] = ["invalid", "wrong", "failed"];
export const STATUS_COLOUR: Readonly<Record<Exclude<TuningStatus, "ok">, string>> = { invalid: "#7f7f7f", wrong: "#d62728", failed: "#9467bd" };
export const STATUS_MEANING: Readonly<Record<Exclude<TuningStatus, "ok">, string>> = {
  invalid: "refused", wrong: "mismatch", failed: "error",
};
