/** OpenCL C, as loopy writes it: `gid(N)`/`lid(N)` macros, `__local`, `reqd_work_group_size`. */
import { CodegenError } from "../../src/errors.js";
import { CFamilyTarget, CL_TYPES } from "./cfamily.js";

export const openclTarget = new CFamilyTarget({
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
  atomicAdd: (target, value, d) => {
    if (d !== "int32" && d !== "uint32") throw new CodegenError(`OpenCL has atomic_add only for 32-bit integers, not ${d}`);
    return `atomic_add(&${target}, ${value})`;
  },
});
