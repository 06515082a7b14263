/**
 * Code generation as the rest of the one route (src/schedule/pipeline.ts): the scheduling passes
 * every route runs, the CPU lowering for CPU targets, then
 *
 *   names (device kernels' printed names) → lower (schedule → AST, once) → render (the dialect)
 *
 * and the one table of targets. `lowerStages(k, target)` returns each pass's output.
 */
import { checkOptionNames, CodegenError } from "../src/errors.js";
import { checkKernelArg, TARGET_NAMES, type DeviceKernelNaming, type Kernel, type TargetName } from "../src/ir/index.js";
import {
  schedule, schedulePasses, scheduleStages, stageOf, type Schedule, type Stage,
} from "../src/schedule/index.js";
import { lowerSchedule, type LoweredKernel, type LowerOptions } from "./lower.js";
import { NameAllocator, withPrintedKernelNames } from "./names.js";
import { cTarget } from "./targets/c.js";
import { cuclTarget, renderCucl } from "./targets/cucl.js";
import { cudaTarget } from "./targets/cuda.js";
import { hipTarget } from "./targets/hip.js";
import { JS_CHECKED_LOWER_OPTIONS, JS_LOWER_OPTIONS, renderJs } from "./targets/js.js";
import { OKL_LOWER_OPTIONS, renderOkl } from "./targets/okl.js";
import { openclTarget } from "./targets/opencl.js";
import { openmpTarget } from "./targets/openmp.js";
import { alpakaHostCode, alpakaTarget } from "./targets/alpaka.js";
import { ispcHostCode, ispcTarget } from "./targets/ispc.js";
import { metalHostCode, metalTarget } from "./targets/metal.js";
import { syclHostCode, syclTarget } from "./targets/sycl.js";
import { renderWgsl, WGSL_LOWER_OPTIONS } from "./targets/wgsl.js";
import { withHostCode } from "./host.js";
import type { GeneratedCode } from "./types.js";

/** Options of `generateCode`. */
export interface GenerateOptions {
  /** Device kernel names on OpenCL/CUDA (default: the kernel's `deviceKernelNames`, else "loom"). */
  readonly kernelNames?: DeviceKernelNaming;
  /** js: check every array index at run time, each axis against its extent (`H.ix`) and the flat index against the storage (`H.at`), throwing an ExecutionError outside; the js backend asks for it where it cannot prove the accesses in bounds before a run. */
  readonly checkedAccess?: boolean;
}

const GENERATE_OPTIONS: Readonly<Record<keyof GenerateOptions, true>> = { kernelNames: true, checkedAccess: true };

/** A built target: how its schedule is made, lowered and printed. */
interface Target {
  /** Hardware axes become loops (the CPU lowering pass runs). */
  readonly cpu: boolean;
  /** Device kernels are launched by name from a host (OpenCL, CUDA): OCCA's naming applies. */
  readonly launched: boolean;
  readonly lowerOptions: LowerOptions;
  /** The lowering asked for with `checkedAccess` (js), if it differs. */
  readonly checkedLowerOptions?: LowerOptions;
  /** Print `kernels` with the names of the allocator they were lowered with. */
  render(kernels: readonly LoweredKernel[], names: NameAllocator, opts: GenerateOptions, s: Schedule): GeneratedCode;
  /** The host code, where the target writes its launches itself (SYCL's queue, alpaka's exec, ISPC's launch); default codegen/host.ts's listing. */
  readonly hostCode?: (s: Schedule, code: GeneratedCode, kernels: readonly LoweredKernel[], names: NameAllocator) => string;
}

