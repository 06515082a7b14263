/**
 * Issue 20 (the solver corpus, s36): libParanumal's insDivergenceQuad2D (@0de3b35) writes
 * `@global const dfloat *x` on a device function's pointer parameters. Neither OKL nor current OCCA
 * has a `@global` attribute (OCCA's builtins are the list Loom gives), so the import is refused; the
 * message listed the attributes, @globalPtr among them, which reads as "write @globalPtr" although
 * @globalPtr marks a struct's pointer field. The refusal now says what @global would have meant
 * and what to write instead; `@local` (OpenCL's name) points at @shared.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";

const DEFINES = { defines: { dfloat: "double", dlong: "int" } };

const deviceFunction = (qualifier: string) => `void addFlux(int n, ${qualifier} const dfloat *q, dfloat *out) { out[n] += q[n]; }
@kernel void surface(const dlong Nelements, @restrict const dfloat *q, @restrict dfloat *rhs) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < 4; ++n; @inner(0)) {
      addFlux(e*4 + n, q, rhs);
    }
  }
}`;

const refusal = (src: string) => oklError(() => parseOkl(src, { filename: "ins.okl", ...DEFINES }));

describe("an attribute OKL does not have, named for what it would mean", () => {
  it("@global on a pointer parameter: pointers already point to global memory; drop it", () => {
    const e = refusal(deviceFunction("@global"));
    expect([e.line, e.column, e.rule]).toEqual([1, 21, "attribute name"]);
    expect(e.detail).toMatch(/^unknown attribute @global: OKL has no @global \(nor has OCCA\); a pointer argument already points to global memory, so drop it \(@globalPtr marks a pointer field of a struct\)/);
    expect(e.detail).toMatch(/\(OKL attributes: @kernel .*@globalPtr/);
  });

  it("@local (OpenCL's work-group memory) points at @shared", () => {
    const src = `@kernel void k(const int n, double *x) {
  for (int o = 0; o < n; ++o; @outer(0)) {
    @local double s[4];
    for (int i = 0; i < 4; ++i; @inner(0)) { s[i] = i; x[4*o + i] = s[i]; }
  }
}`;
    const e = refusal(src);
    expect([e.line, e.column]).toEqual([3, 5]);
    expect(e.detail).toMatch(/^unknown attribute @local: OKL's work-group memory is @shared/);
  });

  it("the same kernel without the attribute imports", () => {
    expect(parseOkl(deviceFunction(""), DEFINES).map((k) => k.name)).toEqual(["surface"]);
  });

  it("a misspelling keeps the plain message", () => {
    expect(refusal(deviceFunction("@globl")).detail).toMatch(/^unknown attribute @globl \(OKL attributes: /);
  });
});
