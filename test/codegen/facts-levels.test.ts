/**
 * A context's facts as levels (codegen/lower/facts.ts, issue 21): a loop's facts are its parent's
 * and a level of its own rows, read through the levels, not copied (and copied into one level past
 * a depth). Law: a nest of any depth, where its set has points, answers every cheap proof as one
 * level holding all its rows does, and each proof holds on the nest's set. (An empty context's
 * facts are its set's, whose canonical row proves nothing, at whichever level it empties.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoopContext } from "../../codegen/lower/context.js";
import { inContext } from "../../codegen/lower/guards.js";
import type { Row } from "../../codegen/lower/rows.js";
import { aff, affScale, affSub, isEmptyWith, parseSet, type Aff, type BasicSet } from "../../src/poly/index.js";

const DIMS = ["i", "j", "k"];

/** A row that holds at n = 8, i = j = k = 0 (with some slack, none for an equality): every nest has a point. */
const row = fc.record({
  cs: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: 4, maxLength: 4 }),
  slack: fc.integer({ min: 0, max: 6 }),
  eq: fc.boolean(),
}).map(({ cs, slack, eq }): Row => {
  const terms: Record<string, number> = {};
  ["n", ...DIMS].forEach((name, at) => {
    if (cs[at] !== 0) terms[name] = cs[at]!;
  });
  const at = 8 * cs[0]!;
  const tight = eq && slack % 3 === 0;
  return { aff: aff(terms, -at + (tight ? 0 : slack)), eq: tight };
});

function holds(s: BasicSet, r: Row): boolean {
  const below = (a: Aff) => isEmptyWith(s, affSub(aff({}, -1), a));
  return below(r.aff) && (!r.eq || below(affScale(r.aff, -1)));
}

describe("a context's facts through its levels (issue 21)", () => {
  it("a nest of 1 to 14 levels (past 8 they are copied into one) answers as one level with all its rows, and soundly", () => {
    const root = parseSet("[n] -> {[i, j, k]: n mod 8 = 0 and n >= 8 and 0 <= i < n and 0 <= j < 4}");
    let proved = 0;
    fc.assert(fc.property(fc.array(fc.array(row, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 14, size: "max" }), fc.array(row, { minLength: 1, maxLength: 8 }), (levels, queries) => {
      let nest = LoopContext.of(root);
      for (const rows of levels) nest = nest.with(DIMS, rows);
      const flat = LoopContext.of(root).with(DIMS, levels.flat());
      if (isEmptyWith(nest.set, aff({}, 0))) return;
      for (const q of [...queries, ...levels.flat()]) {
        const yes = inContext(q, nest);
        expect(yes).toBe(inContext(q, flat));
        if (yes) {
          proved++;
          expect(holds(nest.set, q)).toBe(true);
        }
      }
    }), { numRuns: 60 });
    expect(proved).toBeGreaterThan(0);
  });
});
