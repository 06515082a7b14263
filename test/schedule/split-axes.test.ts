/**
 * A group axis read off a split's rows (split-axes.ts): where `splitBounds` answers, the g axis
 * `hwAxis` makes from it is the one `hwAxisOfChain` (the exact route: the chain's factor,
 * projected) makes. The law over random splits: tile sizes, the partner's range, offsets and
 * parameter parts, with and without rows the fast path must refuse.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { axisText } from "./axis-text.js";
import { makeKernel } from "../../src/parse/index.js";
import { hwAxis, hwAxisOfChain } from "../../src/schedule/device.js";
import { splitBounds } from "../../src/schedule/split-axes.js";
import { splitIname } from "../../transforms/index.js";
import type { BasicSet } from "../../src/poly/index.js";

function owners(ds: readonly BasicSet[]): Map<string, BasicSet | null> {
  const m = new Map<string, BasicSet | null>();
  for (const d of ds) for (const x of d.dims) m.set(x, m.has(x) ? null : d);
  return m;
}

describe("group axes read off a split's rows", () => {
  it("answer for splitIname's outer iname", () => {
    const k = makeKernel("{[i, j]: 0 <= i < n and 0 <= j < n}", "out[i, j] = 1", ["out: float32[n, n]", "n: int32"]);
    const s = splitIname(splitIname(k, "i", 8, { outerTag: "g.0", innerTag: "l.0" }), "j", 3, { outerTag: "g.1" });
    for (const [iname, axis] of [["i_outer", 0], ["j_outer", 1]] as const) {
      expect(splitBounds(s.domains[0]!, owners(s.domains), iname)).toBeDefined();
      expect(axisText(() => hwAxis(s, iname, "g", axis))).toBe(axisText(() => hwAxisOfChain(s, iname, "g", axis)));
    }
  });

  it("are the axes of the chain's factor", () => {
    let answered = 0;
    const part = fc.constantFrom("n", "n + m", "n - m", "", "2*n", "m");
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 64 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -1, max: 70 }), fc.integer({ min: -9, max: 9 }),
      part, fc.integer({ min: -9, max: 9 }), fc.constantFrom("", " and n >= 1", " and 0 <= j < 4*io", " and ii = 2*e", " and 0 <= j < n"),
      (t, a, w, lo, p, hi, extra) => {
        const dom = `{[io, ii, j]: ${a} <= ii <= ${a + w} and ${lo} <= ii + ${t}*io <= ${p === "" ? "" : `${p} + `}${hi}${extra.replace("e", "io")}}`;
        let k;
        try {
          k = makeKernel(dom, "out[io, ii] = 1", ["out: float32[n, 80]", "n: int32", "m: int32"], { name: "split" });
        } catch {
          return;
        }
        if (splitBounds(k.domains[0]!, owners(k.domains), "io") !== undefined) answered++;
        expect(axisText(() => hwAxis(k, "io", "g", 0)), dom).toBe(axisText(() => hwAxisOfChain(k, "io", "g", 0)));
      }), { numRuns: 300 });
    // The generator reaches the fast path (not only shapes it refuses).
    expect(answered).toBeGreaterThan(60);
  });
});
