/**
 * The c target marks `vec` loops `#pragma omp simd`, which gcc ignores (and -Wall warns of)
 * without OpenMP's SIMD mode: the native runtime adds `-fopenmp-simd` to flags that enable no
 * OpenMP, so a `c` run with the caller's own flags (`-O2 -Wall -Werror`) compiles and runs.
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { withOpenmpSimd } from "../../src/run/native-compile.js";
import { splitIname } from "../../transforms/index.js";
import { nativeAvailable } from "./native-helpers.js";

const SIMD = "void f(float *x)\n{\n  #pragma omp simd\n  for (int i = 0; i <= 7; ++i)\n    x[i] = 0.0f;\n}\n";

describe("-fopenmp-simd for the c target's SIMD loops", () => {
  it("is added where the source has `#pragma omp simd` and the flags enable no OpenMP", () => {
    expect(withOpenmpSimd(["-O2"], SIMD)).toEqual(["-O2", "-fopenmp-simd"]);
    expect(withOpenmpSimd(["-O3", "-fopenmp"], SIMD)).toEqual(["-O3", "-fopenmp"]);
    expect(withOpenmpSimd(["-fopenmp-simd"], SIMD)).toEqual(["-fopenmp-simd"]);
    expect(withOpenmpSimd(["-fopenmp=libomp"], SIMD)).toEqual(["-fopenmp=libomp"]);
    // A caller who refuses it keeps the choice; code without the pragma is left alone.
    expect(withOpenmpSimd(["-fno-openmp-simd"], SIMD)).toEqual(["-fno-openmp-simd"]);
    expect(withOpenmpSimd(["-O2"], "void f(void) {}\n/* #pragma omp simd in a comment */")).toEqual(["-O2"]);
  });

  it.skipIf(!nativeAvailable("c"))("a vec kernel runs on c compiled with -O2 -Wall -Werror (no -fopenmp)", async () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", "y[i] = 2*x[i] + 1", ["x, y: float32[n]", "n: int32"], { name: "simd_flag" }), "i", 8, { innerTag: "vec" });
    const x = Float32Array.from({ length: 21 }, (_, i) => i - 10);
    const out = (await run(k, { x, y: new Float32Array(21), n: 21 }, { backend: "c", flags: ["-O2", "-Wall", "-Werror"] })) as { y: Float32Array };
    expect(Array.from(out.y)).toEqual(Array.from(x, (v) => 2 * v + 1));
  }, 120_000);
});
