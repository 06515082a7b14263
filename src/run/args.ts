/**
 * Checking and preparing the arguments of a run: dtypes (declared, or taken from the arrays
 * passed), shapes and strides evaluated with the parameter values, outputs allocated, written
 * arrays copied so that the caller's arrays are never changed.
 */
import { kMaxLength } from "node:buffer";
import { totalmem } from "node:os";
import { ExecutionError } from "../errors.js";
import {
  allocArray, arrayMatchesDtype, axisStrides, dtypesForArray, effectiveDimTags, exprToString,
  integerRange, inferTypes, insnWrites, isIntegral, isWideInt, withKernel,
  type ArrayArg, type Dtype, type Kernel, type KernelArg, type Temporary, type TypedArray,
} from "../ir/index.js";
import { f16round } from "../ir/float16.js";
import { checkAssumptions } from "./assumptions.js";
import { withDerivedArgs } from "./derived-args.js";
import { evalSizeExpr } from "./size-expr.js";

export { evalSizeExpr };

/**
 * An argument value as `run` accepts it: `null` for an array is a NULL pointer (an array with no
 * elements: reading one is an ExecutionError; an OKL kernel may test it, `if (b)`).
 */
export type ArgValue = TypedArray | number | bigint | null;

/** Storage and layout of one array (argument or temporary) for a run. */
export interface ArrayStorage {
  readonly data: TypedArray;
  readonly extents: readonly number[];
  readonly strides: readonly number[];
}

export interface PreparedRun {
  /** The kernel with every dtype known (from the arrays passed, then inference). */
  readonly kernel: Kernel;
  readonly arrays: ReadonlyMap<string, ArrayStorage>;
  readonly values: ReadonlyMap<string, number | bigint>;
  /** Names of the array arguments the kernel writes (the result of the run). */
  readonly written: readonly string[];
}

/** Whether `x` is a typed array (not a DataView). `isTypedArray(new Float32Array(2)) === true` */
export function isTypedArray(x: unknown): x is TypedArray {
  return ArrayBuffer.isView(x) && !(x instanceof DataView);
}

function describeValue(x: unknown): string {
  if (isTypedArray(x)) return `a ${x.constructor.name} of length ${x.length}`;
  return `${typeof x} ${String(x)}`;
}

/** The dtype a scalar passed without a declared dtype takes. */
function scalarDtype(x: number | bigint): Dtype {
  if (typeof x === "bigint") return "int64";
  return Number.isInteger(x) && Math.abs(x) <= 0x7fffffff ? "int32" : Number.isInteger(x) ? "int64" : "float64";
}

/** A scalar in the representation of `d` (BigInt for 64-bit integers). */
function scalarValue(name: string, x: number | bigint, d: Dtype): number | bigint {
  if (isIntegral(d) && typeof x === "number" && !Number.isInteger(x)) {
    throw new ExecutionError(`argument "${name}" is ${d}, so it needs an integer; got ${x}`);
  }
  const range = integerRange(d);
  if (range) {
    const big = BigInt(x);
    if (big < range.lo || big > range.hi) throw new ExecutionError(`argument "${name}" is ${d}; ${x} is outside its range ${range.lo}…${range.hi}`);
  }
  if (isWideInt(d)) return typeof x === "bigint" ? x : BigInt(x);
  // A float value argument is that float on every backend: native code receives it converted, so the
  // interpreter and js round it on entry too (0.1 as float32 is 0.10000000149011612 everywhere).
  if (d === "float32") return Math.fround(Number(x));
  if (d === "float16") return f16round(Number(x));
  return Number(x);
}

/** `n` bytes as a message shows them: `12800000000 bytes (12.8 GB)`. */
export function showBytes(n: number): string {
  return n < 1e6 ? `${n} bytes` : `${n} bytes (${(n / 1e9).toPrecision(3)} GB)`;
}

/** One array a run allocates (or copies): for whom, its dtype, and its number of elements. */
export interface Allocation {
  /** Whom it is for, as messages name it: `output "out"`. */
  readonly what: string;
  readonly dtype: Dtype;
  readonly elements: number;
}

const bytesOf = (a: Allocation) => a.elements * allocArray(a.dtype, 0).BYTES_PER_ELEMENT;

/**
 * Why the arrays `allocs` cannot be allocated together, asked before any is: one has more
 * elements than a JavaScript typed array may hold, or together they need more bytes than
 * `machineBytes` (this machine's memory); undefined when they fit. Allocating them would fail late
 * (a RangeError after minutes of paging) or not at all (the process killed by the system).
 */
