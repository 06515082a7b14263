/**
 * Uniform loop bounds (codegen/lower/uniform-loops.ts) take a side the varying bounds leave open
 * from the iname's domain within the context's factors over the domain's inames, not within the
 * whole context: the law that this is the answer of the whole context (the exact route, written
 * out here), for contexts with factors the domain shares no iname with.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { uniformSplit } from "../../codegen/lower/uniform-loops.js";
import { dimBounds, eliminateExact, intersect, parseSet, type BasicSet, type Bound } from "../../src/poly/index.js";

const mentionsL = (b: Bound) => (b.aff.terms["l"] ?? 0) !== 0;

/** The uniform sides from the whole context: the domain within it, the local iname projected out, in terms of the outer inames. */
function wholeContextSides(whole: BasicSet, ctx: BasicSet, outer: readonly string[]): { lower: Bound[]; upper: Bound[] } {
  const s = intersect(whole, ctx);
  const p = s.dims.includes("l") ? eliminateExact(s, ["l"]).set : s;
  const b = dimBounds(p, "j", outer.filter((n) => p.dims.includes(n) && n !== "l"));
  return { lower: b.lower.filter((x) => !mentionsL(x)), upper: b.upper.filter((x) => !mentionsL(x)) };
}

describe("uniform loop bounds within the context's factors", () => {
  it("for all trapezoids over a local iname and contexts with other factors: are the whole context's", () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 4 }), fc.integer({ min: -2, max: 2 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -2, max: 2 }),
      fc.integer({ min: -3, max: 6 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 9 }), fc.constantFrom("n >= 1", "n = 6", "n mod 4 = 0 and n >= 4"),
      fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined }),
      (L, a, b, c, d, den, K, onN, link) => {
        const rows = `0 <= l < ${L} and ${a}*l + ${b} <= j and ${den}*j <= ${c}*l + ${d}`;
        const s = parseSet(`{ [l, j]: ${rows} }`);
        if (!s.dims.includes("j")) return;
        // The kernel's context: the domain's rows, a group iname and a loop the domain does not use
        // (or one that bounds the local iname: then in its factor), parameter rows.
        const linked = link === undefined ? "" : ` and l <= g + ${link}`;
        const ctx = parseSet(`[n] -> { [g, l, k, j]: ${rows} and 0 <= g < n and 0 <= k < ${K} and k <= g + 2${linked} and ${onN} }`);
        const { lower, upper } = dimBounds(s, "j", ["l"]);
        const outer = ["g", "l", "k"];
        const u = uniformSplit("j", lower, upper, (x) => x === "l", outer, s, ctx);
        const exact = wholeContextSides(s, ctx, outer);
        const uLower = lower.filter((x) => !mentionsL(x));
        const uUpper = upper.filter((x) => !mentionsL(x));
        if (!u) {
          // No varying bound, or a side neither the bounds nor the whole context close.
          const varying = [...lower, ...upper].some(mentionsL);
          if (varying) expect((uLower.length > 0 || exact.lower.length > 0) && (uUpper.length > 0 || exact.upper.length > 0)).toBe(false);
          return;
        }
        expect(u.lower).toEqual(uLower.length > 0 ? uLower : exact.lower);
        expect(u.upper).toEqual(uUpper.length > 0 ? uUpper : exact.upper);
      }), { numRuns: 80 });
  });
});
