/**
 * A loop context's factor (codegen/lower/context.ts, issue 21): over a root of parameters only
 * (the kernel's assumptions), `ctx.factor(names)` is built from the rows that reach `names`
 * without making the context a set. It must be the set `factorOf(ctx.set, names)` is, and the
 * guards the lowering keeps (`notImpliedRows`) the same from the context as from its set.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoopContext } from "../../codegen/lower/context.js";
import { notImpliedRows } from "../../codegen/lower/guards.js";
import { rowKey, type Row } from "../../codegen/lower/rows.js";
import { aff, factorOf, isEqualSet, parseSet, universe } from "../../src/poly/index.js";

const PARAMS = ["n", "m"];

/** A row over `names` (an equality now and then: the context then reads its factors from its set). */
const rowOver = (names: readonly string[], eqs: boolean): fc.Arbitrary<Row> => fc.record({
  cs: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: names.length, maxLength: names.length }),
  c: fc.integer({ min: -20, max: 20 }),
  eq: fc.boolean(),
}).map(({ cs, c, eq }) => {
  const terms: Record<string, number> = {};
  cs.forEach((v, at) => {
    if (v !== 0) terms[names[at]!] = v;
  });
  return { aff: aff(terms, c), eq: eqs && eq && c % 5 === 0 };
});

/** Bounds of `v` by the earlier names: a loop's rows (a tile loop's `t * v <= n - 1` among them). */
const boundsOf = (v: string, earlier: readonly string[]): fc.Arbitrary<Row[]> => fc.oneof(
  fc.record({ lo: rowOver(earlier, false), hi: rowOver(earlier, false), scale: fc.constantFrom(1, 2, 4) }).map(({ lo, hi, scale }): Row[] => [
    { aff: { terms: { ...Object.fromEntries(Object.entries(lo.aff.terms).map(([n, x]) => [n, -x])), [v]: scale }, constant: -lo.aff.constant }, eq: false },
    { aff: { terms: { ...hi.aff.terms, [v]: -scale }, constant: hi.aff.constant }, eq: false },
  ]),
  fc.record({ tile: fc.constantFrom(2, 4, 16), c: fc.integer({ min: -2, max: 4 }) }).map(({ tile, c }): Row[] => [
    { aff: aff({ [v]: 1 }), eq: false },
    { aff: aff({ n: 1, [v]: -tile }, -1 - c), eq: false },
  ]),
);

const caseArb = fc.record({
  mod: fc.constantFrom(1, 4, 16),
  // Hardware ranges (i, j over the parameters), a loop over k (by i and the parameters), a guard.
  i: boundsOf("i", PARAMS),
  j: boundsOf("j", PARAMS),
  k: boundsOf("k", [...PARAMS, "i"]),
  guard: fc.array(rowOver([...PARAMS, "i", "j", "k"], true), { maxLength: 2 }),
  queries: fc.array(rowOver([...PARAMS, "i", "j", "k"], false), { minLength: 1, maxLength: 4 }),
});

describe("a loop context's factor (issue 21)", () => {
  it("is factorOf of its set, and the guards kept from it are those kept from the set", () => {
    let read = 0;
    fc.assert(fc.property(caseArb, (c) => {
      const root = c.mod > 1 ? parseSet(`[n, m] -> { : n mod ${c.mod} = 0 and n >= ${c.mod}}`) : universe(PARAMS, []);
      const hw = LoopContext.of(root).with(["i", "j"], [...c.i, ...c.j]);
      const loop = hw.with(["i", "j", "k"], c.k);
      const guard = loop.with(["i", "j", "k"], c.guard);
      for (const ctx of [hw, loop, guard]) {
        for (const names of [["k"], ["i"], ["j"], ["i", "k"], ["n"]]) {
          // A fresh context of the same rows: its factor is read before anything makes its set.
          const fresh = ctx === hw ? LoopContext.of(root).with(["i", "j"], [...c.i, ...c.j])
            : ctx === loop ? LoopContext.of(root).with(["i", "j"], [...c.i, ...c.j]).with(["i", "j", "k"], c.k)
            : LoopContext.of(root).with(["i", "j"], [...c.i, ...c.j]).with(["i", "j", "k"], c.k).with(["i", "j", "k"], c.guard);
          const f = fresh.factor(names);
          // Read from the rows where no equality or opposite pair forbids it (most cases).
          if (!fresh.hasSet) read++;
          expect(isEqualSet(f, factorOf(ctx.set, names))).toBe(true);
        }
        const known = ["i", "j", "k"];
        const fresh = LoopContext.of(root).with(["i", "j"], [...c.i, ...c.j]).with(known, c.k).with(known, ctx === guard ? c.guard : []);
        expect(notImpliedRows(c.queries, known, fresh).map(rowKey)).toEqual(notImpliedRows(c.queries, known, fresh.set).map(rowKey));
      }
    }), { numRuns: 40 });
    expect(read).toBeGreaterThan(100);
  });
});
