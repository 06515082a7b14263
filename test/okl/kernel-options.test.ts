/**
 * OKL attributes without an IR counterpart (`@restrict`, `@max_inner_dims`, `@simd_length`) live
 * on the kernel (`Kernel.oklOptions`), so every transformation keeps them: `oklKernelOptions(k)`
 * answers the same after a split, a tag, a renaming or a whole pipeline.
 */
import { describe, expect, it } from "vitest";
import { oklKernelOptions, parseOkl } from "../../src/okl/index.js";
import * as lp from "../../src/index.js";

const SRC = `@kernel void scale(const int n, float *x @restrict, const float *y) {
  for (int o = 0; o < n; ++o; @outer @max_inner_dims(64) @simd_length(8)) {
    for (int i = 0; i < 16; ++i; @inner) {
      for (int s = 0; s < n; ++s) x[(o * 16 + i) * n + s] = 2.0f * y[o * 16 + i];
    }
  }
}`;

describe("OKL kernel options survive transformations", () => {
  const [k] = parseOkl(SRC);
  const want = { restrict: ["x"], maxInnerDims: [64], simdLength: 8 };

  it("are recorded by the front end", () => {
    expect(oklKernelOptions(k!)).toEqual(want);
  });

  it("survive splitIname, renameIname and fixParameters", () => {
    let t = lp.splitIname(k!, "s", 2);
    expect(oklKernelOptions(t)).toEqual(want);
    t = lp.renameIname(t, "s_inner", "si");
    t = lp.fixParameters(t, { n: 8 });
    expect(oklKernelOptions(t)).toEqual(want);
  });

  it("survive a pipeline, and one rebuilt from its JSON form", () => {
    const p = lp.pipeline(lp.split("s", 2), lp.tag({ s_inner: "unr" }));
    expect(oklKernelOptions(p(k!))).toEqual(want);
    expect(oklKernelOptions(lp.applyPipeline(k!, JSON.stringify(lp.toJSON(p))))).toEqual(want);
  });

  it("are absent on kernels that did not come from OKL", () => {
    const m = lp.makeKernel("{ [i]: 0 <= i < n }", "out[i] = 2 * a[i]");
    expect(oklKernelOptions(m)).toBeUndefined();
    expect(oklKernelOptions(lp.splitIname(m, "i", 4))).toBeUndefined();
  });

  it("do not change what the kernel computes (the split kernel still runs)", async () => {
    const t = lp.splitIname(k!, "s", 2);
    const y = Float32Array.from({ length: 64 }, (_, j) => j);
    const r = await lp.run(t, { n: 4, x: new Float32Array(256), y }, { backend: "interp" });
    expect(Array.from(r.x as Float32Array)).toEqual(Array.from({ length: 256 }, (_, j) => 2 * y[j >> 2]!));
    expect(oklKernelOptions(t)).toEqual(want);
  });
});
