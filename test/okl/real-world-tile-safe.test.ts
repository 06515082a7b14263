/**
 * `@tile(…, safe=true)` is OCCA 1.0's spelling of `check=true` (libocca/occa#92; issue 20, found by
 * the re-measure on OCCA's own array kernels, include/occa/array/kernels/assignment.okl): it was
 * refused as an unknown kwarg. The guard keeps the last partial tile inside the range.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const SRC = `
@kernel void plus_eq(const int entries,
                     const VTYPE_IN * in,
                     VTYPE_OUT * out) {
  for (int i = 0; i < entries; ++i; @tile(TILESIZE, @outer, @inner, safe=true)) {
    out[i] += in[i];
  }
}

@kernel void div_eq_const(const int entries,
                          const VTYPE_OUT value,
                          VTYPE_OUT * out) {
  for (int i = 0; i < entries; ++i; @tile(TILESIZE, @outer, @inner, safe=true)) {
    out[i] /= value;
  }
}`;

describe("@tile's safe= kwarg (OCCA 1.0's check=)", () => {
  it("OCCA's array assignment kernels over ranges that end inside a tile agree with their serial meaning", async () => {
    const [plus, div] = parseOkl(SRC, { defines: { VTYPE_IN: "float", VTYPE_OUT: "double", TILESIZE: 16 } });
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 0, max: 99 }), async (entries, seed) => {
      const a = seeded(entries + 5, seed), b = seeded(entries + 5, seed + 1);
      const inp = Float32Array.from(a), want = Float64Array.from(b, (x, i) => (i < entries ? x + inp[i]! : x));
      await expectSerialMeaning(plus!, () => ({ entries, in: Float32Array.from(a), out: Float64Array.from(b) }), { out: want }, 1e-15);
      await expectSerialMeaning(div!, () => ({ entries, value: 3, out: Float64Array.from(b) }), { out: Float64Array.from(b, (x, i) => (i < entries ? x / 3 : x)) }, 1e-15);
    }), { numRuns: 3 });
  });

  it("takes true or false only, and still no other kwarg", () => {
    const k = (kw: string) => () => parseOkl(`@kernel void k(const int n, float *x) { for (int i = 0; i < n; ++i; @tile(16, @outer, @inner, ${kw})) x[i] = 0; }`);
    expect(k("safe=false")).not.toThrow();
    expect(k("safe=1")).toThrow(/'safe' argument must be true or false/);
    expect(k("guard=true")).toThrow(/does not take this kwarg: guard/);
  });
});
