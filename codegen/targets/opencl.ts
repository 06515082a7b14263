/** OpenCL C, as loopy writes it: `gid(N)`/`lid(N)` macros, `__local`, `reqd_work_group_size`. */
import { CodegenError } from "../../src/errors.js";
import type { Dtype } from "../../src/ir/index.js";
import type { LoweredKernel } from "../lower.js";
import type { GeneratedCode } from "../types.js";
import { CFamilyTarget, CL_TYPES, type CDialect } from "./cfamily.js";

/**
 * An atomic float32 add: OpenCL 1.2 has atomic_add for 32-bit integers only, so the new bit
 * pattern is swapped in with atomic_cmpxchg until no other work-item changed the word meanwhile.
 * The pointer's address space must be spelled out (`__global` or `__local`).
 */
function floatAtomicAdd(target: string, value: string, space: "__global" | "__local"): string {
  return `{ volatile ${space} unsigned int *loopy_p = (volatile ${space} unsigned int *) &${target}; float loopy_v = ${value}; `
    + "unsigned int loopy_seen, loopy_old = *loopy_p; do { loopy_seen = loopy_old; "
    + "loopy_old = atomic_cmpxchg(loopy_p, loopy_seen, as_uint(as_float(loopy_seen) + loopy_v)); } while (loopy_old != loopy_seen); }";
}

/** The `__local` variables of the kernels being rendered (atomics need the address space of their target). */
let localNames: ReadonlySet<string> = new Set();

const dialect: CDialect = {
  name: "opencl", cpu: false,
  lowerOptions: { hwAxes: true, atomics: "native", unrollHint: (n) => (n === undefined ? "#pragma unroll" : `#pragma unroll ${n}`) },
  types: CL_TYPES,
  includes: ["#define lid(N) ((int) get_local_id(N))", "#define gid(N) ((int) get_group_id(N))"],
  helperQualifier: "inline",
  hw: (tag, axis) => `${tag === "g" ? "gid" : "lid"}(${axis})`,
  localQualifier: "__local",
  globalQualifier: "__global",
  barrier: (comment) => `barrier(CLK_LOCAL_MEM_FENCE) /* ${comment} */;`,
  kernelHead: (l) => `__kernel void __attribute__ ((reqd_work_group_size(${[0, 1, 2].map((n) => l[n] ?? 1).join(", ")})))`,
  math: "overload", intMinMaxBuiltin: true, int64Suffix: "L",
  atomicAdd: (target: string, value: string, d: Dtype) => {
    if (d === "int32" || d === "uint32") return `atomic_add(&${target}, ${value})`;
    if (d === "float32") return floatAtomicAdd(target, value, localNames.has(/^\w+/.exec(target)?.[0] ?? "") ? "__local" : "__global");
    throw new CodegenError(`OpenCL has atomic updates for 32-bit integers and float32 only, not ${d}`);
  },
};

class OpenCLTarget extends CFamilyTarget {
  override render(kernels: readonly LoweredKernel[]): GeneratedCode {
    const locals = kernels.flatMap((k) => [...k.decls, ...k.body]).filter((s) => s.k === "decl" && s.space === "local").map((s) => (s as { name: string }).name);
    localNames = new Set(locals);
    try {
      return super.render(kernels);
    } finally {
      localNames = new Set();
    }
  }
}

export const openclTarget = new OpenCLTarget(dialect);
