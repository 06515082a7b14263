/**
 * A conditional of integer constants is the branch it selects (issue 20, found by the re-measure on
 * gslib's findpts_local_eval in nekRS): `#define INNER_SIZE (NR > NS ? NR : NS)` as the bound of
 * the @inner loops of a nest with @shared memory was "computed on the device" and refused; C's
 * constant expression is a constant bound.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { parseOklAst } from "../../src/okl/syntax/parse-okl-ast.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// Tensor-product evaluation at points: weights per direction in @shared, a sum per r-index, a
// pairwise tree over NR (the gslib kernel's shape, with its macro names).
const SRC = `
#define INNER_SIZE (NR > NS ? NR : NS)
@kernel void evalPoints(const unsigned int pn, @restrict const double *in, @restrict const double *wr,
                        @restrict const double *ws, @restrict const unsigned int *el, @restrict double *out) {
  for (unsigned int i = 0; i < pn; ++i; @outer) {
    @shared double wtr[NR];
    @shared double wts[NS];
    @shared double sums[INNER_SIZE];
    for (unsigned int j = 0; j < INNER_SIZE; ++j; @inner) {
      if (j < NR) wtr[j] = wr[i*NR + j];
      if (j < NS) wts[j] = ws[i*NS + j];
    }
    for (unsigned int j = 0; j < INNER_SIZE; ++j; @inner) {
      if (j < NR) {
        double sum = 0;
        for (unsigned int k = 0; k < NS; ++k) sum += in[el[i]*NR*NS + k*NR + j] * wts[k];
        sums[j] = wtr[j]*sum;
      } else {
        sums[j] = 0.0;
      }
    }
#if NR>4
    for (unsigned int j = 0; j < INNER_SIZE; ++j; @inner) {
      if (j < 4 && j + 4 < NR) sums[j] += sums[j+4];
    }
#endif
#if NR>2
    for (unsigned int j = 0; j < INNER_SIZE; ++j; @inner) {
      if (j < 2 && j + 2 < NR) sums[j] += sums[j+2];
    }
#endif
    for (unsigned int j = 0; j < INNER_SIZE; ++j; @inner) {
      if (j == 0) out[i] = (1 < NR) ? sums[0] + sums[1] : sums[0];
    }
  }
}`;

describe("a conditional of integer constants is a constant (gslib's INNER_SIZE)", () => {
  it("point evaluation with (NR > NS ? NR : NS) @inner bounds agrees with its serial meaning", async () => {
    // Both branches of INNER_SIZE (NR > NS and NR < NS); two shapes keep the native builds to two.
    await fc.assert(fc.asyncProperty(fc.constantFrom([5, 3], [2, 4]), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 99 }),
      async ([NR, NS], pn, seed) => {
        const [k] = parseOkl(SRC, { defines: { NR, NS } });
        const nel = 3, inp = seeded(nel * NR * NS, seed), wr = seeded(pn * NR, seed + 1), ws = seeded(pn * NS, seed + 2);
        const el = Uint32Array.from({ length: pn }, (_, i) => (i * 2 + seed) % nel);
        const want = new Float64Array(pn);
        for (let i = 0; i < pn; i++) {
          let t = 0;
          for (let j = 0; j < NR; j++) {
            let s = 0;
            for (let q = 0; q < NS; q++) s += inp[el[i]! * NR * NS + q * NR + j]! * ws[i * NS + q]!;
            t += wr[i * NR + j]! * s;
          }
          want[i] = t;
        }
        await expectSerialMeaning(k!, () => ({ pn, in: Float64Array.from(inp), wr: Float64Array.from(wr), ws: Float64Array.from(ws), el, out: new Float64Array(pn) }), { out: want }, 1e-12, { checkBounds: false });
      }), { numRuns: 4 });
  });

  it("folds only integer constants: a name, a float or a cast keeps the conditional", () => {
    const cond = (src: string) => {
      const unit = parseOklAst(`@kernel void k(const int n, double *x) { for (int i = 0; i < 1; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) x[0] = ${src}; }`);
      return JSON.stringify(unit).includes('"conditional"');
    };
    expect(cond("(4 > 3 ? 4 : 3)")).toBe(false);
    expect(cond("(2 < 1 ? 1 : (0 ? 7 : 5))")).toBe(false);
    expect(cond("(n > 3 ? 4 : 3)")).toBe(true);
    expect(cond("(1 ? 3 : 2.5)")).toBe(true); // C's type is double: 3.0
    expect(cond("((char)300 > 4 ? 1 : 0)")).toBe(true);
  });
});
