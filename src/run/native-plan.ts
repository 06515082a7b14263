/**
 * What every native backend does before it launches anything: the run's code and schedule (made
 * once per kernel and argument dtypes), storage for its arrays, the proofs that every access stays
 * inside its array and the index arithmetic within int32, and the launch sizes and scalars.
 */
import { nativeStatus, type NativeLibrary, type ScalarKind } from "../../native/index.js";
import { generateCodeAndSchedule, type GeneratedCode } from "../../codegen/index.js";
import type { IntTrapTable } from "../../codegen/types.js";
import type { LoweredKernel } from "../../codegen/lower.js";
import { BackendUnavailableError, CodegenError, ExecutionError } from "../errors.js";
import { findArg, findTemporary, INDEX_DTYPE, type Dtype, type Kernel, type TypedArray } from "../ir/index.js";
import type { DeviceKernel, Schedule } from "../schedule/index.js";
import { allocStorage, evalSizeExpr, layoutOf, type ArrayStorage, type PreparedRun } from "./args.js";
import { checkBounds, type ArrayExtents } from "./bounds.js";
import { forEachLaunch } from "./host-program.js";
import { checkIndexRange } from "./index-range.js";
import type { CompilerOptions } from "./native-compile.js";

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

export function scalarKind(name: string, d: Dtype | undefined): ScalarKind {
  const kind = d && SCALAR_KINDS[d];
  if (!kind) throw new ExecutionError(`argument "${name}" has dtype ${d ?? "unknown"}, which the native backends cannot pass (accepted: ${Object.keys(SCALAR_KINDS).join(", ")})`);
  return kind;
}

export function requireAddon(backend: string): void {
  const st = nativeStatus();
  if (!st.loaded) {
    throw new BackendUnavailableError(`the "${backend}" backend needs Loom's native addon, which is not loaded: ${st.reason ?? "unknown reason"}. ` +
      "Build it with `npm run build:native` (needs python3, make and a C++ compiler: apt-get install build-essential python3)");
  }
}

export interface Plan {
  /** Libraries built from this plan's C code and loaded, per compiler options (c/openmp). */
  readonly objects: Map<string, Promise<NativeLibrary>>;
  readonly code: GeneratedCode;
  readonly schedule: Schedule;
  readonly kernels: readonly { readonly info: GeneratedCode["kernels"][number]; readonly dk: DeviceKernel; readonly lowered: LoweredKernel }[];
}

const plans = new WeakMap<Kernel, Map<string, Plan>>();

/** Code and schedule of `typed` for `target`, made once per kernel object and argument dtypes. */
export function planFor(original: Kernel, typed: Kernel, target: "c" | "openmp" | "opencl" | "cuda" | "cucl"): Plan {
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
export function storageFor(plan: Plan, prep: PreparedRun): Map<string, ArrayStorage> {
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
export function proveBounds(plan: Plan, prep: PreparedRun, storage: ReadonlyMap<string, ArrayStorage>, opts: NativeRunOptions): void {
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
    arrays.set(a.name, { extents: layout?.extents, size: s.data.length, data: s.data });
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
export function proveIndexRange(plan: Plan, prep: PreparedRun): void {
  const params = paramsOf(prep);
  forEachLaunch(plan.schedule, params, (x, host) => {
    const { info, lowered } = plan.kernels[x]!;
    checkIndexRange(lowered, new Map([...params, ...host]), info.name);
  });
}

/** Work-groups and work-items of a device kernel for this run's parameters. */
export function launchSizes(dk: DeviceKernel, params: ReadonlyMap<string, number>): { groups: number[]; local: number[] } {
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
export function paramsOf(prep: PreparedRun): Map<string, number> {
  return new Map([...prep.values].map(([n, x]) => [n, Number(x)]));
}

/** A scalar a device kernel takes: a value argument, or the iname of a host loop around its launch (an index). */
export function valueOf(prep: PreparedRun, host: ReadonlyMap<string, number>, name: string): { kind: ScalarKind; value: number | bigint } | undefined {
  const h = host.get(name);
  if (h !== undefined) return { kind: scalarKind(name, INDEX_DTYPE), value: h };
  const v = prep.values.get(name);
  return v === undefined ? undefined : { kind: scalarKind(name, findArg(prep.kernel, name)?.dtype), value: v };
}

export function outputsOf(prep: PreparedRun): Record<string, TypedArray> {
  return Object.fromEntries(prep.written.map((n) => [n, prep.arrays.get(n)!.data]));
}

/** The integer traps of the plan's code (codegen/targets/int-traps.ts), where it has any. */
export function trapsOf(plan: Plan): IntTrapTable | undefined {
  return plan.code.intTraps;
}
