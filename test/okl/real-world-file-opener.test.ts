/**
 * A host's file opener, as mfem's OCCA backend writes its includes: `#include "mfem-occa://defines.okl"`.
 * mfem registers the prefix with OCCA (`occa::io::fileOpener::add(new FileOpener("mfem-occa://", …))`
 * with its MFEM_OCCA_OKL_PATH, source and install folders, searched in that order); Loom's
 * `fileOpeners` option gives the same prefix its folders. The kernel reads typedef'd `@dim` views and
 * a coefficient macro from two headers reached that way, and runs on interp and openmp against its
 * serial meaning; an unregistered `scheme://` or a missing file is an OklError at the #include naming
 * the option and the folders searched.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

/** The backend's defines: a default coefficient, and the view types from a second header. */
const DEFINES = `#ifndef COEFF
#  define COEFF 2.0
#endif
#include "mfem-occa://views/quad.okl"
`;
const VIEWS = `typedef double* QLocal_t @dim(NUM_QUAD, numElements);
#define QUAD_ID(q) (q)
`;

/** An mfem-style integrator kernel: out(q, e) = COEFF * w(q) * in(q, e) through the views. */
const SCALE = `#include "mfem-occa://defines.okl"

@kernel void ScaleByWeights(const int numElements,
                            @restrict const double *quadWeights,
                            @restrict const QLocal_t in,
                            @restrict QLocal_t out) {
  for (int e = 0; e < numElements; ++e; @outer) {
    for (int q = 0; q < NUM_QUAD; ++q; @inner) {
      out(q, e) = COEFF * quadWeights[QUAD_ID(q)] * in(q, e);
    }
  }
}
`;

/** The source folder lacks the views header; the install folder has both (the later folder serves it). */
const files: Record<string, string> = {
  "/src/mfem/backends/occa/defines.okl": DEFINES,
  "/opt/mfem/lib/mfem/occa/defines.okl": "#error the source folder comes first\n",
  "/opt/mfem/lib/mfem/occa/views/quad.okl": VIEWS,
};
const readFile = (p: string) => files[p];
const fileOpeners = { "mfem-occa://": ["/src/mfem/backends/occa", "/opt/mfem/lib/mfem/occa"] };

describe('a host\'s file opener: #include "mfem-occa://PATH"', () => {
  it("reads PATH from the first folder given for the prefix that has it; the kernel agrees with its serial meaning", async () => {
    const [k] = parseOkl(SCALE, { defines: { NUM_QUAD: 6 }, fileOpeners, readFile });
    const E = 3, Q = 6, w = seeded(Q, 21), x = seeded(E * Q, 22);
    const want = Float64Array.from(x, (v, i) => 2.0 * w[i % Q]! * v);
    await expectSerialMeaning(k!, () => ({
      numElements: E, quadWeights: Float64Array.from(w), in: Float64Array.from(x), out: new Float64Array(E * Q),
    }), { out: want }, 1e-14);
  });

  it("a define of the host wins over the header's default, and one folder may be given as a string", async () => {
    const [k] = parseOkl(SCALE, { defines: { NUM_QUAD: 2, COEFF: "(-0.5)" }, fileOpeners: { "mfem-occa://": "/opt/mfem/lib/mfem/occa" },
      readFile: (p) => (p.endsWith("/defines.okl") ? DEFINES : files[p]) });
    const w = [0.25, 4], x = [1, 2, 3, 4];
    await expectSerialMeaning(k!, () => ({
      numElements: 2, quadWeights: Float64Array.from(w), in: Float64Array.from(x), out: new Float64Array(4),
    }), { out: x.map((v, i) => -0.5 * w[i % 2]! * v) }, 0);
  });

  it("an unregistered scheme:// is an OklError at the #include naming the fileOpeners option", () => {
    const none = oklError(() => parseOkl(SCALE, { defines: { NUM_QUAD: 2 }, readFile }));
    expect([none.line, none.column]).toEqual([1, 10]);
    expect(none.message).toContain('File does not exist: "mfem-occa://defines.okl"');
    expect(none.message).toContain('pass fileOpeners: { "mfem-occa://": ["DIR", ...] }');
    const other = oklError(() => parseOkl(SCALE, { fileOpeners: { "laghos://": ["/opt/laghos"] }, readFile }));
    expect(other.message).toContain("(prefixes given: laghos://)");
  });

  it("a file no folder of the prefix has is an OklError naming the prefix and the folders searched", () => {
    const e = oklError(() => parseOkl(SCALE.replace("defines.okl", "nowhere.okl"), { fileOpeners, readFile }));
    expect(e.line).toBe(1);
    expect(e.message).toContain('File does not exist: "mfem-occa://nowhere.okl" (file opener "mfem-occa://" searched /src/mfem/backends/occa, /opt/mfem/lib/mfem/occa)');
  });

  it("the longest matching prefix wins, and OCCA's own occa:// still reads libraryPaths", () => {
    const src = SCALE.replace('#include "mfem-occa://defines.okl"', '#include "mfem-occa://v2/defines.okl"\n#include "occa://lib/extra.okl"');
    const [k] = parseOkl(src, {
      defines: { NUM_QUAD: 2 },
      fileOpeners: { "mfem-occa://": ["/nowhere"], "mfem-occa://v2/": ["/src/mfem/backends/occa"] },
      libraryPaths: { lib: "/opt/lib" },
      readFile: (p) => (p === "/opt/lib/extra.okl" ? "#define EXTRA 1\n" : p === "/nowhere/views/quad.okl" ? VIEWS : files[p]),
    });
    expect(k!.name).toBe("ScaleByWeights");
    // OCCA's `includes` kernel property reads through the opener too.
    const [k2] = parseOkl(SCALE.replace('#include "mfem-occa://defines.okl"\n', ""), { defines: { NUM_QUAD: 2 }, includes: ["mfem-occa://defines.okl"], fileOpeners, readFile });
    expect(k2!.name).toBe("ScaleByWeights");
  });
});
