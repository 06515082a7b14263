/**
 * OKL's `%` is C's (truncating: `-7 % 3 == -1`), not the IR's Python `%` (`-7 % 3 == 2`): a remainder
 * whose dividend may be negative imported as the IR's `%` gave 2 on every backend, a silent wrong
 * result that interp = openmp could not see (src/okl/lower/c-remainder.ts). Law: over int32 operands
 * with signs, zeros' neighbours and the limits, each form of `%` (binary, `%=` in a kernel statement,
 * `%=` in an opaque block, long % int) is C's value computed with BigInt, on interp and
 * openmp; and the `%` of an iname from 0 by a constant stays the IR's `%` (an affine index).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import type { Kernel } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { realWorldBackends } from "./real-world-helpers.js";

const N = 8;
const SRC = `
@kernel void rems(const int n, const int *a, const int *b, const long *la, int *out, long *lout) {
  for (int e = 0; e < 1; ++e; @outer) {
    for (int i = 0; i < n; ++i; @inner) {
      out[4*i + 0] = a[i] % b[i];
      int x = a[i];
      x %= b[i];
      out[4*i + 1] = x;
      int y = a[i];
      int k = 0;
      while (k < 1) { y %= b[i]; k++; }
      out[4*i + 2] = y;
      out[4*i + 3] = (i + 5) % 3;
      lout[i] = la[i] % b[i];
    }
  }
}`;
const [rems] = parseOkl(SRC) as unknown as [Kernel];

const MIN = -(2 ** 31);
const MAX = 2 ** 31 - 1;
const int32 = fc.oneof(fc.constantFrom(0, 1, -1, 2, -2, 3, -3, 7, -7, MIN, MIN + 1, MAX, MAX - 1), fc.integer({ min: MIN, max: MAX }), fc.integer({ min: -20, max: 20 }));
/** A divisor: not 0, and not -1 (C leaves INT_MIN % -1 undefined). */
const divisor = int32.filter((d) => d !== 0 && d !== -1);

/** C's `a % b`: the sign of the dividend (BigInt's % truncates as C does). */
const cRem = (a: bigint, b: bigint): bigint => a % b;

describe("OKL's % is C's remainder", () => {
  it("law: a % b, x %= b (statement and opaque block), and long % int are C's values on every backend", async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(int32, divisor), { minLength: N, maxLength: N }), async (rows) => {
      const a = Int32Array.from(rows.map((r) => r[0]));
      const b = Int32Array.from(rows.map((r) => r[1]));
      const la = BigInt64Array.from(rows.map((r) => BigInt(r[0]) * 3n));
      for (const backend of realWorldBackends()) {
        const out = (await run(rems, { n: N, a, b, la, out: new Int32Array(4 * N), lout: new BigInt64Array(N) } as never, { backend, checkBounds: false } as never)) as
          { out: Int32Array; lout: BigInt64Array };
        rows.forEach(([x, d], i) => {
          const want = Number(cRem(BigInt(x), BigInt(d)));
          const at = `${backend}: a=${x} b=${d}`;
          expect([out.out[4 * i], out.out[4 * i + 1], out.out[4 * i + 2]], at).toEqual([want, want, want]);
          expect(out.out[4 * i + 3], at).toBe((i + 5) % 3);
          expect(out.lout[i], `${at} la=${la[i]}`).toBe(cRem(la[i]!, BigInt(d)));
        });
      }
    }), { numRuns: 6, examples: [[Array.from({ length: N }, (_, i) => [-7 - i, 3] as [number, number])]] });
  });

  it("the remainder of an iname from 0 by a constant stays the IR's % (an affine index); one that may be negative does not", () => {
    const [k] = parseOkl(`@kernel void f(const int n, int *out) {
      for (int e = 0; e < 1; ++e; @outer) for (int i = 0; i < 16; ++i; @inner) { out[i % 4] = i; out[4 + (i - 1) % 4] = i; }
    }`) as unknown as [Kernel];
    const text = JSON.stringify(k.instructions);
    expect(text).toContain('"op":"%"');
    // (i - 1) % 4 is -1 at i = 0 in C: spelled with the truncating division.
    expect(text.match(/"op":"%"/g)).toHaveLength(1);
  });
});
