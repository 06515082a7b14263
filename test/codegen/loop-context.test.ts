/**
 * Loop contexts (codegen/lower/context.ts, issue 21): a loop's context is its parent's with the
 * loop's rows; its facts are built from the parent's facts and the rows, its set only when an exact
 * operation asks. The facts must be sound (every cheap proof from them holds on the set), the set
 * the one `withRowsSet` makes, and the lowering's answers (`notImpliedRows`) the same from either.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoopContext } from "../../codegen/lower/context.js";
import { inContext, notImpliedRows } from "../../codegen/lower/guards.js";
import { rowKey, withRowsSet, type Row } from "../../codegen/lower/rows.js";
import { aff, affScale, affSub, isEmptyWith, isEqualSet, parseSet, universe, type Aff, type BasicSet } from "../../src/poly/index.js";

const PARAMS = ["n", "m"];
const OUTER = ["i", "j"];
const NAMES = [...PARAMS, ...OUTER, "k"];

const rowOver = (names: readonly string[], eqs: boolean): fc.Arbitrary<Row> => fc.record({
  cs: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: names.length, maxLength: names.length }),
  c: fc.integer({ min: -20, max: 20 }),
  eq: fc.boolean(),
}).map(({ cs, c, eq }) => {
  const terms: Record<string, number> = {};
  cs.forEach((v, at) => {
    if (v !== 0) terms[names[at]!] = v;
  });
  return { aff: aff(terms, c), eq: eqs && eq && c % 4 === 0 };
});

/** A loop over `k`: `lo <= k <= hi` with `lo`, `hi` affine in the outer names (the rows a loop adds). */
const loopRows = fc.oneof(
  fc.record({
    lo: rowOver([...PARAMS, ...OUTER], false),
    hi: rowOver([...PARAMS, ...OUTER], false),
    scale: fc.constantFrom(1, 1, 2, 4),
  }).map(({ lo, hi, scale }): Row[] => [
    { aff: affSub(aff({ k: scale }), lo.aff), eq: false },
    { aff: affSub(hi.aff, aff({ k: scale })), eq: false },
  ]),
  // A tile loop: 0 <= k and tile * k <= n - 1 - c (divisibility of n tightens its facts).
  fc.record({ tile: fc.constantFrom(2, 4, 8, 16), c: fc.integer({ min: 0, max: 20 }) }).map(({ tile, c }): Row[] => [
    { aff: aff({ k: 1 }), eq: false },
    { aff: aff({ n: 1, k: -tile }, -1 - c), eq: false },
  ]),
);

const caseArb = fc.record({
  mod: fc.constantFrom(1, 4, 16),
  outer: fc.array(rowOver([...PARAMS, ...OUTER], true), { minLength: 1, maxLength: 4 }),
  loop: loopRows,
  guard: fc.array(rowOver(NAMES, false), { maxLength: 2 }),
  queries: fc.array(rowOver(NAMES, true), { minLength: 1, maxLength: 6 }),
  picks: fc.array(fc.record({ at: fc.nat(), loosen: fc.integer({ min: -24, max: 3 }) }), { maxLength: 4 }),
});

function contextOf(c: { mod: number; outer: Row[] }): BasicSet {
  const base = c.mod > 1 ? parseSet(`[n, m] -> {[i, j]: n mod ${c.mod} = 0 and n >= ${c.mod}}`) : universe(PARAMS, OUTER);
  return withRowsSet(base, OUTER, c.outer);
}

/** Whether `r` holds on every point of `s` (exactly). */
function holds(s: BasicSet, r: Row): boolean {
  const below = (a: Aff) => isEmptyWith(s, affSub(aff({}, -1), a));
  return below(r.aff) && (!r.eq || below(affScale(r.aff, -1)));
}

describe("loop contexts (issue 21)", () => {
  it("a context's set is the one withRowsSet makes of its parent's, level by level", () => {
    fc.assert(fc.property(caseArb, (c) => {
      const ctx = contextOf(c);
      const loop = LoopContext.of(ctx).with([...OUTER, "k"], c.loop);
      const guard = loop.with([...OUTER, "k"], c.guard);
      const s1 = withRowsSet(ctx, [...OUTER, "k"], c.loop);
      expect(isEqualSet(loop.set, s1)).toBe(true);
      expect(isEqualSet(guard.set, withRowsSet(s1, [...OUTER, "k"], c.guard))).toBe(true);
    }), { numRuns: 60 });
  });

  it("every cheap proof from a loop's facts (its parent's facts and its rows) holds on its set", () => {
    let proved = 0;
    fc.assert(fc.property(caseArb, (c) => {
      const loop = LoopContext.of(contextOf(c)).with([...OUTER, "k"], c.loop);
      const inner = loop.with([...OUTER, "k"], c.guard);
      // The loop's own rows, loosened or tightened, are among the queries: proofs that should fire, and some that must not.
      const own = [...c.loop, ...c.guard];
      const moved = c.picks.map(({ at, loosen }) => {
        const r = own[at % own.length]!;
        return { aff: aff({ ...r.aff.terms }, r.aff.constant + loosen), eq: false };
      });
      for (const ctx of [loop, inner]) {
        for (const r of [...c.queries, ...moved]) {
          if (!inContext(r, ctx)) continue;
          proved++;
          expect(holds(ctx.set, r)).toBe(true);
        }
      }
    }), { numRuns: 80 });
    expect(proved).toBeGreaterThan(0);
  });

  it("the rows a guard keeps are the same from a loop context as from its set", () => {
    fc.assert(fc.property(caseArb, (c) => {
      const loop = LoopContext.of(contextOf(c)).with([...OUTER, "k"], c.loop);
      const rows = c.queries.filter((r) => !r.eq);
      const known = [...OUTER, "k"];
      expect(notImpliedRows(rows, known, loop).map(rowKey)).toEqual(notImpliedRows(rows, known, loop.set).map(rowKey));
    }), { numRuns: 60 });
  });

  it("a loop's facts know its bounds and the divisibility of the parameters", () => {
    const ctx = parseSet("[n] -> {[i]: n mod 64 = 0 and n >= 64 and 0 <= i < 4}");
    const row = (terms: Record<string, number>, c: number): Row => ({ aff: aff(terms, c), eq: false });
    // for (k = 0; 16 * k < n; k++): 16 * k <= n - 1, so 16 * k + 16 <= n since 64 divides n.
    const loop = LoopContext.of(ctx).with(["i", "k"], [row({ k: 1 }, 0), row({ n: 1, k: -16 }, -1)]);
    const inner = loop.with(["i", "k", "kk"], [row({ kk: 1 }, 0), row({ kk: -1 }, 15)]);
    expect(inContext(row({ n: 1, k: -16, kk: -1 }, -1), inner)).toBe(true);
    expect(inContext(row({ k: 1, i: 1 }, 0), inner)).toBe(true);
    expect(inContext(row({ kk: -1 }, 14), inner)).toBe(false);
    expect(inContext(row({ n: 1, k: -16 }, -17), loop)).toBe(false);
  });
});
