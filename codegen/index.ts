/**
 * Code generation: schedule the kernel (CPU targets lower hardware axes to loops first), lower
 * the schedule to the AST once, print it in the target's dialect.
 *
 *   generateCode(k, "opencl").deviceCode   // "__kernel void __attribute__ ((reqd_work_group_size(…"
 */
import { CodegenError, LoomError } from "../src/errors.js";
import {
  allInames, exprToString, inferTypes, iterationDomain, TARGET_NAMES,
  type DeviceKernelNaming, type Expr, type Kernel, type TargetName,
} from "../src/ir/index.js";
import { affIsConstant, dimBounds, type Aff, type Bound } from "../src/poly/index.js";
import { linearize, lowerForCpu, schedule, type HwAxis, type Schedule, type ScheduleNode } from "../src/schedule/index.js";
import { lowerSchedule, type LowerOptions } from "./lower.js";
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

const notBuilt = (e: unknown) => e instanceof LoomError && /not built yet/.test(e.message);

/** The schedule of `k`; for CPU targets with the hardware axes lowered to loops. */
export function scheduleFor(k0: Kernel, cpu: boolean, groupInames: Set<string> = new Set()): Schedule {
  const k = inferTypes(k0);
  let s: Schedule;
  try {
    s = schedule(k);
  } catch (e) {
    if (!notBuilt(e)) throw e;
    return interimSchedule(k, cpu);
  }
  if (!cpu) return s;
  for (const dk of s.deviceKernels) for (const ax of dk.groupAxes) groupInames.add(ax.iname);
  try {
    return lowerForCpu(s);
  } catch (e) {
    if (!notBuilt(e)) throw e;
    return interimSchedule(k, true);
  }
}

/**
 * Until the scheduler lands: the sequential linearization, as the interpreter runs it; for GPU
 * targets the g/l inames are lifted out as hardware axes (no barriers are inserted).
 */
function interimSchedule(k: Kernel, cpu: boolean): Schedule {
  const body = linearize(k);
  const args = k.args.map((a) => a.name).concat(k.temporaries.filter((t) => t.addressSpace === "global").map((t) => t.name));
  if (cpu) return { kernel: k, deviceKernels: [{ name: k.name, body, groupAxes: [], localAxes: [], args }] };
  const hw = new Set(allInames(k).filter((n) => ["g", "l"].includes(k.inameTags[n]?.kind ?? "")));
  const strip = (nodes: readonly ScheduleNode[]): ScheduleNode[] =>
    nodes.flatMap((n) => (n.kind === "loop" ? (hw.has(n.iname) ? strip(n.body) : [{ ...n, body: strip(n.body) }]) : [n]));
  const axes = [...hw].map((iname) => hwAxis(k, iname));
  const byAxis = (a: HwAxis, b: HwAxis) => a.axis - b.axis;
  return {
    kernel: k,
    deviceKernels: [{
      name: k.name, body: strip(body), args,
      groupAxes: axes.filter((a) => a.tag === "g").sort(byAxis),
      localAxes: axes.filter((a) => a.tag === "l").sort(byAxis),
    }],
  };
}

/** The hardware axis of a g/l iname: base and size from its bounds over the parameters. */
function hwAxis(k: Kernel, iname: string): HwAxis {
  const tag = k.inameTags[iname] as { kind: "g" | "l"; axis: number };
  const b = dimBounds(iterationDomain(k, [iname]), iname, []);
  const lo = boundExpr(b.lower, "lower");
  const hi = boundExpr(b.upper, "upper");
  if (!lo || !hi) throw new CodegenError(`iname "${iname}" (tag ${tag.kind}.${tag.axis}) has no bounds in terms of the parameters`);
  let size: Expr = simplifyConst({ kind: "arith", op: "+", left: { kind: "arith", op: "-", left: hi, right: lo }, right: { kind: "const", value: 1, isFloat: false } });
  if (tag.kind === "l" && size.kind !== "const") {
    throw new CodegenError(`iname "${iname}" is tagged l.${tag.axis} but its extent ${exprToString(size)} is not a constant; split it first`);
  }
  if (size.kind === "const" && size.value < 1) size = { kind: "const", value: 1, isFloat: false };
  return { iname, tag: tag.kind, axis: tag.axis, base: lo, size };
}

function affExpr(a: Aff): Expr {
  let e: Expr = { kind: "const", value: a.constant, isFloat: false };
  for (const [n, c] of Object.entries(a.terms)) {
    const t: Expr = c === 1 ? { kind: "var", name: n } : { kind: "arith", op: "*", left: { kind: "const", value: c, isFloat: false }, right: { kind: "var", name: n } };
    e = a.constant === 0 && e.kind === "const" && e.value === 0 ? t : { kind: "arith", op: "+", left: e, right: t };
  }
  return e;
}

function boundExpr(bs: readonly Bound[], side: "lower" | "upper"): Expr | undefined {
  if (bs.length === 0) return undefined;
  const consts = bs.filter((b) => affIsConstant(b.aff));
  const pick = consts.length > 0 ? [consts.reduce((x, y) => {
    const vx = side === "lower" ? Math.ceil(x.aff.constant / x.denom) : Math.floor(x.aff.constant / x.denom);
    const vy = side === "lower" ? Math.ceil(y.aff.constant / y.denom) : Math.floor(y.aff.constant / y.denom);
    return (side === "lower" ? vx >= vy : vx <= vy) ? x : y;
  })] : bs;
  const exprs = pick.map((b): Expr => {
    if (b.denom === 1) return affExpr(b.aff);
    if (affIsConstant(b.aff)) return { kind: "const", value: side === "lower" ? Math.ceil(b.aff.constant / b.denom) : Math.floor(b.aff.constant / b.denom), isFloat: false };
    const num = side === "lower" ? { ...b.aff, constant: b.aff.constant + b.denom - 1 } : b.aff;
    return { kind: "arith", op: "//", left: affExpr(num), right: { kind: "const", value: b.denom, isFloat: false } };
  });
  return exprs.reduce((a, x) => ({ kind: "call", fn: side === "lower" ? "max" : "min", args: [a, x] }));
}

function simplifyConst(e: Expr): Expr {
  if (e.kind !== "arith") return e;
  const l = simplifyConst(e.left);
  const r = simplifyConst(e.right);
  if (l.kind === "const" && r.kind === "const" && (e.op === "+" || e.op === "-")) {
    return { kind: "const", value: e.op === "+" ? l.value + r.value : l.value - r.value, isFloat: false };
  }
  return { ...e, left: l, right: r };
}
