/**
 * The WebGPU device of the webgpu backend: Dawn for Node (the optional npm package `webgpu`),
 * loaded on first use so that Loom loads without it. On a machine without a GPU, Dawn runs
 * compute shaders on the CPU through SwiftShader's Vulkan driver, which Debian's chromium package
 * ships; the Vulkan loader (libvulkan1) finds it through VK_ICD_FILENAMES, which is set here when
 * the user has not set it and no other Vulkan driver is installed.
 *
 * Only the few WebGPU calls the backend makes are typed here (structurally), so that Loom's types
 * do not depend on the optional package.
 */
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { isMainThread } from "node:worker_threads";
import { BackendUnavailableError } from "../errors.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- the WebGPU descriptors are plain objects checked by Dawn. */
export interface GpuBuffer {
  readonly size: number;
  mapAsync(mode: number): Promise<void>;
  getMappedRange(): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}
export interface GpuComputePass {
  setPipeline(p: unknown): void;
  setBindGroup(index: number, g: unknown): void;
  dispatchWorkgroups(x: number, y?: number, z?: number): void;
  end(): void;
}
export interface GpuCommandEncoder {
  beginComputePass(): GpuComputePass;
  copyBufferToBuffer(src: GpuBuffer, srcOffset: number, dst: GpuBuffer, dstOffset: number, size: number): void;
  finish(): unknown;
}
export interface GpuCompilationMessage {
  readonly type: string;
  readonly message: string;
  readonly lineNum: number;
  readonly linePos: number;
}
export interface GpuShaderModule {
  getCompilationInfo(): Promise<{ readonly messages: readonly GpuCompilationMessage[] }>;
}
export interface GpuDevice {
  readonly limits: Readonly<Record<string, number>>;
  readonly queue: {
    writeBuffer(b: GpuBuffer, offset: number, data: ArrayBufferView | ArrayBuffer): void;
    submit(commands: readonly unknown[]): void;
    onSubmittedWorkDone(): Promise<void>;
  };
  readonly lost: Promise<{ readonly message: string }>;
  createBuffer(d: { size: number; usage: number; mappedAtCreation?: boolean }): GpuBuffer;
  createShaderModule(d: { code: string }): GpuShaderModule;
  createComputePipeline(d: any): unknown;
  createBindGroupLayout(d: any): unknown;
  createPipelineLayout(d: any): unknown;
  createBindGroup(d: any): unknown;
  createCommandEncoder(): GpuCommandEncoder;
  pushErrorScope(filter: "validation" | "out-of-memory" | "internal"): void;
  popErrorScope(): Promise<{ readonly message: string } | null>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The device and the usage flags of Dawn's globals (`GPUBufferUsage`, `GPUMapMode`, `GPUShaderStage`). */
export interface WebgpuContext {
  /** Dawn's GPU object (`navigator.gpu`), held for the device's lifetime. */
  readonly gpu: unknown;
  readonly device: GpuDevice;
  readonly adapter: string;
  readonly usage: Readonly<Record<"STORAGE" | "UNIFORM" | "COPY_SRC" | "COPY_DST" | "MAP_READ", number>>;
  readonly mapRead: number;
  readonly computeStage: number;
}

/** SwiftShader's Vulkan driver as Debian's chromium package installs it. */
export const SWIFTSHADER_ICD = "/usr/lib/chromium/vk_swiftshader_icd.json";
const ICD_DIRS = ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"];
/** Where Linux distributions install the Vulkan loader. */
const VULKAN_LOADERS = ["/usr/lib/x86_64-linux-gnu/libvulkan.so.1", "/usr/lib/aarch64-linux-gnu/libvulkan.so.1", "/usr/lib64/libvulkan.so.1", "/usr/lib/libvulkan.so.1"];

/** How to make the backend available, said in every refusal. */
export const WEBGPU_INSTALL = "the webgpu backend needs Dawn for Node (npm install webgpu), the Vulkan loader and a Vulkan driver: " +
  "on a machine without a GPU, SwiftShader from Debian's chromium package (apt-get install --no-install-recommends libvulkan1 chromium); " +
  `Loom sets VK_ICD_FILENAMES=${SWIFTSHADER_ICD} when it is unset and no other Vulkan driver is installed`;

/** Whether a Vulkan driver other than SwiftShader is installed where the loader looks by default. */
function systemDriver(): boolean {
  return ICD_DIRS.some((d) => {
    try {
      return readdirSync(d).some((f) => f.endsWith(".json"));
    } catch {
      return false;
    }
  });
}

/**
 * Point the Vulkan loader at SwiftShader, unless the user chose a driver or the system has one.
 * Returns a note for a refusal where this cannot work: a worker thread's `process.env` is its own
 * copy, which native code (the Vulkan loader) never sees.
 */
function chooseDriver(): string {
  if (process.env.VK_ICD_FILENAMES === undefined && process.env.VK_DRIVER_FILES === undefined && !systemDriver() && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    if (!isMainThread) return ` (Loom runs in a worker thread here, whose environment does not reach the Vulkan loader: set VK_ICD_FILENAMES=${SWIFTSHADER_ICD} before node starts)`;
  }
  return "";
}

interface DawnModule {
  create(options: string[]): { requestAdapter(): Promise<DawnAdapter | null> };
  globals: Record<string, Record<string, number>>;
}
interface DawnAdapter {
  readonly info?: { readonly description?: string; readonly vendor?: string };
  readonly limits: Readonly<Record<string, number>>;
  requestDevice(d: { requiredLimits: Record<string, number> }): Promise<GpuDevice>;
}

/** The limits a run may need beyond WebGPU's defaults, asked of the adapter up to what it offers. */
const WANTED_LIMITS = [
  "maxStorageBuffersPerShaderStage", "maxComputeWorkgroupStorageSize", "maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSizeX",
  "maxComputeWorkgroupSizeY", "maxComputeWorkgroupSizeZ", "maxStorageBufferBindingSize", "maxBufferSize", "maxComputeWorkgroupsPerDimension",
];

let opening: Promise<WebgpuContext> | undefined;

async function open(): Promise<WebgpuContext> {
  const note = chooseDriver();
  let dawn: DawnModule;
  try {
    // A name in a variable: the optional package is resolved at run time only.
    const name = "webgpu";
    dawn = (await import(name)) as DawnModule;
  } catch (e) {
    throw new BackendUnavailableError(`the npm package "webgpu" cannot be loaded (${(e as Error).message.split("\n")[0]}); ${WEBGPU_INSTALL}`);
  }
  // The GPU object owns Dawn's instance: collected, it frees the instance under the live device
  // (a crash in Dawn's event processing), so the context keeps it.
  const gpu = dawn.create([]);
  const adapter = await gpu.requestAdapter();
  if (!adapter) {
    const loader = VULKAN_LOADERS.some((p) => existsSync(p));
    const why = !loader ? "the Vulkan loader libvulkan.so.1 is not installed" : `no Vulkan driver answered (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? "unset"})`;
    throw new BackendUnavailableError(`Dawn found no WebGPU adapter: ${why}${note}; ${WEBGPU_INSTALL}`);
  }
  const requiredLimits: Record<string, number> = {};
  for (const l of WANTED_LIMITS) if (typeof adapter.limits[l] === "number") requiredLimits[l] = adapter.limits[l]!;
  const device = await adapter.requestDevice({ requiredLimits });
  // A lost device (a crash of the driver) is opened anew by the next run.
  void device.lost.then(() => {
    opening = undefined;
  });
  const g = dawn.globals;
  return {
    gpu, device,
    adapter: adapter.info?.description || adapter.info?.vendor || "WebGPU adapter",
    usage: g.GPUBufferUsage as WebgpuContext["usage"],
    mapRead: g.GPUMapMode!.READ!,
    computeStage: g.GPUShaderStage!.COMPUTE!,
  };
}

/** The WebGPU device, opened once; a BackendUnavailableError saying what to install where there is none. */
export function webgpuContext(): Promise<WebgpuContext> {
  if (!opening) {
    opening = open();
    opening.catch(() => {
      opening = undefined;
    });
  }
  return opening;
}

/**
 * What can be known without opening a device (synchronously, never throwing): whether Dawn's
 * package resolves and, on Linux, whether the Vulkan loader and a driver are installed. A device
 * may still fail to open: `webgpuAvailability` answers for sure.
 */
export function webgpuAvailabilitySync(): { available: boolean; reason?: string } {
  try {
    createRequire(import.meta.url).resolve("webgpu");
  } catch {
    return { available: false, reason: `the npm package "webgpu" is not installed; ${WEBGPU_INSTALL}` };
  }
  if (process.platform !== "linux") return { available: true };
  if (!VULKAN_LOADERS.some((p) => existsSync(p))) return { available: false, reason: `the Vulkan loader libvulkan.so.1 is not installed; ${WEBGPU_INSTALL}` };
  const icd = process.env.VK_ICD_FILENAMES ?? process.env.VK_DRIVER_FILES;
  if (icd === undefined ? !systemDriver() && !existsSync(SWIFTSHADER_ICD) : !icd.split(":").some((f) => existsSync(f))) {
    return { available: false, reason: `no Vulkan driver is installed${icd === undefined ? "" : ` (VK_ICD_FILENAMES=${icd})`}; ${WEBGPU_INSTALL}` };
  }
  return { available: true };
}

/** Whether the webgpu backend runs here, and if not why (never throws). */
export async function webgpuAvailability(): Promise<{ available: boolean; reason?: string }> {
  try {
    await webgpuContext();
    return { available: true };
  } catch (e) {
    return { available: false, reason: (e as Error).message };
  }
}
