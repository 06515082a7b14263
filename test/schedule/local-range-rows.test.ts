/**
 * Local ranges read off a domain's rows (issue 21): a split's inner iname and a fetch's dims are
 * bounded by rows over the iname alone, so the tag checks (`hasConstantRows`) and the local axes
 * (device.ts, `witnessedRange`) need no projection. The laws: where the rows say a constant range
 * exists, `constRange` (the projection) finds one; the axis read off the rows is the one the
 * chain's projection gives (test/schedule/hw-axis-own-factor.test.ts, over random domains); and a
 * tiled kernel's tag checks and local axes ask the poly layer nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exprToString } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos, polyWork } from "../../src/poly/index.js";
import { checkInameTags, constRange, hasConstantRows } from "../../src/schedule/checks.js";
import { hwAxis, hwAxisOfChain } from "../../src/schedule/device.js";
import { LoomError } from "../../src/errors.js";
import { splitIname } from "../../transforms/index.js";

/** A bound `c + q*name` (name "" for a constant). */
const bound = fc.tuple(fc.integer({ min: -3, max: 12 }), fc.integer({ min: -2, max: 2 }), fc.constantFrom("", "n", "y"));
const text = ([c, q, name]: [number, number, string]) => (name === "" || q === 0 ? String(c) : `${c} + ${q}*${name}`);

describe("constant ranges read off the rows over an iname alone", () => {
  it("exist wherever the rows say so: constRange (the projection) finds one", () => {
    let said = 0;
    fc.assert(fc.property(bound, bound, bound, bound, fc.boolean(), (lx, ux, ly, uy, even) => {
      const rows = [`${text(lx)} <= x`, `x <= ${text(ux)}`, `${text(ly)} <= y`, `y <= ${text(uy)}`, ...(even ? ["x + y mod 2 = 0"] : [])];
      let k;
      try {
        k = makeKernel(`{[x, y]: ${rows.join(" and ")}}`, "out[x, y] = 1", ["out: float32[20, 20]", "n: int32"], { name: "rows" });
      } catch (e) {
        if (e instanceof LoomError) return;
        throw e;
      }
      for (const iname of ["x", "y"]) {
        if (!hasConstantRows(k, iname)) continue;
        said++;
        expect(constRange(k, iname), `${iname} of ${rows.join(" and ")}`).toBeDefined();
      }
    }), { numRuns: 60 });
    expect(said).toBeGreaterThan(10);
  });
});

describe("a tiled kernel's local ranges", () => {
  const tiled = (t: number) => {
    const k = makeKernel("{[i, j]: 0 <= i < n and 0 <= j < n}", "out[i, j] = 2*a[i, j]", ["a, out: float32[n, n]", "n: int32"], { name: "tiled" });
    return splitIname(splitIname(k, "i", t, { outerTag: "g.0", innerTag: "l.1" }), "j", 2 * t, { outerTag: "g.1", innerTag: "l.0" });
  };

  it("are checked and made into local axes with no poly question, the axes those of the chain's projection", () => {
    for (const t of [3, 4, 16]) {
      const k = tiled(t);
      clearPolyMemos();
      const before = polyWork();
      checkInameTags(k);
      const axes = [hwAxis(k, "i_inner", "l", 1), hwAxis(k, "j_inner", "l", 0)];
      expect(polyWork() - before, `tile ${t}`).toBe(0);
      const exact = [hwAxisOfChain(k, "i_inner", "l", 1), hwAxisOfChain(k, "j_inner", "l", 0)];
      expect(axes.map((a) => `${exprToString(a.base)} ${exprToString(a.size)}`)).toEqual(exact.map((a) => `${exprToString(a.base)} ${exprToString(a.size)}`));
      expect(axes.map((a) => exprToString(a.size))).toEqual([String(t), String(2 * t)]);
    }
  });
});