/** The one table of targets. */
const TARGETS: Readonly<Partial<Record<TargetName, Target>>> = {
  c: { cpu: true, launched: false, lowerOptions: cTarget.d.lowerOptions, render: (ks, n) => cTarget.render(ks, n) },
  openmp: { cpu: true, launched: false, lowerOptions: openmpTarget.d.lowerOptions, render: (ks, n) => openmpTarget.render(ks, n) },
  opencl: { cpu: false, launched: true, lowerOptions: openclTarget.d.lowerOptions, render: (ks, n) => openclTarget.render(ks, n) },
  cuda: { cpu: false, launched: true, lowerOptions: cudaTarget.d.lowerOptions, render: (ks, n) => cudaTarget.render(ks, n) },
  hip: { cpu: false, launched: true, lowerOptions: hipTarget.d.lowerOptions, render: (ks, n) => hipTarget.render(ks, n) },
  cucl: { cpu: false, launched: true, lowerOptions: cuclTarget.d.lowerOptions, render: (ks, n, _, s) => renderCucl(ks, n, s) },
  js: { cpu: true, launched: false, lowerOptions: JS_LOWER_OPTIONS, checkedLowerOptions: JS_CHECKED_LOWER_OPTIONS, render: (ks, n, o) => renderJs(ks, n, { checkedAccess: o.checkedAccess }) },
  okl: { cpu: false, launched: false, lowerOptions: OKL_LOWER_OPTIONS, render: (ks, n) => renderOkl(ks, ks[0]?.name ?? "kernel", {}, n) },
  sycl: { cpu: false, launched: true, lowerOptions: syclTarget.d.lowerOptions, render: (ks, n) => syclTarget.render(ks, n), hostCode: syclHostCode },
  metal: { cpu: false, launched: true, lowerOptions: metalTarget.d.lowerOptions, render: (ks, n) => metalTarget.render(ks, n), hostCode: metalHostCode },
  alpaka: { cpu: false, launched: true, lowerOptions: alpakaTarget.d.lowerOptions, render: (ks, n) => alpakaTarget.render(ks, n), hostCode: alpakaHostCode },
  ispc: { cpu: false, launched: true, lowerOptions: ispcTarget.d.lowerOptions, render: (ks, n) => ispcTarget.render(ks, n), hostCode: ispcHostCode },
  wgsl: { cpu: false, launched: true, lowerOptions: WGSL_LOWER_OPTIONS, render: (ks, n) => renderWgsl(ks, n) },
};

/** The names of the targets code can be generated for now. */
export const BUILT_TARGETS: readonly TargetName[] = Object.freeze(TARGET_NAMES.filter((t) => TARGETS[t] !== undefined));

function targetOf(name: string): Target {
  if (!(TARGET_NAMES as readonly string[]).includes(name)) {
    throw new CodegenError(`unknown target "${name}"; targets are ${TARGET_NAMES.join(", ")}`);
  }
  const t = TARGETS[name as TargetName];
  if (!t) throw new CodegenError(`the "${name}" target is not built yet; built targets: ${BUILT_TARGETS.join(", ")}`);
  return t;
}

function namingOf(k: Kernel, opts: GenerateOptions): DeviceKernelNaming {
  const naming = opts.kernelNames ?? k.deviceKernelNames ?? "loom";
  if (naming !== "loom" && naming !== "occa") throw new CodegenError(`kernelNames must be "loom" or "occa", not ${JSON.stringify(naming)}`);
  return naming;
}

/** The "names" pass: OCCA's device-kernel names where asked, then names every target can print. */
function nameKernels(s: Schedule, target: TargetName, t: Target, naming: DeviceKernelNaming): Schedule {
  const occa = t.launched && naming === "occa"
    ? { ...s, deviceKernels: s.deviceKernels.map((dk, idx) => ({ ...dk, name: `_occa_${s.kernel.name}_${idx}` })) }
    : s;
  return withPrintedKernelNames(occa, target);
}

/**
 * The schedule of `k` for `target`: the scheduling passes, the CPU lowering on CPU targets, and
 * the names pass. Memoized by the scheduling passes (kernels are frozen).
 */
export function scheduleForTarget(k: Kernel, target: TargetName, opts: GenerateOptions = {}): Schedule {
  const t = targetOf(target);
  return nameKernels(schedule(k, { cpu: t.cpu }), target, t, namingOf(k, opts));
}

/**
 * Device code and launch information for `k` on `target` (default: the kernel's, else OpenCL).
 * `generateCode(k, "c").deviceCode` starts with `#include <stdint.h>`.
 */
export function generateCode(k: Kernel, target?: TargetName, opts: GenerateOptions = {}): GeneratedCode {
  checkKernelArg(k, "generateCode", (m) => new CodegenError(m));
  checkOptionNames(opts, "generateCode", GENERATE_OPTIONS, (m) => new CodegenError(m));
  return generateCodeAndSchedule(k, target ?? k.target ?? "opencl", opts).code;
}