export function hostMemoryProblem(allocs: readonly Allocation[], machineBytes = totalmem()): string | undefined {
  for (const a of allocs) {
    if (a.elements > kMaxLength) {
      return `${a.what} needs ${a.elements} ${a.dtype} elements (${showBytes(bytesOf(a))}), more than the ${kMaxLength} elements a JavaScript typed array can hold`;
    }
  }
  const total = allocs.reduce((s, a) => s + bytesOf(a), 0);
  if (total <= machineBytes) return undefined;
  return `the run needs ${showBytes(total)} of memory for ${allocs.map((a) => `${a.what} (${showBytes(bytesOf(a))})`).join(", ")}, ` +
    `more than this machine has (${showBytes(machineBytes)}, os.totalmem())`;
}

/** {@link hostMemoryProblem} as an ExecutionError, before anything is compiled or allocated. */
function checkHostMemory(allocs: readonly Allocation[]): void {
  const problem = hostMemoryProblem(allocs);
  if (problem) throw new ExecutionError(problem);
}

/**
 * A zeroed array of `size` elements of `d` for `what`, or an ExecutionError naming the size
 * and the limit it exceeds. `allocStorage("float32", 8, 'output "out"')` is a Float32Array(8).
 */
export function allocStorage(d: Dtype, size: number, what: string): TypedArray {
  checkHostMemory([{ what, dtype: d, elements: size }]);
  try {
    return allocArray(d, size);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new ExecutionError(`${what} needs ${size} ${d} elements (${showBytes(size * allocArray(d, 0).BYTES_PER_ELEMENT)}), which cannot be allocated here: ${e.message}`);
  }
}

/** Names of the variables the kernel's instructions write: for `out[i] = 2*a[i]`, `{"out"}`. */
export function writtenNames(k: Kernel): Set<string> {
  const out = new Set<string>();
  for (const insn of k.instructions) for (const name of insnWrites(insn)) out.add(name);
  return out;
}

/**
 * Check `args` against `k` and prepare the storage of a run.
 * `prepareArgs(k, { a: new Float32Array(8), n: 8 })` allocates `k`'s outputs and temporaries
 * (not the temporaries with `{temporaries: false}`: the interpreter allocates those of the scheduled
 * kernel, whose shapes preprocessing may have changed).
 */
