/**
 * The webgpu execution backend: the wgsl target's module compiled by Dawn (src/run/webgpu-device.ts),
 * one storage buffer per array, each device kernel of the schedule's host program dispatched in
 * order with its value arguments in a uniform buffer, the written arrays read back.
 *
 * As on the native backends, every run checks its arguments, proves its accesses inside their
 * arrays (bounds.ts) and its index arithmetic inside int32 (index-range.ts) before anything runs;
 * an operation the interpreter stops at (an integer division by zero, a shift count outside
 * 0..31) is caught by the generated code and reported as the same ExecutionError.
 */
import { performance } from "node:perf_hooks";
import { generateCodeAndSchedule } from "../../codegen/index.js";
import type { LoweredKernel } from "../../codegen/lower.js";
import { trapMessage, type WgslCode } from "../../codegen/targets/wgsl.js";
import { CodegenError, ExecutionError, InternalError } from "../errors.js";
import { findArg, findTemporary, type Kernel, type TypedArray } from "../ir/index.js";
import type { DeviceKernel, Schedule } from "../schedule/index.js";
import { allocStorage, evalSizeExpr, layoutOf, prepareArgs, showBytes, type ArgValue, type ArrayStorage, type PreparedRun } from "./args.js";
import { checkBounds, type ArrayExtents } from "./bounds.js";
import { forEachLaunch } from "./host-program.js";
import { checkIndexRange } from "./index-range.js";
import type { BackendResult, NativeRunOptions } from "./native.js";
import { webgpuContext, type GpuBuffer, type GpuShaderModule, type WebgpuContext } from "./webgpu-device.js";

interface Plan {
  readonly code: WgslCode;
  readonly schedule: Schedule;
  readonly lowered: readonly LoweredKernel[];
}

const plans = new WeakMap<Kernel, Map<string, Plan>>();

/** The wgsl code of `typed`, made once per kernel object and argument dtypes. */
function planFor(original: Kernel, typed: Kernel): Plan {
  const key = JSON.stringify([typed.args.map((a) => a.dtype ?? "?"), typed.temporaries.map((t) => t.dtype ?? "?")]);
  let perKernel = plans.get(original);
  if (!perKernel) plans.set(original, (perKernel = new Map()));
  let p = perKernel.get(key);
  if (!p) {
    const { code, schedule, lowered } = generateCodeAndSchedule(typed, "wgsl");
    if (!("wgsl" in code)) throw new InternalError("the wgsl target returned no binding layout");
    p = { code: code as WgslCode, schedule, lowered };
    perKernel.set(key, p);
  }
  return p;
}

/** The caller's arrays and fresh storage for global temporaries, by user name, as the layout lists them. */
function storageOf(plan: Plan, prep: PreparedRun, params: ReadonlyMap<string, number>): Map<string, ArrayStorage> {
  const out = new Map<string, ArrayStorage>();
  for (const { name } of plan.code.wgsl.arrays) {
    const given = prep.arrays.get(name);
    if (given && findArg(prep.kernel, name)) {
      out.set(name, given);
      continue;
    }
    const t = findTemporary(plan.schedule.kernel, name);
    const layout = t?.dtype ? layoutOf(t, params) : undefined;
    if (!t?.dtype || !layout) throw new ExecutionError(`webgpu: the generated code takes "${name}", which has no storage, dtype or shape`);
    out.set(name, { ...layout, data: allocStorage(t.dtype, layout.size, `the global temporary "${name}"`) });
  }
  return out;
}

/** Prove the scheduled kernel's accesses inside this run's arrays (unless the caller turned it off). */
function proveBounds(plan: Plan, prep: PreparedRun, storage: ReadonlyMap<string, ArrayStorage>, params: ReadonlyMap<string, number>, opts: NativeRunOptions): void {
  if (opts.checkBounds === false) return;
  const k = plan.schedule.kernel;
  const arrays = new Map<string, ArrayExtents>();
  for (const a of [...k.args, ...k.temporaries]) {
    if ("kind" in a && a.kind !== "array") continue;
    const layout = layoutOf(a as Parameters<typeof layoutOf>[0], params);
    const s = storage.get(a.name) ?? prep.arrays.get(a.name);
    if (layout || s) arrays.set(a.name, { extents: layout?.extents, size: s?.data.length ?? layout!.size, ...("kind" in a && s ? { data: s.data } : {}) });
  }
  checkBounds(k, prep.values, arrays);
}

