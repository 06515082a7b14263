/**
 * shiftDims (a fetch's domain from its footprint, written down at once) gives the set the stepwise
 * route gives (substitute per dim, addConstraints, moveToDims, reorderDims), row for row: over
 * random footprints (tiles, triangles, parametric and constant bounds, strides and equalities,
 * which take the stepwise route), random bases, stored and dropped axes, constant and
 * parametric extents.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aff, clearPolyMemos, parseSet, setContentId, shiftDims, type Aff, type DimShift } from "../../src/poly/index.js";
import { useShiftAtOnce } from "../../src/poly/shift.js";

const term = fc.tuple(fc.constantFrom("x0", "x1", "n", "p", "q"), fc.integer({ min: -3, max: 3 }));
const row = fc.record({ terms: fc.array(term, { minLength: 1, maxLength: 3 }), c: fc.integer({ min: -20, max: 20 }), op: fc.constantFrom(">=", ">=", ">=", "=") });
const text = (r: { terms: [string, number][]; c: number; op: string }) => `${r.terms.map(([v, k]) => `${k}*${v}`).join(" + ")} + ${r.c} ${r.op} 0`;
/** Footprints a fetch sees: boxes at an offset in a parameter, a triangle, and random rows (some equalities, a stride). */
const footprint = fc.tuple(
  fc.constantFrom("16*p <= x0 < 16*p + 16", "0 <= x0 <= x1 < n", "q <= x0 < q + 4 and x0 < n", "0 <= x0 < n"),
  fc.constantFrom("0 <= x1 < 8", "8*q <= x1 <= 8*q + 7", "x1 >= 0 and x1 <= x0", "x1 mod 2 = 0 and 0 <= x1 < n"),
  fc.array(row, { maxLength: 2 }),
).map(([a, b, rows]) => `[n, p, q] -> {[x0, x1]: ${[a, b, ...rows.map(text)].join(" and ")}}`);
const base = fc.record({ p: fc.integer({ min: -16, max: 16 }), q: fc.integer({ min: -8, max: 8 }), c: fc.integer({ min: -4, max: 4 }) })
  .map(({ p, q, c }): Aff => aff({ ...(p !== 0 ? { p } : {}), ...(q !== 0 ? { q } : {}) }, c));

describe("shiftDims", () => {
  it("law: the set of the stepwise route, row for row", () => {
    let compared = 0;
    fc.assert(fc.property(footprint, base, base, fc.boolean(), fc.boolean(), fc.constantFrom<number | "n">(1, 4, 16, "n"), (src, b0, b1, store0, store1, extent) => {
      const s = parseSet(src);
      if (s.dims.length !== 2) return;
      const tos = [store0 ? "y0" : undefined, store1 ? "y1" : undefined];
      const shifts: DimShift[] = [{ dim: "x0", base: b0, to: tos[0] }, { dim: "x1", base: b1, to: tos[1] }];
      const bounds = tos.flatMap((t) => (t === undefined ? [] : [
        { aff: aff({ [t]: 1 }), eq: false },
        extent === "n" ? { aff: aff({ n: 1, [t]: -1 }, -1), eq: false } : { aff: aff({ [t]: -1 }, extent - 1), eq: false },
      ]));
      clearPolyMemos();
      useShiftAtOnce(false);
      let stepwise;
      try {
        stepwise = shiftDims(s, shifts, bounds);
      } finally {
        useShiftAtOnce(true);
      }
      clearPolyMemos();
      // Content ids compared after the memos were emptied (ids are those of the table in use).
      expect(setContentId(shiftDims(s, shifts, bounds))).toBe(setContentId(stepwise));
      compared++;
    }), { numRuns: 150 });
    expect(compared).toBeGreaterThan(100);
  });

  it("names the new dims in order, the parameters kept", () => {
    const s = parseSet("[n, io] -> {[x]: 16*io <= x < 16*io + 16 and x < n}");
    const t = shiftDims(s, [{ dim: "x", base: aff({ io: 16 }), to: "y" }], [{ aff: aff({ y: 1 }), eq: false }, { aff: aff({ y: -1 }, 15), eq: false }]);
    expect(t.dims).toEqual(["y"]);
    expect(t.params).toEqual(["n", "io"]);
    expect(setContentId(t)).toBe(setContentId(parseSet("[n, io] -> {[y]: 0 <= y <= 15 and 16*io + y < n}")));
  });
});
