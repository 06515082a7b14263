/** HTML building blocks for the rich display: escaping, tables, and the one style sheet. */

const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `s` safe as HTML text and as a quoted attribute value: `escapeHtml("<b>")` is `&lt;b&gt;`. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A cell: plain text (escaped here) or `{ html }`, markup already escaped by the caller. */
export type Cell = string | number | { readonly html: string };

function cellHtml(c: Cell): string {
  if (typeof c === "number") return escapeHtml(formatNumber(c));
  return typeof c === "string" ? escapeHtml(c) : c.html;
}

/** Numbers as a table shows them: integers whole, others to 4 significant digits, NaN as "–". */
export function formatNumber(x: number): string {
  if (Number.isNaN(x)) return "–";
  if (Number.isInteger(x) || !Number.isFinite(x)) return String(x);
  return Math.abs(x) >= 1e4 || Math.abs(x) < 1e-3 ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

/** An HTML table with a header row; `rowClass(i)` may mark rows (the best tuning record). */
export function htmlTable(header: readonly string[], rows: readonly (readonly Cell[])[], rowClass?: (i: number) => string | undefined): string {
  const head = `<tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr>`;
  const body = rows.map((r, i) => {
    const cls = rowClass?.(i);
    return `<tr${cls ? ` class="${escapeHtml(cls)}"` : ""}>${r.map((c) => `<td>${cellHtml(c)}</td>`).join("")}</tr>`;
  });
  return `<table class="loom-table"><thead>${head}</thead><tbody>${body.join("")}</tbody></table>`;
}

/** The same table as aligned text columns, for terminals. */
export function textTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === "number" ? formatNumber(c) : c)))];
  const widths = header.map((_, j) => Math.max(...cells.map((r) => (r[j] ?? "").length)));
  const line = (r: readonly string[]) => r.map((c, j) => c.padEnd(widths[j]!)).join("  ").trimEnd();
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

/** Text in a `<pre>` block, escaped. */
export function pre(text: string, cls = "loom-pre"): string {
  return `<pre class="${cls}">${escapeHtml(text)}</pre>`;
}

// Colours that read on Jupyter's light and dark themes alike; the hljs-* classes are highlight.js's.
const STYLE = `<style>
.loom-display{font-family:system-ui,sans-serif;font-size:13px}
.loom-display h4{margin:8px 0 4px 0;font-size:13px}
.loom-display pre{white-space:pre!important;background:rgba(127,127,127,.08);padding:6px 8px;border-radius:4px;overflow-x:auto;font-size:12px;line-height:1.35}
.loom-table{border-collapse:collapse;margin:4px 0}
.loom-display .loom-table th,.loom-display .loom-table td{border:1px solid rgba(127,127,127,.35);padding:2px 8px;text-align:left!important;font-family:monospace;font-size:12px}
.loom-table th{background:rgba(127,127,127,.12)}
.loom-table tr.loom-best td{background:rgba(60,180,90,.18);font-weight:bold}
.loom-table tr.loom-bad td{color:#a33}
.loom-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:8px}
.loom-col{min-width:0}
.loom-barrier{color:#c2410c;font-weight:bold}
.loom-launch{color:#2563eb;font-weight:bold}
.hljs-keyword,.hljs-meta .hljs-keyword{color:#a626a4}.hljs-type,.hljs-built_in{color:#0e7490}
.hljs-string{color:#50a14f}.hljs-number,.hljs-literal{color:#c2410c}.hljs-comment{color:#8a8a8a;font-style:italic}
.hljs-meta{color:#4078f2}.hljs-title{color:#2563eb}.hljs-attr,.hljs-variable{color:#b45309}
</style>`;

/** A display block: the style sheet, a title, and the parts. */
export function block(title: string, parts: readonly string[]): string {
  return `<div class="loom-display">${STYLE}<h4>${escapeHtml(title)}</h4>${parts.join("\n")}</div>`;
}
