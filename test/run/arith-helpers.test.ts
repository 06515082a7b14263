/** Typed arithmetic follows C (and loopy for `//` and `%`), dtype by dtype. */
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import type { Dtype, TypedArray } from "../../src/ir/index.js";
import { floatToHalf, halfToFloat } from "../../src/ir/float16.js";
import { run } from "../../src/run/index.js";
import { makeKernel } from "../../src/parse/index.js";

/** `out[i] = <expr of a[i], b[i]>` over n elements, a and b of dtype `d`, out of dtype `outD`. */
async function elementwise(rhs: string, d: Dtype, a: TypedArray, b: TypedArray, outD: Dtype = d): Promise<TypedArray> {
  const k = makeKernel("{[i]: 0<=i<n}", `out[i] = ${rhs} {id=op}`, [`a, b: ${d}[n]`, `out: ${outD}[n]`, "n: int32"]);
  return (await run(k, { a, b, n: a.length })).out!;
}

describe("int32", () => {
  it("wraps on overflow", async () => {
    const a = Int32Array.of(2147483647, -2147483648, 65536, 46341);
    const b = Int32Array.of(1, -1, 65536, 46341);
    expect([...await elementwise("a[i] + b[i]", "int32", a, b)]).toEqual([-2147483648, 2147483647, 131072, 92682]);
    expect([...await elementwise("a[i] * b[i]", "int32", a, b)]).toEqual([2147483647, -2147483648, 0, -2147479015]);
    expect([...await elementwise("-a[i]", "int32", a, b)]).toEqual([-2147483647, -2147483648, -65536, -46341]);
  });

  it("/ truncates toward zero, // floors, % takes the sign of the divisor", async () => {
    const a = Int32Array.of(7, -7, 7, -7, -2147483648);
    const b = Int32Array.of(2, 2, -2, -2, -1);
    expect([...await elementwise("a[i] / b[i]", "int32", a, b)]).toEqual([3, -3, -3, 3, -2147483648]);
    expect([...await elementwise("a[i] // b[i]", "int32", a, b)]).toEqual([3, -4, -4, 3, -2147483648]);
    expect([...await elementwise("a[i] % b[i]", "int32", a, b)]).toEqual([1, 1, -1, -1, 0]);
  });

  it("division and modulo by zero are ExecutionErrors naming the instruction", async () => {
    for (const op of ["/", "//", "%"]) {
      const p = elementwise(`a[i] ${op} b[i]`, "int32", Int32Array.of(1), Int32Array.of(0));
      await expect(p).rejects.toThrow(ExecutionError);
      await expect(p).rejects.toThrow(/"op".*by zero/);
    }
  });

  it("integer powers wrap", async () => {
    expect([...await elementwise("a[i] ** b[i]", "int32", Int32Array.of(3, 2, -2), Int32Array.of(4, 31, 3))]).toEqual([81, -2147483648, -8]);
  });
});

describe("narrow and unsigned integers", () => {
  it("int8, int16, uint8, uint16 and uint32 wrap to their width", async () => {
    expect([...await elementwise("a[i] + b[i]", "int8", Int8Array.of(127, -128), Int8Array.of(1, -1))]).toEqual([-128, 127]);
    expect([...await elementwise("a[i] * b[i]", "int16", Int16Array.of(300, -300), Int16Array.of(300, 300))]).toEqual([24464, -24464]);
    expect([...await elementwise("a[i] - b[i]", "uint8", Uint8Array.of(0, 200), Uint8Array.of(1, 100))]).toEqual([255, 100]);
    expect([...await elementwise("a[i] + b[i]", "uint16", Uint16Array.of(65535), Uint16Array.of(2))]).toEqual([1]);
    expect([...await elementwise("a[i] * b[i]", "uint32", Uint32Array.of(4294967295, 65536), Uint32Array.of(4294967295, 65536))]).toEqual([1, 0]);
    expect([...await elementwise("a[i] / b[i]", "uint32", Uint32Array.of(4294967295), Uint32Array.of(2))]).toEqual([2147483647]);
  });
});

describe("64-bit integers (BigInt)", () => {
  it("int64 is exact beyond 2^53 and wraps at 2^63", async () => {
    const a = BigInt64Array.of(2n ** 62n, 9007199254740993n, -7n);
    const b = BigInt64Array.of(2n, 2n, 2n);
    expect([...await elementwise("a[i] * b[i]", "int64", a, b)]).toEqual([-(2n ** 63n), 18014398509481986n, -14n]);
    expect([...await elementwise("a[i] + 1", "int64", a, b)]).toEqual([2n ** 62n + 1n, 9007199254740994n, -6n]);
    expect([...await elementwise("a[i] // b[i]", "int64", a, b)]).toEqual([2n ** 61n, 4503599627370496n, -4n]);
    expect([...await elementwise("a[i] / b[i]", "int64", a, b)]).toEqual([2n ** 61n, 4503599627370496n, -3n]);
    expect([...await elementwise("a[i] % b[i]", "int64", a, b)]).toEqual([0n, 1n, 1n]);
  });

  it("uint64 wraps modulo 2^64", async () => {
    expect([...await elementwise("a[i] - b[i]", "uint64", BigUint64Array.of(0n), BigUint64Array.of(1n))]).toEqual([2n ** 64n - 1n]);
  });

  it("division by zero is an ExecutionError", async () => {
    await expect(elementwise("a[i] / b[i]", "int64", BigInt64Array.of(1n), BigInt64Array.of(0n))).rejects.toThrow(/integer division by zero/);
  });
});