/** Work-groups and work-items along each axis of a device kernel for this run. */
function launchSizes(dk: DeviceKernel, params: ReadonlyMap<string, number>): { groups: number[]; local: number[] } {
  const sizes = (axes: DeviceKernel["groupAxes"], what: string) => {
    const out = [1, 1, 1];
    for (const a of axes) out[a.axis] = Math.max(0, evalSizeExpr(a.size, params, `the ${what} size of axis ${a.axis} (iname ${a.iname}) of kernel "${dk.name}"`));
    return out;
  };
  return { groups: sizes(dk.groupAxes, "group"), local: sizes(dk.localAxes, "local") };
}

/** Refuse launches beyond the device's limits, naming the limit. */
function checkLimits(ctx: WebgpuContext, name: string, groups: readonly number[], local: readonly number[]): void {
  const l = ctx.device.limits;
  const fail = (what: string, limit: string) => {
    throw new ExecutionError(`webgpu: kernel "${name}" needs ${what}, more than the device ${ctx.adapter} allows (${limit}); split the axes differently`);
  };
  const perDim = l.maxComputeWorkgroupsPerDimension ?? 65535;
  groups.forEach((g, a) => g > perDim && fail(`${g} work-groups along axis ${a}`, `maxComputeWorkgroupsPerDimension ${perDim}`));
  ["X", "Y", "Z"].forEach((d, a) => local[a]! > (l[`maxComputeWorkgroupSize${d}`] ?? 0) && fail(`${local[a]} work-items along axis ${a}`, `maxComputeWorkgroupSize${d} ${l[`maxComputeWorkgroupSize${d}`]}`));
  const n = local.reduce((a, b) => a * b, 1);
  if (n > (l.maxComputeInvocationsPerWorkgroup ?? 256)) fail(`${n} work-items per group`, `maxComputeInvocationsPerWorkgroup ${l.maxComputeInvocationsPerWorkgroup}`);
}

// ---- modules and pipelines, per device --------------------------------------------------------------

interface Compiled {
  readonly module: GpuShaderModule;
  readonly pipelines: Map<string, { pipeline: unknown; layout: unknown }>;
}
const compiled = new WeakMap<WebgpuContext, Map<string, Compiled>>();
const MAX_MODULES = 128;

async function scoped<T>(ctx: WebgpuContext, what: string, f: () => T): Promise<T> {
  ctx.device.pushErrorScope("validation");
  const out = f();
  const err = await ctx.device.popErrorScope();
  if (err) throw new CodegenError(`webgpu: Dawn rejected ${what}:\n${err.message}`);
  return out;
}

async function moduleFor(ctx: WebgpuContext, code: string, kernelName: string): Promise<Compiled> {
  let perDevice = compiled.get(ctx);
  if (!perDevice) compiled.set(ctx, (perDevice = new Map()));
  let c = perDevice.get(code);
  if (c) return c;
  const module = await scoped(ctx, `the WGSL code of kernel "${kernelName}"`, () => ctx.device.createShaderModule({ code }));
  const errors = (await module.getCompilationInfo()).messages.filter((m) => m.type === "error");
  if (errors.length > 0) {
    const lines = code.split("\n");
    throw new CodegenError(`webgpu: the WGSL compiler rejected the code of kernel "${kernelName}":\n${errors.map((m) => `${m.lineNum}:${m.linePos}: ${m.message}\n  ${lines[m.lineNum - 1] ?? ""}`).join("\n")}`);
  }
  if (perDevice.size >= MAX_MODULES) perDevice.delete(perDevice.keys().next().value as string);
  perDevice.set(code, (c = { module, pipelines: new Map() }));
  return c;
}

/**
 * Compile WGSL `code` with Dawn (on the webgpu backend's device), or throw the CodegenError with
 * the compiler's messages: for tests and tools that check generated code without running it.
 * `await compileWgsl(generateCode(k, "wgsl").deviceCode, k.name)`.
 */
