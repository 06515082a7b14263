/**
 * Host-side layout helpers for OKL pointer arguments to structs whose fields mix types
 * (`bcData *bc` with `int` and `double` fields). The importer splits such an argument into one
 * array per field the kernel uses (`bc_u`, `bc_id`, …; `Kernel.oklOptions.structArgs` keeps C's
 * layout), since no IR array holds C's padded records. These helpers move data between C's bytes
 * (what OCCA host code passes: an array of the struct) and those field arrays:
 *
 *   const arrays = lp.oklStructArrays(k, "bc", bytes);          // { bc_u: Float64Array, bc_id: Int32Array, … }
 *   const out = await lp.run(k, { ...arrays, N });
 *   lp.oklStructBytes(k, "bc", out, bytes);                      // the written fields back into C's bytes
 *
 * Bytes are read and written in the host's byte order (C's, on the machine that runs the kernel).
 */
import { LoomError } from "../errors.js";
import type { Dtype, Kernel, OklStructArg, TypedArray } from "../ir/index.js";

type View = ArrayBuffer | ArrayBufferView;

const ARRAYS: Readonly<Record<Dtype, new (n: number) => TypedArray>> = {
  float16: Uint16Array, float32: Float32Array, float64: Float64Array, int8: Int8Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array,
  uint64: BigUint64Array, bool: Uint8Array,
};

const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** C's layout of struct pointer argument `arg` of an imported OKL kernel; a LoomError naming the ones there are otherwise. */
export function oklStructArg(k: Kernel, arg: string): OklStructArg {
  const all = k.oklOptions?.structArgs ?? [];
  const s = all.find((x) => x.arg === arg);
  if (!s) {
    const have = all.length ? `its struct pointer arguments split into field arrays are ${all.map((x) => `"${x.arg}"`).join(", ")}` : "it has none";
    throw new LoomError(`kernel "${k.name}" has no struct pointer argument "${arg}" split into field arrays (${have})`);
  }
  return s;
}

function bytesOf(data: View): DataView {
  if (data instanceof ArrayBuffer) return new DataView(data);
  if (ArrayBuffer.isView(data)) return new DataView(data.buffer, data.byteOffset, data.byteLength);
  throw new LoomError(`expected C's bytes as an ArrayBuffer or a typed array, got ${data === null ? "null" : typeof data}`);
}

function get(v: DataView, at: number, d: Dtype): number | bigint {
  switch (d) {
    case "float64": return v.getFloat64(at, LITTLE);
    case "float32": return v.getFloat32(at, LITTLE);
    case "int64": return v.getBigInt64(at, LITTLE);
    case "uint64": return v.getBigUint64(at, LITTLE);
    case "int32": return v.getInt32(at, LITTLE);
    case "uint32": return v.getUint32(at, LITTLE);
    case "int16": return v.getInt16(at, LITTLE);
    case "uint16": case "float16": return v.getUint16(at, LITTLE);
    case "int8": return v.getInt8(at);
    case "uint8": case "bool": return v.getUint8(at);
  }
}

function set(v: DataView, at: number, d: Dtype, x: number | bigint): void {
  switch (d) {
    case "float64": return v.setFloat64(at, Number(x), LITTLE);
    case "float32": return v.setFloat32(at, Number(x), LITTLE);
    case "int64": return v.setBigInt64(at, BigInt(x), LITTLE);
    case "uint64": return v.setBigUint64(at, BigInt(x), LITTLE);
    case "int32": return v.setInt32(at, Number(x), LITTLE);
    case "uint32": return v.setUint32(at, Number(x), LITTLE);
    case "int16": return v.setInt16(at, Number(x), LITTLE);
    case "uint16": case "float16": return v.setUint16(at, Number(x), LITTLE);
    case "int8": return v.setInt8(at, Number(x));
    case "uint8": case "bool": return v.setUint8(at, Number(x));
  }
}

/**
 * The field arrays of struct pointer argument `arg` read from C's bytes of `count` structs
 * (default: as many whole structs as `data` holds), keyed by the kernel's argument names; fields the
 * kernel never uses are left out.
 */
export function oklStructArrays(k: Kernel, arg: string, data: View, count?: number): Record<string, TypedArray> {
  const s = oklStructArg(k, arg);
  const v = bytesOf(data);
  const n = count ?? Math.floor(v.byteLength / s.size);
  if (!Number.isInteger(n) || n < 0 || n * s.size > v.byteLength) {
    throw new LoomError(`oklStructArrays("${arg}"): ${count} structs "${s.struct}" of ${s.size} bytes need ${n * s.size} bytes; the data holds ${v.byteLength}`);
  }
  const out: Record<string, TypedArray> = {};
  for (const f of s.fields) {
    if (f.argument === undefined) continue;
    const a = new ARRAYS[f.dtype](n);
    for (let i = 0; i < n; i++) (a as { [i: number]: number | bigint })[i] = get(v, i * s.size + f.offset, f.dtype);
    out[f.argument] = a;
  }
  return out;
}

/**
 * C's bytes of struct pointer argument `arg` with its fields from `arrays` (a run's results, or
 * the arrays passed): written into `into` (the caller's buffer, other bytes kept) or a new buffer
 * of `count` structs (padding and fields not given are zero). Returns the bytes as a Uint8Array.
 */
export function oklStructBytes(k: Kernel, arg: string, arrays: Readonly<Record<string, ArrayLike<number | bigint> | undefined>>, into?: View, count?: number): Uint8Array {
  const s = oklStructArg(k, arg);
  const given = s.fields.filter((f) => f.argument !== undefined && arrays[f.argument] !== undefined);
  const n = count ?? (into ? Math.floor(bytesOf(into).byteLength / s.size) : Math.max(0, ...given.map((f) => arrays[f.argument!]!.length)));
  const bytes = into ? bytesOf(into) : new DataView(new ArrayBuffer(n * s.size));
  if (n * s.size > bytes.byteLength) throw new LoomError(`oklStructBytes("${arg}"): ${n} structs "${s.struct}" need ${n * s.size} bytes; the buffer holds ${bytes.byteLength}`);
  for (const f of given) {
    const a = arrays[f.argument!]!;
    if (a.length < n) throw new LoomError(`oklStructBytes("${arg}"): field "${f.name}" ("${f.argument}") has ${a.length} values for ${n} structs`);
    for (let i = 0; i < n; i++) set(bytes, i * s.size + f.offset, f.dtype, a[i]!);
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, n * s.size);
}
