/** Scheduling: the loop nest and the order of instructions. */
export { linearize, inameOrder } from "./linearize.js";
export type { ScheduleNode, LoopNode, InsnNode } from "./linearize.js";
