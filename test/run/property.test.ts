/** Law: for every shape, the interpreter computes what a direct JavaScript loop nest computes. */
import { describe, it } from "vitest";
import fc from "fast-check";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";

const floats = (len: number) => fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: len, maxLength: len });
const RUNS = { numRuns: 100 };

describe("interpreter vs. direct JavaScript", () => {
  const matvec = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "y[i] = sum(j, a[i,j]*x[j])", ["a: float64[n,m]", "x: float64[m]", "..."]);
  it("matvec", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 7 }).chain((n) => fc.integer({ min: 0, max: 7 }).chain((m) => fc.tuple(fc.constant(n), fc.constant(m), floats(n * m), floats(m)))),
      async ([n, m, a, x]) => {
        const { y } = await run(matvec, { a: Float64Array.from(a), x: Float64Array.from(x), n, m });
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let j = 0; j < m; j++) s += a[i * m + j]! * x[j]!;
          if (y![i] !== s) return false;
        }
        return y!.length === n;
      }), RUNS);
  });

  const tri = makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "out[i] = sum(j, a[i,j]) + 1", ["a: int32[n,n]", "..."]);
  it("a triangular integer sum", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 9 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.integer(), { minLength: n * n, maxLength: n * n }))),
      async ([n, a]) => {
        const { out } = await run(tri, { a: Int32Array.from(a), n });
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let j = 0; j <= i; j++) s = (s + a[i * n + j]!) | 0;
          if (out![i] !== ((s + 1) | 0)) return false;
        }
        return true;
      }), RUNS);
  });

  const stencil = makeKernel("{[i]: 0<=i<n}", [
    "out[i] = a[i-1] - 2*a[i] + a[i+1] {id=inner, if=i >= 1 and i <= n - 2}",
    "out[i] = a[i] {id=edge, if=i == 0 or i == n - 1}",
  ], ["a, out: float32[n]", "n: int32"]);
  it("a float32 stencil with a guard", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 12 }).chain((n) => fc.tuple(fc.constant(n), floats(n))),
      async ([n, raw]) => {
        const a = Float32Array.from(raw);
        const { out } = await run(stencil, { a, n });
        const f = Math.fround;
        for (let i = 0; i < n; i++) {
          const want = i >= 1 && i <= n - 2 ? f(f(a[i - 1]! - f(2 * a[i]!)) + a[i + 1]!) : a[i]!;
          if (!Object.is(out![i], want)) return false;
        }
        return true;
      }), RUNS);
  });
});
