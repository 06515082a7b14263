/**
 * Law: a literal means the same on every backend. Code generation and the interpreter fold
 * literals at compile time with one function (`foldLiteral`), and that folding computes exactly
 * what the run-time conversion templates would.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldLiteral } from "../../codegen/js-arith-code.js";
import { convertValue } from "../../codegen/expr.js";
import { generateCode } from "../../codegen/index.js";
import { DTYPES, type Dtype, type Kernel, type TypedArray } from "../../src/ir/index.js";
import { f16round, floatToHalf } from "../../src/ir/float16.js";
import { makeKernel } from "../../src/parse/index.js";
import { convertCode, H, literalCode } from "../../src/run/arith-helpers.js";
import { run } from "../../src/run/index.js";

/** What the generated code computes for literal `value` of dtype `from` read as `to`. */
function atRunTime(value: number, from: Dtype, to: Dtype): number | bigint {
  const code = convertCode(convertCode(literalCode(value, "float64"), "float64", from), from, to);
  return new Function("H", `return ${code};`)(H) as number | bigint;
}

const literal = fc.oneof(
  fc.double({ noNaN: false }),
  fc.double({ min: -70000, max: 70000 }),
  fc.integer({ min: -300, max: 300 }).map((x) => x / 10),
  fc.integer(),
  fc.constantFrom(0.1, 0.3, 1 / 3, 65504, 65519, 65520, 2 ** -25, 1 + 2 ** -11, 4294967296.5, -0, 1e20),
);

function sameBits(a: TypedArray, b: TypedArray): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

async function agree(k: Kernel, args: Record<string, TypedArray | number>): Promise<string[]> {
  const ref = await run(k, args);
  const js = await run(k, args, { backend: "js" });
  return Object.keys(ref).filter((name) => !sameBits(ref[name]!, js[name]!));
}

describe("foldLiteral", () => {
  it("rounds to the dtype's precision: 0.1 as float16 is the nearest half", () => {
    expect(foldLiteral(0.1, "float64", "float16")).toBe(0.0999755859375);
    expect(foldLiteral(0.1, "float64", "float16")).toBe(f16round(0.1));
    expect(foldLiteral(0.1, "float16", "float64")).toBe(f16round(0.1));
    expect(foldLiteral(0.1, "float32", "float32")).toBe(Math.fround(0.1));
    expect(foldLiteral(300, "int8", "int32")).toBe(44);
    expect(foldLiteral(-1, "int32", "uint64")).toBe(2n ** 64n - 1n);
  });

  it("law: for every literal and pair of dtypes, folding now equals converting at run time", () => {
    fc.assert(fc.property(literal, fc.constantFrom(...DTYPES), fc.constantFrom(...DTYPES), (value, from, to) => {
      const now = foldLiteral(value, from, to);
      const later = atRunTime(value, from, to);
      return Object.is(now, later) || (typeof now === "bigint" && now === later);
    }), { numRuns: 3000 });
  });

  it("code generation folds narrow literals the same way (wide integers stay signed numbers)", () => {
    fc.assert(fc.property(literal, fc.constantFrom(...DTYPES), fc.constantFrom(...DTYPES), (value, from, to) => {
      if (to === "int64" || to === "uint64") return true;
      return Object.is(convertValue(value, from, to), foldLiteral(value, from, to));
    }), { numRuns: 2000 });
  });
});

describe("float16 literals: js backend and interpreter bit-identical", () => {
  it("a float16 kernel with literals like 0.1", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", [
      "out[i] = a[i] * 0.1 + 0.3",
      "o2[i] = cast(float16, 0.1) + a[i] / 3",
      "<float16> t = 0.7 - a[i]",
      "o3[i] = t * t + 1e-3",
    ], ["out: float16[n]", "a: float16[n]", "o2: float16[n]", "o3: float16[n]", "n: int32"]);
    const n = 64;
    const a = Uint16Array.from({ length: n }, (_, i) => floatToHalf(Math.sin(i) * 3));
    expect(await agree(k, { a, n })).toEqual([]);
    // OpenCL computes half arithmetic in float: the literal it sees is the half nearest 0.1.
    expect(generateCode(k, "opencl").deviceCode).toContain(`a[i] * ${Math.fround(f16round(0.1)).toPrecision(8)}f`);
  });

  it("typed float32 literals are float32 values (cast(float32, 0.1) squared in a float32 scalar)", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<float32> x = cast(float32, 0.1) + 0 * b[i]", "out[i] = x * x"],
      ["out: float32[n]", "b: float32[n]", "n: int32"]);
    const out = (await run(k, { b: new Float32Array(4), n: 4 })).out!;
    expect(out[0]).toBe(Math.fround(Math.fround(0.1) * Math.fround(0.1)));
    expect(await agree(k, { b: new Float32Array(4), n: 4 })).toEqual([]);
  });

  it("property: random float16 expressions with literals agree bit for bit", async () => {
    const lit = fc.oneof(fc.integer({ min: -99, max: 99 }).map((x) => (x / 10).toFixed(1)), fc.constantFrom("0.1", "0.3", "1e-3", "3.14159", "1000.7"));
    const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
      e: fc.oneof({ depthSize: "small", withCrossShrink: true },
        fc.constantFrom("a[i]", "b[i]"), lit,
        fc.tuple(tie("e"), fc.constantFrom("+", "-", "*", "/"), tie("e")).map(([l, op, r]) => `(${l} ${op} ${r})`),
        tie("e").map((x) => `sqrt(fabs(${x}))`)),
    })).e;
    await fc.assert(fc.asyncProperty(expr, fc.integer({ min: 1, max: 20 }), async (body, n) => {
      const k = makeKernel("{[i]: 0<=i<n}", `out[i] = ${body} + a[i]`, ["out: float16[n]", "a: float16[n]", "b: float16[n]", "n: int32"]);
      const a = Uint16Array.from({ length: n }, (_, i) => floatToHalf(Math.sin(i + 1) * 2));
      const b = Uint16Array.from({ length: n }, (_, i) => floatToHalf(Math.cos(i * 3) * 5));
      return (await agree(k, { a, b, n })).length === 0;
    }), { numRuns: 150 });
  }, 60_000);
});
