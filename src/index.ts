/**
 * Loom's public face (`import * as lp from "loom"`): re-exports only; no module of the library
 * imports this file. Names and behaviour here are the contract of shared/design/API.md.
 */
export {
  LoomError, ParseError, OklError, TransformError, ScheduleError, CodegenError,
  BackendUnavailableError, ExecutionError, InternalError,
} from "./errors.js";

// Kernels
export { makeKernel, globalArg, valueArg, temporary, addDtypes, parseExpr } from "./parse/index.js";
export type { ArgSpec } from "./parse/index.js";
export { exprToString, parseInameTag, parseDimTags, axisStrides, inferTypes, iterationDomain, DTYPES, TARGET_NAMES } from "./ir/index.js";
export type {
  Kernel, Dtype, TargetName, Expr, Instruction, Assignment, KernelArg, ArrayArg, ValueArg, Temporary,
  SubstitutionRule, InameTag, DimTag, TypedArray,
} from "./ir/index.js";

// Display: show(x) (text; a kernel as loopy's str(knl)) and display(x) (HTML in tslab, text elsewhere)
export { show, display, progress, type DisplayInput, type ProgressCallback } from "./display/index.js";

// Integer sets
export * as isl from "./poly/index.js";
export type { BasicSet, Aff, Bound, DimBounds, Constraint } from "./poly/index.js";

// Transformations: direct forms, step forms, pipelines
export * from "../transforms/index.js";

// Scheduling, code generation and execution
export { linearize, preprocess, schedule, scheduleStages, showSchedule, lowerForCpu, SCHEDULE_PASSES } from "./schedule/index.js";
export type { Schedule, DeviceKernel, HwAxis, ScheduleNode, Stage } from "./schedule/index.js";
export { BUILT_TARGETS, generateCode, generateCodeFromSchedule, lowerStages, passNames, type GenerateOptions } from "../codegen/index.js";
export { generateOkl } from "../codegen/targets/okl-generate.js";
/** CUCL's language layer per back end: compile `CUCL_OPENCL_PRELUDE + generateCode(k, "cucl").deviceCode` with OpenCL, `CUCL_CUDA_PRELUDE + …` with CUDA. */
export { CUCL_CUDA_PRELUDE, CUCL_OPENCL_PRELUDE } from "../codegen/targets/cucl-prelude.js";
export { run, runTimed, autoTestVsRef, backendAvailability, webgpuAvailability, compileWgsl } from "./run/index.js";
export { seededRandom } from "./run/seeded-random.js";
export { arrayLayout, hostMemoryProblem, type Allocation } from "./run/args.js";
export { allocArray, integerRange } from "./ir/dtype.js";
export type { BackendName, BackendResult, RunOptions } from "./run/index.js";

// Statistics (loopy's get_op_map, get_mem_access_map, get_synchronization_map)
export { getOpMap, getMemAccessMap, kernelCost, flopCount, globalBytes, globalTraffic, Count, CountMap } from "./analysis/index.js";
export type { CountFilter, CountGranularity, CountKey, CountOptions, ArrayTraffic, KernelCost, KernelCostOptions, MemAccess, Op, OpMapOptions, Sync, TrafficModel } from "./analysis/index.js";
export { getSyncMap } from "./schedule/sync-map.js";

// Planned (later issues): each throws a LoomError saying it is not built yet.
export * from "./planned.js";
export { parseOkl } from "./okl/parse-okl.js";
export { normalizeOkl, parseOklAst } from "./okl/index.js";
export type { OklKernels, OklWarning } from "./okl/index.js";
export { oklStructArg, oklStructArrays, oklStructBytes, oklStructPack, oklStructUnpack } from "./okl/index.js";
export type { OklStructArg } from "./ir/index.js";
export type { GeneratedCode, GeneratedKernelInfo } from "../codegen/index.js";
// Autotuning
export { autotune, readTuningLog, replay, TuningError } from "./tune/index.js";
export { simulateTuning, STRATEGY_NAMES, type SimulateOptions, type SimulationResult } from "./tune/index.js";
export { plotTuning, type PlotTuningOptions, type PlotMetric } from "./tune/index.js";
export type { TuningRecord, TuningStatus, TuningPoint, AutotuneOptions, AutotuneResult } from "./tune/index.js";
export { machinePeak, type MachinePeak, type MachinePeakOptions } from "./tune/index.js";
export { startTuningWorker, type TuningWorker, type TuningWorkerOptions, type TuningJobEvent } from "./tune/executor/index.js";
