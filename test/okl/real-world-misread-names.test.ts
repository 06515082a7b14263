/**
 * Names a real file misuses, found by the widened real-world corpus (s36): nekRS's
 * `entrywiseMag.okl` declares `const dlong offset = fld * offset;` inside the loop while `offset` is
 * also a kernel argument. In C the new `offset`'s scope begins at its declarator, so the initializer
 * reads the new, uninitialized variable (gcc: "may be used uninitialized"); Loom had bound it to the
 * argument and computed a defined result that no C compiler promises. libParanumal's
 * `meshGeometricFactorsQuad2D.okl` writes `@kernel name(…)` with no return type (OCCA refuses it too).
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";

const loop = (body: string, args = "const int N, const double *a, double *b") => `@kernel void f(${args}) {
  for (int n = 0; n < N; ++n; @tile(16, @outer, @inner)) {
    ${body}
  }
}`;

describe("a name read in its own initializer", () => {
  it("hiding a kernel argument (nekRS's entrywiseMag): an OklError at the read, naming both", () => {
    const e = oklError(() => parseOkl(loop("const int offset = 2 * offset;\n    b[n] = a[n + offset];", "const int N, const int offset, const double *a, double *b")));
    expect([e.line, e.column, e.rule]).toEqual([3, 28, "self-initialization"]);
    expect(e.detail).toBe(`"offset" is read in its own initializer: in C a name's scope begins at its declarator, so this reads the new, ` +
      `uninitialized "offset", not the "offset" declared outside it, which this declaration hides; give the new variable another name`);
  });

  it("with nothing outside of that name: the same cause, where it was an unknown identifier", () => {
    const e = oklError(() => parseOkl(loop("const int x = x + 1;\n    b[n] = a[n] + x;")));
    expect([e.line, e.column]).toEqual([3, 19]);
    expect(e.detail).toMatch(/^"x" is read in its own initializer: .* the new, uninitialized "x"; give/);
  });

  it("another name of the outer scope is fine, and so is an initializer that hides nothing it reads", () => {
    const [k] = parseOkl(loop("const int m = 2 * N;\n    const int N2 = m + N;\n    b[n] = a[n] + N2;"));
    expect(k!.name).toBe("f");
  });
});

it("@kernel without a return type (libParanumal's meshGeometricFactorsQuad2D) says what is missing", () => {
  const e = oklError(() => parseOkl("@kernel meshFactors(const int N, double *b) {\n  for (int n = 0; n < N; ++n; @tile(16, @outer, @inner)) b[n] = 1;\n}"));
  expect([e.line, e.column]).toEqual([1, 1]);
  expect(e.detail).toBe(`'kernel' attribute cannot be applied to a statement: "meshFactors(" has no return type; a kernel is declared \`@kernel void meshFactors(…)\``);
});
