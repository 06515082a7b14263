/**
 * Code generation: schedule the kernel (CPU targets lower hardware axes to loops first), lower
 * the schedule to the AST once, print it in the target's dialect.
 *
 *   generateCode(k, "opencl").deviceCode   // "__kernel void __attribute__ ((reqd_work_group_size(…"
 */
import { CodegenError } from "../src/errors.js";
import { inferTypes, TARGET_NAMES, type DeviceKernelNaming, type Kernel, type TargetName } from "../src/ir/index.js";
import { lowerForCpu, schedule, type Schedule } from "../src/schedule/index.js";
import { lowerSchedule, type LowerOptions } from "./lower.js";
import { withPrintedKernelNames } from "./names.js";
import { cTarget } from "./targets/c.js";
import { cudaTarget } from "./targets/cuda.js";
import { openclTarget } from "./targets/opencl.js";
import { openmpTarget } from "./targets/openmp.js";
import { renderJs } from "./targets/js.js";
import { OKL_LOWER_OPTIONS, renderOkl } from "./targets/okl.js";
import type { GeneratedCode } from "./types.js";

/** Options of `generateCode`. */
export interface GenerateOptions {
  /** Device kernel names on OpenCL/CUDA (default: the kernel's `deviceKernelNames`, else "loom"). */
  readonly kernelNames?: DeviceKernelNaming;
}

export type { GeneratedCode, GeneratedKernelInfo } from "./types.js";
export { lowerSchedule } from "./lower.js";

interface Target {
  readonly cpu: boolean;
  /** Device kernels are launched by name from a host (OpenCL, CUDA): OCCA's naming applies. */
  readonly launched?: boolean;
  readonly lowerOptions: LowerOptions;
  render(kernels: ReturnType<typeof lowerSchedule>): GeneratedCode;
}

const TARGETS: Readonly<Partial<Record<TargetName, Target>>> = {
  c: { cpu: true, lowerOptions: cTarget.d.lowerOptions, render: (ks) => cTarget.render(ks) },
  openmp: { cpu: true, lowerOptions: openmpTarget.d.lowerOptions, render: (ks) => openmpTarget.render(ks) },
  opencl: { cpu: false, launched: true, lowerOptions: openclTarget.d.lowerOptions, render: (ks) => openclTarget.render(ks) },
  cuda: { cpu: false, launched: true, lowerOptions: cudaTarget.d.lowerOptions, render: (ks) => cudaTarget.render(ks) },
  js: { cpu: true, lowerOptions: { hwAxes: false, atomics: "plain" }, render: renderJs },
  okl: { cpu: false, lowerOptions: OKL_LOWER_OPTIONS, render: (ks) => renderOkl(ks, ks[0]?.name ?? "kernel") },
};

function targetOf(name: string): Target {
  if (!(TARGET_NAMES as readonly string[]).includes(name)) {
    throw new CodegenError(`unknown target "${name}"; targets are ${TARGET_NAMES.join(", ")}`);
  }
  const t = TARGETS[name as TargetName];
  if (!t) throw new CodegenError(`the "${name}" target is not built yet; built targets: ${Object.keys(TARGETS).join(", ")}`);
  return t;
}

/**
 * Device code and launch information for `k` on `target` (default: the kernel's, else OpenCL).
 * `generateCode(k, "c").deviceCode` starts with `#include <stdint.h>`.
 */
export function generateCode(k: Kernel, target: TargetName = k.target ?? "opencl", opts: GenerateOptions = {}): GeneratedCode {
  return generateCodeAndSchedule(k, target, opts).code;
}

/**
 * `generateCode`, with the schedule the code was generated from (for CPU targets, after
 * `lowerForCpu`): runtimes size global temporaries and launches from it.
 */
export function generateCodeAndSchedule(
  k: Kernel, target: TargetName, opts: GenerateOptions = {},
): { code: GeneratedCode; schedule: Schedule } {
  const t = targetOf(target);
  const naming = opts.kernelNames ?? k.deviceKernelNames ?? "loom";
  if (naming !== "loom" && naming !== "occa") throw new CodegenError(`kernelNames must be "loom" or "occa", not ${JSON.stringify(naming)}`);
  const groups = new Set<string>();
  let schedule = scheduleFor(k, t.cpu, groups);
  if (t.launched && naming === "occa") schedule = withOccaNames(schedule);
  schedule = withPrintedKernelNames(schedule, target);
  return { code: t.render(lowerSchedule(schedule, t.lowerOptions, groups)), schedule };
}

/** OCCA's names for the device kernels of one `@kernel`: `_occa_<name>_<k>`, in launch order. */
function withOccaNames(s: Schedule): Schedule {
  return { ...s, deviceKernels: s.deviceKernels.map((dk, idx) => ({ ...dk, name: `_occa_${s.kernel.name}_${idx}` })) };
}

/** Code for a schedule made elsewhere (tests, the js backend): no scheduling, no CPU lowering. */
export function generateCodeFromSchedule(s: Schedule, target: TargetName): GeneratedCode {
  const t = targetOf(target);
  return t.render(lowerSchedule(s, t.lowerOptions));
}

/** The schedule of `k`; for CPU targets with the hardware axes lowered to loops. */
export function scheduleFor(k0: Kernel, cpu: boolean, groupInames: Set<string> = new Set()): Schedule {
  const s = schedule(inferTypes(k0));
  if (!cpu) return s;
  for (const dk of s.deviceKernels) for (const ax of dk.groupAxes) groupInames.add(ax.iname);
  return lowerForCpu(s);
}
