/**
 * The TypeScript face of Loom's native addon (native/build/Release/loom_native.node): call
 * kernels compiled into shared objects, and run OpenCL and CUDA kernels. Every function works
 * without the addon: status functions report why it is missing, the others throw saying so.
 * Imports nothing of ours (shared/design/ARCHITECTURE.md).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The C type of a scalar argument: "int32" is int32_t, "float32" is float, ... e.g. `{ kind: "int64", value: 5n }`. */
export type ScalarKind =
  | "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "int64" | "uint64" | "float32" | "float64";

/** Whether the addon loaded: `{ loaded: true, path }`, or `{ loaded: false, reason: "native addon not built: ..." }`. */
export interface NativeStatus {
  readonly loaded: boolean;
  readonly reason?: string;
  readonly path?: string;
}

/** A dlopen'ed shared object. */
export interface NativeLibrary {
  readonly path: string;
  /**
   * Whether the library itself defines and exports `symbol`, e.g. `lib.has("loom_vadd")`; a symbol
   * of a library it depends on (libc's `malloc`) or of the process (`main`) does not count.
   */
  has(symbol: string): boolean;
  /**
   * Call `void symbol(void **args)`: args[i] points at the data of an ArrayBufferView (no copy,
   * byteOffset respected) when kinds[i] is "ptr", else at an 8-byte-aligned slot holding the
   * number/bigint converted to the exact C type of kinds[i] (int32_t, uint64_t, float, ...).
   * Returns the nanoseconds (CLOCK_MONOTONIC) of the call alone. Throws on a symbol `has` denies,
   * args/kinds length mismatch, or a value its kind does not fit (an array with a scalar kind,
   * a number with "ptr", 1.5 as int32, 300 as int8, a bigint as float64).
   *
   * @example lib.call("vadd", [a, b, c, 1024], ["ptr", "ptr", "ptr", "int32"])
   */
  call(symbol: string, args: readonly (ArrayBufferView | number | bigint)[], kinds: readonly ("ptr" | ScalarKind)[]): number;
  /** Release the handle; later calls throw. Closing twice does nothing. The code stays mapped (RTLD_NODELETE): threads it started, such as OpenMP workers, may outlive it. */
  close(): void;
}

/** An argument of a device launch: a device buffer, or a scalar of the given kind, e.g. `{ kind: "float32", value: 0.5 }`. */
export type DeviceArg = DeviceBuffer | { readonly kind: ScalarKind; readonly value: number | bigint };

/** Device memory from `ctx.alloc(bytes)`; `release()` frees it (so does the context's release). */
export interface DeviceBuffer {
  readonly bytes: number;
  release(): void;
}

/** A program from `ctx.build(source, options)`; `log` is the compiler's log (warnings), possibly empty. */
export interface DeviceProgram {
  readonly log: string;
  release(): void;
}

/**
 * A device as its runtime names it; `type` is OpenCL's device type without the prefix ("CPU",
 * "GPU", "ACCELERATOR", joined by "|" if several) and "GPU" for CUDA, e.g.
 * `{ platform: "Portable Computing Language", name: "pthread-...", type: "CPU", version: "OpenCL 3.0 PoCL ..." }`.
 */
export interface DeviceInfo {
  readonly platform: string;
  readonly name: string;
  readonly type: string;
  readonly version: string;
  /** The largest buffer one `alloc` may make, in bytes (OpenCL's CL_DEVICE_MAX_MEM_ALLOC_SIZE); absent where the runtime does not say. */
  readonly maxAllocBytes?: number;
  /** The device's global memory in bytes (CL_DEVICE_GLOBAL_MEM_SIZE); absent where the runtime does not say. */
  readonly memoryBytes?: number;
}

/** One device with one in-order queue (OpenCL) or its primary context (CUDA), from `openclContext()` / `cudaContext()`. */
export interface DeviceContext {
  readonly device: DeviceInfo;
  /**
   * Build `source` (OpenCL C, or CUDA C++ through NVRTC, kernels declared `extern "C"`). Throws an
   * Error whose message contains the full build log.
   *
   * @example const p = ctx.build("__kernel void k(__global float *a) { a[0] = 1; }", ["-cl-fast-relaxed-math"])
   */
  build(source: string, options: readonly string[]): DeviceProgram;
  /** Allocate `bytes` of device memory, e.g. `ctx.alloc(4 * n)`. */
  alloc(bytes: number): DeviceBuffer;
  /** Copy host -> device (blocking), e.g. `ctx.write(buf, new Float32Array(n))`; throws if data.byteLength > buf.bytes. */
  write(buf: DeviceBuffer, data: ArrayBufferView): void;
  /** Copy device -> host (blocking), e.g. `ctx.read(buf, out)`; throws if data.byteLength > buf.bytes. */
  read(buf: DeviceBuffer, data: ArrayBufferView): void;
  /**
   * Launch kernel `name` of `program` and wait for it. `groups` = work-groups per axis (CUDA's
   * grid), `local` = work-items per group (block); OpenCL's global size is groups[i]*local[i].
   * 1-3 axes; empty arrays mean one work-item. Returns the elapsed nanoseconds (monotonic clock
   * around launch and finish). Throws with the API's error name (CL_INVALID_WORK_GROUP_SIZE,
   * CUDA_ERROR_LAUNCH_FAILED, ...) and the kernel name; checks the argument count.
   *
   * @example ctx.launch(p, "vadd", [a, b, c, { kind: "int32", value: n }], [n / 64], [64])
   */
  launch(program: DeviceProgram, name: string, args: readonly DeviceArg[], groups: readonly number[], local: readonly number[]): number;
  /** Release the context and every buffer and program made from it; later use throws. */
  release(): void;
}

