/**
 * A progress display for `lp.autotune`'s `onProgress`: a bar updated in place inside tslab (one
 * display entry), a line rewritten on a terminal, and one closing line elsewhere (logs, CI).
 */
import type { TuningRecord } from "../tune/index.js";
import { escapeHtml, formatNumber } from "./html.js";
import { tslabDisplay, tslabNewDisplay } from "./tslab.js";

export type ProgressCallback = (done: number, total: number, best?: TuningRecord) => void;

function bestText(best: TuningRecord | undefined): string {
  if (best === undefined || !best.ok) return "no variant ok yet";
  const point = Object.entries(best.point).map(([k, v]) => `${k}=${v}`).join(", ");
  return `best ${formatNumber(best.medianMs)} ms at ${point}`;
}

/**
 * `onProgress` for autotune that shows how far the sweep is and the best variant so far.
 *
 *     await lp.autotune(k, { ...opts, onProgress: lp.progress("matmul tile sizes") })
 */
export function progress(label = "tuning"): ProgressCallback {
  const started = Date.now();
  if (tslabDisplay() !== undefined) {
    const d = tslabNewDisplay();
    return (done, total, best) => {
      const pct = total > 0 ? Math.round((100 * done) / total) : 100;
      d?.html(`<div class="loom-progress" style="font-family:monospace;font-size:12px">${escapeHtml(label)}: ` +
        `<progress value="${done}" max="${Math.max(total, 1)}" style="width:200px"></progress> ${done}/${total} (${pct}%), ` +
        `${escapeHtml(bestText(best))}, ${((Date.now() - started) / 1000).toFixed(1)} s</div>`);
    };
  }
  const tty = process.stderr.isTTY === true;
  return (done, total, best) => {
    const line = `${label}: ${done}/${total}, ${bestText(best)}, ${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (tty) process.stderr.write(`\r${line}\x1b[K${done >= total ? "\n" : ""}`);
    else if (done >= total) console.log(line);
  };
}
