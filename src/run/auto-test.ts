/**
 * `autoTestVsRef`: run a reference kernel and a transformed one on the same seeded random inputs
 * and compare every output element by element. Elements are matched by their logical index, so
 * kernels that store an array differently (F order, padding) still compare.
 */
import { seededRandom } from "./seeded-random.js";
import { BackendUnavailableError, checkOptionNames, ExecutionError, LoomError } from "../errors.js";
import {
  allocArray, dtypeKind, dtypesForArray, findArg, isFloat, isWideInt, type ArrayArg, type Dtype, type Kernel, type TypedArray,
} from "../ir/index.js";
import { layoutOf, writtenNames, type ArgValue } from "./args.js";
import { floatToHalf, h2f } from "../ir/float16.js";
import { checkKernelArg } from "../ir/check-kernel.js";
import { run, type BackendName } from "./run.js";
import { argProblems, argValues, oneSidedExtentDifference } from "./auto-test-args.js";

export interface AutoTestOptions {
  /**
   * Values of the kernels' value arguments (their domain and shape parameters); default `{}`. A
   * value argument only one kernel has takes its value from here too (see autoTestVsRef).
   */
  readonly params?: Readonly<Record<string, number | bigint>>;
  /** The backend running `k`; the reference always runs on the interpreter. Default "interp". */
  readonly backend?: BackendName;
  /** Relative tolerance for float outputs; default 1e-5 when float32 (1e-2 float16) is involved, else 1e-12. */
  readonly rtol?: number;
  /** Seed of the random inputs (default 0): the same seed gives the same inputs. */
  readonly seed?: number;
  /**
   * Passed to `run` of `k` (native and webgpu backends): `false` runs it without the static bounds
   * proof, for kernels in bounds by construction whose subscripts it cannot prove. Default true.
   */
  readonly checkBounds?: boolean;
}

export interface AutoTestResult {
  readonly ok: boolean;
  /**
   * The largest relative error over all output elements (0 when all are equal): an integer or bool
   * element that differs, an output the kernel does not write, or an argument problem counts as
   * Infinity, so `ok` is false exactly when an error exceeds the tolerance or there is a problem.
   */
  readonly maxRelError: number;
  /** The first few differences, readable: `out[3]: expected 1.5, got 2`. */
  readonly mismatches: string[];
}

const MAX_REPORTED = 10;

type Layout = ReturnType<typeof layoutOf>;


/** A random element of dtype `d`: floats in [-1, 1), integers small (signed -8..8, unsigned 0..16), bool 0/1. */
function randomElement(d: Dtype, rnd: () => number): number | bigint {
  const kind = dtypeKind(d);
  if (kind === "float") return d === "float16" ? floatToHalf(rnd() * 2 - 1) : d === "float32" ? Math.fround(rnd() * 2 - 1) : rnd() * 2 - 1;
  if (kind === "bool") return rnd() < 0.5 ? 0 : 1;
  const n = kind === "int" ? Math.floor(rnd() * 17) - 8 : Math.floor(rnd() * 17);
  return isWideInt(d) ? BigInt(n) : n;
}

/** Offsets of every logical element (C order over `extents`) in an array laid out with `strides`. */
function offsets(extents: readonly number[], strides: readonly number[] | undefined): number[] {
  const out: number[] = [];
  const rec = (axis: number, off: number, lin: number): void => {
    if (axis === extents.length) {
      out.push(strides ? off : lin);
      return;
    }
    for (let x = 0; x < extents[axis]!; x++) rec(axis + 1, off + x * (strides?.[axis] ?? 0), lin * extents[axis]! + x);
  };
  rec(0, 0, 0);
  return out;
}

function multiIndex(extents: readonly number[], lin: number): number[] {
  const idx = new Array<number>(extents.length);
  for (let a = extents.length - 1; a >= 0; a--) {
    idx[a] = lin % extents[a]!;
    lin = Math.floor(lin / extents[a]!);
  }
  return idx;
}

/** The arguments of the two kernels that cannot be matched: array arguments by name, shared ones by kind and dtype. */
const failed = (mismatches: string[]): AutoTestResult => ({ ok: false, maxRelError: Infinity, mismatches });

