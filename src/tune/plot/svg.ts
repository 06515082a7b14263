/**
 * A small SVG writer for the tuning plots: escaping (every user string goes through `text` or
 * `attr`), elements, number formatting, "nice" axis ticks and colour scales. No DOM needed.
 */

/** Characters XML 1.0 forbids (controls other than tab/newline/return, lone surrogates, U+FFFE/F) become U+FFFD. */
function xmlChars(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** `s` as XML character data: `& < >` escaped, forbidden characters replaced. */
export function text(s: string): string {
  return xmlChars(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** `s` as a double- or single-quoted attribute value (the quotes too; newlines kept as references). */
export function attr(s: string): string {
  return text(s).replace(/"/g, "&quot;").replace(/'/g, "&apos;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

export type Attrs = Readonly<Record<string, string | number | undefined>>;

/** One element; numbers are rounded to 2 decimals, undefined attributes left out. `body` is markup (already escaped). */
export function el(name: string, attrs: Attrs, body?: string): string {
  const a = Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${typeof v === "number" ? round(v) : attr(v!)}"`)
    .join("");
  return body === undefined ? `<${name}${a}/>` : `<${name}${a}>${body}</${name}>`;
}

/** A text element holding `s`, escaped; long strings are cut to `maxChars` with an ellipsis. */
export function label(x: number, y: number, s: string, attrs: Attrs = {}, maxChars = 80): string {
  return el("text", { x, y, ...attrs }, text(clip(s, maxChars)));
}

/** `s` cut to `n` characters (code points), the last replaced by "…". */
export function clip(s: string, n: number): string {
  const cps = [...s];
  return cps.length <= n ? s : `${cps.slice(0, Math.max(1, n - 1)).join("")}…`;
}

export function round(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** A value for a tick or a label: at most 4 significant digits, no exponent between 1e-4 and 1e6. */
export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-4) return v.toExponential(2).replace(/\.?0+e/, "e");
  return String(Number(v.toPrecision(4)));
}

/** The round step (1, 2 or 5 times a power of ten) for about `count` ticks over [lo, hi]. */
export function niceStep(lo: number, hi: number, count = 5): number {
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw * (1 - 1e-9)) ?? 10 * mag;
}

/** About `count` round tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const step = niceStep(lo, hi, count);
  const out: number[] = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) out.push(Number((i * step).toPrecision(12)));
  return out;
}

/** Powers of ten (and 2×, 5× between them when there are few) covering [lo, hi], lo > 0. */
export function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  const first = Math.floor(Math.log10(lo));
  const last = Math.ceil(Math.log10(hi));
  const mult = last - first <= 2 ? [1, 2, 5] : [1];
  for (let e = first; e <= last; e++) for (const m of mult) {
    const t = Number((m * 10 ** e).toPrecision(12));
    if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) out.push(t);
  }
  return out;
}

/** Distinct colours for series (Okabe–Ito, safe for colour-blind readers), then a cycle of hues. */
const SERIES = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"];

export function seriesColour(i: number): string {
  if (i < SERIES.length) return SERIES[i]!;
  return `hsl(${(i * 137.5) % 360}, 60%, 45%)`;
}

/** Viridis at nine stops: a sequential scale that stays readable in grey. */
const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];

/** The colour of `t` in [0, 1] on viridis. */
export function viridis(t: number): string {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [VIRIDIS[i]!, VIRIDIS[i + 1]!].map((c) => [1, 3, 5].map((o) => parseInt(c.slice(o, o + 2), 16)));
  return `#${a!.map((v, j) => Math.round(v + (b![j]! - v) * f).toString(16).padStart(2, "0")).join("")}`;
}

/** Whether text on `hex` should be white (a dark background) rather than black. */
export function darkBackground(hex: string): boolean {
  const [r, g, b] = [1, 3, 5].map((o) => parseInt(hex.slice(o, o + 2), 16) / 255);
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b! < 0.5;
}

/** An XML document holding one SVG of `width` × `height` with `body`, titled `title` (for screen readers too). */
export function svgDocument(width: number, height: number, title: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${el("svg", {
    xmlns: "http://www.w3.org/2000/svg", width, height, viewBox: `0 0 ${round(width)} ${round(height)}`,
    "font-family": "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif", "font-size": 12, role: "img",
  }, `\n${el("title", {}, text(title))}\n${el("rect", { width, height, fill: "#ffffff" })}\n${body}\n`)}\n`;
}

/** A cross of half-size `r` at (x, y), as a path. */
export function cross(x: number, y: number, r: number, attrs: Attrs): string {
  return el("path", { d: `M${round(x - r)},${round(y - r)}L${round(x + r)},${round(y + r)}M${round(x - r)},${round(y + r)}L${round(x + r)},${round(y - r)}`, fill: "none", ...attrs });
}

/** A five-pointed star of outer radius `r` at (x, y). */
export function star(x: number, y: number, r: number, attrs: Attrs): string {
  const pts: string[] = [];
  for (let i = 0; i < 10; i++) {
    const rad = i % 2 === 0 ? r : r * 0.45;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    pts.push(`${round(x + rad * Math.cos(a))},${round(y + rad * Math.sin(a))}`);
  }
  return el("polygon", { points: pts.join(" "), ...attrs });
}