export function prepareArgs(
  k: Kernel, args0: Readonly<Record<string, ArgValue>>,
  opts: { readonly temporaries?: boolean } = {},
): PreparedRun {
  let args = args0;
  const known = new Set(k.args.map((a) => a.name));
  for (const name of Object.keys(args)) {
    if (!known.has(name)) {
      throw new ExecutionError(`kernel "${k.name}" has no argument "${name}"; its arguments are ${k.args.map((a) => a.name).join(", ") || "(none)"}`);
    }
  }
  const written = writtenNames(k);
  args = withDerivedArgs(k, withInferredParams(k, args));
  const runtimeDtypes = new Map<string, Dtype>();
  const values = new Map<string, number | bigint>();
  for (const a of k.args) {
    const x = args[a.name];
    if (a.kind === "value") {
      if (x === undefined) throw new ExecutionError(`kernel "${k.name}" needs the value argument "${a.name}"${a.dtype ? ` (${a.dtype})` : ""}: pass it as a number`);
      if (typeof x !== "number" && typeof x !== "bigint") {
        throw new ExecutionError(`argument "${a.name}" is a value (${a.dtype ?? "scalar"}); pass a number, not ${describeValue(x)}`);
      }
      const d = a.dtype ?? scalarDtype(x);
      runtimeDtypes.set(a.name, d);
      values.set(a.name, scalarValue(a.name, x, d));
    } else if (x === null) {
      if (!a.dtype) throw new ExecutionError(`argument "${a.name}" is passed as null (a NULL pointer), so its dtype must be declared; declare it or pass a typed array`);
    } else if (x !== undefined) {
      if (!isTypedArray(x)) throw new ExecutionError(`argument "${a.name}" is an array${a.dtype ? ` of ${a.dtype}` : ""}; pass a typed array, not ${describeValue(x)}`);
      if (a.dtype && !arrayMatchesDtype(x, a.dtype)) {
        throw new ExecutionError(`argument "${a.name}" is ${a.dtype}, stored in a ${allocArray(a.dtype, 0).constructor.name}; got a ${x.constructor.name}`);
      }
      // A Uint16Array is uint16 and a Uint8Array uint8 unless declared float16 or bool.
      const ds = dtypesForArray(x);
      if (!a.dtype) runtimeDtypes.set(a.name, ds.find((d) => d !== "float16" && d !== "bool") ?? ds[0]!);
    } else if (!written.has(a.name)) {
      throw new ExecutionError(`kernel "${k.name}" reads the array "${a.name}", which was not passed`);
    }
  }
  checkAssumptions(k, values);
  const typed = inferTypes(withKernel(k, {
    args: k.args.map((a): KernelArg => (a.dtype || !runtimeDtypes.has(a.name) ? a : { ...a, dtype: runtimeDtypes.get(a.name)! })),
  }));

  const params = new Map<string, number>();
  for (const [name, x] of values) params.set(name, Number(x));
  // Every layout first, then one check of what the run allocates, then the allocations.
  const planned: { a: ArrayArg; x: TypedArray | null | undefined; layout: ReturnType<typeof layoutOf> }[] = [];
  const allocs: Allocation[] = [];
  for (const a of typed.args) {
    if (a.kind !== "array") continue;
    const x = args[a.name] as TypedArray | null | undefined;
    const layout = layoutOf(a, params);
    if (x === null) {
      // A NULL pointer: no elements, whatever its shape.
    } else if (x === undefined) {
      if (!a.dtype || !layout) {
        throw new ExecutionError(`output "${a.name}" was not passed and its ${a.dtype ? "shape" : "dtype"} is unknown; pass the array or add ${a.dtype ? "a shape" : "dtypes"}`);
      }
      allocs.push({ what: `output "${a.name}"`, dtype: a.dtype, elements: layout.size });
    } else if (layout && x.length < layout.size) {
      throw new ExecutionError(`argument "${a.name}" needs at least ${layout.size} elements for shape (${layout.extents.join(", ")}), got ${x.length}`);
    } else if (written.has(a.name)) {
      allocs.push({ what: `the copy of "${a.name}"`, dtype: a.dtype!, elements: x.length });
    }
    planned.push({ a, x, layout });
  }
  const temporaries: { t: Temporary; layout: NonNullable<ReturnType<typeof layoutOf>> }[] = [];
  for (const t of typed.temporaries) {
    if (!t.dtype) throw new ExecutionError(`cannot infer the dtype of temporary "${t.name}"; declare it (<float32> ${t.name} = …) or add dtypes to the arguments`);
    if (opts.temporaries === false) continue;
    const layout = layoutOf(t, params)!;
    temporaries.push({ t, layout });
    allocs.push({ what: `temporary "${t.name}"`, dtype: t.dtype, elements: layout.size });
  }
  checkHostMemory(allocs);
  const arrays = new Map<string, ArrayStorage>();
  for (const { a, x, layout } of planned) {
    if (x === null) {
      arrays.set(a.name, { data: allocArray(a.dtype!, 0), extents: (layout?.extents ?? []).map(() => 0), strides: layout?.strides ?? [] });
      continue;
    }
    if (x === undefined) {
      arrays.set(a.name, { ...layout!, data: allocStorage(a.dtype!, layout!.size, `output "${a.name}"`) });
      continue;
    }
    const data = written.has(a.name) ? x.slice() : x;
    arrays.set(a.name, { data, extents: layout?.extents ?? [], strides: layout?.strides ?? [] });
  }
  for (const { t, layout } of temporaries) arrays.set(t.name, { ...layout, data: allocStorage(t.dtype!, layout.size, `temporary "${t.name}"`) });
  return { kernel: typed, arrays, values, written: typed.args.filter((a) => a.kind === "array" && written.has(a.name)).map((a) => a.name) };
}

/**
 * Extents, strides and storage size of an array for the given parameters; undefined without a shape.
 * `layoutOf(globalArg("a", "float32", ["n", 4]), new Map([["n", 3]]))` has strides (4, 1) and size 12.
 */
