/**
 * The lowering's cheap guard proofs (issue 21) against the exact route: a row that one of the
 * context's rows implies by its constant (`inContext`) is one the exact gist drops, and the rows
 * `notImpliedRows` keeps are, in order, those of the gist of all the rows.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inContext, notImpliedRows } from "../../codegen/lower/guards.js";
import { rowKey, rowsOf, rowVars, type Row } from "../../codegen/lower/rows.js";
import { addConstraints, aff, factorOf, gist, parseSet, universe, type BasicSet } from "../../src/poly/index.js";

const KNOWN = ["i", "j"];
const PARAMS = ["n", "m"];
const NAMES = [...PARAMS, ...KNOWN];

const coef = fc.integer({ min: -3, max: 3 });
const rowArb: fc.Arbitrary<Row> = fc.record({
  cs: fc.array(coef, { minLength: NAMES.length, maxLength: NAMES.length }),
  c: fc.integer({ min: -12, max: 12 }),
  eq: fc.boolean(),
}).map(({ cs, c, eq }) => {
  const terms: Record<string, number> = {};
  cs.forEach((v, k) => {
    if (v !== 0) terms[NAMES[k]!] = v;
  });
  // Equalities rarely: they make most sets a line or empty.
  return { aff: aff(terms, c), eq: eq && cs.filter((v) => v !== 0).length > 1 && c % 3 === 0 };
});

/** A context, and rows some of which are the context's own rows loosened (a larger constant) or turned round. */
const caseArb = fc.record({
  ctxRows: fc.array(rowArb, { minLength: 1, maxLength: 5 }),
  fresh: fc.array(rowArb, { maxLength: 3 }),
  picks: fc.array(fc.record({ at: fc.nat(), loosen: fc.integer({ min: 0, max: 4 }), flip: fc.boolean() }), { maxLength: 4 }),
  shuffle: fc.boolean(),
  mod: fc.constantFrom(1, 2, 3, 4, 8, 16),
});

function build(c: { mod: number; shuffle: boolean; ctxRows: Row[]; fresh: Row[]; picks: { at: number; loosen: number; flip: boolean }[] }) {
  // Sometimes with a divisibility (`n mod 8 = 0`) for the proofs that tighten constants by it.
  const base = c.mod > 1 ? parseSet(`[n, m] -> {[i, j]: n mod ${c.mod} = 0}`) : universe(PARAMS, KNOWN);
  const ctx = addConstraints(base, c.ctxRows);
  const ctxRows = rowsOf(ctx).rows;
  const taken: Row[] = c.picks.flatMap(({ at, loosen, flip }) => {
    if (ctxRows.length === 0) return [];
    const r = ctxRows[at % ctxRows.length]!;
    // An equality t + c = 0 gives -t - c >= 0 too.
    if (flip && r.eq) return [{ aff: aff(Object.fromEntries(Object.entries(r.aff.terms).map(([n, v]) => [n, -v])), -r.aff.constant + loosen), eq: false }];
    return [loosen === 0 ? r : { aff: aff({ ...r.aff.terms }, r.aff.constant + loosen), eq: false }];
  });
  return { ctx, rows: c.shuffle ? [...c.fresh, ...taken] : [...taken, ...c.fresh] };
}

/** The exact route: the gist of all the rows (as the lowering computed it before the fast path). */
function exact(rows: readonly Row[], known: readonly string[], ctx: BasicSet): string[] {
  if (rows.length === 0) return [];
  const vars = rowVars(rows);
  const s = addConstraints(universe(vars.filter((n) => !known.includes(n)), [...known]), rows);
  const overInames = rows.every((r) => Object.keys(r.aff.terms).some((n) => known.includes(n)));
  return rowsOf(gist(s, overInames ? factorOf(ctx, vars) : ctx)).rows.map(rowKey);
}

