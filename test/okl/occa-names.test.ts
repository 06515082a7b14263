/**
 * OCCA's conventions where a user notices them: an imported @kernel's device kernels are named
 * `_occa_<name>_<k>` on OpenCL and CUDA (in launch order), and the runtimes launch them by those
 * names; an @inner loop that starts at an outer loop's value counts its work-items from 0, so the
 * work-group is as wide as the loop, as OCCA's launch is.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { nativeAvailable, type NativeBackend } from "../run/native-helpers.js";

const TWO = `@kernel void twoPass(const int n, float *a, float *b) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { a[i] = 2*a[i]; }
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { b[i] = a[i] + 1; }
}`;
const [k] = parseOkl(TWO);

describe("OCCA's device kernel names", () => {
  it("imported kernels: _occa_<name>_<k> on OpenCL and CUDA, the kernel's name on CPU targets and OKL", () => {
    for (const t of ["opencl", "cuda"] as const) expect(generateCode(k!, t).kernels.map((x) => x.name)).toEqual(["_occa_twoPass_0", "_occa_twoPass_1"]);
    for (const t of ["c", "openmp", "js"] as const) expect(generateCode(k!, t).kernels[0]!.name).toBe("twoPass");
    expect(generateCode(k!, "okl").deviceCode).toContain("@kernel void twoPass(");
  });
  it("{kernelNames} overrides the kernel's choice either way; Loom's own kernels default to Loom's names", () => {
    expect(generateCode(k!, "opencl", { kernelNames: "loom" }).kernels.map((x) => x.name)).toEqual(["twoPass", "twoPass_0"]);
    const own = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"], { name: "scale" });
    expect(generateCode(own, "cuda").kernels[0]!.name).toBe("scale");
    expect(generateCode(own, "cuda", { kernelNames: "occa" }).kernels[0]!.name).toBe("_occa_scale_0");
    expect(() => generateCode(own, "cuda", { kernelNames: "x" as "occa" })).toThrow(/kernelNames must be "loom" or "occa"/);
  });
  it.each(["opencl", "openmp"] as NativeBackend[])("the %s runtime launches the parts by their names, in order", async (backend) => {
    if (!nativeAvailable(backend)) return;
    const a = Float32Array.from({ length: 37 }, (_, i) => i);
    const r = await run(k!, { n: 37, a, b: new Float32Array(37) }, { backend });
    expect(Array.from(r.b as Float32Array)).toEqual(Array.from(a, (x) => 2 * x + 1));
  });
});

describe("an @inner loop that starts at an enclosing loop's value (j = i; j < i + 16)", () => {
  const SRC = `@kernel void f(const int n, float *a) {
  for (int i = 0; i < n; i += 16; @outer) {
    for (int j = i; j < i + 16; ++j; @inner) {
      if (j < n) a[j] = 2 * j + 1;
    }
  }
}`;
  const [f] = parseOkl(SRC);
  it("counts its work-items from 0: the work-group has 16, whatever n", () => {
    for (const t of ["opencl", "cuda"] as const) {
      const info = generateCode(f!, t).kernels[0]!;
      expect(info.localSize).toEqual(["16"]);
      expect(info.globalSize).toEqual(["(n + 15) / 16"]);
    }
  });
  it.each(["interp", "opencl", "openmp"] as const)("gives C's values on %s", async (backend) => {
    if (backend !== "interp" && !nativeAvailable(backend)) return;
    for (const n of [1, 16, 45]) {
      const r = await run(f!, { n, a: new Float32Array(n) }, { backend });
      expect(Array.from(r.a as Float32Array)).toEqual(Array.from({ length: n }, (_, j) => 2 * j + 1));
    }
  });
});
