/**
 * The law of OKL's byte-strided views `(const T *)((const char *)a_base + i*a_stride)`
 * (src/okl/lower/kernel-launch.ts byteElementsHook; run's derived argument `okl_elements`): for
 * random byte strides (0, 1, whole elements and not, negative, near the int32 limit and past it)
 * in int, unsigned int and long, and element types (float, double, int), run refuses a stride that
 * is not a whole number of elements with an ExecutionError, on the interpreter and on OpenMP where
 * the toolchain is here, and otherwise equals a serial model reading element i*a_stride/sizeof(T) + t
 * of row i.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { realWorldBackends } from "./real-world-helpers.js";

const TYPES = {
  float: { size: 4, array: (n: number) => Float32Array.from({ length: n }, (_, j) => Math.fround(j * 0.25 - 3)) },
  double: { size: 8, array: (n: number) => Float64Array.from({ length: n }, (_, j) => j * 0.125 - 5) },
  int: { size: 4, array: (n: number) => Int32Array.from({ length: n }, (_, j) => 3 * j - 7) },
} as const;
type T = keyof typeof TYPES;
/** The stride's C type: OpenMP compiles the int ones only (each kernel is a compile). */
type S = "int" | "unsigned int" | "long";

/** Row i of the view: its elements t = 0, 1, read by work-item t of group i. */
const source = (t: T, st: S) => `@kernel void f(const int n, const ${t} *a_base, const ${st} a_stride, ${t} *out) {
  for (int i = 0; i < n; ++i; @outer) {
    for (int t = 0; t < 2; ++t; @inner) {
      const ${t} *row = (const ${t}*)((const char*)a_base + i*a_stride);
      out[2*i + t] = row[t];
    }
  }
}`;

/** One kernel per pair of types, imported once: the native backends compile each once. */
const kernels = new Map<string, Kernel>();
const kernelOf = (t: T, st: S) => kernels.get(`${t} ${st}`) ?? kernels.set(`${t} ${st}`, parseOkl(source(t, st))[0]!).get(`${t} ${st}`)!;

/** Byte strides: whole elements and not, 0 and 1, and near int32's largest value (whole for 4 and 8 bytes, and not). */
const strideArb = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 2 ** 31 - 1, 2 ** 31 - 8, 2 ** 31 - 4, 2 ** 31 - 2),
  fc.integer({ min: 0, max: 64 }),
);
/** Strides only some stride types hold (read with n <= 1: row 0 only, whatever the stride). */
const WIDE: Readonly<Record<S, readonly number[]>> = {
  int: [-8, -4, -12, -(2 ** 31)],
  "unsigned int": [2 ** 32 - 8, 2 ** 32 - 1, 2 ** 31],
  long: [-8, -12, 2 ** 33, 2 ** 40 + 8, 2 ** 40 + 2, -(2 ** 40)],
};
/** Elements of `a_base` the view reads; at most `MAX` (a huge stride runs with n <= 1). */
const MAX = 1 << 12;

describe("byte-strided views, as a law", () => {
  it("refuse a stride that is not whole elements; otherwise read the right elements, on every backend here", async () => {
    const backends = realWorldBackends().filter((b) => b !== "cuda");
    await fc.assert(fc.asyncProperty(fc.constantFrom<T>("float", "double", "int"), fc.constantFrom<S>("int", "unsigned int", "long"), strideArb, fc.integer({ min: 0, max: 4 }), fc.nat(9), async (t, st, stride0, n0, w) => {
      const { size, array } = TYPES[t];
      const stride = w < WIDE[st].length && w % 2 === 0 ? WIDE[st][w]! : stride0;
      const elements = stride / size;
      const n = Number.isInteger(elements) && (elements < 0 || (n0 - 1) * elements + 2 > MAX) ? Math.min(n0, 1) : n0;
      const a = array(Number.isInteger(elements) ? Math.max(0, n - 1) * elements + 2 : 2);
      for (const backend of st === "int" ? backends : ["interp"]) {
        const result = run(kernelOf(t, st), { n, a_base: a, a_stride: stride, out: array(2 * n).fill(0) }, { backend, checkBounds: false } as never);
        if (!Number.isInteger(elements)) {
          await expect(result, `${backend} ${t} ${st} stride ${stride}`).rejects.toThrow(ExecutionError);
          await expect(result).rejects.toThrow(`the byte stride "a_stride" = ${stride} is not a whole number of ${size}-byte elements`);
          continue;
        }
        const want = Array.from({ length: 2 * n }, (_, j) => a[Math.floor(j / 2) * elements + (j % 2)]!);
        expect(Array.from((await result).out as ArrayLike<number>), `${backend} ${t} ${st} stride ${stride} n ${n}`).toEqual(want);
      }
    }), { numRuns: 60 });
  });
});
