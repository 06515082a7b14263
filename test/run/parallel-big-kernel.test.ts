/**
 * The interpreter's parallel code binds a work-item's private copies only where a node uses them: it
 * bound every private at every node, so a kernel of 600 instructions with 150 private scalars made
 * over 120,000 lines, and pushing them as spread arguments overflowed the engine ("nested or chained
 * too deeply"). Found by widening the real-world OKL corpus (issue 20).
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { run } from "../../src/run/index.js";

const M = 150;
const body = Array.from({ length: M }, (_, m) => `        const double t${m} = s[i] * ${m + 1}.0; y[e * 16 + i] += t${m};`).join("\n");
const src = `@kernel void many(const int E, const double *x, double *y) {
  for (int e = 0; e < E; ++e; @outer(0)) {
    @shared double s[16];
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < 16; ++i; @inner(0)) { s[i] = x[e * 16 + i] + k; }
      @barrier();
      for (int i = 0; i < 16; ++i; @inner(0)) {
${body}
      }
      @barrier();
    }
  }
}`;

describe("a big kernel with many private scalars around barriers", () => {
  it("runs on the interpreter and js, with every private bound where it is read", async () => {
    const [k] = parseOkl(src, { filename: "many.okl" });
    const x = Float64Array.from({ length: 32 }, (_, j) => j % 5);
    // y = sum over k of (x + k) * (1 + 2 + ... + M), with every work-item its own t's.
    const want = Array.from(x, (v) => (2 * v + 1) * (M * (M + 1)) / 2);
    for (const backend of ["interp", "js"] as const) {
      const out = await run(k!, { E: 2, x, y: new Float64Array(32) }, { backend });
      expect(Array.from(out.y as Float64Array), backend).toEqual(want);
    }
  });
});
