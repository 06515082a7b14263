/**
 * `plotTuning`: tuning records as an SVG document (no DOM, no dependency). The metric against one
 * parameter (lines; a second parameter as coloured series) or two (a heatmap); variants that are
 * not ok are crosses by status; the best is a star. Every user string in it is escaped.
 */
import { prepare, type PlotTuningOptions } from "./plot/data.js";
import { heatmap } from "./plot/heatmap.js";
import { linePlot } from "./plot/lines.js";
import { svgDocument } from "./plot/svg.js";
import type { TuningRecord } from "./types.js";

export type { Metric as PlotMetric, PlotTuningOptions } from "./plot/data.js";

/**
 * An SVG document of `records`: by default median time against the parameter with the most
 * values, best over the others. Write it to a file or show it in a notebook.
 *
 *   writeFileSync("sweep.svg", lp.plotTuning(records, { x: "ti", series: "tj" }));
 *   lp.plotTuning(lp.readTuningLog("matmul.jsonl"), { heatmap: ["ti", "tj"], metric: "gflops" });
 */
export function plotTuning(records: readonly TuningRecord[], opts?: PlotTuningOptions): string {
  const { data, chosen } = prepare(records, opts);
  const body = chosen.kind === "heatmap" ? heatmap(data, chosen) : linePlot(data, chosen);
  return svgDocument(data.width, data.height, `${data.title} (${data.subtitle})`, body);
}
