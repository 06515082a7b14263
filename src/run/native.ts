/**
 * The native execution backends: `c` and `openmp` (generated C compiled into a cached shared
 * object, called in-process through the addon), `opencl` (PoCL on CPUs, any OpenCL device) and
 * `cuda` (NVRTC and the driver API, where a GPU exists).
 *
 * Every run checks its arguments first (dtypes, lengths against the shapes evaluated with the
 * parameters) and proves that every access stays inside its array (bounds.ts): nothing a caller
 * passes can make native code read or write out of bounds.
 */
import { createHash } from "node:crypto";
import {
  cudaContext, cudaStatus, nativeStatus, openclContext, openclStatus,
  type DeviceArg, type DeviceBuffer, type DeviceContext, type DeviceProgram, type NativeLibrary, type ScalarKind,
} from "../../native/index.js";
import { generateCodeAndSchedule, type GeneratedCode } from "../../codegen/index.js";
import type { LoweredKernel } from "../../codegen/lower.js";
import { C_TYPES } from "../../codegen/targets/cfamily.js";
import { bufferTrap, recordedTrap, TRAP_BUFFER_WORDS, type IntTrapTable, type WithIntTraps } from "../../codegen/targets/int-traps.js";
import { CUCL_PRELUDES } from "../../codegen/targets/cucl-prelude.js";
import { BackendUnavailableError, CodegenError, ExecutionError, LoomError } from "../errors.js";
import { findArg, findTemporary, INDEX_DTYPE, type Dtype, type Kernel, type TypedArray } from "../ir/index.js";
import type { DeviceKernel, Schedule } from "../schedule/index.js";
import { allocStorage, evalSizeExpr, layoutOf, prepareArgs, showBytes, type ArgValue, type ArrayStorage, type PreparedRun } from "./args.js";
import { webgpuAvailabilitySync } from "./webgpu-device.js";
import { checkBounds, type ArrayExtents } from "./bounds.js";
import { forEachLaunch } from "./host-program.js";
import { checkIndexRange } from "./index-range.js";
import { loadKernels, type CompilerOptions } from "./native-compile.js";

/** Options of the native backends (all optional). */
export interface NativeRunOptions extends CompilerOptions {
  /** Prove every access in bounds before running (default true). Turn off only for indirect subscripts you vouch for. */
  readonly checkBounds?: boolean;
}

/** What one run of a backend gives: every written argument, and the time of each device kernel. */
export interface BackendResult {
  readonly outputs: Record<string, TypedArray>;
  /** Milliseconds per device kernel launch (native: measured in native code around the launch only). */
  readonly kernelMs: readonly number[];
}

const SCALAR_KINDS: Readonly<Partial<Record<Dtype, ScalarKind>>> = {
  int8: "int8", uint8: "uint8", int16: "int16", uint16: "uint16", int32: "int32", uint32: "uint32",
  int64: "int64", uint64: "uint64", float32: "float32", float64: "float64", bool: "uint8",
};

function scalarKind(name: string, d: Dtype | undefined): ScalarKind {
  const kind = d && SCALAR_KINDS[d];
  if (!kind) throw new ExecutionError(`argument "${name}" has dtype ${d ?? "unknown"}, which the native backends cannot pass (accepted: ${Object.keys(SCALAR_KINDS).join(", ")})`);
  return kind;
}

function requireAddon(backend: string): void {
  const st = nativeStatus();
  if (!st.loaded) {
    throw new BackendUnavailableError(`the "${backend}" backend needs Loom's native addon, which is not loaded: ${st.reason ?? "unknown reason"}. ` +
      "Build it with `npm run build:native` (needs python3, make and a C++ compiler: apt-get install build-essential python3)");
  }
}

// ---- preparing a run ---------------------------------------------------------------------------

interface Plan {
  /** Libraries built from this plan's C code and loaded, per compiler options (c/openmp). */
  readonly objects: Map<string, Promise<NativeLibrary>>;
  readonly code: GeneratedCode;
  readonly schedule: Schedule;
  readonly kernels: readonly { readonly info: GeneratedCode["kernels"][number]; readonly dk: DeviceKernel; readonly lowered: LoweredKernel }[];
}

const plans = new WeakMap<Kernel, Map<string, Plan>>();

