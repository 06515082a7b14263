/** CUDA C++: `extern "C" __global__`, `blockIdx`/`threadIdx`, `__shared__`, `__syncthreads()`, `atomicAdd`. */
import type { AtomicOp, Dtype } from "../../src/ir/index.js";
import type { AtomicStore } from "../ast.js";
import { casLoop, floatCombine, noAtomic, type CasSpelling } from "./atomics.js";
import { CFamilyTarget, CUDA_TYPES } from "./cfamily.js";

const XYZ = ["x", "y", "z"];

const FUNCTION: Readonly<Record<AtomicOp, string>> = {
  "+": "atomicAdd", "-": "atomicSub", "&": "atomicAnd", "|": "atomicOr", "^": "atomicXor", min: "atomicMin", max: "atomicMax", "=": "atomicExch",
};

/** The dtypes each CUDA atomic function takes as they are (`atomicSub` has int and unsigned int only). */
const NATIVE: Readonly<Record<AtomicOp, readonly Dtype[]>> = {
  "+": ["int32", "uint32", "uint64", "float32", "float64"],
  "-": ["int32", "uint32"],
  "&": ["int32", "uint32", "uint64"], "|": ["int32", "uint32", "uint64"], "^": ["int32", "uint32", "uint64"],
  min: ["int32", "uint32", "int64", "uint64"], max: ["int32", "uint32", "int64", "uint64"],
  "=": ["int32", "uint32", "uint64", "float32"],
};

const ULL = "unsigned long long";

/**
 * Infinities and NaN by their bits: NVRTC compiles without the C headers that define `INFINITY`,
 * `HUGE_VAL` and `NAN` (nvcc includes them; found on a GPU, where NVRTC rejected `-INFINITY`).
 */
function nonFinite(v: number, t: string): string | undefined {
  if (Number.isFinite(v) || (t !== "float32" && t !== "float64")) return undefined;
  const single = t === "float32";
  if (Number.isNaN(v)) return single ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000LL)";
  const inf = single ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
  return v > 0 ? inf : `(-${inf})`;
}

const CAS: Readonly<Partial<Record<Dtype, CasSpelling>>> = {
  float32: { pointee: "unsigned int", word: "unsigned int", valueType: "float", cas: "atomicCAS", toWord: (x) => `__float_as_uint(${x})`, fromWord: (x) => `__uint_as_float(${x})` },
  float64: {
    pointee: ULL, word: ULL, valueType: "double", cas: "atomicCAS",
    toWord: (x) => `(${ULL}) __double_as_longlong(${x})`, fromWord: (x) => `__longlong_as_double((long long) ${x})`,
  },
};

/**
 * One atomic update in CUDA: the native function where it takes the dtype; 64-bit signed integers
 * (and subtraction of 64-bit ones, and exchange of doubles) through the `unsigned long long`
 * overloads, which wrap alike; float subtraction as addition of the negated value; float min/max
 * as a compare-and-swap loop.
 */
function cudaAtomic(a: AtomicStore, target: string, value: string, d: Dtype): string {
  const fn = FUNCTION[a.op];
  if (NATIVE[a.op].includes(d)) return `${fn}(&${target}, ${value})`;
  const asUll = `(${ULL} *) &${target}`;
  if (d === "int64" && ["+", "&", "|", "^", "="].includes(a.op)) return `${fn}(${asUll}, (${ULL}) (${value}))`;
  if (a.op === "-" && (d === "int64" || d === "uint64")) return `atomicAdd(${asUll}, 0ULL - (${ULL}) (${value}))`;
  if (a.op === "-" && (d === "float32" || d === "float64")) return `atomicAdd(&${target}, -(${value}))`;
  if (a.op === "=" && d === "float64") return `atomicExch(${asUll}, (${ULL}) __double_as_longlong(${value}))`;
  const cas = CAS[d];
  if (cas && (a.op === "min" || a.op === "max")) return casLoop(cas, target, value, floatCombine(a.op, (f) => `f${f}${d === "float32" ? "f" : ""}`));
  throw noAtomic("cuda", a.op, d, "atomics on 32- and 64-bit integers and floats");
}

export const cudaTarget = new CFamilyTarget({
  name: "cuda", cpu: false,
  lowerOptions: { hwAxes: true, atomics: "native", unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll ${n}`) },
  types: CUDA_TYPES,
  includes: [],
  helperQualifier: "__device__ inline",
  hw: (tag, axis) => `((int) ${tag === "g" ? "blockIdx" : "threadIdx"}.${XYZ[axis]})`,
  localQualifier: "__shared__",
  // __syncthreads() orders shared and global memory alike among the threads of a block.
  barrier: (comment) => `__syncthreads() /* ${comment} */;`,
  // No bound where the block size is set at launch: a guessed bound would make larger launches fail.
  kernelHead: (l) => (l ? `extern "C" __global__ void __launch_bounds__(${l.reduce((a, b) => a * b, 1)})` : `extern "C" __global__ void`),
  math: "suffix", intMinMaxBuiltin: true, int64Suffix: "LL",
  literal: nonFinite,
  atomic: (a, target, value, d) => cudaAtomic(a, target, value, d),
  trapClaim: (cell) => `atomicAdd(&${cell}, 1u)`,
});
