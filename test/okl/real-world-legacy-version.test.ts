/**
 * Issue 20 (engineer H): files in OCCA 0.x's kernel language are refused for their version, at their
 * first `kernel void` / `occaKernel void`, even where another 0.x or OpenCL form stands earlier in the
 * file and used to stop the parser with a syntax error that named the wrong thing (libCEED's 2018
 * kernels: `typedef __global double gCeedScalar;` above `kernel void setupf(…)`, "expected a name, got
 * \"double\""; OCCA's old fd2d example: `occaConstant tFloat tStencil[] = …` first). OCCA 1.0 and later
 * read neither. A 1.x file (any `@kernel`) is never judged by this, whatever names it uses.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const lineOf = (src: string, needle: string): number => src.split("\n").findIndex((l) => l.includes(needle)) + 1;

describe("OCCA 0.x files are refused for their version at their first kernel", () => {
  it("an OpenCL address space in a typedef above `kernel void` (libCEED 2018)", () => {
    const src = `typedef int CeedInt;
typedef __global double gScalar;
kernel void scaleQ(const CeedInt n, gScalar *q) {
  for (int i = 0; i < n; i++; tile(64)) { if (i < n) q[i] *= 2.0; }
}`;
    const e = oklError(() => parseOkl(src));
    expect([e.rule, e.line, e.column]).toEqual(["OKL version", lineOf(src, "kernel void"), 1]);
    expect(e.message).toMatch(/"kernel void" is OCCA 0\.x's kernel language .* write @kernel/);
  });

  it("0.x globals and functions above `occaKernel void` (OCCA's old examples)", () => {
    const src = `occaConstant float weights[] = {0.25f, 0.5f, 0.25f};
occaFunction float hat(float t) { return t*t; }
occaKernel void smooth(float *u, const float *v) {
  for (int b = 0; b < 4; ++b; outer0) { for (int i = 0; i < 16; ++i; inner0) u[b*16 + i] = hat(v[b*16 + i]); }
}`;
    const e = oklError(() => parseOkl(src));
    expect([e.rule, e.line]).toEqual(["OKL version", lineOf(src, "occaKernel void")]);
  });

  it("an OKL 1.x kernel that names a variable `kernel` and calls a function `occaKernel` is read as OKL", async () => {
    const [k] = parseOkl(`
float occaKernel(float v) { return 3.0f*v; }
@kernel void weigh(const int n, const float *kernel, float *out) {
  for (int b = 0; b < n; b += 8; @outer) {
    for (int i = b; i < b + 8; ++i; @inner) if (i < n) out[i] = occaKernel(kernel[i]);
  }
}`);
    const x = seeded(20, 4).map(Math.fround);
    await expectSerialMeaning(k!, () => ({ n: 20, kernel: Float32Array.from(x), out: new Float32Array(20) }), { out: x.map((v) => Math.fround(3 * v)) });
  });
});