/** Code and schedule of `typed` for `target`, made once per kernel object and argument dtypes. */
function planFor(original: Kernel, typed: Kernel, target: "c" | "openmp" | "opencl" | "cuda" | "cucl"): Plan {
  const key = JSON.stringify([target, typed.args.map((a) => a.dtype ?? "?"), typed.temporaries.map((t) => t.dtype ?? "?")]);
  let perKernel = plans.get(original);
  if (!perKernel) plans.set(original, (perKernel = new Map()));
  let p = perKernel.get(key);
  if (!p) {
    const { code, schedule: s, lowered } = generateCodeAndSchedule(typed, target);
    // One generated kernel per device kernel, in order; the printed name may differ (a reserved word renamed).
    if (code.kernels.length !== s.deviceKernels.length) {
      throw new CodegenError(`internal: ${code.kernels.length} generated kernels for ${s.deviceKernels.length} device kernels of "${typed.name}"`);
    }
    const kernels = code.kernels.map((info, x) => ({ info, dk: s.deviceKernels[x]!, lowered: lowered[x]! }));
    p = { objects: new Map(), code, schedule: s, kernels };
    perKernel.set(key, p);
  }
  return p;
}

/** Storage of every array the generated kernels take: the caller's (checked), and global temporaries. */
function storageFor(plan: Plan, prep: PreparedRun): Map<string, ArrayStorage> {
  const params = new Map([...prep.values].map(([n, x]) => [n, Number(x)]));
  const out = new Map<string, ArrayStorage>();
  for (const { info, dk } of plan.kernels) {
    for (const name of info.args) {
      if (out.has(name) || prep.values.has(name) || dk.hostInames?.includes(name)) continue;
      const given = prep.arrays.get(name);
      if (given && findArg(prep.kernel, name)) {
        out.set(name, given);
        continue;
      }
      const t = findTemporary(plan.schedule.kernel, name);
      if (!t?.dtype) throw new ExecutionError(`the generated kernel "${info.name}" takes "${name}", which has no storage or dtype`);
      const layout = layoutOf(t, params);
      if (!layout) throw new ExecutionError(`the global temporary "${name}" has no shape`);
      out.set(name, { ...layout, data: allocStorage(t.dtype, layout.size, `the global temporary "${name}"`) });
    }
  }
  return out;
}

/** Prove the accesses of the scheduled kernel in bounds for this run's arrays. */
function proveBounds(plan: Plan, prep: PreparedRun, storage: ReadonlyMap<string, ArrayStorage>, opts: NativeRunOptions): void {
  if (opts.checkBounds === false) return;
  const params = new Map([...prep.values].map(([n, x]) => [n, Number(x)]));
  const arrays = new Map<string, ArrayExtents>();
  const k = plan.schedule.kernel;
  for (const a of k.args) {
    if (a.kind !== "array") continue;
    const s = storage.get(a.name) ?? prep.arrays.get(a.name);
    if (!s) continue;
    const layout = layoutOf(a, params);
    // The caller's array may be longer than the shape: the shape bounds each axis, the length the storage.
    arrays.set(a.name, { extents: layout?.extents, size: s.data.length });
  }
  for (const t of k.temporaries) {
    const layout = layoutOf(t, params);
    if (layout) arrays.set(t.name, { extents: layout.extents, size: layout.size });
  }
  checkBounds(k, prep.values, arrays);
}

/**
 * Prove that the generated code's 32-bit index arithmetic (loop bounds and counters, guards,
 * subscripts, hardware ids) stays within int32 for this run's parameters, on every launch
 * (index-range.ts); always on, as a value leaving int32 gives wrong results silently.
 */
function proveIndexRange(plan: Plan, prep: PreparedRun): void {
  const params = paramsOf(prep);
  forEachLaunch(plan.schedule, params, (x, host) => {
    const { info, lowered } = plan.kernels[x]!;
    checkIndexRange(lowered, new Map([...params, ...host]), info.name);
  });
}

/** Work-groups and work-items of a device kernel for this run's parameters. */
function launchSizes(dk: DeviceKernel, params: ReadonlyMap<string, number>): { groups: number[]; local: number[] } {
  const sizes = (axes: DeviceKernel["groupAxes"], what: string) => {
    const n = axes.reduce((m, a) => Math.max(m, a.axis + 1), 0);
    const out = new Array<number>(n).fill(1);
    for (const a of axes) {
      const v = evalSizeExpr(a.size, params, `the ${what} size of axis ${a.axis} (iname ${a.iname}) of kernel "${dk.name}"`);
      out[a.axis] = Math.max(0, v);
    }
    return out;
  };
  const groups = sizes(dk.groupAxes, "group");
  const local = sizes(dk.localAxes, "local");
  // Both lists name the same axes: pad the shorter with 1s.
  while (groups.length < local.length) groups.push(1);
  while (local.length < groups.length) local.push(1);
  return { groups, local };
}

