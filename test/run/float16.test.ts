import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { f16round, floatToHalf, halfToFloat } from "../../src/ir/float16.js";

describe("float16 conversion", () => {
  it("encodes exact values", () => {
    expect(floatToHalf(1)).toBe(0x3c00);
    expect(floatToHalf(-2)).toBe(0xc000);
    expect(floatToHalf(65504)).toBe(0x7bff);
    expect(floatToHalf(2 ** -24)).toBe(0x0001);
    expect(floatToHalf(2 ** -14)).toBe(0x0400);
    expect(floatToHalf(0)).toBe(0);
    expect(floatToHalf(-0)).toBe(0x8000);
  });

  it("overflows to infinity and keeps NaN", () => {
    expect(floatToHalf(65520)).toBe(0x7c00);
    expect(floatToHalf(65519)).toBe(0x7bff);
    expect(floatToHalf(-Infinity)).toBe(0xfc00);
    expect(Number.isNaN(halfToFloat(floatToHalf(NaN)))).toBe(true);
  });

  it("rounds to nearest, ties to even", () => {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: the even mantissa (1) wins.
    expect(f16round(1 + 2 ** -11)).toBe(1);
    // 1 + 3*2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
    expect(f16round(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9);
    expect(f16round(1 + 2 ** -11 + 2 ** -20)).toBe(1 + 2 ** -10);
    // Subnormal ties: 1.5 * 2^-24 goes to 2 * 2^-24, 0.5 * 2^-24 to 0.
    expect(f16round(1.5 * 2 ** -24)).toBe(2 * 2 ** -24);
    expect(f16round(0.5 * 2 ** -24)).toBe(0);
  });

  it("round-trips every half bit pattern", () => {
    const wrong: number[] = [];
    for (let h = 0; h < 65536; h++) {
      const x = halfToFloat(h);
      if (!Number.isNaN(x) && floatToHalf(x) !== h) wrong.push(h);
    }
    expect(wrong).toEqual([]);
  });

  it("picks the nearest half for any double (law: no half is closer)", () => {
    fc.assert(fc.property(fc.double({ min: -70000, max: 70000, noNaN: true }), (x) => {
      const h = floatToHalf(x);
      const y = halfToFloat(h);
      if (!Number.isFinite(y)) return Math.abs(x) >= 65520;
      const up = halfToFloat(h + 1);
      const down = halfToFloat(h === 0 || h === 0x8000 ? h : h - 1);
      return Math.abs(y - x) <= Math.abs(up - x) && Math.abs(y - x) <= Math.abs(down - x);
    }), { numRuns: 2000 });
  });
});
