/**
 * loopy's test_literal_local_barrier: a loop whose body is a local barrier alone. Its bounds come
 * from the iname's own domain (there is no instruction to take them from); it once reached a
 * TypeError (`Reduce of empty array`) in codegen. Run on every backend against plain TypeScript.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { fixParameters } from "../../transforms/index.js";
import { availableNative } from "../run/native-helpers.js";

const BACKENDS = ["interp", "js", ...availableNative(["c", "openmp", "opencl"])] as const;

/** loopy's kernel, as its test builds it: `for i ... lbarrier end` with n fixed to 128. */
const literal = () => fixParameters(makeKernel("{ [i]: 0<=i<n }", `
  for i
    ... lbarrier
  end`, ["..."], { seqDependencies: true }), { n: 128 });

/** The same loop with work around the barrier, so that a wrong trip count shows. */
const withWork = () => fixParameters(makeKernel("{ [i]: 0<=i<n }", `
  for i
    out[i] = 2*a[i]
    ... lbarrier
    b[i] = out[i] + 1
  end`, ["a, out, b: float32[n]", "n: int32"], { seqDependencies: true }), { n: 128 });

describe("loopy's test_literal_local_barrier", () => {
  it("the loop around the barrier runs over the iname's domain", () => {
    expect(generateCode(literal(), "opencl").deviceCode).toContain("for (int i = 0; i <= 127; ++i)\n    barrier(CLK_LOCAL_MEM_FENCE)");
    expect(generateCode(literal(), "c").deviceCode).toContain("for (int i = 0; i <= 127; ++i)");
  });

  it.each(BACKENDS)("runs and writes nothing (%s)", async (backend) => {
    expect(await run(literal(), {}, { backend })).toEqual({});
  });

  it.each(BACKENDS)("with work around the barrier, matches plain TypeScript (%s)", async (backend) => {
    const a = Float32Array.from({ length: 128 }, (_, i) => i - 40.5);
    const r = await run(withWork(), { a }, { backend });
    expect([...(r.out as Float32Array)]).toEqual([...a].map((x) => 2 * x));
    expect([...(r.b as Float32Array)]).toEqual([...a].map((x) => 2 * x + 1));
  });
});
