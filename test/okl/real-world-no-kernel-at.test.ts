/**
 * A nekRS `.oudf` that holds only boundary-condition functions (nekRS compiles them inside its own
 * kernels) imported alone, with the `bcData.h` header its host puts before it through OCCA's
 * `includes`: the "no @kernel" error points at the file itself, not at the header's first line.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";

const HEADER = "typedef struct { double x, y, z, u, v, w; } bcData;\n";
const OUDF = "void velocityDirichletConditions(bcData *bc)\n{\n  bc->u = 4.0 * bc->y * (1.0 - bc->y);\n  bc->v = 0;\n  bc->w = 0;\n}\n";
const opts = { filename: "channel.oudf", includes: ["bcData.h"], readFile: (p: string) => (p.endsWith("bcData.h") ? HEADER : undefined) };

describe("a file without @kernel, imported with an included header", () => {
  it("is refused at the file's own line 1, column 1", () => {
    const e = oklError(() => parseOkl(OUDF, opts));
    expect(e.message).toMatch(/^channel\.oudf:1:1: No \[@kernel\] functions found/);
  });

  it("the header is read (an error in it is reported in it)", () => {
    const e = oklError(() => parseOkl(OUDF, { ...opts, readFile: (p: string) => (p.endsWith("bcData.h") ? HEADER + "int @;\n" : undefined) }));
    expect(e.message).toMatch(/^bcData\.h:2:/);
  });
});
