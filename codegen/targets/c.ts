/** Plain C99: the CPU lowering, `void name(float const *__restrict__ a, …)`, no hardware axes. */
import { C_TYPES, CFamilyTarget, INT_TRAP } from "./cfamily.js";

export const cTarget = new CFamilyTarget({
  name: "c", cpu: true,
  lowerOptions: { hwAxes: false, atomics: "plain", simdLoop: "#pragma omp simd" },
  types: C_TYPES,
  includes: ["#include <stdint.h>", "#include <stdlib.h>", "#include <math.h>"],
  helperQualifier: "static inline",
  kernelHead: () => "void",
  vectorRegisters: true,
  math: "suffix", intMinMaxBuiltin: false, int64Suffix: "LL",
  intTrap: INT_TRAP,
});
