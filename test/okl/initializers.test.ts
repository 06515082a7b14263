/**
 * Initializer lists of N-D local arrays (C's row-major order, brace elision, `[]` sizes) and
 * file-scope constants beyond integers: floating-point scalars computed at compile time and
 * constant tables (`const float w[] = {…};`, OCCA's finite-difference example). Each runs with the
 * values C gives; what stays unsupported is an OklError with line and column.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { run } from "../../src/run/index.js";
import { oklError, only, TARGETS, values } from "./helpers.js";

describe("initializer lists of local arrays", () => {
  const kernel = (decl: string, n: number) => only(`
@kernel void k(int *o) {
  for (int g = 0; g < 1; ++g; @outer) {
    for (int t = 0; t < 1; ++t; @inner) {
      ${decl}
      for (int q = 0; q < ${n}; ++q) o[q] = A_flat(q);
    }
  }
}`.replace(/A_flat\(q\)/, n === 6 ? "A[q / 3][q % 3]" : "A[q / 4][(q / 2) % 2][q % 2]"));

  it("2-D with nested braces, missing elements zero (C11 6.7.9)", async () => {
    const k = kernel("int A[2][3] = {{1, 2}, {4, 5, 6}};", 6);
    expect(values((await run(k, { o: new Int32Array(6) })).o)).toEqual([1, 2, 0, 4, 5, 6]);
    for (const t of TARGETS) expect(() => generateCode(k, t)).not.toThrow();
  });

  it("brace elision fills row-major; a `[]` first extent is counted from the list", async () => {
    expect(values((await run(kernel("int A[2][3] = {1, 2, 3, 4};", 6), { o: new Int32Array(6) })).o)).toEqual([1, 2, 3, 4, 0, 0]);
    expect(values((await run(kernel("int A[][3] = {{1}, {2}};", 6), { o: new Int32Array(6) })).o)).toEqual([1, 0, 0, 2, 0, 0]);
  });

  it("3-D", async () => {
    const k = kernel("int A[2][2][2] = {{{1, 2}, {3, 4}}, {{5, 6}, {7}}};", 8);
    expect(values((await run(k, { o: new Int32Array(8) })).o)).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
  });

  it("OCCA's tests-files/addVectors.okl form: double A[3][3] = {{…}, …} updated in loops", async () => {
    const k = only(`
@kernel void k(const float *a, double *o) {
  for (int i = 0; i < 1; ++i; @tile(16, @outer, @inner)) {
    double A[3][3] = { {0.0, 1.0, 2.0}, {1.0, 2.0, 3.0}, {2.0, 3.0, 4.0} };
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++)
        A[j][k] += a[j];
    for (int j = 0; j < 3; j++) o[j] = A[j][0] + A[j][1] + A[j][2];
  }
}`);
    const out = await run(k, { a: Float32Array.from([10, 20, 30]), o: new Float64Array(3) });
    expect(values(out.o)).toEqual([3 + 30, 6 + 60, 9 + 90]);
  });

  it("too many initializers, designators and misplaced braces are errors with line:column", () => {
    const e = oklError(() => kernel("int A[2][3] = {{1, 2, 3, 4}};", 6));
    expect([e.line, e.column, e.detail]).toEqual([5, 32, `array "A": too many initializers (it has 3 element(s) there)`]);
    expect(oklError(() => kernel("int A[2][3] = {[1] = 2};", 6)).detail).toMatch(/designated initializers are not supported/);
    expect(oklError(() => kernel("int A[2][3] = {1, {2}};", 6)).detail).toMatch(/braced initializer after a partly filled subarray/);
  });
});

describe("file-scope constants", () => {
  // fd2d.okl's form: tables from a macro, a float constant computed from defines, a device function reading it.
  const SRC = `
const tFloat tStencil[] = {1.0/(dt*dt), -2.0/(dt*dt), 1.0/(dt*dt)};
const tFloat grid[2][2] = {{1, 2}, {3}};
const tFloat t0 = 1.5/freq;
tFloat shift(tFloat t) { const tFloat u = t - t0; return u * u; }
@kernel void k(const int n, const int *which, tFloat *o) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    tFloat s = 0;
    for (int q = 0; q < 3; q++) s += tStencil[q];
    o[i] = s + grid[1][0] + shift(0.0f) + tStencil[which[i]] + grid[which[i] % 2][1];
  }
}`;
  const defines = { tFloat: "float", dt: "0.5", freq: "3.0" };

  it("tables are read at constant subscripts as their values, at run-time subscripts as a select", async () => {
    const k = only(SRC, defines);
    expect(k.temporaries.filter((t) => t.name.includes("Stencil") || t.name.includes("grid"))).toEqual([]);
    const which = Int32Array.from([0, 1, 2, 1]);
    const out = await run(k, { n: 4, which, o: new Float32Array(4) });
    const table = [4, -8, 4];
    const grid = [[1, 2], [3, 0]];
    const t0 = Math.fround(1.5 / 3);
    const want = [...which].map((w) => Math.fround(0 + 3 + t0 * t0 + table[w]! + grid[w % 2]![1]!));
    expect(values(out.o)).toEqual(want);
    for (const t of TARGETS) expect(() => generateCode(k, t)).not.toThrow();
  });

  it("writing a table, subscripting it wrongly, and a non-constant initializer are errors where used", () => {
    const k = (body: string, pre = "const float w[3] = {1, 2, 3};") => () => only(`${pre}
@kernel void k(float *o, const int *p) {
  for (int i = 0; i < 4; ++i; @tile(4, @outer, @inner)) {
    ${body}
  }
}`);
    const w = oklError(k("w[1] = 2;"));
    expect([w.line, w.column, w.detail]).toEqual([4, 5, `file-scope array "w" is read as a constant table; writing it is not supported`]);
    expect(oklError(k("o[i] = w[3];")).detail).toBe(`array "w" has 3 element(s); element 3 is out of bounds`);
    expect(oklError(k("o[i] = w[i][0];")).detail).toBe(`array "w" has 1 dimension(s), subscripted with 2`);
    const g = oklError(k("o[i] = g;", "float h(); const float g = h();"));
    expect(g.detail).toMatch(/^file-scope "g" cannot be lowered: call of unknown function "h"/);
    expect([g.line, g.column]).toEqual([4, 12]);
    // Unused, it is no error.
    expect(() => k("o[i] = 1;", "float h(); const float g = h();")()).not.toThrow();
  });
});