describe("guard fast paths (issue 21)", () => {
  it("a row the context implies by its constant is one the exact gist drops", () => {
    fc.assert(fc.property(caseArb, (c) => {
      const { ctx, rows } = build(c);
      for (const r of rows) {
        if (!inContext(r, ctx)) continue;
        const s = addConstraints(universe(rowVars([r]).filter((n) => !KNOWN.includes(n)), KNOWN), [r]);
        expect(rowsOf(gist(s, ctx)).rows).toEqual([]);
      }
    }), { numRuns: 120 });
  });

  it("notImpliedRows keeps exactly the rows of the exact gist, in order", () => {
    let fast = 0;
    fc.assert(fc.property(caseArb, (c) => {
      const { ctx, rows } = build(c);
      if (rows.length > 0 && rows.every((r) => inContext(r, ctx))) fast++;
      expect(notImpliedRows(rows, KNOWN, ctx).map(rowKey)).toEqual(exact(rows, KNOWN, ctx));
    }), { numRuns: 120 });
    expect(fast).toBeGreaterThan(0);
  });

  it("a domain whose every row the context implies by a constant has an empty gist (the instruction guard's fast path)", () => {
    let fast = 0;
    fc.assert(fc.property(caseArb, (c) => {
      const { ctx, rows } = build(c);
      const d = addConstraints(universe(PARAMS, KNOWN), rows);
      const own = rowsOf(d);
      if (own.existential || !own.rows.every((r) => inContext(r, ctx))) return;
      fast++;
      const g = gist(d, ctx);
      expect(rowsOf(g).rows).toEqual([]);
      expect(rowsOf(g).existential).toBe(false);
    }), { numRuns: 120 });
    expect(fast).toBeGreaterThan(0);
  });

  it("the proof fires on loop bounds and parameter assumptions, and not on rows it cannot show", () => {
    const ctx = parseSet("[n] -> {[i, j]: n >= 64 and 0 <= i < 16 and 16 * j + i < n and j >= 0}");
    const row = (terms: Record<string, number>, c: number, eq = false): Row => ({ aff: aff(terms, c), eq });
    expect(inContext(row({ n: 1 }, -1), ctx)).toBe(true); // n >= 1
    expect(inContext(row({ i: 1 }, 0), ctx)).toBe(true); // i >= 0
    expect(inContext(row({ i: -1 }, 20), ctx)).toBe(true); // i <= 20
    expect(inContext(row({ i: -1 }, 14), ctx)).toBe(false); // i <= 14: not so
    expect(inContext(row({ i: 1, j: 16 }, 0), ctx)).toBe(true); // by the intervals of i and j
    expect(inContext(row({ i: -1, j: 1 }, 0), ctx)).toBe(false); // j >= i: not so
    expect(inContext(row({ n: 1, j: -16, i: -1 }, -2), ctx)).toBe(false); // 16 * j + i + 2 <= n: not so
    // Divisibility: n mod 64 = 0 and 16 * k < n give 16 * k + 16 <= n, so 16 * k + kk < n for kk <= 15.
    const div = parseSet("[n] -> {[k, kk]: n mod 64 = 0 and n >= 64 and 0 <= k and 16 * k < n and 0 <= kk < 16}");
    const noDiv = parseSet("[n] -> {[k, kk]: n >= 64 and 0 <= k and 16 * k < n and 0 <= kk < 16}");
    expect(inContext(row({ n: 1, k: -16, kk: -1 }, -1), div)).toBe(true);
    expect(inContext(row({ n: 1, k: -16, kk: -1 }, -1), noDiv)).toBe(false);
    expect(inContext(row({ i: 1 }, 0, true), ctx)).toBe(false); // i = 0
    expect(inContext(row({}, 1), ctx)).toBe(false); // constant rows go to the gist
    expect(notImpliedRows([row({ n: 1 }, -1), row({ i: -1 }, 14)], ["i", "j"], ctx).map(rowKey)).toEqual([rowKey(row({ i: -1 }, 14))]);
  });
});
