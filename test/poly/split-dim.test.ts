/**
 * splitDim (issue 21: split inames known by construction) against the route it replaces in
 * splitIname: substitute, moveToDims, addConstraints. Same set, written the same way (generated
 * code prints the rows), and the same points as the definition.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { addConstraints, aff, compilePointTest, moveToDims, parseSet, printSet, splitDim, substitute, type BasicSet } from "../../src/poly/index.js";
import { holds, setArb, toText, B, PARAM_VALUES } from "./gen.js";

function stepwise(s: BasicSet, name: string, factor: number): BasicSet {
  const pos = s.dims.indexOf(name);
  const t = moveToDims(substitute(s, name, aff({ o_: factor, i_: 1 })), ["o_", "i_"], pos);
  return addConstraints(t, [{ aff: aff({ i_: 1 }), eq: false }, { aff: aff({ i_: -1 }, factor - 1), eq: false }]);
}

describe("splitDim", () => {
  // Sets with equalities and existentials through the split dim take the stepwise route inside
  // splitDim; the others are written down at once: both must match row for row.
  it("is substitute + moveToDims + addConstraints, row for row", () => {
    fc.assert(fc.property(setArb(), fc.nat(3), fc.integer({ min: 1, max: 5 }), (g, which, factor) => {
      const s = parseSet(toText(g));
      const name = s.dims[which % s.dims.length]!;
      expect(printSet(splitDim(s, name, "o_", "i_", factor))).toBe(printSet(stepwise(s, name, factor)));
    }), { numRuns: 100 });
  });

  it("has the points i = factor·o + i_ with 0 <= i_ < factor of the set's points", () => {
    fc.assert(fc.property(setArb({ dims: 2 }), fc.integer({ min: 1, max: 3 }), (g, factor) => {
      const t = splitDim(parseSet(toText(g)), "i", "o_", "i_", factor);
      const test = compilePointTest(t, [...g.params, "o_", "i_", "j"]);
      for (const n of g.params.length ? PARAM_VALUES : [0]) {
        const p = g.params.length ? [n] : [];
        for (let o = -B - 1; o <= B + 1; o++) for (let ii = -1; ii <= factor; ii++) for (let j = -B; j <= B; j++) {
          const i = factor * o + ii;
          expect(test([...p, o, ii, j])).toBe(ii >= 0 && ii < factor && holds(g, [...p, i, j]));
        }
      }
    }), { numRuns: 25 });
  });

  it("refuses a missing dim, a taken name and a factor below 1", () => {
    const s = parseSet("[n] -> {[i, j]: 0 <= i < n and 0 <= j < 4}");
    expect(() => splitDim(s, "k", "a", "b", 4)).toThrow(/no dim "k"/);
    expect(() => splitDim(s, "i", "j", "b", 4)).toThrow(/used twice/);
    expect(() => splitDim(s, "i", "a", "b", 0)).toThrow(/at least 1/);
  });
});
