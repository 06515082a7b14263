/** Shared by the display tests: kernels to show, a stand-in for tslab's kernel, and HTML readers. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lp from "../../src/index.js";

/** loopy's tutorial kernel, split and tagged for a GPU. */
export function twice(): lp.Kernel {
  const k = lp.makeKernel("{ [i]: 0 <= i < n }", "out[i] = 2*a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "twice" });
  return lp.tagInames(lp.splitIname(k, "i", 16), { i_outer: "g.0", i_inner: "l.0" });
}

/** A matrix product with a prefetch into local memory: its schedule has local barriers. */
export function prefetchedMatmul(): lp.Kernel {
  let k = lp.makeKernel(
    "{ [i, j, k]: 0 <= i, j, k < n }",
    "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"],
    { name: "matmul", assumptions: "n mod 16 = 0 and n >= 16" },
  );
  k = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
  k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
  k = lp.splitIname(k, "k", 16);
  return lp.addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"], defaultTag: "l.auto" });
}

/**
 * A fake tslab kernel as the display module looks for it: `tslab/dist/jupyter.js` loaded, with a
 * cell being executed, and `public.js` beside it whose `display.html` records what it is given.
 */
export function fakeTslab(): { shown: string[]; updates: string[][]; stop: () => void } {
  const dir = join(mkdtempSync(join(tmpdir(), "loom-fake-tslab-")), "node_modules", "tslab", "dist");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "jupyter.js"), "exports.lastWriteDisplayData = () => {};\n");
  writeFileSync(join(dir, "public.js"), [
    "exports.shown = [];",
    "exports.display = { html: (s) => exports.shown.push(s), text: (s) => exports.shown.push(s) };",
    "exports.updates = [];",
    "exports.newDisplay = () => { const mine = []; exports.updates.push(mine); return { html: (s) => mine.push(s), text: (s) => mine.push(s) }; };",
  ].join("\n"));
  const require = createRequire(import.meta.url);
  const jupyter = require(join(dir, "jupyter.js")) as { lastWriteDisplayData: unknown };
  const pub = require(join(dir, "public.js")) as { shown: string[]; updates: string[][] };
  return {
    shown: pub.shown,
    updates: pub.updates,
    stop: () => {
      jupyter.lastWriteDisplayData = null; // no cell executing: as tslab between cells
      delete require.cache[join(dir, "jupyter.js")];
      delete require.cache[join(dir, "public.js")];
    },
  };
}

const ALLOWED_TAG = /<\/?(div|h4|table|thead|tbody|tr|th|td|pre|span|p)( class="[a-z0-9_ -]*")?>/g;

const SVG_ELEMENT = new Set(["svg", "g", "rect", "line", "polyline", "polygon", "ellipse", "path", "circle", "text", "tspan", "title", "desc", "defs", "clipPath", "style"]);

/**
 * The markup left after removing the display's own tags and style sheet: must be none. An inline
 * SVG plot (lp.plotTuning's) may use SVG drawing elements only.
 */
export function foreignMarkup(html: string): string[] {
  const svgs: string[] = [];
  const rest = html
    .replace(/<div class="loom-svg">([\s\S]*?<\/svg>)<\/div>/g, (_, svg: string) => (svgs.push(svg), ""))
    .replace(/<style>[^<]*<\/style>/g, "")
    .replace(ALLOWED_TAG, "");
  const foreignSvg = svgs.flatMap((svg) => [...svg.matchAll(/<\/?([A-Za-z]+)/g)].map((m) => m[1]!).filter((t) => !SVG_ELEMENT.has(t)).map((t) => `<${t}`));
  return [...(rest.match(/<[^>]*>?/g) ?? []), ...foreignSvg];
}

/** The text a browser shows for the HTML (tags removed, entities decoded). */
export function htmlText(html: string): string {
  return html.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;|&#x27;/g, "'").replace(/&amp;/g, "&");
}