/** A runtime's devices, or why it has none: `{ available: false, reason: "libcuda.so.1 not found (no NVIDIA driver)", devices: [] }`. */
export interface DeviceRuntimeStatus {
  readonly available: boolean;
  readonly reason?: string;
  readonly devices: readonly DeviceInfo[];
}

/** What loom_native.node exports (native/src/addon.cc). */
interface Addon {
  loadLibrary(path: string): NativeLibrary;
  openclStatus(): DeviceRuntimeStatus;
  openclContext(deviceIndex: number): DeviceContext;
  cudaStatus(): DeviceRuntimeStatus;
  cudaContext(deviceIndex: number): DeviceContext;
}

const ADDON_PATH = ["native", "build", "Release", "loom_native.node"];

/** The package root: the nearest directory above this file with a package.json. */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function firstLine(file: string): string {
  try {
    return readFileSync(file, "utf8").split("\n")[0] ?? "";
  } catch {
    return "";
  }
}

let loaded: { readonly addon?: Addon; readonly status: NativeStatus } | undefined;

function load(): { readonly addon?: Addon; readonly status: NativeStatus } {
  if (loaded) return loaded;
  const root = packageRoot();
  const path = process.env["LOOM_NATIVE_ADDON"] || (root === undefined ? undefined : join(root, ...ADDON_PATH));
  const rebuild = "run `npm run build:native` (needs a C++ compiler, make and python3)";
  if (path === undefined) {
    loaded = { status: { loaded: false, reason: `no package.json above ${fileURLToPath(import.meta.url)}; set LOOM_NATIVE_ADDON` } };
  } else if (!existsSync(path)) {
    const log = root === undefined ? undefined : join(root, "native", "build", "build-error.log");
    const reason = log !== undefined && existsSync(log)
      ? `native addon not built: ${firstLine(log)} (see ${log}); then run \`npm run build:native\``
      : `native addon not built: ${path} does not exist; ${rebuild}`;
    loaded = { status: { loaded: false, path, reason } };
  } else {
    try {
      const addon = createRequire(import.meta.url)(path) as Addon;
      loaded = { addon, status: { loaded: true, path } };
    } catch (e) {
      loaded = { status: { loaded: false, path, reason: `native addon ${path} failed to load: ${(e as Error).message}; ${rebuild}` } };
    }
  }
  return loaded;
}

function addon(fn: string): Addon {
  const { addon: a, status } = load();
  if (!a) throw new Error(`${fn}: the native addon is not loaded: ${status.reason}`);
  return a;
}

/**
 * Whether the addon binary loaded, and from where (never throws).
 *
 * @example if (!nativeStatus().loaded) console.warn(nativeStatus().reason)
 */
export function nativeStatus(): NativeStatus {
  return load().status;
}

/**
 * dlopen(path, RTLD_NOW | RTLD_LOCAL); throws an Error with dlerror()'s text. A path with a slash
 * is resolved against the working directory; a bare name goes to the loader's search path.
 *
 * @example const lib = loadLibrary("/tmp/kernels.so"); lib.call("k", [a], ["ptr"]); lib.close()
 */
export function loadLibrary(path: string): NativeLibrary {
  return addon("loadLibrary").loadLibrary(path.includes("/") ? resolve(path) : path);
}

function runtimeStatus(fn: "openclStatus" | "cudaStatus"): DeviceRuntimeStatus {
  const { addon: a, status } = load();
  if (!a) return { available: false, reason: `native addon not loaded: ${status.reason}`, devices: [] };
  try {
    return a[fn]();
  } catch (e) {
    return { available: false, reason: (e as Error).message, devices: [] };
  }
}

/**
 * The OpenCL devices (every platform, in order), or why there are none (never throws).
 *
 * @example openclStatus() // { available: true, devices: [{ platform: "Portable Computing Language", type: "CPU", ... }] }
 */
export function openclStatus(): DeviceRuntimeStatus {
  return runtimeStatus("openclStatus");
}

/**
 * One OpenCL context and in-order queue on device `deviceIndex` of openclStatus().devices;
 * throws if OpenCL is unavailable.
 *
 * @example const ctx = openclContext(); try { ... } finally { ctx.release() }
 */
export function openclContext(deviceIndex = 0): DeviceContext {
  return addon("openclContext").openclContext(deviceIndex);
}

/**
 * The CUDA devices, or why there are none ("libcuda.so.1 not found (no NVIDIA driver)",
 * "libnvrtc not found ...", "no CUDA device"); never throws.
 *
 * @example if (cudaStatus().available) runOnGpu()
 */
export function cudaStatus(): DeviceRuntimeStatus {
  return runtimeStatus("cudaStatus");
}

/**
 * A CUDA context (the device's primary context) on device `deviceIndex`. `build` compiles with
 * NVRTC, adding --gpu-architecture=compute_XY for the device unless the options name one (an
 * sm_XY architecture loads a CUBIN instead of PTX); throws if CUDA is unavailable.
 *
 * @example const ctx = cudaContext(); const p = ctx.build(src, ["-default-device"])
 */
export function cudaContext(deviceIndex = 0): DeviceContext {
  return addon("cudaContext").cudaContext(deviceIndex);
}
