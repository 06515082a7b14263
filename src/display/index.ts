/**
 * Rich display for notebooks (API.md, "Display"): `display(x)` shows a kernel, a schedule,
 * generated code, a count map, tuning records or an SVG as HTML inside tslab and prints the text
 * form elsewhere; `show(x)` returns the text form (for a kernel, loopy's `str(knl)`).
 */
import { setKernelPrinter, show as showKernel } from "../ir/index.js";
import { classify, isSvg, type DisplayInput } from "./kinds.js";
import { htmlOf } from "./rich.js";
import { textOf } from "./text.js";
import { tslabDisplay } from "./tslab.js";

export type { DisplayInput } from "./kinds.js";
export { escapeHtml } from "./html.js";
export { progress, type ProgressCallback } from "./progress.js";

// `String(k)` of any kernel is show(k).
setKernelPrinter(showKernel);

/**
 * The text form of `x`: `show(k)` for a kernel, the LINEARIZATION listing for a schedule, the code
 * with a header per device kernel, a table of counts or tuning records; a string as it is.
 *
 *     console.log(lp.show(lp.splitIname(k, "i", 16)))
 */
export function show(x: DisplayInput): string {
  return textOf(classify(x, "show"));
}

/**
 * Show `x` in a notebook: HTML inside tslab (a kernel with its table of inames, highlighted code,
 * tables, SVG plots); elsewhere print its text form (an SVG as a one-line summary). Returns undefined.
 *
 *     lp.display(lp.generateCode(k, "cuda"))
 */
export function display(x: DisplayInput): undefined {
  const d = classify(x, "display");
  const tslab = tslabDisplay();
  if (tslab !== undefined) {
    try {
      tslab.html(htmlOf(d));
      return undefined;
    } catch {
      // tslab refused (no cell executing after all): the text form below
    }
  }
  if (d.kind === "svg" && isSvg(d.value)) console.log(`<svg> (${d.value.length} characters): write it to a .svg file, or display it in tslab`);
  else console.log(textOf(d));
  return undefined;
}
