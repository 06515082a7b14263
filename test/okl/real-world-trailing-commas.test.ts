/**
 * Issue 20 (engineer K): a trailing comma in a kernel's or device function's parameter list
 * (`@kernel void f(int n, )`, an early nekRS's `ellipticSEMFEMStiffness`, libCEED's CPU simplex
 * basis) was accepted silently. C rejects it; OCCA's parser drops the empty argument (its unit test
 * `testArgs`, in the corpus as `L0067_testArgs.pass.okl`, expects three arguments from `foo(A, B, C,
 * )`). So it is OCCA's leniency: dropped with a warning at the `)`, an OklError there in `warnings:
 * "error"` mode. The parser's other comma-separated lists are held to C's rule: call arguments,
 * declarators, subscripts and attribute arguments refuse a trailing comma; initializer lists and
 * enumerator lists keep accepting one, as C does.
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
const refusal = (src: string, strict = false) => oklError(() => parseOkl(src, { filename: "commas.okl", ...DEFINES, ...(strict ? { warnings: "error" as const } : {}) }));

describe("a trailing comma in a parameter list is dropped with a warning at the `)` (OCCA's leniency)", () => {
  const fn = "dfloat twice(const dfloat x, ) { return 2*x; }\n";
  const src = fn + kernel(`${PARAMS},\n  `, "Aq[e*4 + n] = twice(q[e*4 + n]);");

  it("of a @kernel and of a device function: the parameters before it, one warning each, the serial meaning", async () => {
    const ks = parseOkl(src, { filename: "commas.okl", ...DEFINES });
    expect(ks[0]!.args.map((a) => a.name)).toEqual(["Nelements", "q", "Aq"]);
    expect(ks.warnings.map((w) => [w.line, w.column, w.rule])).toEqual([[1, 30, "OCCA leniency"], [3, 3, "OCCA leniency"]]);
    expect(ks.warnings[1]!.message).toMatch(/^commas\.okl:3:3: warning: the trailing comma in the parameter list of "scale" is dropped, as OCCA's parser does \(C rejects it\)/);
    const q = [1, 2, 3, 4, -1, -2, -3, -4];
    await expectSerialMeaning(ks[0]!, () => ({ Nelements: 2, q: Float64Array.from(q), Aq: new Float64Array(8) }), { Aq: q.map((v) => 2 * v) });
  });

  it("an OklError at the `)` in warnings: \"error\" mode (C's rule), for a definition and a prototype", () => {
    expect(refusal(src, true).message).toMatch(/commas\.okl:1:30: expected a parameter type after ",", got "\)": a parameter list of "twice" cannot end with a comma in C/);
    expect(refusal("dfloat twice(const dfloat, );\n" + kernel(PARAMS, "Aq[e*4 + n] = q[e*4 + n];"), true).message).toMatch(/commas\.okl:1:28: .*list of "twice"/);
  });

  it("while an empty list, `void` and a full list import without a warning", () => {
    const ks = parseOkl("dfloat one() { return 1; }\ndfloat two(void) { return 2; }\n" + kernel(PARAMS, "Aq[e*4 + n] = one() + two()*q[e*4 + n];"), { filename: "commas.okl", ...DEFINES });
    expect(ks).toHaveLength(1);
    expect(ks.warnings).toEqual([]);
  });

  it("two commas in a row stay an error (an empty parameter between them)", () => {
    expect(refusal(kernel("const dlong Nelements, , @restrict dfloat *Aq", "Aq[e*4 + n] = 1;")).message).toMatch(/commas\.okl:1:43: expected a parameter type, got ","/);
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
