/**
 * `autoTestVsRef`: run a reference kernel and a transformed one on the same seeded random inputs
 * and compare every output element by element. Elements are matched by their logical index, so
 * kernels that store an array differently (F order, padding) still compare.
 */
import { BackendUnavailableError, LoomError } from "../errors.js";
import { allocArray, dtypeKind, dtypesForArray, findArg, isFloat, isWideInt, type ArrayArg, type Dtype, type Kernel, type TypedArray } from "../ir/index.js";
import { layoutOf, writtenNames, type ArgValue } from "./args.js";
import { floatToHalf, h2f } from "../ir/float16.js";
import { run, type BackendName } from "./run.js";

export interface AutoTestOptions {
  /** Values of the kernels' value arguments (their domain and shape parameters). */
  readonly params: Readonly<Record<string, number | bigint>>;
  /** The backend running `k`; the reference always runs on the interpreter. Default "interp". */
  readonly backend?: BackendName;
  /** Relative tolerance for float outputs; default 1e-5 when float32 (1e-2 float16) is involved, else 1e-12. */
  readonly rtol?: number;
  /** Seed of the random inputs (default 0): the same seed gives the same inputs. */
  readonly seed?: number;
}

export interface AutoTestResult {
  readonly ok: boolean;
  /** The largest relative error over all float output elements (0 when all are equal). */
  readonly maxRelError: number;
  /** The first few differences, readable: `out[3]: expected 1.5, got 2`. */
  readonly mismatches: string[];
}

const MAX_REPORTED = 10;

/** A small fast seeded generator (mulberry32): uniform in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

function argSignature(k: Kernel): Map<string, string> {
  return new Map(k.args.map((a) => [a.name, `${a.kind} ${a.dtype ?? "?"}`]));
}

/**
 * Compare `k` against `ref` on random inputs: both must compute the same outputs.
 *
 *   const { ok, mismatches } = await autoTestVsRef(ref, split, { params: { n: 100 } });
 */
export async function autoTestVsRef(ref: Kernel, k: Kernel, opts: AutoTestOptions): Promise<AutoTestResult> {
  const sigRef = argSignature(ref);
  const sigK = argSignature(k);
  const argProblems: string[] = [];
  for (const [name, s] of sigRef) {
    const t = sigK.get(name);
    if (t === undefined) argProblems.push(`argument "${name}" of the reference is missing from the kernel`);
    else if (t !== s && !t.endsWith("?") && !s.endsWith("?")) argProblems.push(`argument "${name}": reference has ${s}, kernel has ${t}`);
  }
  for (const name of sigK.keys()) if (!sigRef.has(name)) argProblems.push(`argument "${name}" of the kernel is not an argument of the reference`);
  if (argProblems.length > 0) return { ok: false, maxRelError: Infinity, mismatches: argProblems };

  const params = new Map(Object.entries(opts.params).map(([n, x]) => [n, Number(x)]));
  const rnd = random(opts.seed ?? 0);
  // Parameters go to the value arguments of each kernel (extra ones, e.g. for shapes, are not passed).
  const valuesOf = (kk: Kernel) => Object.fromEntries(Object.entries(opts.params).filter(([n]) => findArg(kk, n)?.kind === "value"));
  const argsRef: Record<string, ArgValue> = valuesOf(ref);
  const argsK: Record<string, ArgValue> = valuesOf(k);
  const writtenRef = writtenNames(ref);
  const logical = new Map<string, { extents: readonly number[]; dtype: Dtype }>();
  for (const a of ref.args) {
    if (a.kind !== "array") continue;
    const other = findArg(k, a.name) as ArrayArg;
    const dtype = a.dtype ?? other.dtype ?? (writtenRef.has(a.name) ? undefined : "float64");
    const layRef = layoutOf(a, params);
    const layK = layoutOf(other, params);
    const extents = layRef?.extents ?? layK?.extents;
    if (!dtype) continue; // an output of unknown dtype: each run allocates it
    if (!extents) return { ok: false, maxRelError: Infinity, mismatches: [`array "${a.name}" has no shape in either kernel; cannot make test data for it`] };
    logical.set(a.name, { extents, dtype });
    const count = extents.reduce((p, n) => p * n, 1);
    const values = Array.from({ length: count }, () => randomElement(dtype, rnd));
    const fill = (lay: typeof layRef): TypedArray => {
      const data = allocArray(dtype, lay?.size ?? count);
      offsets(extents, lay?.strides).forEach((off, idx) => ((data as unknown as (number | bigint)[])[off] = values[idx]!));
      return data;
    };
    argsRef[a.name] = fill(layRef);
    argsK[a.name] = fill(layK);
  }

  const expected = await run(ref, argsRef);
  let got: Record<string, TypedArray>;
  try {
    got = await run(k, argsK, { backend: opts.backend ?? "interp" });
  } catch (e) {
    if (e instanceof BackendUnavailableError || !(e instanceof LoomError)) throw e;
    return { ok: false, maxRelError: Infinity, mismatches: [`the kernel failed where the reference ran: ${e.message}`] };
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
      continue;
    }
    const argRef = findArg(ref, name) as ArrayArg;
    const argK = findArg(k, name) as ArrayArg;
    const dtype = argRef.dtype ?? argK.dtype ?? dtypeOfArray(e);
    const extents = logical.get(name)?.extents ?? layoutOf(argRef, params)?.extents ?? [e.length];
    const offE = offsets(extents, layoutOf(argRef, params)?.strides);
    const offG = offsets(extents, layoutOf(argK, params)?.strides);
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
      if (isFloat(dtype)) maxRelError = Math.max(maxRelError, err);
      if (err > (isFloat(dtype) ? floatTol : 0)) {
        if (mismatches.length < MAX_REPORTED) mismatches.push(`${name}[${multiIndex(extents, idx).join(", ")}]: expected ${a}, got ${b}`);
        else if (mismatches.length === MAX_REPORTED) mismatches.push("… (more differences)");
      }
    }
  }
  return { ok: mismatches.length === 0, maxRelError, mismatches };
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
