/**
 * Host-side layout helpers for OKL pointer arguments to structs whose fields mix types
 * (`bcData *bc` with `int` and `double` fields). The importer splits such an argument into one
 * array per field the kernel uses (`bc_u`, `bc_id`, `bc_vals` for `double vals[3]` with 3 values per struct, `bc_n_x` for
 * a nested struct's field, …; `Kernel.oklOptions.structArgs` keeps C's
 * layout), since no IR array holds C's padded records. These helpers move data between C's bytes
 * (what OCCA host code passes: an array of the struct) and those field arrays:
 *
 *   const arrays = lp.oklStructArrays(k, "bc", bytes);          // { bc_u: Float64Array, bc_id: Int32Array, … }
 *   const out = await lp.run(k, { ...arrays, N });
 *   lp.oklStructBytes(k, "bc", out, bytes);                      // the written fields back into C's bytes
 *   lp.oklStructPack(k, "bc", [{ id: 1, u: 0.5, vals: [1, 2, 3], n: { x: 0, y: 1 } }]);   // C's bytes of JS objects
 *
 * Bytes are read and written in the host's byte order (C's, on the machine that runs the kernel).
 */
import { LoomError } from "../errors.js";
import type { Dtype, Kernel, OklStructArg, TypedArray } from "../ir/index.js";

export type View = ArrayBuffer | ArrayBufferView;

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

/** `data` as a DataView over its own bytes (a LoomError for anything else). */
export function bytesOf(data: View): DataView {
  if (data instanceof ArrayBuffer) return new DataView(data);
  if (ArrayBuffer.isView(data)) return new DataView(data.buffer, data.byteOffset, data.byteLength);
  throw new LoomError(`expected C's bytes as an ArrayBuffer or a typed array, got ${data === null ? "null" : typeof data}`);
}

/** The scalar of dtype `d` at byte `at`, in the host's byte order. */
export function get(v: DataView, at: number, d: Dtype): number | bigint {
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
    const offs = f.elements ?? [f.offset];
    const a = new ARRAYS[f.dtype](n * offs.length) as { [i: number]: number | bigint };
    for (let i = 0; i < n; i++) offs.forEach((o, j) => (a[i * offs.length + j] = get(v, i * s.size + o, f.dtype)));
    out[f.argument] = a as TypedArray;
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
  const per = (f: (typeof s.fields)[number]) => f.elements?.length ?? 1;
  const n = count ?? (into ? Math.floor(bytesOf(into).byteLength / s.size) : Math.max(0, ...given.map((f) => Math.floor(arrays[f.argument!]!.length / per(f)))));
  const bytes = into ? bytesOf(into) : new DataView(new ArrayBuffer(n * s.size));
  if (n * s.size > bytes.byteLength) throw new LoomError(`oklStructBytes("${arg}"): ${n} structs "${s.struct}" need ${n * s.size} bytes; the buffer holds ${bytes.byteLength}`);
  for (const f of given) {
    const a = arrays[f.argument!]!;
    const offs = f.elements ?? [f.offset];
    if (a.length < n * offs.length) throw new LoomError(`oklStructBytes("${arg}"): field "${f.name}" ("${f.argument}") has ${a.length} values for ${n} structs${offs.length > 1 ? ` of ${offs.length} each` : ""}`);
    for (let i = 0; i < n; i++) offs.forEach((o, j) => set(bytes, i * s.size + o, f.dtype, a[i * offs.length + j]!));
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, n * s.size);
}

/** A JS value of a field (`obj.n.x`; through arrays of nested structs, `obj.pts[j].x` for each j), flattened row-major. */
function fieldValues(o: unknown, path: readonly string[], where: string): unknown[] {
  if (Array.isArray(o)) return o.flatMap((x, j) => fieldValues(x, path, `${where}[${j}]`));
  if (path.length === 0) return [o];
  if (typeof o !== "object" || o === null) throw new LoomError(`oklStructPack: ${where} is ${o === null ? "null" : typeof o}; expected an object with field "${path[0]}"`);
  return fieldValues((o as Record<string, unknown>)[path[0]!], path.slice(1), `${where}.${path[0]}`);
}

/**
 * C's bytes of JS objects as structs of pointer argument `arg` (padding and fields not given are
 * zero): `{ type: 1, vals: [1, 2, 3], n: { x: 0.5, y: 0 } }` for `struct { int type; double vals[3];
 * struct { double x, y; } n; }`. An array field takes an array (nested arrays for more dims, row-major),
 * a nested struct an object. A field the struct does not have, or an array of the wrong length, is a
 * LoomError naming it. Feed the result to oklStructArrays.
 */
export function oklStructPack(k: Kernel, arg: string, records: readonly Readonly<Record<string, unknown>>[]): Uint8Array {
  const s = oklStructArg(k, arg);
  const bytes = new DataView(new ArrayBuffer(records.length * s.size));
  const tops = new Set(s.fields.map((f) => f.name.split(".")[0]!));
  records.forEach((r, i) => {
    const extra = Object.keys(r).find((key) => !tops.has(key));
    if (extra !== undefined) throw new LoomError(`oklStructPack("${arg}"): struct "${s.struct}" has no field "${extra}" (record ${i}); its fields are ${[...tops].join(", ")}`);
    for (const f of s.fields) {
      const path = f.name.split(".");
      if (r[path[0]!] === undefined) continue;
      const offs = f.elements ?? [f.offset];
      const vals = fieldValues(r[path[0]!], path.slice(1), `record ${i}: ${path[0]}`).flat(Infinity);
      if (vals.length !== offs.length || vals.some((x) => x !== undefined && typeof x !== "number" && typeof x !== "bigint" && typeof x !== "boolean")) {
        throw new LoomError(`oklStructPack("${arg}"): field "${f.name}" of record ${i} needs ${offs.length === 1 ? "a number" : `${offs.length} numbers`}, got ${JSON.stringify(vals.length === 1 ? vals[0] : vals)}`);
      }
      // A value left out (`n: { x: 1 }` without y) stays zero, as in C's designated initializers.
      offs.forEach((o, j) => vals[j] !== undefined && set(bytes, i * s.size + o, f.dtype, typeof vals[j] === "boolean" ? Number(vals[j]) : (vals[j] as number | bigint)));
    }
  });
  return new Uint8Array(bytes.buffer);
}
