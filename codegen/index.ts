/**
 * Code generation: the one route (codegen/pipeline.ts: the scheduling passes, the CPU lowering for
 * CPU targets, names, lower, render) and the AST lowering it ends in.
 *
 *   generateCode(k, "opencl").deviceCode   // "__kernel void __attribute__ ((reqd_work_group_size(…"
 */
export {
  BUILT_TARGETS, generateCode, generateCodeAndSchedule, generateCodeFromSchedule, lowerStages, passNames, scheduleForTarget,
  type GenerateOptions,
} from "./pipeline.js";
export type { GeneratedCode, GeneratedKernelInfo } from "./types.js";
export { lowerSchedule } from "./lower.js";