/**
 * Compare `k` against `ref` on random inputs: both must compute the same outputs.
 *
 *   const { ok, mismatches } = await autoTestVsRef(ref, split, { params: { n: 100 } });
 *   await autoTestVsRef(ref, fixParameters(ref, { n: 64 }), { params: { n: 64 } });   // n only in ref
 *
 * Arguments: the kernels must have the same array arguments (by name; dtypes, where both declare
 * one, equal), and a value argument both have must agree in kind and dtype and takes its value from
 * `params`. A value argument only one kernel has (`n` after fixParameters, `a_stride0` after
 * tagArrayAxes with `stride:auto`) is accepted when its value is known: from `params`; failing
 * that, derived as `run` would need it: an extent that the other kernel's shape of the same array
 * gives (`a: float32[n]` against `a: float32[64]` gives n = 64), or, for a name used as nothing but
 * whole axis strides, the dense layout (`stride:auto,c` on `a[n, m]` gives a_stride0 = m). A value
 * argument left without a value (`value argument "m" of the kernel has no value: give it in
 * params`), an array whose extents differ through a one-sided argument (params give `n` 32 where
 * the kernel fixed 64), and every other argument problem make the result not ok, with
 * `maxRelError` Infinity, without running either kernel. `params` defaults to `{}`, enough for
 * kernels without value arguments; options that are not an object are an ExecutionError.
 *
 * `maxRelError` is Infinity as soon as an integer or bool element differs (or an output is not
 * written), so that `ok` is false exactly when `maxRelError` exceeds the tolerance.
 */
const AUTO_TEST_OPTIONS: Readonly<Record<keyof AutoTestOptions, true>> = { params: true, backend: true, rtol: true, seed: true, checkBounds: true };

export async function autoTestVsRef(ref: Kernel, k: Kernel, opts: AutoTestOptions = {}): Promise<AutoTestResult> {
  if (opts === null || typeof opts !== "object" || Array.isArray(opts)) {
    throw new ExecutionError(`autoTestVsRef: options must be an object such as { params: { n: 64 } }; got ${String(opts)}`);
  }
  checkOptionNames(opts, "autoTestVsRef", AUTO_TEST_OPTIONS, (m) => new ExecutionError(m));
  checkKernelArg(ref, "autoTestVsRef", (m) => new ExecutionError(m), "the first argument (the reference)");
  checkKernelArg(k, "autoTestVsRef", (m) => new ExecutionError(m), "the second argument");
  if (opts.checkBounds !== undefined && typeof opts.checkBounds !== "boolean") {
    throw new ExecutionError(`autoTestVsRef: checkBounds must be true or false; got ${JSON.stringify(opts.checkBounds)}`);
  }
  const given = opts.params ?? {};
  if (given === null || typeof given !== "object" || Array.isArray(given)) {
    throw new ExecutionError(`autoTestVsRef: params must be an object of value-argument values such as { n: 64 }; got ${JSON.stringify(given)}`);
  }
  const problems = argProblems(ref, k);
  if (problems.length > 0) return failed(problems);
  const vals = argValues(ref, k, given);
  if (vals.problems.length > 0) return failed(vals.problems);

  const rnd = seededRandom(opts.seed ?? 0);
  const argsRef: Record<string, ArgValue> = Object.fromEntries(vals.ref);
  const argsK: Record<string, ArgValue> = Object.fromEntries(vals.k);
  const writtenRef = writtenNames(ref);
  const logical = new Map<string, { extents: readonly number[]; dtype: Dtype }>();
  const extentProblems: string[] = [];
  const filled: { name: string; dtype: Dtype; extents: readonly number[]; layRef: Layout; layK: Layout }[] = [];
  for (const a of ref.args) {
    if (a.kind !== "array") continue;
    const other = findArg(k, a.name) as ArrayArg;
    const dtype = a.dtype ?? other.dtype ?? (writtenRef.has(a.name) ? undefined : "float64");
    const layRef = layoutOf(a, vals.paramsRef);
    const layK = layoutOf(other, vals.paramsK);
    const why = layRef && layK ? oneSidedExtentDifference(ref, a, k, other, layRef.extents, layK.extents) : undefined;
    if (why !== undefined) {
      extentProblems.push(`array "${a.name}" has extents (${layRef!.extents.join(", ")}) in the reference but (${layK!.extents.join(", ")}) in the kernel: ${why}`);
      continue;
    }
    const extents = layRef?.extents ?? layK?.extents;
    if (!dtype) continue; // an output of unknown dtype: each run allocates it
    if (!extents) return failed([`array "${a.name}" has no shape in either kernel; cannot make test data for it`]);
    logical.set(a.name, { extents, dtype });
    filled.push({ name: a.name, dtype, extents, layRef, layK });
  }
  if (extentProblems.length > 0) return failed(extentProblems);
  for (const { name, dtype, extents, layRef, layK } of filled) {
    const count = extents.reduce((p, n) => p * n, 1);
    const values = Array.from({ length: count }, () => randomElement(dtype, rnd));
    const fill = (lay: Layout): TypedArray => {
      const data = allocArray(dtype, lay?.size ?? count);
      offsets(extents, lay?.strides).forEach((off, idx) => ((data as unknown as (number | bigint)[])[off] = values[idx]!));
      return data;
    };
    argsRef[name] = fill(layRef);
    // An array whose axes were reshaped (splitArrayAxis) keeps its flat storage: the same data.
    argsK[name] = reshaped(layRef, layK) ? sameStorage(argsRef[name] as TypedArray, layK!.size) : fill(layK);
  }

  const expected = await run(ref, argsRef);
  let got: Record<string, TypedArray>;
  try {
    got = await run(k, argsK, { backend: opts.backend ?? "interp", ...(opts.checkBounds === undefined ? {} : { checkBounds: opts.checkBounds }) });
  } catch (e) {
    if (e instanceof BackendUnavailableError || !(e instanceof LoomError)) throw e;
    return failed([`the kernel failed where the reference ran: ${e.message}`]);
  }

  const involved = [...ref.args, ...k.args].map((a) => a.dtype);
  const floatTol = opts.rtol ?? (involved.includes("float16") ? 1e-2 : involved.includes("float32") ? 1e-5 : 1e-12);
  const mismatches: string[] = [];
  let maxRelError = 0;
  for (const name of Object.keys(expected)) {
    const e = expected[name]!;
    const g = got[name];
    if (!g) {
      mismatches.push(`output "${name}" of the reference is not written by the kernel`);
      maxRelError = Infinity;
      continue;
    }
    const argRef = findArg(ref, name) as ArrayArg;
    const argK = findArg(k, name) as ArrayArg;
    const dtype = argRef.dtype ?? argK.dtype ?? dtypeOfArray(e);
    const layRef = layoutOf(argRef, vals.paramsRef);
    const extents = logical.get(name)?.extents ?? layRef?.extents ?? [e.length];
    const offE = offsets(extents, layRef?.strides);
    const layK = layoutOf(argK, vals.paramsK);
    const offG = reshaped(layRef, layK) ? offE : offsets(extents, layK?.strides);
    const read = (arr: TypedArray, off: number): number | bigint => {
      const x = arr[off]!;
      return dtype === "float16" ? h2f(x as number) : x;
    };
    let scale = 0;
    if (isFloat(dtype)) for (const off of offE) if (Number.isFinite(read(e, off))) scale = Math.max(scale, Math.abs(read(e, off) as number));
    for (let idx = 0; idx < offE.length; idx++) {
      const a = read(e, offE[idx]!);
      const b = read(g, offG[idx]!);
      const err = isFloat(dtype) ? relError(a as number, b as number, scale) : a === b ? 0 : Infinity;
      maxRelError = Math.max(maxRelError, err);
      if (err > (isFloat(dtype) ? floatTol : 0)) {
        if (mismatches.length < MAX_REPORTED) mismatches.push(`${name}[${multiIndex(extents, idx).join(", ")}]: expected ${a}, got ${b}`);
        else if (mismatches.length === MAX_REPORTED) mismatches.push("… (more differences)");
      }
    }
  }
  return { ok: mismatches.length === 0, maxRelError, mismatches };
}

