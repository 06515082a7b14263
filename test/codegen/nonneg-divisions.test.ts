/**
 * Floor divisions and moduli by a positive constant whose numerator the loop context proves in
 * [0, INT32_MAX] print as plain `/` and `%` (codegen/lower/divisions.ts); the others keep loopy's
 * helpers. Law: for random affine numerators over ranges that are negative, non-negative or both,
 * each kernel's outputs on js (and on c, where it runs here) equal the interpreter's, and the
 * C code uses the helper exactly where the numerator can be negative.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateCode } from "../../src/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { availableNative } from "../run/native-helpers.js";
import { packedMatmul } from "../../bench/packing-matmul.js";

const C = availableNative(["c"]);


interface Term { readonly s: number; readonly t: number; readonly d: number; readonly op: "//" | "%"; readonly nest?: { readonly op: "//" | "%"; readonly d: number } }

const genTerm: fc.Arbitrary<Term> = fc.record({
  s: fc.integer({ min: -3, max: 3 }), t: fc.integer({ min: -40, max: 40 }), d: fc.integer({ min: 1, max: 9 }),
  op: fc.constantFrom("//" as const, "%" as const),
  nest: fc.option(fc.record({ op: fc.constantFrom("//" as const, "%" as const), d: fc.integer({ min: 1, max: 5 }) }), { nil: undefined }),
});

/** The numerator `s*j + t` as text, and its least value over lo <= j < lo + len. */
const numText = (x: Term) => `${x.s}*j + ${x.t}`.replace("+ -", "- ");
const least = (x: Term, lo: number, len: number) => Math.min(x.s * lo, x.s * (lo + len - 1)) + x.t;
const termText = (x: Term) => {
  const inner = `(${numText(x)}) ${x.op} ${x.d}`;
  return x.nest ? `(${inner}) ${x.nest.op} ${x.nest.d}` : inner;
};

/** One kernel with an output per term: `oX[j - lo] = term_X` over lo <= j < lo + len. */
function kernelOf(terms: readonly Term[], lo: number, len: number): Kernel {
  return makeKernel(`{[j]: ${lo} <= j < ${lo + len}}`, terms.map((x, n) => `o${n}[j - ${lo}] = ${termText(x)} {id=w${n}}`),
    terms.map((_, n) => `o${n}: int32[${len}]`), { name: "divs" });
}

/** How many of loopy's floor division and modulo helpers the C statement writing `oX` calls. */
function helpersOf(code: string, n: number): number {
  const line = code.split("\n").find((l) => l.trim().startsWith(`o${n}[`))!;
  return line.match(/loopy_(floor_div|mod)_int32\(/g)?.length ?? 0;
}

describe("floor division and modulo of a provably non-negative numerator print as / and %", () => {
  const genCase = fc.record({ terms: fc.array(genTerm, { minLength: 1, maxLength: 6 }), lo: fc.integer({ min: -20, max: 20 }), len: fc.integer({ min: 1, max: 24 }) });

  it("js equals the interpreter, and the C helpers stay exactly where the numerator can be negative (120 cases)", async () => {
    await fc.assert(fc.asyncProperty(genCase, async ({ terms, lo, len }) => {
      const k = kernelOf(terms, lo, len);
      const r = await autoTestVsRef(k, k, { backend: "js" });
      expect(r.ok, r.mismatches.slice(0, 3).join("; ")).toBe(true);
      const code = generateCode(k, "c").deviceCode;
      terms.forEach((x, n) => {
        const h = helpersOf(code, n);
        const negative = least(x, lo, len) < 0;
        // A nested term's outer numerator is a modulo (always >= 0) or a floor division of the
        // affine numerator (>= 0 exactly where that is).
        const want = (negative ? 1 : 0) + (x.nest && x.op === "//" && negative ? 1 : 0);
        expect(h, `${termText(x)} for ${lo} <= j < ${lo + len}`).toBe(want);
      });
    }), { numRuns: 120 });
  });

  it.skipIf(C.length === 0)("c equals the interpreter (4 kernels of up to 6 terms, one compile each)", async () => {
    await fc.assert(fc.asyncProperty(genCase, async ({ terms, lo, len }) => {
      const k = kernelOf(terms, lo, len);
      const r = await autoTestVsRef(k, k, { backend: "c" });
      expect(r.ok, r.mismatches.slice(0, 3).join("; ")).toBe(true);
    }), { numRuns: 4 });
  }, 240_000);

  it("parameters count as int32 values: i // 4 and (n - 1 - i) % 4 are plain, (i + 3) // 4 may exceed INT32_MAX", () => {
    const k = makeKernel("{[i]: 0 <= i < n}", ["x[i] = i // 4 {id=a}", "y[i] = (n - 1 - i) % 4 {id=b}", "z[i] = (i + 3) // 4 {id=c}", "w[i] = (i - 1) // 2 {id=d}"],
      ["x, y, z, w: int32[n]", "n: int32"], { name: "params" });
    const code = generateCode(k, "c").deviceCode;
    const line = (v: string) => code.split("\n").find((l) => l.trim().startsWith(`${v}[`))!;
    expect(line("x")).toContain("= i / 4;");
    // (int32 data arithmetic wraps, computed unsigned: codegen/ast.ts)
    expect(line("y")).toContain("= (int32_t) ((uint32_t) n - 1u - (uint32_t) i) % 4;");
    expect(line("z")).toContain("loopy_floor_div_int32((int32_t) ((uint32_t) i + 3u), 4)");
    expect(line("w")).toContain("loopy_floor_div_int32((int32_t) ((uint32_t) i - 1u), 2)");
    // An assumption that bounds n proves the sum too.
    const bounded = makeKernel("{[i]: 0 <= i < n}", "z[i] = (i + 3) // 4", ["z: int32[n]", "n: int32"], { name: "bounded", assumptions: "n <= 4096" });
    expect(generateCode(bounded, "c").deviceCode).toContain("= (int32_t) ((uint32_t) i + 3u) / 4;");
    expect(generateCode(bounded, "js").deviceCode).toMatch(/Math\.floor\(.*\/ 4\)/);
  });

  it("the packed matmul's micro-panel layout: the packing loop has no floor division at all", () => {
    const code = generateCode(packedMatmul(1000), "openmp").deviceCode;
    const pack = code.split("\n").filter((l) => /b_fetch\[.*\] = /.test(l));
    expect(pack.length).toBeGreaterThan(0);
    for (const l of pack) expect(l).not.toMatch(/loopy_(floor_div|mod)/);
  });
});
