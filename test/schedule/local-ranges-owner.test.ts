/**
 * Local ranges and loop bounds asked of the iname's own domain, no factor built (issue 21): the
 * device pass's `ownerWitnessedRange` (the law that it is the chain's axis is
 * test/schedule/hw-axis-own-factor.test.ts, which now takes this route first) and the barrier
 * pass's `componentHas` (both in src/schedule/row-bounds.ts), which tells from the rows whether an iname's factor holds a local iname.
 * The laws: `componentHas` answers as `factorOf` would, over random sets (dims linked by rows
 * and existentials); and tiled kernels with fetches schedule alike with the route on or off.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import { clearPolyMemos, factorOf, parseSet } from "../../src/poly/index.js";
import { componentHas, useOwnerRanges } from "../../src/schedule/row-bounds.js";
import { schedule, showSchedule } from "../../src/schedule/index.js";
import { addPrefetch } from "../../transforms/index.js";
import { tiledKernel } from "../transforms/tiled-shapes.js";

const DIMS = ["a", "b", "c", "d"] as const;
/** A row over one or two dims (a link), or a division (an existential linking its dims). */
const rowArb = fc.tuple(fc.constantFrom(...DIMS), fc.constantFrom(...DIMS, ""), fc.integer({ min: -2, max: 2 }), fc.integer({ min: 0, max: 9 }), fc.boolean());

function rowText([x, y, q, c, div]: [string, string, number, number, boolean]): string {
  const rhs = y === "" || q === 0 ? `${c}` : `${c} + ${q}*${y}`;
  return div ? `${x} + ${y === "" ? "0" : y} mod 3 = 0` : `${x} <= ${rhs}`;
}

describe("a factor's dims read off the rows", () => {
  it("law: componentHas is factorOf's dims, asked of each dim and each test", () => {
    let asked = 0;
    fc.assert(fc.property(fc.array(rowArb, { minLength: 1, maxLength: 5 }), fc.subarray([...DIMS]), (rows, marked) => {
      let s;
      try {
        s = parseSet(`[n] -> {[a, b, c, d]: ${["0 <= a", "0 <= b", "0 <= c", "0 <= d", ...rows.map(rowText)].join(" and ")}}`);
      } catch (e) {
        if (e instanceof LoomError) return;
        throw e;
      }
      for (const x of s.dims) {
        const test = (d: string) => d !== x && (marked as readonly string[]).includes(d);
        expect(componentHas(s, x, test), `${x} in ${rows.map(rowText).join(" and ")}`).toBe(factorOf(s, x).dims.some(test));
        asked++;
      }
    }), { numRuns: 60 });
    expect(asked).toBeGreaterThan(60);
  });

  it("law: tiled kernels with fetches schedule alike with local ranges off their domain or off their factor", () => {
    fc.assert(fc.property(
      fc.constantFrom(2, 3, 4, 8, 16), fc.constantFrom(2, 4, 8, 16), fc.constantFrom(4, 8, 16),
      fc.constantFrom(undefined, "n mod 16 = 0 and n >= 16", "n >= 5"), fc.boolean(),
      (ti, tj, tk, assume, groups) => {
        const scheduled = (on: boolean): string => {
          // A new kernel object each time (the schedule is remembered per kernel, fetches by content).
          clearPolyMemos();
          let k = tiledKernel("matmul", ti, tj, tk, assume, groups);
          try {
            k = addPrefetch(addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] }), "b", { sweepInames: ["k_inner", "j_inner"] });
          } catch (e) {
            if (e instanceof LoomError) return `${e.constructor.name}: ${e.message}`;
            throw e;
          }
          useOwnerRanges(on);
          try {
            return showSchedule(schedule(k));
          } catch (e) {
            if (e instanceof LoomError) return `${e.constructor.name}: ${e.message}`;
            throw e;
          } finally {
            useOwnerRanges(true);
          }
        };
        expect(scheduled(true)).toBe(scheduled(false));
      },
    ), { numRuns: 6 });
  });
});