describe("floats", () => {
  it("float32 rounds after every operation", async () => {
    const a = Float32Array.of(16777216, 0.1);
    const b = Float32Array.of(1, 0.2);
    const out = await elementwise("a[i] + b[i] - a[i]", "float32", a, b);
    // 2^24 + 1 rounds back to 2^24 in float32; float64 would give 1.
    expect(out[0]).toBe(0);
    expect(out[1]).toBe(Math.fround(Math.fround(Math.fround(0.1) + Math.fround(0.2)) - Math.fround(0.1)));
  });

  it("float64 does not round to float32", async () => {
    const out = await elementwise("a[i] + b[i] - a[i]", "float64", Float64Array.of(16777216), Float64Array.of(1));
    expect(out[0]).toBe(1);
  });

  it("// floors, % takes the sign of the divisor, / by zero is infinite", async () => {
    const a = Float64Array.of(7.5, -7.5, 1);
    const b = Float64Array.of(2, 2, 0);
    expect([...await elementwise("a[i] // b[i]", "float64", a, b)]).toEqual([3, -4, Infinity]);
    expect([...await elementwise("a[i] % b[i]", "float64", a.subarray(0, 2), b.subarray(0, 2))]).toEqual([1.5, 0.5]);
    expect([...await elementwise("a[i] / b[i]", "float64", a, b)]).toEqual([3.75, -3.75, Infinity]);
  });

  it("math functions map to Math.* and round for float32", async () => {
    const out = await elementwise("sqrt(a[i]) + exp(b[i])", "float32", Float32Array.of(2), Float32Array.of(1));
    expect(out[0]).toBe(Math.fround(Math.fround(Math.sqrt(Math.fround(2))) + Math.fround(Math.exp(1))));
    const m = await elementwise("max(a[i], b[i]) + min(a[i], b[i]) * fabs(b[i])", "float64", Float64Array.of(3), Float64Array.of(-2));
    expect(m[0]).toBe(3 + -2 * 2);
  });

  it("float16 arrays hold raw bits and arithmetic rounds to half", async () => {
    const a = Uint16Array.of(floatToHalf(1), floatToHalf(2048));
    const b = Uint16Array.of(floatToHalf(2 ** -11), floatToHalf(1));
    const out = await elementwise("a[i] + b[i]", "float16", a, b);
    expect([...(out as Uint16Array)].map(halfToFloat)).toEqual([1, 2048]);
  });
});

describe("conversions on assignment", () => {
  it("float to int truncates toward zero, out of range wraps", async () => {
    const a = Float64Array.of(2.9, -2.9, 4294967296 + 5, 2147483648);
    const out = await elementwise("a[i]", "float64", a, a, "int32");
    expect([...out]).toEqual([2, -2, 5, -2147483648]);
    const u8 = await elementwise("a[i]", "float64", Float64Array.of(257.5, -1), Float64Array.of(0, 0), "uint8");
    expect([...u8]).toEqual([1, 255]);
  });

  it("int to float32 rounds, int64 to int32 wraps, anything to bool is 0/1", async () => {
    const f = await elementwise("a[i]", "int32", Int32Array.of(16777217), Int32Array.of(0), "float32");
    expect(f[0]).toBe(16777216);
    const w = await elementwise("a[i]", "int64", BigInt64Array.of(2n ** 32n + 7n), BigInt64Array.of(0n), "int32");
    expect(w[0]).toBe(7);
    const bo = await elementwise("a[i]", "float64", Float64Array.of(0, 0.5, -3), Float64Array.of(0, 0, 0), "bool");
    expect([...bo]).toEqual([0, 1, 1]);
  });

  it("mixed operands follow promotion: int32 and float32 compute in float32", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] / b[i]", ["a: int32[n]", "b: float32[n]", "out: float64[n]", "n: int32"]);
    const { out } = await run(k, { a: Int32Array.of(1), b: Float32Array.of(3), n: 1 });
    expect(out![0]).toBe(Math.fround(1 / 3));
  });

  it("implicit literals adapt: 2*a stays float32, a/2 on integers truncates", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] / 2 + 0.1", ["a: int32[n]", "out: float64[n]", "n: int32"]);
    const { out } = await run(k, { a: Int32Array.of(5), n: 1 });
    expect(out![0]).toBe(2.1);
  });
});