export async function compileWgsl(code: string, what: string): Promise<void> {
  await moduleFor(await webgpuContext(), code, what);
}

/** The pipeline of entry point `x` of `plan` with its launch-sized work-group axes, and its bind group layout. */
async function pipelineFor(ctx: WebgpuContext, plan: Plan, c: Compiled, x: number, local: readonly number[]): Promise<{ pipeline: unknown; layout: unknown }> {
  const info = plan.code.kernels[x]!;
  const lay = plan.code.wgsl;
  const constants: Record<string, number> = {};
  lay.kernels[x]!.overrides.forEach((o, a) => o && (constants[o] = local[a]!));
  const key = JSON.stringify([x, constants]);
  let p = c.pipelines.get(key);
  if (p) return p;
  const entries: object[] = [];
  for (const a of lay.arrays) {
    if (!info.args.includes(a.name)) continue;
    entries.push({ binding: a.binding, visibility: ctx.computeStage, buffer: { type: a.access === "read" ? "read-only-storage" : "storage" } });
  }
  if (lay.errBinding !== undefined) entries.push({ binding: lay.errBinding, visibility: ctx.computeStage, buffer: { type: "storage" } });
  const most = ctx.device.limits.maxStorageBuffersPerShaderStage ?? 8;
  if (entries.length > most) {
    throw new ExecutionError(`webgpu: kernel "${info.name}" binds ${entries.length} storage buffers (its arrays${lay.errBinding !== undefined ? " and the trap buffer" : ""}), ` +
      `more than the device ${ctx.adapter} allows a shader (maxStorageBuffersPerShaderStage ${most}); split the kernel or run it on another backend`);
  }
  const argsBinding = lay.kernels[x]!.argsBinding;
  if (argsBinding !== undefined) entries.push({ binding: argsBinding, visibility: ctx.computeStage, buffer: { type: "uniform" } });
  p = await scoped(ctx, `the pipeline of kernel "${info.name}"`, () => {
    const layout = ctx.device.createBindGroupLayout({ entries });
    const pipeline = ctx.device.createComputePipeline({
      layout: ctx.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module: c.module, entryPoint: info.name, constants },
    });
    return { pipeline, layout };
  });
  c.pipelines.set(key, p);
  return p;
}

// ---- a run -----------------------------------------------------------------------------------------

/** The value arguments of launch `x` as the bytes of its uniform buffer (4 bytes each, at least 16). */
function argsBytes(plan: Plan, x: number, prep: PreparedRun, host: ReadonlyMap<string, number>): ArrayBuffer {
  const values = plan.code.wgsl.kernels[x]!.values;
  const bytes = new ArrayBuffer(Math.max(16, Math.ceil((4 * values.length) / 16) * 16));
  const view = new DataView(bytes);
  values.forEach(({ name, dtype }, i) => {
    const v = Number(host.get(name) ?? prep.values.get(name));
    if (dtype === "float32") view.setFloat32(4 * i, v, true);
    else if (dtype === "uint32") view.setUint32(4 * i, v >>> 0, true);
    else view.setInt32(4 * i, v | 0, true);
  });
  return bytes;
}

