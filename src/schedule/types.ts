/**
 * What scheduling produces: device kernels, each a tree of sequential loops, instructions and
 * local barriers, run over a grid of work-groups × work-items given by the hardware axes, and the
 * host program that launches them (in order, or from host loops around global barriers). The
 * interpreter, the CPU lowering and every code generator consume this one structure.
 */
import type { Expr, Kernel } from "../ir/index.js";

/** A sequential loop over `iname` (tag for, ord, unr, unr_hint, ilp, ilp.seq or none). */
export interface LoopNode {
  readonly kind: "loop";
  readonly iname: string;
  readonly body: readonly ScheduleNode[];
  /**
   * Set by the CPU lowering on the loops it makes of hardware axes: "group" for a group axis
   * (work-groups are independent: OpenMP runs them in parallel), "local" for the work-items of one
   * phase between barriers.
   */
  readonly hw?: "group" | "local";
}

/** One instruction: run at each point of its domain inside the enclosing loops and hardware axes. */
export interface InsnNode {
  readonly kind: "insn";
  readonly id: string;
}

/**
 * All work-items of a group meet here (`barrier(CLK_LOCAL_MEM_FENCE)` / `__syncthreads()`).
 * `comment` says why, as loopy does: `for a_fetch (insn_1 depends on a_fetch_rule)`.
 */
export interface BarrierNode {
  readonly kind: "barrier";
  readonly scope: "local";
  readonly comment: string;
  /**
   * The memory whose accesses the barrier must order, from the variables that need it
   * (barriers.ts): "local" for local temporaries, "global" for arrays and global temporaries
   * shared by the work-items of a group. Absent (a schedule made by hand): both.
   */
  readonly memory?: BarrierMemory;
}

/** Which memory a barrier orders: OpenCL's CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE, or both. */
export type BarrierMemory = "local" | "global" | "local+global";

export type ScheduleNode = LoopNode | InsnNode | BarrierNode;

/**
 * One hardware-parallel iname: the iname's value is `base + id` where `id` is the group id
 * (tag g) or local id (tag l) along `axis`, for `0 <= id < size`. `size` is an expression of the
 * parameters for groups and an integer constant for work-items. Where the iname's domain is not
 * the whole range (a remainder, a triangle) instructions are guarded.
 */
export interface HwAxis {
  readonly iname: string;
  readonly tag: "g" | "l";
  readonly axis: number;
  readonly base: Expr;
  readonly size: Expr;
}

/**
 * One device kernel: launched over the grid of `groupAxes` × `localAxes` (each sorted by axis,
 * axes without an iname have size 1). A kernel with a global barrier becomes several device
 * kernels, in order, named as loopy does: `name`, `name_0`, `name_1`, ….
 */
export interface DeviceKernel {
  readonly name: string;
  readonly body: readonly ScheduleNode[];
  readonly groupAxes: readonly HwAxis[];
  readonly localAxes: readonly HwAxis[];
  /** Kernel arguments and global temporaries this device kernel uses, in kernel-argument order. */
  readonly args: readonly string[];
  /**
   * The host loops launching this device kernel, outermost first (empty or absent at the top
   * level): each iname is a value parameter of the device kernel, given by the host loop.
   */
  readonly hostInames?: readonly string[];
}

/**
 * A host loop (loopy's host-side `for`): a sequential loop holding a global barrier runs on the
 * host, from `lower` to `upper` inclusive (expressions of the value arguments and enclosing host
 * inames), launching the device kernels of its body in order at each value of `iname`.
 */
export interface HostLoop {
  readonly kind: "loop";
  readonly iname: string;
  readonly lower: Expr;
  readonly upper: Expr;
  readonly body: readonly HostNode[];
}

/** A launch of `Schedule.deviceKernels[kernel]` (loopy's `CALL KERNEL`). */
export interface HostLaunch {
  readonly kind: "launch";
  readonly kernel: number;
}

export type HostNode = HostLoop | HostLaunch;

/** The scheduled kernel: `kernel` is the preprocessed kernel the device kernels refer to. */
export interface Schedule {
  readonly kernel: Kernel;
  readonly deviceKernels: readonly DeviceKernel[];
  /**
   * The host program: host loops and device-kernel launches. Absent means the trivial one, each
   * device kernel launched once in order (`hostProgramOf`).
   */
  readonly hostProgram?: readonly HostNode[];
}
