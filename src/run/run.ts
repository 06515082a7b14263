/**
 * `run` and the registry of execution backends: the reference interpreter, the in-process
 * JavaScript backend, and the native ones (C and OpenMP through compiled shared objects, OpenCL,
 * CUDA), which report BackendUnavailableError saying what to install where they cannot run.
 */
import { performance } from "node:perf_hooks";
import { BackendUnavailableError, checkOptionNames, closestName, depthError, ExecutionError, shown } from "../errors.js";
import { checkKernelArg, findTemporary, type Kernel, type TypedArray } from "../ir/index.js";
import { allocStorage, layoutOf, prepareArgs, type ArgValue, type ArrayStorage } from "./args.js";
import { compileKernel, type CompiledKernel } from "./interp.js";
import { runJs } from "./js-backend.js";
import { nativeBackends, type BackendResult, type NativeRunOptions } from "./native.js";
import { runWebgpu } from "./webgpu.js";

export const BACKEND_NAMES = ["interp", "js", "c", "openmp", "opencl", "cuda", "webgpu"] as const;
/** An execution backend: `interp` (the reference, default), `js`, `c`, `openmp`, `opencl`, `cuda`, `webgpu`. */
export type BackendName = (typeof BACKEND_NAMES)[number];

export interface RunOptions extends NativeRunOptions {
  readonly backend?: BackendName;
}

const RUN_OPTIONS: Readonly<Record<keyof RunOptions, true>> = { backend: true, checkBounds: true, cc: true, flags: true, libs: true };

/**
 * What a caller from JavaScript may pass wrong, refused before anything runs: a first argument
 * that is no kernel, arguments that are no plain object, an unknown option (with the closest
 * name suggested) or an option of the wrong type.
 */
function checkRunCall(k: unknown, args: unknown, opts: unknown): RunOptions {
  checkKernelArg(k, "run", (m) => new ExecutionError(m));
  const proto = args !== null && typeof args === "object" ? Object.getPrototypeOf(args) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw new ExecutionError(`run: the arguments of kernel "${k.name}" must be an object of values by name, e.g. { a: new Float32Array(8), n: 8 }; ` +
      `got ${args === null ? "null" : Array.isArray(args) ? "an array" : ArrayBuffer.isView(args) ? "a typed array" : shown(args)}`);
  }
  const o = checkOptionNames(opts as RunOptions | null | undefined, "run", RUN_OPTIONS, (m) => new ExecutionError(m));
  const bad = (name: string, want: string, got: unknown) =>
    new ExecutionError(`run: the option ${name} must be ${want}; got ${shown(got)}`);
  if (o.checkBounds !== undefined && typeof o.checkBounds !== "boolean") throw bad("checkBounds", "true or false", o.checkBounds);
  if (o.cc !== undefined && (typeof o.cc !== "string" || o.cc === "")) throw bad("cc", "the compiler's name or path, e.g. \"gcc\"", o.cc);
  for (const name of ["flags", "libs"] as const) {
    const v: unknown = o[name];
    if (v !== undefined && !(Array.isArray(v) && v.every((f) => typeof f === "string"))) throw bad(name, "an array of strings, e.g. [\"-O2\"]", v);
  }
  return o;
}

export type { BackendResult } from "./native.js";

/** A way of running kernels. */
export interface Backend {
  readonly name: BackendName;
  run(k: Kernel, args: Readonly<Record<string, ArgValue>>, opts?: RunOptions): Promise<Record<string, TypedArray>>;
  /** The run, with the time of each device kernel (native backends: measured in native code). */
  execute(k: Kernel, args: Readonly<Record<string, ArgValue>>, opts?: RunOptions): Promise<BackendResult>;
}

// Compiled kernels per kernel object and argument dtypes: a kernel is compiled once per signature.
const compiled = new WeakMap<Kernel, Map<string, CompiledKernel>>();

function compiledFor(original: Kernel, typed: Kernel): CompiledKernel {
  const key = JSON.stringify([typed.args.map((a) => a.dtype ?? "?"), typed.temporaries.map((t) => t.dtype ?? "?")]);
  let perKernel = compiled.get(original);
  if (!perKernel) {
    perKernel = new Map();
    compiled.set(original, perKernel);
  }
  let c = perKernel.get(key);
  if (!c) {
    c = compileKernel(typed);
    perKernel.set(key, c);
  }
  return c;
}