/** Run `k` on the webgpu backend. */
export async function runWebgpu(k: Kernel, args: Readonly<Record<string, ArgValue>>, opts: NativeRunOptions = {}): Promise<BackendResult> {
  const ctx = await webgpuContext();
  const prep = prepareArgs(k, args, { temporaries: false });
  const plan = planFor(k, prep.kernel);
  const params = new Map([...prep.values].map(([n, x]) => [n, Number(x)]));
  const storage = storageOf(plan, prep, params);
  proveBounds(plan, prep, storage, params, opts);
  forEachLaunch(plan.schedule, params, (x, host) => checkIndexRange(plan.lowered[x]!, new Map([...params, ...host]), plan.code.kernels[x]!.name));
  const { device, usage } = ctx;
  const maxBinding = device.limits.maxStorageBufferBindingSize ?? 134217728;
  for (const [name, s] of storage) {
    if (s.data.byteLength > maxBinding) throw new ExecutionError(`webgpu: "${name}" needs ${showBytes(s.data.byteLength)}, more than a storage buffer of ${ctx.adapter} holds (${showBytes(maxBinding)})`);
  }
  const c = await moduleFor(ctx, plan.code.deviceCode, k.name);
  const created: GpuBuffer[] = [];
  const buffer = (size: number, use: number) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(size / 4) * 4), usage: use });
    created.push(b);
    return b;
  };
  const kernelMs: number[] = [];
  try {
    const buffers = new Map<string, GpuBuffer>();
    for (const [name, s] of storage) {
      const b = buffer(s.data.byteLength, usage.STORAGE | usage.COPY_SRC | usage.COPY_DST);
      if (s.data.byteLength > 0) device.queue.writeBuffer(b, 0, s.data);
      buffers.set(name, b);
    }
    const lay = plan.code.wgsl;
    const err = lay.errBinding !== undefined ? buffer(8, usage.STORAGE | usage.COPY_SRC | usage.COPY_DST) : undefined;
    const launches: { x: number; host: ReadonlyMap<string, number> }[] = [];
    forEachLaunch(plan.schedule, params, (x, host) => launches.push({ x, host }));
    for (const { x, host } of launches) {
      const info = plan.code.kernels[x]!;
      const { groups, local } = launchSizes(plan.schedule.deviceKernels[x]!, params);
      if (groups.some((g) => g === 0) || local.some((l) => l === 0)) {
        kernelMs.push(0);
        continue;
      }
      checkLimits(ctx, info.name, groups, local);
      const { pipeline, layout } = await pipelineFor(ctx, plan, c, x, local);
      const entries: object[] = lay.arrays.filter((a) => info.args.includes(a.name)).map((a) => ({ binding: a.binding, resource: { buffer: buffers.get(a.name)! } }));
      if (err) entries.push({ binding: lay.errBinding!, resource: { buffer: err } });
      const argsBinding = lay.kernels[x]!.argsBinding;
      if (argsBinding !== undefined) {
        const bytes = argsBytes(plan, x, prep, host);
        const ub = buffer(bytes.byteLength, usage.UNIFORM | usage.COPY_DST);
        device.queue.writeBuffer(ub, 0, bytes);
        entries.push({ binding: argsBinding, resource: { buffer: ub } });
      }
      const t0 = performance.now();
      await scoped(ctx, `the launch of kernel "${info.name}" (groups ${groups.join("×")}, work-items ${local.join("×")})`, () => {
        const enc = device.createCommandEncoder();
        const pass = enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, device.createBindGroup({ layout, entries }));
        pass.dispatchWorkgroups(groups[0]!, groups[1]!, groups[2]!);
        pass.end();
        device.queue.submit([enc.finish()]);
      });
      await device.queue.onSubmittedWorkDone();
      kernelMs.push(performance.now() - t0);
    }
    // Read back the written arrays (and the trap buffer) through mappable copies.
    const back = [...prep.written.filter((n) => storage.has(n) && storage.get(n)!.data.byteLength > 0).map((n) => [n, buffers.get(n)!] as const),
      ...(err ? [["", err] as const] : [])];
    const enc = device.createCommandEncoder();
    const staging = back.map(([, b]) => {
      const s = buffer(b.size, usage.MAP_READ | usage.COPY_DST);
      enc.copyBufferToBuffer(b, 0, s, 0, b.size);
      return s;
    });
    device.queue.submit([enc.finish()]);
    await Promise.all(staging.map((s) => s.mapAsync(ctx.mapRead)));
    back.forEach(([name], i) => {
      const bytes = new Uint8Array(staging[i]!.getMappedRange());
      if (name === "") {
        const [site, value] = new Uint32Array(bytes.buffer, bytes.byteOffset, 2);
        if (site) throw new ExecutionError(trapMessage(lay.traps[site - 1]!, value! | 0));
        return;
      }
      const data = storage.get(name)!.data;
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(bytes.subarray(0, data.byteLength));
    });
  } finally {
    for (const b of created) b.destroy();
  }
  return { outputs: Object.fromEntries(prep.written.map((n) => [n, prep.arrays.get(n)!.data as TypedArray])), kernelMs };
}
