/**
 * `printf` in a kernel (nekRS's mask kernels report an out-of-range value with it): left out with a
 * warning, as Loom's backends do not print from kernels; refused where its arguments have effects.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const MASK = `@kernel void fixMask(const int N, const double *x, int *mask) {
  for (int n = 0; n < N; ++n; @tile(16, @outer, @inner)) {
    if (n < N) {
      if (x[n] > 0.5) printf("fixMask: x[%d] = %g\\n", n, fabs(1.0 - x[n]));
      int i = 0;
      while (i < 2 && x[n] > 0.0) { if (x[n] > 0.9) printf("in a while %d\\n", i); i++; }
      mask[n] = x[n] > 0.5 ? 0 : mask[n] + i;
    }
  }
}`;

describe("printf in a kernel", () => {
  it("is left out with a warning at each call; the kernel computes its serial meaning", async () => {
    const ks = parseOkl(MASK);
    expect(ks.warnings.map((w) => [w.line, w.column])).toEqual([[4, 23], [6, 53]]);
    expect(ks.warnings[0]!.detail).toContain("do not print from kernels");
    const N = 37;
    const x = Float64Array.from(seeded(N, 3));
    const mask = Int32Array.from({ length: N }, (_, n) => n % 3);
    const want = Int32Array.from({ length: N }, (_, n) => (x[n]! > 0.5 ? 0 : mask[n]! + (x[n]! > 0 ? 2 : 0)));
    // The while loop is an opaque block: native runs unchecked (docs/okl.md).
    await expectSerialMeaning(ks[0]!, () => ({ N, x: x.slice(), mask: mask.slice() }), { mask: want }, 0, { checkBounds: false });
  });

  it("is refused where an argument assigns, increments or calls a function other than math.h's, at that argument", () => {
    const src = MASK.replace(", n, fabs(1.0 - x[n]));", ", mask[n]++);");
    expect(src).not.toBe(MASK);
    const e = oklError(() => parseOkl(src));
    expect(e.message).toMatch(/printf whose arguments assign, increment or call a function other than math.h's/);
    expect(e.message).toMatch(/4:\d+/);
    // A device function's call may change memory: refused too.
    const called = `double twice(double v) { return 2 * v; }\n${MASK.replace("fabs(1.0 - x[n])", "twice(x[n])")}`;
    expect(oklError(() => parseOkl(called)).message).toMatch(/printf whose arguments assign, increment or call/);
  });

  it('with warnings: "error", it is an OklError', () => {
    expect(oklError(() => parseOkl(MASK, { warnings: "error" })).message).toContain("do not print from kernels");
  });
});