export function layoutOf(a: ArrayArg | Temporary, params: ReadonlyMap<string, number>): { extents: number[]; strides: number[]; size: number } | undefined {
  if (!a.shape) return undefined;
  const extents = a.shape.map((e) => {
    const n0 = evalSizeExpr(e, params, `the shape of "${a.name}"`);
    // A temporary sized by its footprint (`n - 1` from precompute) is empty where that footprint is:
    // no instance runs that could touch it.
    const n = "addressSpace" in a && Number.isInteger(n0) && n0 < 0 ? 0 : n0;
    if (!Number.isInteger(n) || n < 0) throw new ExecutionError(`the shape of "${a.name}" has the extent ${exprToString(e)} = ${n}; extents must be integers >= 0`);
    return n;
  });
  const tags = effectiveDimTags(a);
  if (tags.some((t) => t.kind === "sep")) throw new ExecutionError(`array "${a.name}": "sep" axes are not supported yet by the interpreter`);
  // `vec` axes are the fastest-varying: stride 1, and every nested axis steps over them.
  let vecSize = 1;
  tags.forEach((t, x) => {
    if (t.kind === "vec") vecSize *= extents[x]!;
  });
  const strideExprs = axisStrides(a.shape, tags);
  const strides = strideExprs.map((s, x) => {
    if (s === null) return 1;
    const v = evalSizeExpr(s, params, `the stride of axis ${x} of "${a.name}"`);
    return tags[x]!.kind === "nest" ? v * vecSize : v;
  });
  const size = extents.some((n) => n === 0) ? 0 : 1 + extents.reduce((acc, n, x) => acc + (n - 1) * Math.abs(strides[x]!), 0);
  return { extents, strides, size };
}

/**
 * `layoutOf` for callers with parameters as a plain object (the public API):
 * `lp.arrayLayout(lp.globalArg("a", "float32", ["n", 4]), { n: 3 }).size === 12`. A missing
 * parameter or a negative extent is an ExecutionError naming it.
 */
export function arrayLayout(a: ArrayArg | Temporary, params: Readonly<Record<string, number>>): { extents: number[]; strides: number[]; size: number } | undefined {
  return layoutOf(a, new Map(Object.entries(params)));
}

/**
 * `args` with the value arguments that were not passed but follow from the arrays' lengths:
 * `n` from a Float32Array of 12 elements for `a: float32[n, 4]`. An array counts when its shape is
 * a product of constants, known parameters and the missing one, and its layout is dense; a
 * parameter two arrays disagree on is an ExecutionError naming both.
 */
export function withInferredParams(k: Kernel, args: Readonly<Record<string, ArgValue>>): Readonly<Record<string, ArgValue>> {
  const missing = k.args.filter((a) => a.kind === "value" && args[a.name] === undefined).map((a) => a.name);
  if (missing.length === 0) return args;
  const out: Record<string, ArgValue> = { ...args };
  let progress = true;
  while (progress) {
    progress = false;
    const params = new Map<string, number>();
    for (const a of k.args) {
      const x = out[a.name];
      if (a.kind === "value" && (typeof x === "number" || typeof x === "bigint")) params.set(a.name, Number(x));
    }
    for (const p of missing) {
      if (out[p] !== undefined) continue;
      const found: { array: string; value: number }[] = [];
      for (const a of k.args) {
        const x = out[a.name];
        if (a.kind !== "array" || !a.shape || !isTypedArray(x)) continue;
        const v = solveExtent(a, x.length, p, params);
        if (v !== undefined) found.push({ array: a.name, value: v });
      }
      if (found.length === 0) continue;
      const values = [...new Set(found.map((f) => f.value))];
      if (values.length > 1) {
        throw new ExecutionError(`kernel "${k.name}" needs "${p}", and the arrays passed disagree on it: ${found.map((f) => `${f.array} gives ${p} = ${f.value}`).join(", ")}; pass ${p} explicitly`);
      }
      out[p] = values[0]!;
      progress = true;
    }
  }
  return out;
}

/** The value of parameter `p` for which array `a` (dense layout) holds exactly `length` elements, if one does. */
function solveExtent(a: ArrayArg, length: number, p: string, params: ReadonlyMap<string, number>): number | undefined {
  let power = 0;
  let rest = 1;
  for (const e of a.shape!) {
    if (e.kind === "var" && e.name === p) {
      power++;
      continue;
    }
    let v: number;
    try {
      v = evalSizeExpr(e, params, "shape");
    } catch {
      return undefined;
    }
    rest *= v;
  }
  if (power === 0 || rest <= 0 || length % rest !== 0) return undefined;
  const q = length / rest;
  const root = Math.round(q ** (1 / power));
  const candidate = [root - 1, root, root + 1].find((r) => r >= 0 && r ** power === q);
  if (candidate === undefined) return undefined;
  const layout = layoutOf(a, new Map([...params, [p, candidate]]));
  return layout && layout.size === length ? candidate : undefined;
}
