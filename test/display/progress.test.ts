/** lp.progress(): autotune's onProgress shown as a bar updated in place in tslab, a closing line elsewhere. */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as lp from "../../src/index.js";
import type { TuningRecord } from "../../src/tune/index.js";
import { fakeTslab, foreignMarkup } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const ok = (point: Record<string, number | string>, ms: number): TuningRecord => ({ point, ok: true, status: "ok", times: [ms], medianMs: ms });

describe("progress", () => {
  it("inside tslab: one display entry, overwritten at each step, with the count and the best so far", () => {
    const t = fakeTslab();
    try {
      const onProgress = lp.progress("tiles");
      onProgress(1, 4, undefined);
      onProgress(2, 4, ok({ f: 16 }, 1.25));
      onProgress(4, 4, ok({ f: 16 }, 1.25));
    } finally {
      t.stop();
    }
    expect(t.shown).toEqual([]);
    expect(t.updates).toHaveLength(1);
    const [steps] = t.updates;
    expect(steps).toHaveLength(3);
    expect(steps![0]).toContain('<progress value="1" max="4"');
    expect(steps![2]).toMatch(/4\/4 \(100%\), best 1\.25 ms at f=16/);
  });

  it("for all labels and points: no markup of theirs in the bar", () => {
    fc.assert(fc.property(fc.string(), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), (label, point) => {
      const t = fakeTslab();
      try {
        lp.progress(label)(1, 2, ok(point, 2));
      } finally {
        t.stop();
      }
      const html = t.updates[0]![0]!.replace(/<progress value="\d+" max="\d+" style="[^"]*"><\/progress>/, "").replace(/<div class="loom-progress" style="[^"]*">/, "");
      expect(foreignMarkup(html)).toEqual([]);
    }), { numRuns: 50 });
  });

  it("outside tslab and a terminal: nothing until the sweep is done, then one line", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const had = Object.getOwnPropertyDescriptor(process.stderr, "isTTY");
    Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true });
    let onProgress: lp.ProgressCallback;
    try {
      onProgress = lp.progress("sweep");
    } finally {
      if (had) Object.defineProperty(process.stderr, "isTTY", had);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    onProgress(1, 3);
    onProgress(2, 3, ok({ f: 8 }, 3));
    expect(log).not.toHaveBeenCalled();
    onProgress(3, 3, ok({ f: 8 }, 3));
    expect(log).toHaveBeenCalledTimes(1);
    expect(String(log.mock.calls[0]![0])).toMatch(/^sweep: 3\/3, best 3 ms at f=8, /);
  });
});
