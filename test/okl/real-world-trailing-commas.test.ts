/**
 * Issue 20 (engineer K): a trailing comma in a kernel's or device function's parameter list
 * (`@kernel void f(int n, )`) was accepted silently; C and OCCA reject it, so it is an OklError at
 * the `)` saying what was expected. The other comma-separated lists of the parser are held to C's
 * rule too: call arguments, declarators, subscripts and attribute arguments refuse a trailing
 * comma; initializer lists and enumerator lists keep accepting one, as C does.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning } from "./real-world-helpers.js";

const DEFINES = { defines: { dfloat: "double", dlong: "int" } };

/** A kernel with `params` whose one work-item per node runs `body`. */
const kernel = (params: string, body: string) => `@kernel void scale(${params}) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < 4; ++n; @inner(0)) {
      ${body}
    }
  }
}`;
const PARAMS = "const dlong Nelements, @restrict const dfloat *q, @restrict dfloat *Aq";

/** The error of importing `src`, with its place and message. */
const refusal = (src: string) => oklError(() => parseOkl(src, { filename: "commas.okl", ...DEFINES }));

describe("a trailing comma in a parameter list is refused at the `)`", () => {
  it("of a @kernel", () => {
    const e = refusal(kernel(`${PARAMS},\n  `, "Aq[e*4 + n] = q[e*4 + n];"));
    expect(e.message).toMatch(/commas\.okl:2:3: expected a parameter type after ",", got "\)": a parameter list of "scale" cannot end with a comma/);
  });

  it("of a device function's definition and of its prototype", () => {
    const fn = "dfloat twice(const dfloat x, ) { return 2*x; }\n";
    expect(refusal(fn + kernel(PARAMS, "Aq[e*4 + n] = twice(q[e*4 + n]);")).message).toMatch(/commas\.okl:1:30: .*list of "twice" cannot end with a comma/);
    expect(refusal("dfloat twice(const dfloat, );\n" + kernel(PARAMS, "Aq[e*4 + n] = q[e*4 + n];")).message).toMatch(/commas\.okl:1:28: .*list of "twice"/);
  });

  it("while an empty list, `void` and a full list import", () => {
    const src = "dfloat one() { return 1; }\ndfloat two(void) { return 2; }\n" + kernel(PARAMS, "Aq[e*4 + n] = one() + two()*q[e*4 + n];");
    expect(parseOkl(src, { filename: "commas.okl", ...DEFINES })).toHaveLength(1);
  });
});

describe("the other comma-separated lists follow C", () => {
  const cases: [string, string, RegExp][] = [
    ["call arguments", "Aq[e*4 + n] = max(q[e*4 + n], 0.0, );", /expected an expression, got "\)"/],
    ["declarators", "dfloat a = q[e*4 + n], ; Aq[e*4 + n] = a;", /expected a name, got ";"/],
    ["subscripts", "Aq[e*4 + n, ] = q[e*4 + n];", /expected an expression, got "\]"/],
  ];
  for (const [what, body, re] of cases) {
    it(`${what}: a trailing comma is refused`, () => expect(refusal(kernel(PARAMS, body)).message).toMatch(re));
  }

  it("attribute arguments: a trailing comma is refused", () => {
    const src = kernel(PARAMS, "Aq[e*4 + n] = q[e*4 + n];").replace("@outer(0)", "@outer(0, )");
    expect(refusal(src).message).toMatch(/\[@outer\] has an empty argument/);
  });

  it("initializer and enumerator lists keep their trailing comma (C allows it): the serial meaning", async () => {
    const src = "enum Face { FACE_W, FACE_E, FACE_COUNT, };\n" + kernel(PARAMS, `
      const dfloat w[4] = {0.5, 1.0, 1.5, 2.0, };
      Aq[e*4 + n] = w[n]*q[e*4 + n] + FACE_COUNT;`);
    const [k] = parseOkl(src, { filename: "commas.okl", ...DEFINES });
    const q = [1, 2, 3, 4, -1, -2, -3, -4];
    const w = [0.5, 1, 1.5, 2];
    await expectSerialMeaning(k!, () => ({ Nelements: 2, q: Float64Array.from(q), Aq: new Float64Array(8) }), { Aq: q.map((v, i) => w[i % 4]! * v + 2) });
  });
});
