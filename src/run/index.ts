/**
 * Execution: `run` a kernel on arguments with a backend from the registry (only the reference
 * interpreter exists in this version), and `autoTestVsRef` to compare two kernels.
 */
export { run, getBackend, BACKEND_NAMES, type BackendName, type Backend, type RunOptions } from "./run.js";
export { autoTestVsRef, type AutoTestOptions, type AutoTestResult } from "./auto-test.js";
export { compileKernel, type CompiledKernel } from "./interp.js";
export type { ArgValue } from "./args.js";
