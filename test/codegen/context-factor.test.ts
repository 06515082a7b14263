/**
 * A loop context's factor (codegen/lower/context.ts, issue 21): `ctx.factorOf(names)` answers
 * `factorOf(ctx.set, names)` without making the loop's set where the loop's rows are over its new
 * dims and the parameters only. Law: the same content as the factor of the made set, for random
 * contexts (with and without divisibility), loop rows (bounds over the parameters, tiles, pinned
 * values, rows over outer dims that force the general route) and names.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoopContext } from "../../codegen/lower/context.js";
import { withRowsSet, type Row } from "../../codegen/lower/rows.js";
import { aff, factorOf, isEmptyWith, parseSet, setContentId } from "../../src/poly/index.js";

const PARAMS = ["n", "m"];
const OUTER = ["i", "j"];

const rowOver = (names: readonly string[], eq: boolean): fc.Arbitrary<Row> => fc.record({
  cs: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: names.length, maxLength: names.length }),
  c: fc.integer({ min: -20, max: 20 }),
}).map(({ cs, c }) => {
  const terms: Record<string, number> = {};
  cs.forEach((v, at) => {
    if (v !== 0) terms[names[at]!] = v;
  });
  return { aff: aff(terms, c), eq };
});

/** A row over `d` (coefficient not 0) and `names`. */
const rowWith = (d: string, names: readonly string[]): fc.Arbitrary<Row> =>
  fc.tuple(fc.constantFrom(-2, -1, 1, 2), rowOver(names, false)).map(([a, r]) => ({ aff: aff({ [d]: a, ...r.aff.terms }, r.aff.constant), eq: false }));

/** Rows of one new dim `k` (or `kk`): over the parameters, sometimes an outer dim or a pinned value. */
const loopRows = (d: string): fc.Arbitrary<Row[]> => fc.oneof(
  fc.array(rowWith(d, PARAMS), { minLength: 1, maxLength: 3 }),
  fc.record({ tile: fc.constantFrom(2, 4, 16), c: fc.integer({ min: 0, max: 4 }) }).map(({ tile, c }): Row[] => [
    { aff: aff({ [d]: 1 }), eq: false },
    { aff: aff({ n: 1, [d]: -tile }, -1 - c), eq: false },
  ]),
  // Opposite bounds that may meet (`k >= n + a`, `k <= n + b`: one value, or none, where b < a).
  fc.record({ a: fc.integer({ min: 0, max: 4 }), b: fc.integer({ min: 0, max: 4 }), s: fc.constantFrom(1, 2), w: fc.constantFrom(0, 1) }).map(({ a, b, s, w }): Row[] => [
    { aff: aff({ [d]: s, n: -s * w }, -s * a), eq: false },
    { aff: aff({ [d]: -1, n: w }, b), eq: false },
    // Where they meet (k = n + a), this bound says n <= 6 - a.
    { aff: aff({ [d]: -1 }, 6), eq: false },
  ]),
  // A value pinned twice (`k = n`, `k = 5`): a row over the parameters alone follows (`n = 5`).
  fc.record({ v: fc.integer({ min: 0, max: 80 }) }).map(({ v }): Row[] => [
    { aff: aff({ [d]: 1, n: -1 }), eq: true },
    { aff: aff({ [d]: 1 }, -v), eq: true },
  ]),
  // An outer dim in a loop row: the general route.
  fc.array(rowWith(d, ["i", ...PARAMS]), { minLength: 1, maxLength: 2 }),
);

const caseArb = fc.record({
  // n mod 4 or 16, none, or (0) an equality of the parameters (`m = n + 1`) that rewrites the loops' rows.
  mod: fc.constantFrom(0, 1, 4, 16),
  // The made set has no dims (the assumptions, under the hardware ranges' level) or two.
  bare: fc.boolean(),
  outer: fc.array(rowOver([...PARAMS, ...OUTER], false), { minLength: 1, maxLength: 4 }),
  k: loopRows("k"),
  kk: fc.option(loopRows("kk"), { nil: undefined }),
  names: fc.constantFrom<string[]>(["k"], ["kk"], ["k", "kk"], ["i"], ["j"], [], ["i", "k"], ["x"]),
});

