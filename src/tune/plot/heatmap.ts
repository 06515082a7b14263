/**
 * The heatmap: one cell per pair of values of two parameters, coloured by the best metric of its
 * variants (brighter is better, viridis); a cell with records but no ok one is grey with a cross
 * in the colour of its most common status; a cell without records is left blank. The best cell
 * has a thick outline and a star.
 */
import { bestOf, groupBy, NOT_OK, pointLines, STATUS_COLOUR, STATUS_MEANING, valueKey, type Chosen, type PlotData } from "./data.js";
import { heading, LEGEND_CHARS, thinned } from "./lines.js";
import { clip, cross, darkBackground, el, fmt, label, round, star, text, viridis } from "./svg.js";

export function heatmap(data: PlotData, chosen: Chosen): string {
  const { width: W, height: H } = data;
  const cols = data.values.get(chosen.x)!;
  const rows = data.values.get(chosen.by!)!;
  const rowLabels = rows.map((v) => String(v));
  const left = Math.min(160, 40 + Math.max(...rowLabels.map((l) => Math.min(14, [...l].length))) * 7);
  const f = { left, right: W - 200, top: 62, bottom: H - 58 };
  const cw = (f.right - f.left) / cols.length;
  const ch = (f.bottom - f.top) / rows.length;
  const out: string[] = [heading(data)];
  const cells = groupBy(data.records, [chosen.x, chosen.by!]);
  const cellBest = new Map([...cells].map(([key, rs]) => [key, bestOf(data, rs)] as const));
  const okValues = [...cellBest.values()].filter((v): v is number => v !== undefined);
  const lo = Math.min(...okValues);
  const hi = Math.max(...okValues);
  // Brighter is better; a logarithmic scale when the cells span more than 3×, so one slow outlier
  // does not wash out the differences among the rest.
  const log = lo > 0 && hi / lo > 3;
  const pos = (v: number) => (hi === lo ? 1 : log ? Math.log(v / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo));
  const goodness = (v: number) => (data.higherBetter ? pos(v) : 1 - pos(v));
  const valueAt = (g: number) => { // the inverse of goodness, for the colour bar's labels
    const p = data.higherBetter ? g : 1 - g;
    return log ? lo * (hi / lo) ** p : lo + (hi - lo) * p;
  };
  const bestKey = data.best ? `${valueKey(data.best.point[chosen.x])}\u0000${valueKey(data.best.point[chosen.by!])}` : undefined;
  const showValues = cw >= 40 && ch >= 16;

  rows.forEach((rv, ri) => {
    const y = f.top + ri * ch;
    cols.forEach((cv, ci) => {
      const x = f.left + ci * cw;
      const key = `${valueKey(cv)}\u0000${valueKey(rv)}`;
      const rs = cells.get(key) ?? [];
      const b = cellBest.get(key);
      if (rs.length === 0) {
        out.push(el("rect", { x: x + 1, y: y + 1, width: cw - 2, height: ch - 2, fill: "#ffffff", stroke: "#ddd", "stroke-dasharray": "3 3" }));
      } else if (b === undefined) {
        const st = NOT_OK.map((s) => [s, rs.filter((r) => r.status === s).length] as const).sort((p, q) => q[1] - p[1])[0]![0];
        out.push(el("rect", { x: x + 1, y: y + 1, width: cw - 2, height: ch - 2, fill: "#ececec" }));
        out.push(cross(x + cw / 2, y + ch / 2, Math.min(6, cw / 4, ch / 4), { stroke: STATUS_COLOUR[st], "stroke-width": 2 }));
      } else {
        const colour = viridis(goodness(b));
        out.push(el("rect", { x: x + 1, y: y + 1, width: cw - 2, height: ch - 2, fill: colour }));
        if (showValues) {
          out.push(label(x + cw / 2, y + ch / 2 + 4, fmt(b), { "text-anchor": "middle", "font-size": 11, fill: darkBackground(colour) ? "#fff" : "#111" }, Math.floor(cw / 7)));
        }
      }
      if (key === bestKey) {
        out.push(el("rect", { x: x + 1.5, y: y + 1.5, width: cw - 3, height: ch - 3, fill: "none", stroke: "#111", "stroke-width": 3 }));
        out.push(star(x + cw - 9, y + 10, Math.min(7, ch / 3), { fill: "#ffd400", stroke: "#111", "stroke-width": 1 }));
      }
    });
    out.push(label(f.left - 6, y + ch / 2 + 4, rowLabels[ri]!, { "text-anchor": "end", "font-size": 11, fill: "#333" }, 14));
  });
  const { shownEvery, labels } = thinned(cols, f.right - f.left);
  cols.forEach((_, ci) => {
    if (ci % shownEvery === 0) out.push(label(f.left + (ci + 0.5) * cw, f.bottom + 18, labels[ci]!, { "text-anchor": "middle", "font-size": 11, fill: "#333" }));
  });
  out.push(label((f.left + f.right) / 2, f.bottom + 42, chosen.x, { "text-anchor": "middle", "font-size": 12, fill: "#111" }, 60));
  out.push(el("text", { x: 16, y: (f.top + f.bottom) / 2, transform: `rotate(-90 16 ${round((f.top + f.bottom) / 2)})`, "text-anchor": "middle", "font-size": 12, fill: "#111" },
    text(clip(chosen.by!, 40))));

  // Legend: the colour bar (best at the top), then the statuses and the best point.
  const lx = f.right + 18;
  let ly = f.top + 4;
  out.push(label(lx, ly + 4, data.metricLabel, { "font-size": 12, "font-weight": "bold", fill: "#111" }, LEGEND_CHARS));
  ly += 14;
  if (okValues.length > 0) {
    const barH = Math.min(140, f.bottom - f.top - 120);
    const steps = 24;
    for (let i = 0; i < steps; i++) {
      out.push(el("rect", { x: lx, y: ly + (i * barH) / steps, width: 16, height: barH / steps + 0.5, fill: viridis(1 - i / (steps - 1)) }));
    }
    out.push(label(lx + 22, ly + 9, `${fmt(valueAt(1))} (best)`, { "font-size": 11, fill: "#222" }));
    if (hi !== lo) out.push(label(lx + 22, ly + barH / 2 + 4, fmt(valueAt(0.5)), { "font-size": 11, fill: "#222" }));
    out.push(label(lx + 22, ly + barH, `${fmt(valueAt(0))}${log ? " (log scale)" : ""}`, { "font-size": 11, fill: "#222" }));
    ly += barH + 22;
  }
  for (const st of NOT_OK) {
    const n = data.records.filter((r) => r.status === st).length;
    if (n === 0) continue;
    out.push(el("rect", { x: lx, y: ly - 8, width: 16, height: 16, fill: "#ececec" }), cross(lx + 8, ly, 4, { stroke: STATUS_COLOUR[st], "stroke-width": 2 }));
    out.push(label(lx + 22, ly + 4, `${st} (${n}): ${STATUS_MEANING[st]}`, { "font-size": 11, fill: "#222" }, LEGEND_CHARS));
    ly += 20;
  }
  if (data.records.length < cols.length * rows.length) {
    out.push(el("rect", { x: lx, y: ly - 8, width: 16, height: 16, fill: "#fff", stroke: "#bbb", "stroke-dasharray": "3 3" }));
    out.push(label(lx + 22, ly + 4, "not measured", { "font-size": 11, fill: "#222" }));
    ly += 20;
  }
  if (data.best) {
    ly += 4;
    out.push(star(lx + 8, ly, 7, { fill: "#ffd400", stroke: "#111", "stroke-width": 1 }));
    out.push(label(lx + 22, ly + 4, `best: ${fmt(data.valueOf(data.best)!)} ${data.metric === "time" ? "ms" : data.metricLabel}`, { "font-size": 11, fill: "#222" }, LEGEND_CHARS));
    for (const part of pointLines(data.best.point, LEGEND_CHARS)) {
      ly += 14;
      out.push(label(lx + 22, ly + 4, part, { "font-size": 10.5, fill: "#444" }, LEGEND_CHARS));
    }
  }
  return out.join("\n");
}
