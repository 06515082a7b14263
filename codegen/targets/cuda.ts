/** CUDA C++: `extern "C" __global__`, `blockIdx`/`threadIdx`, `__shared__`, `__syncthreads()`, `atomicAdd`. */
import { CFamilyTarget, CUDA_TYPES } from "./cfamily.js";

const XYZ = ["x", "y", "z"];

export const cudaTarget = new CFamilyTarget({
  name: "cuda", cpu: false,
  lowerOptions: { hwAxes: true, atomics: "native", unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll ${n}`) },
  types: CUDA_TYPES,
  includes: [],
  helperQualifier: "__device__ inline",
  hw: (tag, axis) => `((int) ${tag === "g" ? "blockIdx" : "threadIdx"}.${XYZ[axis]})`,
  localQualifier: "__shared__",
  barrier: (comment) => `__syncthreads() /* ${comment} */;`,
  kernelHead: (l) => `extern "C" __global__ void __launch_bounds__(${l.reduce((a, b) => a * b, 1)})`,
  math: "suffix", intMinMaxBuiltin: true, int64Suffix: "LL",
  atomicAdd: (target, value) => `atomicAdd(&${target}, ${value})`,
});
