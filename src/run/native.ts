/**
 * The native execution backends: `c` and `openmp` (generated C compiled into a cached shared
 * object, called in-process through the addon), `opencl` (PoCL on CPUs, any OpenCL device) and
 * `cuda` (NVRTC and the driver API, where a GPU exists).
 *
 * Every run checks its arguments first (dtypes, lengths against the shapes evaluated with the
 * parameters) and proves that every access stays inside its array (bounds.ts): nothing a caller
 * passes can make native code read or write out of bounds.
 */
import {
  cudaContext, cudaStatus, openclContext, openclStatus,
  type DeviceArg, type DeviceBuffer, type DeviceContext, type DeviceProgram,
} from "../../native/index.js";
import { CUCL_PRELUDES } from "../../codegen/targets/cucl-prelude.js";
import { bufferTrap, TRAP_BUFFER_WORDS } from "../../codegen/targets/int-traps.js";
import { BackendUnavailableError, CodegenError, ExecutionError, LoomError } from "../errors.js";
import type { Kernel } from "../ir/index.js";
import { prepareArgs, showBytes, type ArgValue, type ArrayStorage } from "./args.js";
import { webgpuAvailabilitySync } from "./webgpu-device.js";
import { forEachLaunch } from "./host-program.js";
import { runC } from "./native-c.js";
import {
  launchSizes, outputsOf, paramsOf, planFor, proveBounds, proveIndexRange, requireAddon, storageFor, trapsOf, valueOf, type BackendResult, type NativeRunOptions,
} from "./native-plan.js";

export type { BackendResult, NativeRunOptions } from "./native-plan.js";

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