/**
 * Whether the kernel views the reference's array with another number of axes (splitArrayAxis:
 * `a[16]` as `a[4, 4]`), which keeps every element at its flat offset.
 */
function reshaped(layRef: Layout, layK: Layout): boolean {
  return layRef !== undefined && layK !== undefined && layRef.extents.length !== layK.extents.length;
}

/** A copy of `data` in a buffer of at least `size` elements (a split axis may pad the end). */
function sameStorage(data: TypedArray, size: number): TypedArray {
  const out = allocArray(dtypeOfArray(data), Math.max(size, data.length));
  (out as unknown as { set(x: ArrayLike<number | bigint>): void }).set(data as unknown as ArrayLike<number | bigint>);
  return out;
}

/** The dtype of an output whose declaration has none (a Uint16Array read as uint16, not float16). */
function dtypeOfArray(arr: TypedArray): Dtype {
  const ds = dtypesForArray(arr);
  return ds.find((d) => d !== "float16" && d !== "bool") ?? ds[0]!;
}

/**
 * |a - b| relative to the larger of |a|, |b| and `scale`, the largest magnitude in the reference
 * output: small elements are judged against the array's scale (loopy's inf-norm relative error),
 * so a reordered sum that cancels to nearly zero does not fail. NaN equals NaN.
 */
function relError(a: number, b: number, scale: number): number {
  if (a === b || (Number.isNaN(a) && Number.isNaN(b))) return 0;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return Infinity;
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), scale, Number.MIN_VALUE);
}
