/**
 * Issue 20 (engineer F), libCEED's CPU simplex basis: a two-dimensional local array passed to a
 * device function as a flat pointer (`CeedScalar Ve[DIM][Q]; gradElement(Bx, u, (CeedScalar *) Ve);`
 * where the function writes `Ve[dim*Q + q]`). C lays the array out row-major, so the pointer's
 * element k is `Ve[k / Q][k % Q]`; Loom stores such an array flat (src/okl/lower/flat-views.ts). The
 * spellings, `(T *) Ve`, `&Ve[0][0]`, a row `Ve[1]` and `(T *) Ve + Q`, in kernels in libCEED's style, each on
 * interp and openmp against the serial meaning (each was refused before: "array "v" has 2
 * dimension(s), subscripted with 1", or "only the address of a variable …").
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

// The gradient of a simplex basis, per element and component: the device function fills DIM rows
// of Q values through one flat pointer; the kernel copies them out by their two subscripts.
const GRAD = (pass: string, second = "") => `
#define DIM 2
#define P 3
#define Q 4
#define NC 2
inline void gradElement(const CeedScalar *Bx, const CeedScalar *Ue, CeedScalar *Ve) {
  for (int q = 0; q < Q; ++q) {
    CeedScalar v[DIM];
    for (int dim = 0; dim < DIM; ++dim) v[dim] = 0;
    for (int p = 0; p < P; ++p) {
      const CeedScalar u = Ue[p];
      for (int dim = 0; dim < DIM; ++dim) v[dim] += Bx[(dim*Q + q)*P + p] * u;
    }
    for (int dim = 0; dim < DIM; ++dim) Ve[dim*Q + q] = v[dim];
  }
}
inline void scaleRow(CeedScalar *row, const CeedScalar s) {
  for (int q = 0; q < Q; ++q) row[q] *= s;
}
@kernel void grad(const CeedInt elementCount, const CeedScalar *Bx, const CeedScalar *U, CeedScalar *V) {
  for (int element = 0; element < elementCount; ++element; @outer) {
    for (int component = 0; component < NC; ++component; @inner) {
      CeedScalar Ve[DIM][Q];
      gradElement(Bx, U + (element*NC + component)*P, ${pass});
      ${second}
      for (int dim = 0; dim < DIM; ++dim) {
        for (int q = 0; q < Q; ++q) V[((element*NC + component)*DIM + dim)*Q + q] = Ve[dim][q];
      }
    }
  }
}`;

const DEFINES = { defines: { CeedScalar: "double", CeedInt: "int" } };

function gradSerial(E: number, Bx: readonly number[], U: readonly number[], scale2: number): number[] {
  const V: number[] = [];
  for (let e = 0; e < E; e++) {
    for (let c = 0; c < 2; c++) {
      for (let dim = 0; dim < 2; dim++) {
        for (let q = 0; q < 4; q++) {
          let v = 0;
          for (let p = 0; p < 3; p++) v += Bx[(dim * 4 + q) * 3 + p]! * U[(e * 2 + c) * 3 + p]!;
          V.push(dim === 1 ? v * scale2 : v);
        }
      }
    }
  }
  return V;
}

describe("a 2-D local array passed as a flat pointer is C's row-major layout", () => {
  const cases: [string, string, string, number][] = [
    ["a cast of the array", "(CeedScalar *) Ve", "", 1],
    ["the address of its first element", "&Ve[0][0]", "", 1],
    ["the address of its first element, then a row", "&Ve[0][0]", "scaleRow(Ve[1], 2.5);", 2.5],
    ["a cast, then the cast plus a row's length", "(CeedScalar *) Ve", "scaleRow((CeedScalar *) Ve + Q, 2.5);", 2.5],
  ];
  it.each(cases)("%s: %s %s, as the serial meaning", async (_what, pass, second, scale2) => {
    const [k] = parseOkl(GRAD(pass, second), DEFINES);
    const check = async (E: number) => {
      const Bx = seeded(24, 3), U = seeded(E * 6, E);
      await expectSerialMeaning(k!, () => ({ elementCount: E, Bx: Float64Array.from(Bx), U: Float64Array.from(U), V: new Float64Array(E * 16) }),
        { V: gradSerial(E, Bx, U, scale2) }, 1e-12);
    };
    await check(3);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 6 }), check), { numRuns: 2, seed: 20 });
  });

  it("keeps a 2-D array that is only fully subscripted as it was (two dimensions, no flat view)", () => {
    const plain = GRAD("&Ve[0][0]").replace("gradElement(Bx, U + (element*NC + component)*P, &Ve[0][0]);", "for (int d = 0; d < DIM; ++d) for (int q = 0; q < Q; ++q) Ve[d][q] = U[q];");
    const [k] = parseOkl(plain, DEFINES);
    expect(k!.temporaries.find((t) => t.name === "Ve")?.shape.length).toBe(2);
    const [flat] = parseOkl(GRAD("(CeedScalar *) Ve"), DEFINES);
    expect(flat!.temporaries.find((t) => t.name === "Ve")?.shape.map((x) => (x as { value: number }).value)).toEqual([8]);
  });
});

// The same gradient with the array declared in an opaque block: a while loop's body (a sweep counter
// of the kind libCEED's CPU backends keep) or a switch case choosing the basis by a mode argument.
const OPAQUE = (body: string) => GRAD("(CeedScalar *) Ve").replace(/ {6}CeedScalar Ve\[DIM\]\[Q\];[\s\S]*?\n {4}\}\n {2}\}\n\}$/, `${body}\n    }\n  }\n}`)
  .replace("const CeedInt elementCount,", "const CeedInt elementCount, const CeedInt mode,");
const COPY = "for (int dim = 0; dim < DIM; ++dim) for (int q = 0; q < Q; ++q) V[((element*NC + component)*DIM + dim)*Q + q] = Ve[dim][q];";
const IN_WHILE = OPAQUE(`      int pass = 0;
      while (pass < 1) {
        CeedScalar Ve[DIM][Q];
        gradElement(Bx, U + (element*NC + component)*P, (CeedScalar *) Ve);
        scaleRow(Ve[1], 2.5);
        ${COPY}
        ++pass;
      }`);
const IN_SWITCH = OPAQUE(`      switch (mode) {
        case 1: {
          CeedScalar Ve[DIM][Q];
          gradElement(Bx, U + (element*NC + component)*P, &Ve[0][0]);
          scaleRow((CeedScalar *) Ve + Q, 2.5);
          ${COPY}
          break;
        }
        default: break;
      }`);

describe("a 2-D array declared in an opaque block (a while or switch body) and passed as a flat pointer", () => {
  it.each([["a while loop's body", IN_WHILE], ["a switch case", IN_SWITCH]])("%s: C's row-major layout, as the serial meaning", async (_what, src) => {
    expect(src).toContain("mode,");
    expect(src.match(/CeedScalar Ve\[DIM\]\[Q\];/g)).toHaveLength(1); // only the block's declaration
    const [k] = parseOkl(src, DEFINES);
    const E = 3, Bx = seeded(24, 3), U = seeded(E * 6, E);
    await expectSerialMeaning(k!, () => ({ elementCount: E, mode: 1, Bx: Float64Array.from(Bx), U: Float64Array.from(U), V: new Float64Array(E * 16) }),
      { V: gradSerial(E, Bx, U, 2.5) }, 1e-12, { checkBounds: false });
  });
});
