/** Generated C/OpenMP compiles with gcc -Wall -Werror; CUDA with nvcc -ptx (each skipped when absent). */
import { describe, it } from "vitest";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { compile, hasGcc, hasNvcc } from "./compile-helpers.js";
import { localFetch, tag, tiledMatmul, vecadd } from "./kernels.js";

const kernels = (): Kernel[] => [
  vecadd(16),
  tag(vecadd(128), { io: "g.0", ii: "l.0" }),
  tiledMatmul(),
  tag(vecadd(4), { ii: "unr" }),
  makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j]) + max(j, a[i,j])", ["a: float64[n,m]", "out: float64[n]", "n: int32", "m: int32"], { name: "rowstats" }),
  makeKernel("{[i]: 0<=i<n}", "out[i] = (i - 5) // 3 + (i - 7) % 4 + abs(i - 9)", ["out: int32[n]", "n: int32"], { name: "intops" }),
  makeKernel("{[i]: 0<=i<n}", "out[i] = sqrt(a[i]) + exp(a[i]) * 0.5 + fabs(a[i])", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "mathf" }),
];

describe.skipIf(!hasGcc)("C and OpenMP compile with gcc -c -Wall -Werror -fopenmp", () => {
  for (const k of kernels()) {
    it(`${k.name}: c and openmp`, () => {
      compile(k, "c", "c", "gcc", ["-c", "-Wall", "-Werror", "-fopenmp"]);
      compile(k, "openmp", "c", "gcc", ["-c", "-Wall", "-Werror", "-fopenmp"]);
    });
  }
});
if (!hasGcc) console.warn("gcc not found: the C/OpenMP compile checks are skipped (install Debian's gcc to run them)");
if (!hasNvcc) console.warn("nvcc not found: the CUDA compile checks are skipped (they need the CUDA toolkit)");

describe("CUDA compiles with nvcc -ptx", () => {
  for (const k of [...kernels(), localFetch()]) {
    it.skipIf(!hasNvcc)(`${k.name} (skipped without nvcc)`, () => {
      compile(k, "cuda", "cu", "nvcc", ["-ptx"]);
    }, 60_000);
  }
});
