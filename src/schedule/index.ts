/** Scheduling: preprocessing, the loop nest, barriers, device kernels and the CPU lowering. */
export { linearize, inameOrder } from "./linearize.js";
export { preprocess, expandSubstitutions } from "./preprocess.js";
export { schedule, schedulePasses, scheduleStages, runPasses, stageOf, SCHEDULE_PASSES, CPU_LOWERING, type LoweringState, type Pass, type Stage } from "./pipeline.js";
export { showSchedule } from "./show.js";
export { lowerForCpu } from "./cpu.js";
export { eliminateExistentials, preferUnitBounds } from "./exact-existentials.js";
export { resolveAddressSpaces } from "./preprocess-tags.js";
export { axisRows, hasHostLoops, hostProgramOf, hwAxis } from "./device.js";
export type { Schedule, DeviceKernel, HostLaunch, HostLoop, HostNode, HwAxis, ScheduleNode, LoopNode, InsnNode, BarrierNode } from "./types.js";
