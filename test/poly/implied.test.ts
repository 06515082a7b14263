/**
 * Implication of a row by a system: the cheap certificates (one row, two rows, rows tightened by
 * the multiples equalities make, a violating integer point) never change the exact answer; the
 * Omega test on `base ∧ ¬r` is the reference.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { intFeasible } from "../../src/poly/empty.js";
import { implies, violationWitness } from "../../src/poly/implied.js";
import type { Row, Sys } from "../../src/poly/rows.js";

const N = 4;
const rowArb = fc.array(fc.integer({ min: -4, max: 4 }), { minLength: N + 1, maxLength: N + 1 });
/** Some systems tie column 0 to a multiple of column 3 (`x0 = m·x3`), as `n mod 64 = 0` does. */
const sysArb = fc.record({
  ineqs: fc.array(rowArb, { minLength: 0, maxLength: 6 }),
  mult: fc.option(fc.integer({ min: 2, max: 8 }), { nil: undefined }),
});
const toSys = (g: { ineqs: Row[]; mult: number | undefined }): Sys =>
  ({ n: N, eqs: g.mult === undefined ? [] : [[1, 0, 0, -g.mult, 0]], ineqs: g.ineqs });
const negate = (r: Row): Row => r.map((v, k) => (k === N ? -v - 1 : -v) || 0);
const exact = (base: Sys, r: Row) => !intFeasible({ ...base, ineqs: [...base.ineqs, negate(r)] });

describe("implies", () => {
  it("agrees with the Omega test on base ∧ ¬r, for all small systems and rows", () => {
    fc.assert(fc.property(sysArb, rowArb, (g, r) => implies(toSys(g), r, false) === exact(toSys(g), r)), { numRuns: 500 });
  });

  it("finds n - 8·k_out - k_in - 1 >= 0 from n = 64·e, n - 8·k_out - 1 >= 0 and k_in <= 7", () => {
    // Columns n, k_out, k_in, e.
    const base: Sys = { n: 4, eqs: [[1, 0, 0, -64, 0]], ineqs: [[1, -8, 0, 0, -1], [0, 0, -1, 0, 7], [0, 0, 1, 0, 0]] };
    expect(implies(base, [1, -8, -1, 0, -1], false)).toBe(true);
  });
});

describe("violationWitness", () => {
  it("answers true only where base ∧ ¬r has an integer point", () => {
    fc.assert(fc.property(sysArb, rowArb, (g, r) => !violationWitness(toSys(g), r) || !exact(toSys(g), r)), { numRuns: 500 });
  });

  it("finds n = 64, i_out = 5, i_in = 11 against i_in < n - 12·i_out", () => {
    // Columns n, i_out, i_in, e: n = 64·e, n >= 64, 0 <= i_out, 12·i_out < n, 0 <= i_in <= 11.
    const base: Sys = {
      n: 4, eqs: [[1, 0, 0, -64, 0]],
      ineqs: [[1, 0, 0, 0, -64], [0, 1, 0, 0, 0], [1, -12, 0, 0, -1], [0, 0, 1, 0, 0], [0, 0, -1, 0, 11]],
    };
    expect(violationWitness(base, [1, -12, -1, 0, -1])).toBe(true);
  });
});
