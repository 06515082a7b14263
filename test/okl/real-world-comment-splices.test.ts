/**
 * Issue 20 (helper CORPUS3): C splices lines (a backslash at a line's end) before it removes
 * comments, so a `//` comment whose line ends in `\` goes on to the next line (gcc warns
 * "multi-line comment"); OCCA's tokenizer does the same (its skipTo steps over a backslash and the
 * character after it). Loom's lexer ended the comment at the first line break, so the next line ran
 * as code: a silent wrong result. Found while reading the line splices of libParanumal's subcycling
 * kernels (`insVelocityDirichletConditions2D(bc, …, \` continued on the next line).
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { lex } from "../../src/okl/syntax/lexer.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { defines: { dfloat: "double", dlong: "int", p_Np: 4 } };

/** An element-local kernel: one work-item per node, `body` per node (q in, Aq out). */
const kernel = (body: string, head = "") => `${head}@kernel void scale(const dlong Nelements, @restrict const dfloat *q, @restrict dfloat *Aq) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      const dlong id = e*p_Np + n;
${body}
    }
  }
}`;

const q = seeded(8, 3);
const args = () => ({ Nelements: 2, q: Float64Array.from(q), Aq: new Float64Array(8) });

describe("a `//` comment whose line ends in a backslash goes on to the next line, as in C and OCCA", () => {
  it("in a kernel's body: the spliced line is comment, not code (the serial meaning on interp and openmp)", async () => {
    const src = kernel(`      Aq[id] = 2*q[id]; // doubled, see \\
      Aq[id] = 3*q[id];
      Aq[id] += 1;`);
    const [k] = parseOkl(src, { filename: "splice.okl", ...DEFINES });
    await expectSerialMeaning(k!, args, { Aq: q.map((v) => 2 * v + 1) });
  });

  it("in a multi-line #define: the comment ends the macro's body there (what follows on the spliced line is gone)", async () => {
    const head = `#define storeFlux(id) \\
  Aq[id] = q[id]; // the flux, then scaled \\
  Aq[id] *= 4;
`;
    const [k] = parseOkl(kernel("      storeFlux(id)\n      Aq[id] -= 1;", head), { filename: "splice.okl", ...DEFINES });
    await expectSerialMeaning(k!, args, { Aq: q.map((v) => v - 1) });
  });

  it("with a CRLF line end too, and line numbers after it stay those of the file", () => {
    const src = kernel("      Aq[id] = q[id]; // a note \\\r\n      Aq[id] = r[id];\r\n      Aq[id] = s[id];");
    expect(oklError(() => parseOkl(src, { filename: "splice.okl", ...DEFINES })).message).toMatch(/^splice\.okl:7:16: unknown identifier "s"/);
  });
});

describe("a line splice inside a token joins it, as C's translation phase 2 does before tokens are formed", () => {
  it("in a type name, a number, an identifier, an operator and a macro's name and parameter list: one kernel, its serial meaning", async () => {
    const head = "#define TW\\\nICE\\\n(x) (2*(x))\n";
    const src = kernel(`      const dfl\\
oat s = 1.5\\
e1;
      dfloat a\\
cc = TWICE(q[id]);
      acc +\\
= s;
      Aq[id] = acc;`, head);
    const [k] = parseOkl(src, { filename: "splice.okl", ...DEFINES });
    await expectSerialMeaning(k!, args, { Aq: q.map((v) => 2 * v + 15) });
  });

  it("places after a splice keep the file's line:column, and a joined token is placed at its first character", () => {
    const src = kernel("      const dfloat t = 1.5\\\ne3; Aq[id] = t + q\\\r\nq[id];");
    expect(oklError(() => parseOkl(src, { filename: "splice.okl", ...DEFINES })).message).toMatch(/^splice\.okl:6:18: unknown identifier "qq"/);
  });

  it("in a string literal, with CRLF too: the splice is taken out of its text", () => {
    const texts = lex('"ab\\\ncd" "e\\\r\nf"', undefined, false).map((t) => [t.type, t.text, t.line, t.col]);
    expect(texts).toEqual([["string", '"abcd"', 1, 1], ["string", '"ef"', 2, 5]]);
  });
});
