/** affToExpr: the one writer of affine forms as expressions, and its inverse exprToAff. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { affToExpr, exprToAff, exprToString, NATURAL_ORDER } from "../../src/ir/index.js";
import type { Aff } from "../../src/poly/index.js";

const show = (a: Aff, opts?: Parameters<typeof affToExpr>[1]) => exprToString(affToExpr(a, opts));

describe("affToExpr", () => {
  it("writes terms in the form's own order, subtracting negative ones", () => {
    expect(show({ terms: { n: 1 }, constant: 15 })).toBe("n + 15");
    expect(show({ terms: { n: 2, m: -1 }, constant: 0 })).toBe("2*n - m");
    expect(show({ terms: { io: -16, n: 1 }, constant: -1 })).toBe("-16*io + n - 1");
    expect(show({ terms: { i: -1 }, constant: 3 })).toBe("-i + 3");
    expect(show({ terms: {}, constant: -5 })).toBe("-5");
    expect(show({ terms: { i: 0, j: 1 }, constant: 0 })).toBe("j");
  });

  it("orders terms by name, or by a given list first", () => {
    const a: Aff = { terms: { i_outer: 16, i_inner: 1, b: -2 }, constant: -1 };
    expect(show(a)).toBe("16*i_outer + i_inner - 2*b - 1");
    expect(show(a, NATURAL_ORDER)).toBe("-2*b + i_inner + 16*i_outer - 1");
    expect(show(a, { order: ["i_outer", "i_inner"] })).toBe("16*i_outer + i_inner - 2*b - 1");
    expect(show(a, { order: ["i_inner"] })).toBe("i_inner - 2*b + 16*i_outer - 1");
  });

  it("puts coefficients after names on request, as index expressions are written", () => {
    expect(show({ terms: { io: 4, ii: 1 }, constant: -1 }, { coefficientAfter: true })).toBe("io*4 + ii - 1");
    expect(show({ terms: { io: -4 }, constant: 0 }, { coefficientAfter: true })).toBe("-(io*4)");
  });

  it("round-trips through exprToAff in every style", () => {
    const name = fc.constantFrom("i", "j", "n", "i_outer");
    const form = fc.record({ terms: fc.dictionary(name, fc.integer({ min: -20, max: 20 })), constant: fc.integer({ min: -50, max: 50 }) });
    const style = fc.record({ order: fc.constantFrom<"insertion" | "natural" | string[]>("insertion", "natural", ["n", "i"]), coefficientAfter: fc.boolean() });
    fc.assert(fc.property(form, style, (a, opts) => {
      const back = exprToAff(affToExpr(a, opts))!;
      const nonzero = Object.fromEntries(Object.entries(a.terms).filter(([, k]) => k !== 0));
      expect({ terms: Object.fromEntries(Object.entries(back.terms).filter(([, k]) => k !== 0)), constant: back.constant }).toEqual({ terms: nonzero, constant: a.constant });
    }), { numRuns: 300 });
  });
});
