/**
 * The lowering's instruction domains (codegen/lower/domains.ts, issue 21) against the exact route:
 * for a parent domain and a child over some of its inames (a prefetch's shape), the domain built
 * from the parent's projection and the child is the very set `iterationDomain` computes (same
 * names, rows and order), so code generation prints the same code from either.
 */
import fc from "fast-check";
import { LoomError } from "../../src/errors.js";
import { describe, expect, it } from "vitest";
import { instructionDomain } from "../../codegen/lower/domains.js";
import { iterationDomain, type Kernel } from "../../src/ir/index.js";
import { addConstraints, aff, isEqualSet, parseSet, printSet, setContentId, universe, type BasicSet } from "../../src/poly/index.js";

const PARENT = ["xo", "xi", "yo", "yi"];
const CHILD = ["u", "v"];

type RowSpec = { terms: Record<string, number>; c: number; eq: boolean };

const coef = fc.integer({ min: -2, max: 2 });

/** A row over `names` (small coefficients), an equality now and then. */
const rowOver = (names: readonly string[]): fc.Arbitrary<RowSpec> => fc.record({
  cs: fc.array(coef, { minLength: names.length, maxLength: names.length }),
  c: fc.integer({ min: -6, max: 20 }),
  eq: fc.integer({ min: 0, max: 9 }),
}).map(({ cs, c, eq }) => {
  const terms: Record<string, number> = {};
  cs.forEach((v, k) => {
    if (v !== 0) terms[names[k]!] = v;
  });
  return { terms, c, eq: eq === 0 && Object.keys(terms).length > 1 };
});

const toRows = (rs: readonly RowSpec[]) => rs.map((r) => ({ aff: aff(r.terms, r.c), eq: r.eq }));

/** Split-shaped parent factors (`0 <= xi < tx`, `0 <= tx*xo + xi < n`), extra rows, and a child over some parents. */
const caseArb = fc.record({
  tx: fc.integer({ min: 1, max: 16 }),
  ty: fc.integer({ min: 1, max: 16 }),
  couple: fc.boolean(),
  parentExtra: fc.array(rowOver([...PARENT, "n"]), { maxLength: 2 }),
  parents: fc.subarray(PARENT, { minLength: 1 }),
  childBox: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 2, maxLength: 2 }),
  childExtra: fc.array(rowOver([...CHILD, ...PARENT, "n"]), { maxLength: 2 }),
  moreKept: fc.subarray(PARENT),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function kernelOf(c: Case): { k: Kernel; inames: string[] } {
  const parentSet = parseSet(`[n] -> {[xo, xi, yo, yi]: 0 <= xi < ${c.tx} and 0 <= ${c.tx}*xo + xi < n and 0 <= yi < ${c.ty} and 0 <= ${c.ty}*yo + yi < n${c.couple ? " and yo <= xo" : ""}}`);
  const parent = c.parentExtra.length > 0 ? addConstraints(parentSet, toRows(c.parentExtra)) : parentSet;
  // The child names only the parents it has as parameters.
  const extra = c.childExtra.map((r) => ({ ...r, terms: Object.fromEntries(Object.entries(r.terms).filter(([n]) => CHILD.includes(n) || n === "n" || c.parents.includes(n))) }));
  const box = CHILD.flatMap((d, at) => [{ aff: aff({ [d]: 1 }, 0), eq: false }, { aff: aff({ [d]: -1 }, c.childBox[at]!), eq: false }]);
  const child: BasicSet = addConstraints(universe(["n", ...c.parents], CHILD), [...box, ...toRows(extra).filter((r) => Object.keys(r.aff.terms).length > 0)]);
  const k = { name: "prefetch_shape", domains: Object.freeze([parent, child]) } as unknown as Kernel;
  return { k, inames: [...CHILD, ...new Set([...c.parents, ...c.moreKept])] };
}

describe("instruction domains in the lowering", () => {
  it("a prefetch-shaped chain's domain is iterationDomain's set (row for row where no extra equality ties a parameter)", () => {
    let rowForRow = 0;
    fc.assert(fc.property(caseArb, (c) => {
      const { k, inames } = kernelOf(c);
      const [mine, exact] = [instructionDomain(k, inames), iterationDomain(k, inames)];
      // The same set always (where isEqualSet decides it); the same rows unless an extra equality
      // ties a parameter (2*xo = 1 - n may reach n = 1 and xo = 0 by one route and stay as written
      // by the other: the same points; found by a random seed in CI).
      let same: boolean | undefined;
      try {
        same = isEqualSet(mine, exact);
      } catch (e) {
        if (!(e instanceof LoomError) || !/cannot decide/.test(e.message)) throw e; // existentials: rows compared below only
      }
      if (same !== undefined) expect(same, `${printSet(mine)} vs ${printSet(exact)}`).toBe(true);
      if ([...c.childExtra, ...c.parentExtra].every((r) => !r.eq)) {
        expect(setContentId(mine)).toBe(setContentId(exact));
        rowForRow++;
      }
    }), { numRuns: 100 });
    expect(rowForRow).toBeGreaterThan(50);
  });

  it("falls back to iterationDomain where the child's inames are not all kept", () => {
    const parent = parseSet("[n] -> {[io, ii]: 0 <= ii < 4 and 0 <= 4*io + ii < n}");
    const child = parseSet("[n, io] -> {[u]: 0 <= u <= io}");
    const k = { name: "partial", domains: Object.freeze([parent, child]) } as unknown as Kernel;
    // io is dropped: the child's rows over it take part in the projection.
    expect(setContentId(instructionDomain(k, ["u", "ii"]))).toBe(setContentId(iterationDomain(k, ["u", "ii"])));
    expect(setContentId(instructionDomain(k, ["u", "io"]))).toBe(setContentId(iterationDomain(k, ["u", "io"])));
  });
});
