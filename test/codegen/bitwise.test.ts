/** Bitwise operators in generated code: C's operators with the parentheses gcc asks for, casts back for narrow `~`/`<<`, compilable. */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { compile, GCC_FLAGS, hasGcc } from "./compile-helpers.js";

const masks = makeKernel("{[i]: 0<=i<n}", [
  "out[i] = (a[i] & 0xff) | (b[i] << 3) ^ (~a[i] >> s) {id=mix}",
  "low[i] = ~c[i] & (c[i] << 2) {id=narrow}",
  "wide[i] = (w[i] >> 60) ^ (w[i] << s) | ~w[i] {id=wide}",
  "flag[i] = (a[i] & 1) == 1 {id=test}",
], ["a, b, out: uint32[n]", "c, low: uint8[n]", "w, wide: int64[n]", "flag: int32[n]", "n, s: int32"], { name: "masks" });

describe("C-family targets print C's operators", () => {
  it("c: & | ^ ~ << >> with parentheses around mixed operators", () => {
    const code = generateCode(masks, "c").deviceCode;
    // A count that is not a literal in range is checked (an out-of-range count is the interpreter's error, codegen/targets/int-traps.ts).
    expect(code).toContain("out[i] = (a[i] & 255u) | ((b[i] << 3) ^ (~a[i] >> loopy_shc_32_acc_int32(s, &loopy_trap_k1, loopy_trap_ord(i))));");
    expect(code).toContain("flag[i] = (a[i] & 1u) == 1u;");
  });

  it("8- and 16-bit ~ and << are cast back, since C computes them in int", () => {
    expect(generateCode(masks, "c").deviceCode).toContain("low[i] = (uint8_t) (~c[i]) & ((uint8_t) (c[i] << 2));");
  });

  it("opencl, cuda and openmp print the same operators in their type names", () => {
    expect(generateCode(masks, "opencl").deviceCode).toContain("low[i] = (uchar) (~c[i]) & ((uchar) (c[i] << 2));");
    expect(generateCode(masks, "cuda").deviceCode).toContain("wide[i] = ((w[i] >> 60) ^ (w[i] << loopy_shc_64_int32(s, loom_trap, 2u))) | ~w[i];");
    expect(generateCode(masks, "openmp").deviceCode).toContain("(b[i] << 3) ^ (~a[i] >> loopy_shc_32_acc_int32(s, &loopy_trap_k1, loopy_trap_ord(i)))");
  });

  it("js uses the interpreter's templates: counts checked at run time unless a literal in range", () => {
    const code = generateCode(masks, "js").deviceCode;
    expect(code).toContain(`(b[i] << 3)>>>0`);
    expect(code).toContain(`H.shc(s, 32, "mix")`);
    expect(code).toContain(`BigInt(H.shc(s, 64, "wide"))`);
  });
});

describe.skipIf(!hasGcc)("gcc -Wall -Werror compiles bitwise kernels", () => {
  it("c and openmp", () => {
    compile(masks, "c", "c", "gcc", GCC_FLAGS);
    compile(masks, "openmp", "c", "gcc", GCC_FLAGS);
  });
});
