/**
 * CUDA code that NVRTC compiles as it is: found by running the parity laws on a GPU (an H200), where
 * NVRTC rejected what `nvcc -ptx` accepts. NVRTC compiles without the C headers (no `INFINITY`,
 * `HUGE_VAL` or `NAN`), and CUDA's math functions are C++ overloads (no one `fmin` for a float and a
 * double, where C's prototype converts). Checked on the text here, as CI has no GPU and nvcc's
 * headers hide both; the GPU run of the laws checks the values.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { only } from "../okl/helpers.js";

const NO_HEADER_MACRO = /\b(INFINITY|HUGE_VALF?|NAN)\b/;

describe("cuda: code NVRTC compiles without the C headers", () => {
  it("a max or argmax starts from -infinity by its bits (float32 and float64)", () => {
    for (const dtype of ["float32", "float64"]) {
      const k = makeKernel("{[j,i]: 0<=j<r and 0<=i<c}", "val[j], at[j] = argmax(i, abs(a[j,i]), i)", [`a: ${dtype}[r, c]`, `val: ${dtype}[r]`, "at: int32[r]", "r, c: int32"]);
      const code = generateCode(k, "cuda").deviceCode;
      expect(code).not.toMatch(NO_HEADER_MACRO);
      expect(code).toContain(dtype === "float32" ? "(-__int_as_float(0x7f800000))" : "(-__longlong_as_double(0x7ff0000000000000LL))");
      // The C targets keep the readable macros (their headers define them).
      expect(generateCode(k, "c").deviceCode).toMatch(/-INFINITY|-HUGE_VAL/);
    }
    const mn = makeKernel("{[i]: 0<=i<n}", "m = min(i, a[i])", ["a: float32[n]", "m: float32[]", "n: int32"]);
    expect(generateCode(mn, "cuda").deviceCode).toContain("= __int_as_float(0x7f800000);");
  });

  it("a math call's float argument converted to double keeps its cast (C++ overloads cannot choose)", () => {
    const k = only(`@kernel void fl(const int n, const float *xf, const double *xd, float *y) {
      for (int b = 0; b < 1; ++b; @outer) for (int i = 0; i < n; ++i; @inner) y[i] = fmin(xf[i], xd[i] + xf[i]) + exp(n) + atan2(xf[i], xd[i]);
    }`);
    for (const t of ["cuda", "c"] as const) {
      const code = generateCode(k, t).deviceCode;
      expect(code, t).toMatch(/fmin\(\(double\) xf\[[^\]]+\], /);
      expect(code, t).not.toMatch(/fmin\(xf\[/);
      expect(code, t).toContain("exp((double) n)");
      expect(code, t).toMatch(/atan2\(\(double\) xf\[/);
    }
  });
});
