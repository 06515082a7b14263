/**
 * `run` and the registry of execution backends: the reference interpreter, the in-process
 * JavaScript backend, and the native ones (C and OpenMP through compiled shared objects, OpenCL,
 * CUDA), which report BackendUnavailableError saying what to install where they cannot run.
 */
import { performance } from "node:perf_hooks";
import { BackendUnavailableError, depthError, ExecutionError } from "../errors.js";
import { allocArray, findTemporary, type Kernel, type TypedArray } from "../ir/index.js";
import { layoutOf, prepareArgs, type ArgValue, type ArrayStorage } from "./args.js";
import { compileKernel, type CompiledKernel } from "./interp.js";
import { runJs } from "./js-backend.js";
import { nativeBackends, type BackendResult, type NativeRunOptions } from "./native.js";

export const BACKEND_NAMES = ["interp", "js", "c", "openmp", "opencl", "cuda"] as const;
/** An execution backend: `interp` (the reference, default), `js`, `c`, `openmp`, `opencl`, `cuda`. */
export type BackendName = (typeof BACKEND_NAMES)[number];

export interface RunOptions extends NativeRunOptions {
  readonly backend?: BackendName;
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
  return { ...layout, data: allocArray(t.dtype, layout.size) };
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
};

/** The backend called `name`, or a BackendUnavailableError saying why there is none. `getBackend("interp").name === "interp"` */
export function getBackend(name: string): Backend {
  if (!(BACKEND_NAMES as readonly string[]).includes(name)) {
    throw new BackendUnavailableError(`unknown backend "${name}"; backends are ${BACKEND_NAMES.join(", ")}`);
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
  const b = getBackend(opts.backend ?? "interp");
  // Compilation and execution are synchronous inside the backend; a stack overflow from a
  // pathologically deep expression becomes a LoomError like every other user-caused failure.
  try {
    return await b.execute(k, args, opts);
  } catch (e) {
    throw depthError("run", e);
  }
}
