/** C with OpenMP: the outermost group loop runs `#pragma omp parallel for`; atomics as `omp atomic`. */
import { C_TYPES, CFamilyTarget, INT_TRAP } from "./cfamily.js";

export const openmpTarget = new CFamilyTarget({
  name: "openmp", cpu: true,
  lowerOptions: {
    hwAxes: false, atomics: "omp", simdLoop: "#pragma omp simd",
    parallelLoop: (privates) => `#pragma omp parallel for${privates.length > 0 ? ` private(${privates.join(", ")})` : ""}`,
  },
  types: C_TYPES,
  includes: ["#include <stdint.h>", "#include <stdlib.h>", "#include <math.h>"],
  helperQualifier: "static inline",
  kernelHead: () => "void",
  vectorRegisters: true,
  outlineParallel: true,
  math: "suffix", intMinMaxBuiltin: false, int64Suffix: "LL",
  intTrap: INT_TRAP,
  // Under the `#pragma omp atomic [write]` the lowering puts before it, the update itself is plain C.
  atomic: (a, target, value) => (a.op === "=" ? `${target} = ${value}` : `${target} ${a.op}= ${value}`),
});