/** The value arguments of a run as numbers (sizes and host loop bounds are evaluated with them). */
function paramsOf(prep: PreparedRun): Map<string, number> {
  return new Map([...prep.values].map(([n, x]) => [n, Number(x)]));
}

/** A scalar a device kernel takes: a value argument, or the iname of a host loop around its launch (an index). */
function valueOf(prep: PreparedRun, host: ReadonlyMap<string, number>, name: string): { kind: ScalarKind; value: number | bigint } | undefined {
  const h = host.get(name);
  if (h !== undefined) return { kind: scalarKind(name, INDEX_DTYPE), value: h };
  const v = prep.values.get(name);
  return v === undefined ? undefined : { kind: scalarKind(name, findArg(prep.kernel, name)?.dtype), value: v };
}

function outputsOf(prep: PreparedRun): Record<string, TypedArray> {
  return Object.fromEntries(prep.written.map((n) => [n, prep.arrays.get(n)!.data]));
}

// ---- c / openmp ----------------------------------------------------------------------------------

/**
 * The exported entry point of each generated kernel: `loom_<hash of the code>_<index>`, made
 * fresh against every identifier of the code. The hash makes another kernel's library (a cache
 * file swapped under this key) lack these symbols instead of offering ones of another signature.
 */
function entryNames(plan: Plan): readonly string[] {
  const used = new Set(plan.code.deviceCode.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  const hash = createHash("sha256").update(plan.code.deviceCode).digest("hex").slice(0, 16);
  return plan.kernels.map((_, x) => {
    let name = `loom_${hash}_${x}`;
    while (used.has(name)) name += "_";
    return name;
  });
}

/**
 * `void loom_<hash>_0(void **a) { k(a[0], …, *(int32_t *)a[3]); }` for each kernel: the addon's
 * one calling convention, and the only symbols the library exports (it is compiled with hidden
 * visibility).
 */
function entryPoints(plan: Plan, typed: Kernel, entries: readonly string[]): string {
  return plan.kernels.map(({ info, dk }, x) => {
    const actuals = info.args.map((name, y) => {
      const a = findArg(typed, name);
      // A host loop's iname is an index value.
      const dtype = dk.hostInames?.includes(name) ? INDEX_DTYPE : a?.kind === "value" ? a.dtype : undefined;
      if (dtype === undefined && a?.kind !== "value") return `a[${y}]`;
      const ct = dtype && C_TYPES[dtype];
      if (!ct) throw new ExecutionError(`value argument "${name}" has dtype ${dtype ?? "unknown"}, which the C backends cannot pass`);
      return `*(${ct} *)a[${y}]`;
    });
    return `__attribute__((visibility("default"))) void ${entries[x]}(void **a);\n` +
      `void ${entries[x]}(void **a)\n{\n  ${info.name}(${actuals.join(", ")});\n}\n`;
  }).join("\n") + (trapEntry(plan, entries) === undefined ? "" :
    `\n__attribute__((visibility("default"))) void ${trapEntry(plan, entries)}(void **a);\n` +
    `void ${trapEntry(plan, entries)}(void **a)\n{\n  *(uint32_t *)a[0] = loopy_int_trap.site;\n  *(int64_t *)a[1] = loopy_int_trap.value;\n` +
    "  loopy_int_trap.site = 0;\n  loopy_int_trap.claims = 0;\n}\n");
}

/** The integer traps of the plan's code (codegen/targets/int-traps.ts), where it has any. */
function trapsOf(plan: Plan): IntTrapTable | undefined {
  return (plan.code as WithIntTraps).intTraps;
}

/**
 * Where the code checks integer traps (its helpers record the first in the static
 * `loopy_int_trap`), the entry point that reads and clears the record: `<first entry>_trap`.
 */
function trapEntry(plan: Plan, entries: readonly string[]): string | undefined {
  return trapsOf(plan)?.mode === "flag" && entries.length > 0 ? `${entries[0]}_trap` : undefined;
}

async function runC(backend: "c" | "openmp", k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions): Promise<BackendResult> {
  requireAddon(backend);
  const prep = prepareArgs(k, args, { temporaries: false });
  const plan = planFor(k, prep.kernel, backend);
  const storage = storageFor(plan, prep);
  proveBounds(plan, prep, storage, opts);
  proveIndexRange(plan, prep);
  const entries = entryNames(plan);
  const optsKey = JSON.stringify([opts.cc, opts.flags, opts.libs]);
  let loading = plan.objects.get(optsKey);
  if (!loading) {
    const source = `${plan.code.deviceCode}\n/* entry points for Loom's native addon */\n${entryPoints(plan, prep.kernel, entries)}`;
    const trap = trapEntry(plan, entries);
    loading = loadKernels(source, opts, `${backend} code of kernel "${k.name}"`, trap === undefined ? entries : [...entries, trap]);
    plan.objects.set(optsKey, loading);
    loading.catch(() => plan.objects.delete(optsKey));
  }
  const lib = await loading;
  const trap = trapEntry(plan, entries);
  const kernelMs: number[] = [];
  forEachLaunch(plan.schedule, paramsOf(prep), (x, host) => {
    const values: (TypedArray | number | bigint)[] = [];
    const kinds: ("ptr" | ScalarKind)[] = [];
    for (const name of plan.kernels[x]!.info.args) {
      const v = valueOf(prep, host, name);
      if (v !== undefined) {
        values.push(v.value);
        kinds.push(v.kind);
      } else {
        values.push(storage.get(name)!.data);
        kinds.push("ptr");
      }
    }
    kernelMs.push(lib.call(entries[x]!, values, kinds) / 1e6);
    // The first trap of the launch, as the interpreter reports it (it stops at the first).
    if (trap !== undefined) {
      const site = new Uint32Array(1);
      const value = new BigInt64Array(1);
      lib.call(trap, [site, value], ["ptr", "ptr"]);
      const message = recordedTrap(trapsOf(plan)!, site[0]!, value[0]!);
      if (message !== undefined) throw new ExecutionError(message);
    }
  });
  return { outputs: outputsOf(prep), kernelMs };
}

// ---- opencl / cuda -------------------------------------------------------------------------------

interface DeviceRuntime {
  readonly name: "opencl" | "cuda" | "cucl";
  /** The device API (and context) it runs on, where it is not `name` (cucl runs on OpenCL or CUDA). */
  readonly api?: "opencl" | "cuda";
  /** Source put before the generated code (CUCL's prelude of the API). */
  readonly prelude?: string;
  /** Launches are 1-D: ∏ group sizes groups of ∏ local sizes work-items (CUCL linearizes its axes in the kernel). */
  readonly flat?: boolean;
  readonly status: () => { available: boolean; reason?: string };
  readonly open: () => DeviceContext;
  readonly install: string;
  readonly buildOptions: readonly string[];
}

const RUNTIMES: Readonly<Record<"opencl" | "cuda" | "cucl" | "cuclCuda", DeviceRuntime>> = {
  opencl: {
    name: "opencl", status: openclStatus,
    open: () => openclContext(Number(process.env.LOOM_OPENCL_DEVICE ?? 0)),
    install: "install an OpenCL platform, e.g. PoCL for CPUs: apt-get install pocl-opencl-icd ocl-icd-opencl-dev",
    buildOptions: [],
  },
  cuda: {
    name: "cuda", status: cudaStatus,
    open: () => cudaContext(Number(process.env.LOOM_CUDA_DEVICE ?? 0)),
    install: "it needs an NVIDIA GPU with its driver (libcuda.so.1) and the CUDA toolkit's NVRTC (libnvrtc.so)",
    buildOptions: [],
  },
  cucl: {
    name: "cucl", api: "opencl", prelude: CUCL_PRELUDES.opencl, flat: true, status: openclStatus,
    open: () => openclContext(Number(process.env.LOOM_OPENCL_DEVICE ?? 0)),
    install: "it runs on OpenCL: install an OpenCL platform, e.g. PoCL for CPUs: apt-get install pocl-opencl-icd ocl-icd-opencl-dev",
    buildOptions: [],
  },
  cuclCuda: {
    name: "cucl", api: "cuda", prelude: CUCL_PRELUDES.cuda, flat: true, status: cudaStatus,
    open: () => cudaContext(Number(process.env.LOOM_CUDA_DEVICE ?? 0)),
    install: "it runs on CUDA: it needs an NVIDIA GPU with its driver (libcuda.so.1) and the CUDA toolkit's NVRTC (libnvrtc.so)",
    buildOptions: [],
  },
};

const contexts = new Map<string, DeviceContext>();
const programs = new Map<string, DeviceProgram>();
const MAX_PROGRAMS = 256;

function contextFor(rt: DeviceRuntime): DeviceContext {
  requireAddon(rt.name);
  const api = rt.api ?? rt.name;
  let ctx = contexts.get(api);
  if (ctx) return ctx;
  const st = rt.status();
  if (!st.available) throw new BackendUnavailableError(`the "${rt.name}" backend is not available here: ${st.reason ?? "no device"}; ${rt.install}`);
  ctx = rt.open();
  contexts.set(api, ctx);
  return ctx;
}

function programFor(rt: DeviceRuntime, ctx: DeviceContext, source: string, what: string): DeviceProgram {
  const key = `${rt.api ?? rt.name}\n${source}`;
  let p = programs.get(key);
  if (p) return p;
  try {
    p = ctx.build(source, rt.buildOptions);
  } catch (e) {
    throw new CodegenError(`the ${rt.name} compiler rejected the ${what}:\n${(e as Error).message}`);
  }
  if (programs.size >= MAX_PROGRAMS) {
    const [oldKey, old] = programs.entries().next().value as [string, DeviceProgram];
    programs.delete(oldKey);
    old.release();
  }
  programs.set(key, p);
  return p;
}

/** Refuse, before building anything, buffers larger than the device's largest or more than its memory. */
function checkDeviceMemory(rt: DeviceRuntime, ctx: DeviceContext, storage: ReadonlyMap<string, ArrayStorage>): void {
  const { maxAllocBytes, memoryBytes, name } = ctx.device;
  let total = 0;
  for (const [array, s] of storage) {
    total += s.data.byteLength;
    if (maxAllocBytes !== undefined && s.data.byteLength > maxAllocBytes) {
      throw new ExecutionError(`${rt.name}: "${array}" needs ${showBytes(s.data.byteLength)}, more than the largest buffer of the device ` +
        `${name} (${showBytes(maxAllocBytes)}, ${rt.name === "opencl" ? "CL_DEVICE_MAX_MEM_ALLOC_SIZE" : "its memory"}); run it on the c or openmp backend, or in smaller pieces`);
    }
  }
  if (memoryBytes !== undefined && total > memoryBytes) {
    throw new ExecutionError(`${rt.name}: the run needs ${showBytes(total)} of device memory for ${[...storage.keys()].join(", ")}, more than the device ${name} has (${showBytes(memoryBytes)})`);
  }
}

async function runDevice(rt: DeviceRuntime, k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions): Promise<BackendResult> {
  const ctx = contextFor(rt);
  const prep = prepareArgs(k, args, { temporaries: false });
  const plan = planFor(k, prep.kernel, rt.name);
  const storage = storageFor(plan, prep);
  proveBounds(plan, prep, storage, opts);
  proveIndexRange(plan, prep);
  checkDeviceMemory(rt, ctx, storage);
  const program = programFor(rt, ctx, (rt.prelude ?? "") + plan.code.deviceCode, `${rt.name} code of kernel "${k.name}"`);
  const params = paramsOf(prep);
  const buffers = new Map<string, DeviceBuffer>();
  const kernelMs: number[] = [];
  // The trap buffer of kernels that may trap (codegen/targets/int-traps.ts): zeroed, passed last, read after the launches.
  const traps = trapsOf(plan);
  const trapWords = traps?.mode === "buffer" && traps.kernels.some((t) => t) ? new Uint32Array(TRAP_BUFFER_WORDS) : undefined;
  let trapBuffer: DeviceBuffer | undefined;
  try {
    if (trapWords) {
      trapBuffer = ctx.alloc(trapWords.byteLength);
      ctx.write(trapBuffer, trapWords);
    }
    for (const [name, s] of storage) {
      let buf: DeviceBuffer;
      try {
        buf = ctx.alloc(Math.max(1, s.data.byteLength));
      } catch (e) {
        throw new ExecutionError(`${rt.name}: cannot allocate ${showBytes(s.data.byteLength)} for "${name}" on ${ctx.device.name}: ${(e as Error).message}`);
      }
      buffers.set(name, buf);
      if (s.data.byteLength > 0) ctx.write(buf, s.data);
    }
    forEachLaunch(plan.schedule, params, (x, host) => {
      const { info, dk } = plan.kernels[x]!;
      const sizes = launchSizes(dk, params);
      const product = (xs: readonly number[]) => [xs.reduce((p, x) => p * x, 1)];
      const { groups, local } = rt.flat ? { groups: product(sizes.groups), local: product(sizes.local) } : sizes;
      // CUCL's linearized ids are int32: the 1-D grid may not hold more work-items.
      if (rt.flat && groups[0]! * local[0]! > 2147483647) {
        throw new ExecutionError(`${rt.name}: kernel "${info.name}" would launch ${groups[0]} groups of ${local[0]} work-items in one dimension, ` +
          `more than the 2147483647 its int32 ids can number; run it with smaller sizes, or on the opencl or cuda backend`);
      }
      // No groups, or work-groups of no work-items (a parametric local size that is 0): nothing runs.
      if (groups.some((g) => g === 0) || local.some((l) => l === 0)) {
        kernelMs.push(0);
        return;
      }
      const launchArgs: DeviceArg[] = info.args.map((name) => {
        const v = valueOf(prep, host, name);
        return v !== undefined ? v : buffers.get(name)!;
      });
      if (trapBuffer && traps!.kernels[x]) launchArgs.push(trapBuffer);
      try {
        kernelMs.push(ctx.launch(program, info.name, launchArgs, groups, local) / 1e6);
      } catch (e) {
        throw new ExecutionError(`${rt.name}: launching kernel "${info.name}" (groups ${groups.join("×") || "1"}, work-items ${local.join("×") || "1"}) failed: ${(e as Error).message}`);
      }
    });
    if (trapBuffer && trapWords) {
      ctx.read(trapBuffer, trapWords);
      const message = bufferTrap(traps!, trapWords);
      if (message !== undefined) throw new ExecutionError(message);
    }
    for (const name of prep.written) {
      const s = storage.get(name);
      if (s && s.data.byteLength > 0) ctx.read(buffers.get(name)!, s.data);
    }
  } finally {
    for (const b of buffers.values()) b.release();
    trapBuffer?.release();
  }

  return { outputs: outputsOf(prep), kernelMs };
}

/** The native backends by name. */
export const nativeBackends = {
  c: (k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions) => runC("c", k, args, opts),
  openmp: (k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions) => runC("openmp", k, args, opts),
  opencl: (k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions) => runDevice(RUNTIMES.opencl, k, args, opts),
  cuda: (k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions) => runDevice(RUNTIMES.cuda, k, args, opts),
  /** The cucl target's code after CUCL's OpenCL prelude, on OpenCL (PoCL on CPUs), launched 1-D. */
  cucl: (k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions) => runDevice(RUNTIMES.cucl, k, args, opts),
  /** The cucl target's code after CUCL's CUDA prelude, on CUDA (NVRTC), launched 1-D. */
  cuclCuda: (k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions) => runDevice(RUNTIMES.cuclCuda, k, args, opts),
} as const;

/**
 * Whether `backend` can run here, and if not why (never throws; interp and js always can).
 * `backendAvailability("opencl")` is `{ available: false, reason: "… apt-get install pocl-opencl-icd …" }` without OpenCL.
 */
export function backendAvailability(backend: "interp" | "js" | "c" | "openmp" | "opencl" | "cuda" | "webgpu"): { available: boolean; reason?: string } {
  if (backend === "interp" || backend === "js") return { available: true };
  // Without starting Dawn: the package, the Vulkan loader and a driver are there (webgpuAvailability() starts it).
  if (backend === "webgpu") return webgpuAvailabilitySync();
  if (!["c", "openmp", "opencl", "cuda"].includes(backend as string)) {
    return { available: false, reason: `${JSON.stringify(backend)} is not a backend of this version of Loom; backends are interp, js, c, openmp, opencl, cuda, webgpu` };
  }
  try {
    if (backend === "c" || backend === "openmp") {
      requireAddon(backend);
      return { available: true };
    }
    contextFor(RUNTIMES[backend]);
    return { available: true };
  } catch (e) {
    if (e instanceof LoomError) return { available: false, reason: e.message };
    return { available: false, reason: String(e) };
  }
}

/**
 * The device `backend` runs its kernels on, for tuning records: the first device of the OpenCL or
 * CUDA runtime (`"NVIDIA H200 (NVIDIA CUDA, compute_90)"`); undefined for the backends that run on
 * this process's CPU (interp, js, c, openmp) and where the runtime has no device.
 */
export function deviceOf(backend: string): string | undefined {
  const status = backend === "opencl" ? openclStatus() : backend === "cuda" ? cudaStatus() : undefined;
  const d = status?.available ? status.devices[0] : undefined;
  return d ? `${d.name} (${d.platform}, ${d.version})` : undefined;
}
