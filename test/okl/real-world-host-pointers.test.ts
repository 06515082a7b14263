/**
 * Issue 20 (engineer F): a pointer declared before the `@outer` loops into a kernel argument (nekRS's
 * coarse-grid solve keeps two parts of one vector: `dfloat *vl = vc; dfloat *vs = vc + ln;`) is an
 * alias, as a local pointer in the kernel's body is: `vs[i]` is `vc[ln + i]`. A sparse update in that
 * style runs on interp and openmp against the serial meaning (refused before: "host statement outside
 * the @outer loops").
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// vs -= A vl over CSR rows (row i's entries Arp[i] .. Arp[i+1]-1), both parts in one array vc.
const SRC = `
@kernel void lowerSolve(const dlong ln, const dlong sn, @restrict const int *Arp, @restrict const int *Aj,
                        @restrict const dfloat *A, @restrict dfloat *vc) {
  dfloat *vl = vc;
  dfloat *vs = vc + ln;
  for (dlong i = 0; i < sn; ++i; @tile(4, @outer, @inner)) {
    dfloat f = 0.0;
    for (dlong p = Arp[i]; p < Arp[i + 1]; ++p) f += A[p]*vl[Aj[p]];
    vs[i] = vs[i] - f;
  }
}`;

describe("a pointer into an argument declared before the @outer loops is an alias", () => {
  it("updates the second part of the vector as the serial meaning", async () => {
    const [k] = parseOkl(SRC, { defines: { dfloat: "double", dlong: "int" } });
    const ln = 5, sn = 6;
    const Arp = [0, 2, 2, 5, 6, 8, 9], Aj = [0, 4, 1, 2, 3, 0, 4, 1, 2], A = seeded(9, 4), vc = seeded(ln + sn, 7);
    const want = [...vc];
    for (let i = 0; i < sn; i++) {
      let f = 0;
      for (let p = Arp[i]!; p < Arp[i + 1]!; p++) f += A[p]! * vc[Aj[p]!]!;
      want[ln + i] = vc[ln + i]! - f;
    }
    await expectSerialMeaning(k!, () => ({ ln, sn, Arp: Int32Array.from(Arp), Aj: Int32Array.from(Aj), A: Float64Array.from(A), vc: Float64Array.from(vc) }),
      { vc: want }, 1e-12, { checkBounds: false });
  });

  it("still refuses a host array, naming it", () => {
    const arr = SRC.replace("dfloat *vl = vc;", "dfloat tmp[4];\n  dfloat *vl = vc;");
    expect(oklError(() => parseOkl(arr, { defines: { dfloat: "double", dlong: "int" } })).message).toMatch(/host statement outside the @outer loops: .*\("tmp"\)/);
  });
});
