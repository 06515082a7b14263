/**
 * Fresh floating-point private memory holds NaN on the interpreter, where it had held zeros (or, in
 * a parallel kernel, what the same work-item of the group run before had left): a kernel that reads
 * a private before writing it got a plausible answer from the reference that no target promises
 * (found by the real-world corpus, s36: libParanumal's ellipticGradientQuad2D stores a dfloat4 whose
 * .z it never writes). Integer privates start at 0 for each group (race-tracker.ts freshPrivate says
 * why): the OKL gather below, whose trip count lives in one, must not spin on garbage.
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";

const values = (x: unknown) => Array.from(x as ArrayLike<number>);

describe("private memory before its first write", () => {
  it("a sequential kernel's private float reads as NaN, not 0", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "<float64> t = t + 1 {id=a}\nout[i] = t {dep=a}", ["out: float64[n]", "..."]);
    const { out } = (await run(k, { n: 3 }, { backend: "interp" })) as { out: Float64Array };
    expect(values(out)).toEqual([NaN, NaN, NaN]);
  });

  it("each work-group's work-items start fresh: no value left by the group run before (NaN for a double)", async () => {
    const [k] = parseOkl(`@kernel void f(const int N, double *b) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    double x;
    if (n >= 4) x = 1;
    b[n] = x;
  }
}`);
    const { b } = (await run(k!, { N: 8, b: new Float64Array(8) } as never, { backend: "interp" })) as { b: Float64Array };
    // Groups run in reversed order: group 1 (n 4..7) writes x first; group 0 must not see it.
    expect(values(b)).toEqual([NaN, NaN, NaN, NaN, 1, 1, 1, 1]);
  });

  it("an integer private holding a loop's trip count starts at 0 in each group (work-items past the rows run no trips)", async () => {
    const [k] = parseOkl(`@kernel void gather(const int Nrows, const int *starts, const double *q, double *gq) {
  for (int r = 0; r < Nrows; ++r; @tile(4, @outer, @inner)) {
    double s = 0;
    for (int n = starts[r]; n < starts[r + 1]; ++n) s += q[n];
    gq[r] = s;
  }
}`);
    const args = { Nrows: 5, starts: Int32Array.from([0, 2, 2, 5, 6, 9]), q: Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]), gq: new Float64Array(5) };
    const { gq } = (await run(k!, args as never, { backend: "interp", checkBounds: false } as never)) as { gq: Float64Array };
    expect(values(gq)).toEqual([3, 0, 12, 6, 24]);
  });
});
