/**
 * `run` and the registry of execution backends. Only the reference interpreter exists in this
 * version; the others are named so that asking for them says they are not built yet.
 */
import { BackendUnavailableError, depthError, ExecutionError } from "../errors.js";
import { allocArray, findTemporary, type Kernel, type TypedArray } from "../ir/index.js";
import { layoutOf, prepareArgs, type ArgValue, type ArrayStorage } from "./args.js";
import { compileKernel, type CompiledKernel } from "./interp.js";
import { runJs } from "./js-backend.js";

export const BACKEND_NAMES = ["interp", "js", "c", "openmp", "opencl", "cuda"] as const;
/** An execution backend: `interp` (the reference, default), `js`, `c`, `openmp`, `opencl`, `cuda`. */
export type BackendName = (typeof BACKEND_NAMES)[number];

export interface RunOptions {
  readonly backend?: BackendName;
}

/** A way of running kernels. */
export interface Backend {
  readonly name: BackendName;
  run(k: Kernel, args: Readonly<Record<string, ArgValue>>): Promise<Record<string, TypedArray>>;
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

const interpBackend: Backend = {
  name: "interp",
  async run(k, args) {
    const prep = prepareArgs(k, args, { temporaries: false });
    const c = compiledFor(k, prep.kernel);
    const storage = c.arrays.map((n) => prep.arrays.get(n) ?? temporaryStorage(c.kernel, n, prep.values));
    c.execute(storage.map((s) => s.data), storage.map((s) => s.extents), storage.map((s) => s.strides), c.values.map((n) => prep.values.get(n)!));
    return Object.fromEntries(prep.written.map((n) => [n, prep.arrays.get(n)!.data]));
  },
};

const BACKENDS: Readonly<Partial<Record<BackendName, Backend>>> = { interp: interpBackend, js: { name: "js", run: runJs } };

/** The backend called `name`, or a BackendUnavailableError saying why there is none. `getBackend("interp").name === "interp"` */
export function getBackend(name: string): Backend {
  if (!(BACKEND_NAMES as readonly string[]).includes(name)) {
    throw new BackendUnavailableError(`unknown backend "${name}"; backends are ${BACKEND_NAMES.join(", ")}`);
  }
  const b = BACKENDS[name as BackendName];
  if (!b) {
    const ready = Object.keys(BACKENDS).join(", ");
    throw new BackendUnavailableError(`the "${name}" backend is not built yet in this version of Loom; available: ${ready}`);
  }
  return b;
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
  const backend = getBackend(opts.backend ?? "interp");
  // Compilation and execution are synchronous inside the backend; a stack overflow from a
  // pathologically deep expression becomes a LoomError like every other user-caused failure.
  try {
    return await backend.run(k, args);
  } catch (e) {
    throw depthError("run", e);
  }
}
