/**
 * OCCA's library includes as CEED's Laghos writes them: `#include "occa://mfem/fem/defines.okl"`
 * reads the header from the folder the host registered for the library (occa::io::addLibraryPath;
 * Loom's `libraryPaths`), here a typedef'd `@dim` pointer and a quadrature-size macro used by a
 * quadrature-point kernel. The kernel runs on interp and openmp against its serial meaning; an
 * unregistered library or a missing file is an OklError naming the include and what is accepted.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

/** The library header: a 2-D view of per-element quadrature data and the number of points. */
const LIB_HEADER = `typedef double* QData_t @dim(NUM_QPTS, numElements);
#define QPT_WEIGHT(q) (0.5 + 0.25 * (q))
`;

/** A Laghos-style kernel: rho0DetJ0w(q, el) = rho0(q, el) * detJ(q, el) * w(q) through the library's view. */
const INIT_QDATA = `#include "occa://fem/qdata.okl"

@kernel void initQData(const int numElements,
                       @restrict const QData_t rho0,
                       @restrict const QData_t detJ,
                       @restrict QData_t rho0DetJ0w) {
  for (int el = 0; el < numElements; ++el; @outer) {
    for (int q = 0; q < NUM_QPTS; ++q; @inner) {
      rho0DetJ0w(q, el) = rho0(q, el) * detJ(q, el) * QPT_WEIGHT(q);
    }
  }
}
`;

const files: Record<string, string> = { "/opt/mfem/okl/qdata.okl": LIB_HEADER };
const readFile = (p: string) => files[p];

describe('OCCA library includes: #include "occa://LIB/PATH"', () => {
  it("reads PATH in the folder given for LIB in libraryPaths; the kernel agrees with its serial meaning", async () => {
    const [k] = parseOkl(INIT_QDATA, { defines: { NUM_QPTS: 5 }, libraryPaths: { fem: "/opt/mfem/okl" }, readFile });
    const E = 3, Q = 5, rho0 = seeded(E * Q, 11), detJ = seeded(E * Q, 12);
    const want = Float64Array.from(rho0, (r, i) => r * detJ[i]! * (0.5 + 0.25 * (i % Q)));
    await expectSerialMeaning(k!, () => ({
      numElements: E, rho0: Float64Array.from(rho0), detJ: Float64Array.from(detJ), rho0DetJ0w: new Float64Array(E * Q),
    }), { rho0DetJ0w: want }, 1e-14);
  });

  it("an unregistered library is an OklError at the #include naming the library and the option to pass", () => {
    const none = oklError(() => parseOkl(INIT_QDATA, { defines: { NUM_QPTS: 5 }, readFile }));
    expect([none.line, none.column]).toEqual([1, 10]);
    expect(none.message).toContain('no folder for OCCA library "fem"');
    expect(none.message).toContain('libraryPaths: { "fem": "DIR" }');
    const other = oklError(() => parseOkl(INIT_QDATA, { libraryPaths: { laghos: "/opt/laghos" }, readFile }));
    expect(other.message).toContain("(libraries given: laghos)");
    // A key inherited from Object.prototype is no library.
    expect(oklError(() => parseOkl(INIT_QDATA.replace("occa://fem/", "occa://constructor/"), { libraryPaths: {}, readFile })).message)
      .toContain('no folder for OCCA library "constructor"');
  });

  it("a library file that does not exist is an OklError naming the include and the path it was read as", () => {
    const e = oklError(() => parseOkl(INIT_QDATA.replace("qdata.okl", "nowhere.okl"), { libraryPaths: { fem: "/opt/mfem/okl" }, readFile }));
    expect(e.line).toBe(1);
    expect(e.message).toContain('File does not exist: "occa://fem/nowhere.okl" (read as /opt/mfem/okl/nowhere.okl)');
  });

  it("libraryPaths also serve OCCA's `includes` property, and plain includes still search includePaths", () => {
    const src = INIT_QDATA.replace('#include "occa://fem/qdata.okl"\n', "");
    const [k] = parseOkl(src, { defines: { NUM_QPTS: 2 }, includes: ["occa://fem/qdata.okl"], libraryPaths: { fem: "/opt/mfem/okl" }, readFile });
    expect(k!.name).toBe("initQData");
    const [k2] = parseOkl(INIT_QDATA.replace("occa://fem/", ""), { defines: { NUM_QPTS: 2 }, includePaths: ["/opt/mfem/okl"], readFile });
    expect(k2!.name).toBe("initQData");
  });
});
