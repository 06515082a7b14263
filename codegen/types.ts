/** What code generation returns (API.md, "Code generation"). The generators come with the codegen issue. */
import type { TargetName } from "../src/ir/index.js";

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
  readonly hostCode?: string;
  readonly kernels: readonly GeneratedKernelInfo[];
}
