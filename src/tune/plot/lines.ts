/**
 * The line plot: the metric against one parameter (categorical x axis, values in axis order), one
 * coloured line per value of a second parameter, each line through the best value of its cells;
 * every ok variant a faint dot; variants that are not ok crosses in a strip below, one row per status.
 */
import {
  bestOf, groupBy, NOT_OK, pointLines, STATUS_COLOUR, STATUS_MEANING, valueKey, type Chosen, type PlotData, type Value,
} from "./data.js";
import { clip, cross, el, fmt, label, logTicks, niceStep, niceTicks, round, seriesColour, star, text } from "./svg.js";

/** Characters that fit in the legend (about 160 px of 11 px text, at a generous 7 px a character). */
export const LEGEND_CHARS = 22;

export interface Frame {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** Title, subtitle. */
export function heading(data: PlotData): string {
  const maxChars = Math.floor((data.width - 32) / 10); // 16px bold: about 10px a character
  return [
    label(16, 24, data.title, { "font-size": 16, "font-weight": "bold", fill: "#111" }, maxChars),
    label(16, 43, data.subtitle, { "font-size": 11, fill: "#555" }, Math.floor((data.width - 32) / 6.5)),
  ].join("\n");
}

/** A vertical metric axis: linear with round ticks, or logarithmic. */
export function metricScale(lo: number, hi: number, log: boolean, y0: number, y1: number) {
  if (log) {
    const [a, b] = [Math.log10(lo) - 0.05, Math.log10(hi) + 0.05];
    return { ticks: logTicks(10 ** a, 10 ** b), y: (v: number) => y1 - ((Math.log10(v) - a) / (b - a)) * (y1 - y0) };
  }
  if (hi === lo) [lo, hi] = [lo - Math.abs(lo || 1) * 0.1, hi + Math.abs(hi || 1) * 0.1];
  const step = niceStep(lo, hi, 6);
  const [a, b] = [Math.floor(lo / step + 1e-9) * step, Math.ceil(hi / step - 1e-9) * step];
  return { ticks: niceTicks(a, b, 6), y: (v: number) => y1 - ((v - a) / (b - a)) * (y1 - y0) };
}

/** Labels of a categorical axis thinned so they do not overlap. */
export function thinned(values: readonly Value[], span: number): { shownEvery: number; labels: string[] } {
  const labels = values.map((v) => clip(String(v), 14));
  const widest = Math.max(...labels.map((l) => [...l].length)) * 6.6 + 8;
  return { shownEvery: Math.max(1, Math.ceil((widest * values.length) / span)), labels };
}

export function linePlot(data: PlotData, chosen: Chosen): string {
  const { width: W, height: H } = data;
  const xs = data.values.get(chosen.x)!;
  const series = chosen.by !== undefined ? data.values.get(chosen.by)! : [undefined];
  const others = data.params.filter((p) => p !== chosen.x && p !== chosen.by);
  const statuses = NOT_OK.filter((s) => data.records.some((r) => r.status === s));
  const strip = statuses.length > 0 ? statuses.length * 16 + 10 : 0;
  const f: Frame = { left: 74, right: W - 200, top: 62, bottom: H - 58 - strip };
  const xOf = (v: Value) => f.left + ((xs.findIndex((u) => u === v) + 0.5) * (f.right - f.left)) / xs.length;
  const out: string[] = [heading(data)];

  const okValues = data.records.map(data.valueOf).filter((v): v is number => v !== undefined);
  const lo = Math.min(...okValues);
  const hi = Math.max(...okValues);
  const log = okValues.length > 0 && lo > 0 && (data.logY ?? hi / lo > 30);
  const scale = okValues.length > 0 ? metricScale(lo, hi, log, f.top + 8, f.bottom - 8) : undefined;

  // Frame, grid and metric ticks.
  out.push(el("rect", { x: f.left, y: f.top, width: f.right - f.left, height: f.bottom - f.top, fill: "#fafafa", stroke: "#bbb" }));
  if (scale) {
    for (const t of scale.ticks) {
      const y = scale.y(t);
      if (y < f.top - 0.5 || y > f.bottom + 0.5) continue;
      out.push(el("line", { x1: f.left, x2: f.right, y1: y, y2: y, stroke: "#e4e4e4" }));
      out.push(label(f.left - 6, y + 4, fmt(t), { "text-anchor": "end", "font-size": 11, fill: "#333" }));
    }
  } else {
    out.push(label((f.left + f.right) / 2, (f.top + f.bottom) / 2, "no ok variant: nothing was timed", { "text-anchor": "middle", fill: "#555" }));
  }
  out.push(el("text", { x: 18, y: (f.top + f.bottom) / 2, transform: `rotate(-90 18 ${round((f.top + f.bottom) / 2)})`, "text-anchor": "middle", "font-size": 12, fill: "#111" },
    text(`${data.metricLabel}${log ? ", log scale" : ""}`)));

  // Categorical x axis below the strip.
  const axisY = f.bottom + strip;
  const { shownEvery, labels } = thinned(xs, f.right - f.left);
  xs.forEach((v, i) => {
    const x = xOf(v);
    out.push(el("line", { x1: x, x2: x, y1: axisY, y2: axisY + 5, stroke: "#333" }));
    if (i % shownEvery === 0) out.push(label(x, axisY + 18, labels[i]!, { "text-anchor": "middle", "font-size": 11, fill: "#333" }));
  });
  out.push(label((f.left + f.right) / 2, axisY + 42, chosen.x, { "text-anchor": "middle", "font-size": 12, fill: "#111" }, 60));

  // Series: faint dots for every ok variant, a line and solid dots through the best of each cell.
  const cells = groupBy(data.records, chosen.by !== undefined ? [chosen.x, chosen.by] : [chosen.x]);
  const legend: string[] = [];
  let ly = f.top + 4;
  const lx = f.right + 18;
  const legendLine = (mark: string, textLine: string, dy = 18) => {
    legend.push(mark, label(lx + 22, ly + 4, textLine, { "font-size": 11, fill: "#222" }, LEGEND_CHARS));
    ly += dy;
  };
  if (chosen.by !== undefined) {
    legend.push(label(lx, ly + 4, chosen.by, { "font-size": 12, "font-weight": "bold", fill: "#111" }, LEGEND_CHARS - 1));
    ly += 18;
  }
  series.forEach((s, si) => {
    const colour = seriesColour(si);
    const pts: [number, number][] = [];
    if (scale) {
      for (const v of xs) {
        const key = s === undefined ? valueKey(v) : `${valueKey(v)}\u0000${valueKey(s)}`;
        const rs = cells.get(key) ?? [];
        if (others.length > 0) {
          for (const r of rs) {
            const m = data.valueOf(r);
            if (m !== undefined) out.push(el("circle", { cx: xOf(v), cy: scale.y(m), r: 2.4, fill: colour, "fill-opacity": 0.3 }));
          }
        }
        const b = bestOf(data, rs);
        if (b !== undefined) pts.push([xOf(v), scale.y(b)]);
      }
      if (pts.length > 1) out.push(el("polyline", { points: pts.map(([x, y]) => `${round(x)},${round(y)}`).join(" "), fill: "none", stroke: colour, "stroke-width": 2 }));
      for (const [x, y] of pts) out.push(el("circle", { cx: x, cy: y, r: 3.6, fill: colour }));
    }
    if (s !== undefined || series.length === 1) {
      legendLine(el("line", { x1: lx, x2: lx + 16, y1: ly, y2: ly, stroke: colour, "stroke-width": 2 }) + el("circle", { cx: lx + 8, cy: ly, r: 3.2, fill: colour }),
        s === undefined ? `best per ${chosen.x}` : String(s));
    }
  });
  if (scale && others.length > 0) legendLine(el("circle", { cx: lx + 8, cy: ly, r: 2.4, fill: "#444", "fill-opacity": 0.4 }), `each ok variant`);

  // The best variant: a star, and its point in the legend.
  if (scale && data.best) {
    const v = data.valueOf(data.best)!;
    out.push(star(xOf(data.best.point[chosen.x] as Value), scale.y(v), 9, { fill: "#ffd400", stroke: "#111", "stroke-width": 1.2 }));
    ly += 4;
    legendLine(star(lx + 8, ly, 7, { fill: "#ffd400", stroke: "#111", "stroke-width": 1 }), `best: ${fmt(v)} ${data.metric === "time" ? "ms" : data.metricLabel}`, 15);
    for (const part of pointLines(data.best.point, LEGEND_CHARS)) {
      legend.push(label(lx + 22, ly + 4, part, { "font-size": 10.5, fill: "#444" }, LEGEND_CHARS));
      ly += 14;
    }
    ly += 4;
  }

  // Variants that are not ok: one row per status; a count beside a cross that stands for several.
  statuses.forEach((st, i) => {
    const y = f.bottom + 12 + i * 16;
    out.push(label(f.left - 6, y + 4, st, { "text-anchor": "end", "font-size": 10.5, fill: STATUS_COLOUR[st] }));
    const byX = groupBy(data.records.filter((r) => r.status === st), [chosen.x]);
    for (const v of xs) {
      const n = byX.get(valueKey(v))?.length ?? 0;
      if (n === 0) continue;
      out.push(cross(xOf(v), y, 4, { stroke: STATUS_COLOUR[st], "stroke-width": 2 }));
      if (n > 1) out.push(label(xOf(v) + 7, y + 4, `${n}`, { "font-size": 9.5, fill: STATUS_COLOUR[st] }));
    }
    const total = data.records.filter((r) => r.status === st).length;
    legendLine(cross(lx + 8, ly, 4, { stroke: STATUS_COLOUR[st], "stroke-width": 2 }), `${st} (${total}): ${STATUS_MEANING[st]}`);
  });
  if (strip > 0) out.push(el("line", { x1: f.left, x2: f.right, y1: f.bottom + strip - 2, y2: f.bottom + strip - 2, stroke: "#bbb" }));
  else out.push(el("line", { x1: f.left, x2: f.right, y1: axisY, y2: axisY, stroke: "#bbb" }));
  return [...out, ...legend].join("\n");
}