/**
 * Storage of a temporary of the scheduled kernel `k`: preprocessing may add temporaries or change
 * their shapes (ilp privatization adds an axis), so none comes from the kernel the user passed.
 */
function temporaryStorage(k: Kernel, name: string, values: ReadonlyMap<string, number | bigint>): ArrayStorage {
  const t = findTemporary(k, name);
  if (!t?.dtype) throw new ExecutionError(`the scheduled kernel "${k.name}" uses "${name}", which has no storage or dtype`);
  const layout = layoutOf(t, new Map([...values].map(([n, x]) => [n, Number(x)])))!;
  return { ...layout, data: allocStorage(t.dtype, layout.size, `temporary "${name}"`) };
}

/** A backend from its execute function. */
function backend(name: BackendName, execute: Backend["execute"]): Backend {
  return { name, execute, run: async (k, args, opts) => (await execute(k, args, opts)).outputs };
}

/** Time a synchronous in-process execution (interp, js): the whole call, in milliseconds. */
async function timed(f: () => Promise<Record<string, TypedArray>>): Promise<BackendResult> {
  const t0 = performance.now();
  const outputs = await f();
  return { outputs, kernelMs: [performance.now() - t0] };
}

const interpBackend = backend("interp", (k, args) => timed(async () => {
  const prep = prepareArgs(k, args, { temporaries: false });
  const c = compiledFor(k, prep.kernel);
  const storage = c.arrays.map((n) => prep.arrays.get(n) ?? temporaryStorage(c.kernel, n, prep.values));
  c.execute(storage.map((s) => s.data), storage.map((s) => s.extents), storage.map((s) => s.strides), c.values.map((n) => prep.values.get(n)!));
  return Object.fromEntries(prep.written.map((n) => [n, prep.arrays.get(n)!.data]));
}));

const BACKENDS: Readonly<Record<BackendName, Backend>> = {
  interp: interpBackend,
  js: backend("js", (k, args) => timed(() => runJs(k, args))),
  c: backend("c", (k, args, opts = {}) => nativeBackends.c(k, args, opts)),
  openmp: backend("openmp", (k, args, opts = {}) => nativeBackends.openmp(k, args, opts)),
  opencl: backend("opencl", (k, args, opts = {}) => nativeBackends.opencl(k, args, opts)),
  cuda: backend("cuda", (k, args, opts = {}) => nativeBackends.cuda(k, args, opts)),
  webgpu: backend("webgpu", (k, args, opts = {}) => runWebgpu(k, args, opts)),
};

/** The backend called `name`, or a BackendUnavailableError saying why there is none. `getBackend("interp").name === "interp"` */
export function getBackend(name: string): Backend {
  if (!(BACKEND_NAMES as readonly string[]).includes(name)) {
    const near = typeof name === "string" ? closestName(name, BACKEND_NAMES) : undefined;
    throw new BackendUnavailableError(`unknown backend ${shown(name)}${near ? ` (did you mean "${near}"?)` : ""}; backends are ${BACKEND_NAMES.join(", ")}`);
  }
  return BACKENDS[name as BackendName];
}

/**
 * Run `k` on `args` and return every array it writes. Outputs not passed are allocated from
 * their shape and dtype; arrays passed are never changed (written ones are copied first).
 *
 *   const { out } = await run(makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]"), { a, n: a.length });
 */
export async function run(
  k: Kernel,
  args: Readonly<Record<string, ArgValue>>,
  opts: RunOptions = {},
): Promise<Record<string, TypedArray>> {
  return (await runTimed(k, args, opts)).outputs;
}

/**
 * `run`, with the time of each device kernel in milliseconds (for tuning): on the native backends
 * measured in native code around each launch only (no compilation, no copies); on interp and js
 * the whole execution.
 *
 *   const { outputs, kernelMs } = await runTimed(k, { a, n }, { backend: "openmp" });
 */
export async function runTimed(
  k: Kernel,
  args: Readonly<Record<string, ArgValue>>,
  opts: RunOptions = {},
): Promise<BackendResult> {
  const o = checkRunCall(k, args, opts);
  const b = getBackend(o.backend ?? "interp");
  // Compilation and execution are synchronous inside the backend; a stack overflow from a
  // pathologically deep expression becomes a LoomError like every other user-caused failure.
  try {
    return await b.execute(k, args, o);
  } catch (e) {
    throw depthError("run", e);
  }
}
