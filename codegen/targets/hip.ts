/**
 * HIP (AMD's CUDA dialect, OKL.md §4): CUDA's table as it is (`blockIdx`/`threadIdx`, `__shared__`,
 * `__syncthreads()`, the `atomic*` functions, `__launch_bounds__` where the block size is constant),
 * with HIP's header on top and HIP's names reserved. Checked by compiling with `hipcc` for AMD.
 */
import { CFamilyTarget } from "./cfamily.js";
import { cudaTarget } from "./cuda.js";

export const hipTarget = new CFamilyTarget({
  ...cudaTarget.d,
  name: "hip",
  includes: ["#include <hip/hip_runtime.h>"],
  // HIP has CUDA's rsqrtf/rsqrt, which the C family writes as 1 / sqrt(x) outside CUDA.
  call: (fn, t, args) => (fn === "rsqrt" ? `${t === "float32" ? "rsqrtf" : "rsqrt"}(${args.join(", ")})` : undefined),
});