/** The case's made context and one or two loop levels over it (none made). */
function levels(c: { mod: number; bare: boolean; outer: Row[]; k: Row[]; kk?: Row[] }): { loop: LoopContext; inner: LoopContext | undefined } {
  const says = c.mod > 1 ? `n mod ${c.mod} = 0 and n >= ${c.mod}` : c.mod === 0 ? "m = n + 1" : "0 = 0";
  const base = parseSet(`[n, m] -> {[i, j]: ${says}}`);
  const params = parseSet(`[n, m] -> {[]: ${says}}`);
  const top = LoopContext.of(c.bare ? params : withRowsSet(base, OUTER, c.outer));
  const loop = top.with([...OUTER, "k"], c.k);
  return { loop, inner: c.kk ? loop.with([...OUTER, "k", "kk"], c.kk) : undefined };
}

describe("a loop context's factor (issue 21)", () => {
  it("is the factor of the context's set, made or not", () => {
    let direct = 0;
    fc.assert(fc.property(caseArb, (c) => {
      // One level (a loop over k), or two (a loop over kk inside it): neither made before it is asked.
      const { loop, inner } = levels(c);
      const got2 = inner?.factorOf(c.names);
      const got1 = loop.factorOf(c.names);
      if (Reflect.get(loop, "made") === undefined) direct++;
      if (inner) expect(setContentId(got2!)).toBe(setContentId(factorOf(inner.set, c.names)));
      expect(setContentId(got1)).toBe(setContentId(factorOf(loop.set, c.names)));
    }), { numRuns: 300 });
    // Most cases take the direct route (the law is about it).
    expect(direct).toBeGreaterThan(60);
  });

  it("answers emptiness with a row as the context's set does (through the made set where the levels allow)", () => {
    let direct = 0;
    fc.assert(fc.property(caseArb, rowOver([...PARAMS, ...OUTER], false), (c, r) => {
      const { loop, inner } = levels(c);
      const got2 = inner?.emptyWith(r.aff);
      const got1 = loop.emptyWith(r.aff);
      if (Reflect.get(loop, "made") === undefined) direct++;
      if (inner) expect(got2).toBe(isEmptyWith(inner.set, r.aff));
      expect(got1).toBe(isEmptyWith(loop.set, r.aff));
    }), { numRuns: 300 });
    // Some cases answer through the made set without making the loop's (9 to 32 of 300 over ten
    // seeds: a floor of 15 failed one run in three).
    expect(direct).toBeGreaterThan(2);
  });

  it("answers emptiness with a row over the loops' own dims from their components where the made set is the parameters' alone", () => {
    let direct = 0;
    const bareCase = caseArb.map((c) => ({ ...c, bare: true }));
    fc.assert(fc.property(bareCase, fc.constantFrom<string[]>(["k"], ["kk"], ["k", "kk"], ["k", "i"]), fc.integer({ min: -2, max: 2 }), rowOver(PARAMS, false), (c, over, a, r) => {
      const { loop, inner } = levels(c);
      const terms: Record<string, number> = { ...r.aff.terms };
      for (const d of over) terms[d] = a === 0 ? 1 : a;
      const row = aff(terms, r.aff.constant);
      const got2 = inner?.emptyWith(row);
      const got1 = over.includes("kk") ? undefined : loop.emptyWith(row);
      if (Reflect.get(inner ?? loop, "made") === undefined) direct++;
      if (inner) expect(got2).toBe(isEmptyWith(inner.set, row));
      if (got1 !== undefined) expect(got1).toBe(isEmptyWith(loop.set, row));
    }), { numRuns: 300 });
    // Many cases answer from the components without making the loop's set: 57 to 79 of 300 over
    // ten seeds (CI's seed gives 57, and a floor of 60 failed it); without that route, none.
    expect(direct).toBeGreaterThan(30);
  });
});