/**
 * `generateCode`, with the schedule the code was generated from (for CPU targets, after the CPU
 * lowering): runtimes size global temporaries and launches from it; and the lowered kernels (the
 * AST the code was printed from), whose index arithmetic runtimes check.
 */
export function generateCodeAndSchedule(k: Kernel, target: TargetName, opts: GenerateOptions = {}): { code: GeneratedCode; schedule: Schedule; lowered: LoweredKernel[] } {
  // A repeated variant is the same frozen kernel (transformations memoize by content): its code is
  // known. Only frozen kernels are remembered (nothing can change them); errors are not.
  const frozen = Object.isFrozen(k);
  const key = `${target}|${opts.kernelNames ?? ""}|${opts.checkedAccess === true ? 1 : 0}`;
  const known = frozen ? generated.get(k)?.get(key) : undefined;
  if (known) return known;
  const s = scheduleForTarget(k, target, opts);
  const { lowered, code } = lowerAndRender(s, target, opts);
  const result = { code: freezeCode(code), schedule: s, lowered };
  if (frozen) {
    let byKey = generated.get(k);
    if (!byKey) generated.set(k, (byKey = new Map()));
    byKey.set(key, result);
  }
  return result;
}

/** The code generated for each frozen kernel, by target and options (dies with the kernel). */
const generated = new WeakMap<Kernel, Map<string, { code: GeneratedCode; schedule: Schedule; lowered: LoweredKernel[] }>>();

/** `code` frozen through its kernel list, so one result can be handed out again. */
function freezeCode(code: GeneratedCode): GeneratedCode {
  for (const info of code.kernels) {
    Object.freeze(info.globalSize);
    Object.freeze(info.localSize);
    Object.freeze(info.args);
    Object.freeze(info);
  }
  Object.freeze(code.kernels);
  return Object.freeze(code);
}

/** Code for a schedule made elsewhere (tests, tools): no scheduling passes, no CPU lowering. */
export function generateCodeFromSchedule(s: Schedule, target: TargetName): GeneratedCode {
  return lowerAndRender(s, target).code;
}

/** The "lower" and "render" passes of `target` on a named schedule, with one name allocator for both. */
function lowerAndRender(s: Schedule, target: TargetName, opts: GenerateOptions = {}): { lowered: LoweredKernel[]; code: GeneratedCode } {
  const t = targetOf(target);
  const names = NameAllocator.forKernel(s.kernel, target);
  const lowered = lowerSchedule(s, (opts.checkedAccess && t.checkedLowerOptions) || t.lowerOptions, names);
  const code = t.render(lowered, names, opts, s);
  return { lowered, code: t.hostCode ? { ...code, hostCode: t.hostCode(s, code, lowered, names) } : withHostCode(code, s, target, names) };
}

/** The passes of `target`'s route, by name, in order (`lowerStages` reports one stage per name). */
export function passNames(target: TargetName): string[] {
  return [...schedulePasses(targetOf(target).cpu).map((p) => p.name), "names", "lower", "render"];
}

/**
 * Each pass's output for `k` on `target`, in order, for notebooks and bug reports (Halide's
 * per-pass logging): `types`, `preprocess` (kernels, printed with `show`), `linearize`,
 * `barriers`, `device kernels`, `cpu lowering` (schedules, as loopy's listing), `names`, `lower`
 * (the C-like AST, printed), `render` (the generated code).
 *
 *   lp.lowerStages(k, "c").map((s) => s.name)   // ["types", "preprocess", …, "render"]
 */
export function lowerStages(k: Kernel, target: TargetName = k.target ?? "opencl", opts: GenerateOptions = {}): Stage[] {
  const t = targetOf(target);
  const stages = scheduleStages(k, t.cpu);
  const named = nameKernels(stages.at(-1)!.value as Schedule, target, t, namingOf(k, opts));
  stages.push(stageOf({ name: "names", run: (s) => s }, { kernel: named.kernel, schedule: named }));
  const { lowered, code } = lowerAndRender(named, target);
  // The AST has no syntax of its own: shown in C (CPU targets) or OpenCL C (hardware axes).
  stages.push({ name: "lower", value: lowered, text: (t.lowerOptions.hwAxes ? openclTarget : cTarget).render(lowered).deviceCode });
  stages.push({ name: "render", value: code, text: code.deviceCode + (code.hostCode ? `\n/* host */\n${code.hostCode}` : "") });
  return stages;
}
