/**
 * The data of `loom run` (src/cli/run.ts): seeded random arrays sized from their shapes, the
 * checksums of an output (sum, sum of absolute values, a hash of the bytes, NaN/Inf counts) and the
 * element-wise comparison of two runs' outputs, on the public API only.
 */
import * as lp from "../index.js";

type ArrayArg = lp.ArrayArg;
const { seededRandom } = lp;

/** A 32-bit FNV-1a hash of `bytes`, as 8 hex digits. */
function fnv1a(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
  return h;
}

const hex = (h: number) => h.toString(16).padStart(8, "0");


export const isIntegerDtype = (d: lp.Dtype | undefined) => d === undefined || /^u?int\d+$/.test(d);

/** Why integer `v` does not fit `dtype` (`"3000000000 is outside its range -2147483648…2147483647"`), or undefined. */
export function outsideRange(v: number, dtype: lp.Dtype): string | undefined {
  const range = lp.integerRange(dtype);
  if (!range) return undefined;
  const x = BigInt(v);
  return x < range.lo || x > range.hi ? `${v} is outside its range ${range.lo}…${range.hi}` : undefined;
}

/**
 * Why the inputs `sizes` cannot be allocated together (lp.hostMemoryProblem: more elements than a
 * typed array holds, or more bytes than this machine's memory), or undefined: asked before any is
 * allocated.
 */
export function memoryProblem(sizes: readonly { name: string; dtype: lp.Dtype; length: number }[], machineBytes?: number): string | undefined {
  const problem = lp.hostMemoryProblem(sizes.map((s) => ({ what: `input "${s.name}"`, dtype: s.dtype, elements: s.length })), machineBytes);
  return problem && `${problem}; give smaller sizes`;
}

/**
 * The number of elements the storage of `a` spans at `params` (lp.arrayLayout: its extents, or
 * its strides where its axes carry stride tags); undefined where the array has no shape or it
 * cannot be evaluated.
 */
export function storageLength(a: ArrayArg, params: Readonly<Record<string, number>>): number | undefined {
  try {
    return lp.arrayLayout(a, params)?.size;
  } catch {
    return undefined;
  }
}

/** Bits of a half-precision number of magnitude in [0.25, 1) with a random sign and mantissa. */
const randomHalf = (rnd: () => number) => ((rnd() < 0.5 ? 1 : 0) << 15) | ((13 + (rnd() < 0.5 ? 1 : 0)) << 10) | Math.floor(rnd() * 1024);

/**
 * A typed array of `length` elements of `dtype`, filled from a generator seeded by `seed` and the
 * array's name (so adding an array changes no other): floats in [-1, 1), signed integers in
 * -8..8, unsigned 0..16, bool 0/1.
 */
export function randomArray(dtype: lp.Dtype, length: number, seed: number, name: string): lp.TypedArray {
  const rnd = seededRandom(fnv1a(new TextEncoder().encode(name), (seed >>> 0) ^ 0x811c9dc5));
  const arr = lp.allocArray(dtype, length);
  for (let i = 0; i < length; i++) {
    if (dtype === "float16") arr[i] = randomHalf(rnd);
    else if (dtype === "float32" || dtype === "float64") arr[i] = rnd() * 2 - 1;
    else if (dtype === "bool") arr[i] = rnd() < 0.5 ? 0 : 1;
    else {
      const n = dtype.startsWith("u") ? Math.floor(rnd() * 17) : Math.floor(rnd() * 17) - 8;
      (arr as unknown as (number | bigint)[])[i] = dtype.endsWith("64") ? BigInt(n) : n;
    }
  }
  return arr as lp.TypedArray;
}

/** A half-precision number's value from its bits. */
function halfValue(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

const valueAt = (arr: lp.TypedArray, i: number, dtype: lp.Dtype | undefined): number =>
  dtype === "float16" ? halfValue(arr[i] as number) : Number(arr[i]);

export interface Checksum {
  readonly dtype: string;
  readonly length: number;
  readonly sum: number;
  readonly absSum: number;
  /** FNV-1a of the array's bytes, 8 hex digits. */
  readonly hash: string;
  readonly nan: number;
  readonly inf: number;
}

/** The checksums of one output array. */
export function checksum(arr: lp.TypedArray, dtype: lp.Dtype | undefined): Checksum {
  let sum = 0;
  let absSum = 0;
  let nan = 0;
  let inf = 0;
  for (let i = 0; i < arr.length; i++) {
    const x = valueAt(arr, i, dtype);
    if (Number.isNaN(x)) nan++;
    else if (!Number.isFinite(x)) inf++;
    else {
      sum += x;
      absSum += Math.abs(x);
    }
  }
  const hash = hex(fnv1a(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength)));
  return { dtype: dtype ?? arr.constructor.name, length: arr.length, sum, absSum, hash, nan, inf };
}

const MAX_REPORTED = 10;

/**
 * `got` against `expected` (the interpreter's) element by element, as lp.autoTestVsRef compares:
 * floats by the error relative to the larger of both and the reference's largest magnitude (default
 * tolerance 1e-5 for float32, 1e-2 float16, 1e-12 float64), everything else exactly; NaN equals NaN.
 */
export function compareOutputs(k: lp.Kernel, expected: Readonly<Record<string, lp.TypedArray>>, got: Readonly<Record<string, lp.TypedArray>>, rtol?: number):
{ ok: boolean; maxRelError: number; mismatches: string[] } {
  const mismatches: string[] = [];
  let maxRelError = 0;
  const note = (m: string) => {
    if (mismatches.length < MAX_REPORTED) mismatches.push(m);
    else if (mismatches.length === MAX_REPORTED) mismatches.push("… (more differences)");
  };
  for (const [name, e] of Object.entries(expected)) {
    const g = got[name];
    const arg = k.args.find((a) => a.name === name);
    const dtype = arg?.dtype;
    if (!g || g.length !== e.length) {
      note(`${name}: the interpreter wrote ${e.length} elements, the backend ${g ? g.length : "none"}`);
      maxRelError = Infinity;
      continue;
    }
    const float = dtype === "float16" || dtype === "float32" || dtype === "float64";
    const tol = rtol ?? (dtype === "float16" ? 1e-2 : dtype === "float32" ? 1e-5 : 1e-12);
    let scale = 0;
    if (float) for (let i = 0; i < e.length; i++) if (Number.isFinite(valueAt(e, i, dtype))) scale = Math.max(scale, Math.abs(valueAt(e, i, dtype)));
    for (let i = 0; i < e.length; i++) {
      const a = valueAt(e, i, dtype);
      const b = valueAt(g, i, dtype);
      let err = 0;
      if (!(a === b || (Number.isNaN(a) && Number.isNaN(b)))) {
        err = !float || !Number.isFinite(a) || !Number.isFinite(b) ? Infinity : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), scale, Number.MIN_VALUE);
      }
      maxRelError = Math.max(maxRelError, err);
      if (err > (float ? tol : 0)) note(`${name}[${i}]: interpreter ${a}, backend ${b}`);
    }
  }
  return { ok: mismatches.length === 0, maxRelError, mismatches };
}
