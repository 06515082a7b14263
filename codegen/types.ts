/** What code generation returns (API.md, "Code generation"). The generators come with the codegen issue. */
import type { TargetName } from "../src/ir/index.js";
import type { IntTrapSite } from "./ast.js";

export interface GeneratedKernelInfo {
  readonly name: string;
  /** Work-groups along each axis (CUDA's grid), as C expressions in the kernel's parameters. */
  readonly globalSize: readonly string[];
  /** Work-items per group along each axis. */
  readonly localSize: readonly string[];
  readonly args: readonly string[];
}

export interface GeneratedCode {
  readonly target: TargetName;
  readonly deviceCode: string;
  /**
   * The host program (loopy's host code): the device kernels' launches in order with their sizes,
   * inside host loops where a global barrier is inside a sequential loop. C for the C-like
   * targets, JavaScript for js; a listing to read, the runtimes follow the schedule's host program.
   */
  readonly hostCode?: string;
  readonly kernels: readonly GeneratedKernelInfo[];
  /**
   * Where the code checks integer traps (C-family targets, webgpu): its sites and how it reports
   * them (codegen/targets/int-traps.ts); absent where nothing can trap.
   */
  readonly intTraps?: IntTrapTable;
}

/**
 * How generated code reports its integer traps (`GeneratedCode.intTraps`): `flag`, the static
 * `loopy_int_trap` (c, openmp); `buffer`, a trap buffer parameter named `param`, last in the
 * parameters of each kernel `kernels` marks.
 */
export interface IntTrapTable {
  readonly mode: "flag" | "buffer";
  /** Site n at index n - 1. */
  readonly sites: readonly IntTrapSite[];
  readonly param?: string;
  readonly kernels: readonly boolean[];
}
