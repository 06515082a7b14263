/** Scheduling: preprocessing, the loop nest, barriers, device kernels and the CPU lowering. */
export { linearize, inameOrder } from "./linearize.js";
export { preprocess, expandSubstitutions, type PreprocessOptions } from "./preprocess.js";
export { schedule, showSchedule } from "./schedule.js";
export { eliminateExistentials, lowerForCpu, preferUnitBounds } from "./cpu.js";
export { axisRows, hwAxis } from "./device.js";
export type { Schedule, DeviceKernel, HwAxis, ScheduleNode, LoopNode, InsnNode, BarrierNode } from "./types.js";
