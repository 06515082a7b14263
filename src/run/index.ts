/**
 * Execution: `run` a kernel on arguments with a backend from the registry (only the reference
 * interpreter exists in this version), and `autoTestVsRef` to compare two kernels.
 */
export { run, runTimed, getBackend, BACKEND_NAMES, type BackendName, type Backend, type BackendResult, type RunOptions } from "./run.js";
export { backendAvailability, type NativeRunOptions } from "./native.js";
export { webgpuAvailability } from "./webgpu-device.js";
export { compileWgsl } from "./webgpu.js";
export { checkBounds } from "./bounds.js";
export { compileShared, cacheDir, defaultCompiler, type CompilerOptions } from "./native-compile.js";
export { autoTestVsRef, type AutoTestOptions, type AutoTestResult } from "./auto-test.js";
export { compileKernel, type CompiledKernel } from "./interp.js";
export type { ArgValue } from "./args.js";
