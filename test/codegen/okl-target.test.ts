/** The okl target: a Loom kernel printed as legacy (or normalized) OKL. */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { generateOkl } from "../../codegen/targets/okl-generate.js";
import { localFetch, tiledMatmul, vecadd } from "./kernels.js";

describe("generateCode(k, 'okl')", () => {
  it("prints a sequential kernel inside one-iteration @outer/@inner loops", () => {
    const code = generateCode(vecadd(), "okl").deviceCode;
    expect(code).toContain("@kernel void vecadd(const float *a @restrict, const float *b @restrict, float *out @restrict, const int n)");
    expect(code).toContain("for (int _g0 = 0; _g0 < 1; ++_g0; @outer(0))");
    expect(code).toContain("@inner(0))");
  });
  it("maps g/l axes to @outer(k)/@inner(k) loops, highest axis outermost", () => {
    const code = generateCode(tiledMatmul(), "okl").deviceCode;
    const order = ["@outer(1)", "@outer(0)", "@inner(1)", "@inner(0)"].map((a) => code.indexOf(a));
    expect(order.every((x, i) => x > 0 && (i === 0 || x > order[i - 1]!))).toBe(true);
    expect(code).toContain("_g0 < (n + 15) / 16");
  });
  it("declares local memory @shared between the loops and splits inner blocks at barriers", () => {
    const code = generateCode(localFetch(), "okl").deviceCode;
    expect(code).toMatch(/@outer\(0\)\)\n {2}\{\n {4}@shared float a_fetch\[16\];/);
    expect(code.match(/@inner\(0\)/g)!.length).toBe(2);
    expect(code).toContain("@barrier;");
  });
  it("has a normalized spelling", () => {
    const code = generateOkl(localFetch(), { normalized: true }).deviceCode;
    expect(code).toContain('[[okl_kernel("")]] void rev([[okl_restrict("")]] const float *a');
    expect(code).toContain('[[okl_outer("(0)")]] for (int _g0 = 0; _g0 < 1; ++_g0)');
    expect(code).toContain('[[okl_shared("")]] float a_fetch[16];');
    expect(code).toContain('[[okl_barrier("")]];');
  });
});
