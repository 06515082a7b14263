/** The HTML forms of what `display` shows inside tslab. Every name and text is escaped here. */
import { assertNever } from "../errors.js";
import type { CountMap } from "../analysis/index.js";
import { affAdd, affSub, affToString, aff, dimBounds, type Bound } from "../poly/index.js";
import { allInames, domainIndexOf, exprToString, formatInameTag, show as showKernel, type Kernel } from "../ir/index.js";
import { showSchedule, type HwAxis, type Schedule } from "../schedule/index.js";
import type { GeneratedCode } from "../../codegen/index.js";
import type { TuningRecord } from "../tune/index.js";
import { block, escapeHtml, htmlTable, pre, type Cell } from "./html.js";
import { highlightCode } from "./highlight.js";
import type { Displayable } from "./kinds.js";
import { countRows } from "./counts.js";
import { bestIndex, tuningPlot, tuningTable } from "./tuning.js";

function boundText(bs: readonly Bound[], round: "ceil" | "floor", pick: "max" | "min"): string {
  if (bs.length === 0) return "∞";
  const one = bs.map((b) => (b.denom === 1 ? affToString(b.aff) : `${round}((${affToString(b.aff)})/${b.denom})`));
  return one.length === 1 ? one[0]! : `${pick}(${one.join(", ")})`;
}

/** `[lower, upper]` of an iname over its domain (in the parameters), and the count when both bounds are single and whole. */
function inameExtent(k: Kernel, iname: string): { range: string; extent: string } {
  const d = k.domains[domainIndexOf(k, iname)];
  if (d === undefined) return { range: "?", extent: "?" };
  try {
    const b = dimBounds(d, iname, []);
    const range = `[${boundText(b.lower, "ceil", "max")}, ${boundText(b.upper, "floor", "min")}]`;
    const [lo] = b.lower;
    const [hi] = b.upper;
    const single = b.lower.length === 1 && b.upper.length === 1 && lo!.denom === 1 && hi!.denom === 1;
    return { range, extent: single ? affToString(affAdd(affSub(hi!.aff, lo!.aff), aff({}, 1))) : "–" };
  } catch {
    return { range: "?", extent: "?" };
  }
}

function kernelHtml(k: Kernel): string {
  const rows = allInames(k).map((i) => {
    const t = k.inameTags[i];
    const { range, extent } = inameExtent(k, i);
    return [i, t ? formatInameTag(t) : "for (none)", range, extent];
  });
  const table = rows.length > 0 ? htmlTable(["iname", "tag", "range", "extent"], rows) : "<p>(no inames)</p>";
  return block(`kernel ${k.name}`, [table, pre(showKernel(k))]);
}

const axisText = (axes: readonly HwAxis[]): string =>
  axes.map((a) => `${a.tag}.${a.axis}: ${exprToString(a.size)}`).join(", ") || "1";

/** The LINEARIZATION listing with barriers and kernel launches set off. */
function scheduleHtml(s: Schedule): string {
  const lines = showSchedule(s).split("\n").map((line) => {
    const e = escapeHtml(line);
    if (/\.\.\. [lg]barrier/.test(line)) return `<span class="loom-barrier">${e}</span>`;
    if (/(CALL|RETURN FROM) KERNEL/.test(line)) return `<span class="loom-launch">${e}</span>`;
    return e;
  });
  const table = htmlTable(
    ["device kernel", "groups", "work-items", "args"],
    s.deviceKernels.map((dk) => [dk.name, axisText(dk.groupAxes), axisText(dk.localAxes), dk.args.join(", ")]),
  );
  return block(`schedule of ${s.kernel.name}`, [table, `<pre class="loom-pre">${lines.join("\n")}</pre>`]);
}

function codeHtml(c: GeneratedCode): string {
  const table = htmlTable(
    ["device kernel", "groups", "work-items", "args"],
    c.kernels.map((k) => [k.name, k.globalSize.join(", ") || "1", k.localSize.join(", ") || "1", k.args.join(", ")]),
  );
  const parts = [table, `<pre class="loom-pre hljs">${highlightCode(c.deviceCode.trimEnd(), c.target)}</pre>`];
  if (c.hostCode !== undefined && c.hostCode.trim() !== "") {
    const hostLanguage = c.target === "js" ? "js" : "c";
    parts.push("<h4>host code</h4>", `<pre class="loom-pre hljs">${highlightCode(c.hostCode.trimEnd(), hostLanguage)}</pre>`);
  }
  return block(`${c.target} code`, parts);
}

/** Several targets' code side by side, a column each (wrapping on narrow pages). */
function codesHtml(cs: readonly GeneratedCode[]): string {
  const cols = cs.map((c) => `<div class="loom-col"><h4>${escapeHtml(c.target)}</h4>` +
    `<pre class="loom-pre hljs">${highlightCode(c.deviceCode.trimEnd(), c.target)}</pre></div>`);
  return block(`${cs.length} targets`, [`<div class="loom-grid">${cols.join("")}</div>`]);
}

function countsHtml(m: CountMap): string {
  const tables = countRows(m);
  if (tables.length === 0) return block("counts", ["<p>(no counts)</p>"]);
  return block("counts", tables.map((t) => `<h4>${escapeHtml(t.title)}</h4>${htmlTable(t.header, t.rows)}`));
}

/** An SVG document for inline HTML: the XML prolog dropped (nbconvert keeps SVG inside HTML, not SVG outputs). */
export function inlineSvg(svg: string): string {
  return `<div class="loom-svg">${svg.replace(/^\s*<\?xml[^>]*>\s*/, "").trim()}</div>`;
}

function tuningHtml(records: readonly TuningRecord[]): string {
  if (records.length === 0) return block("tuning records", ["<p>(no tuning records)</p>"]);
  const { header, rows } = tuningTable(records);
  const best = bestIndex(records);
  const table = htmlTable(header, rows as Cell[][], (i) => (i === best ? "loom-best" : records[i]!.ok ? undefined : "loom-bad"));
  const ok = records.filter((r) => r.ok).length;
  const summary = `<p>${records.length} variants, ${ok} ok${best >= 0 ? `; best (highlighted): ${escapeHtml(records[best]!.medianMs.toPrecision(4))} ms` : ""}</p>`;
  const plot = tuningPlot(records);
  return block("tuning records", [summary, ...(plot !== undefined ? [inlineSvg(plot)] : []), table]);
}

/** The HTML form of a classified value. */
export function htmlOf(d: Displayable): string {
  switch (d.kind) {
    case "kernel": return kernelHtml(d.value);
    case "schedule": return scheduleHtml(d.value);
    case "code": return codeHtml(d.value);
    case "codes": return codesHtml(d.value);
    case "counts": return countsHtml(d.value);
    case "tuning": return tuningHtml(d.value);
    case "svg": return inlineSvg(d.value);
    case "text": return pre(d.value);
    default: return assertNever(d, "displayable");
  }
}
