/** Element types, their storage and the promotion rule of mixed arithmetic. */
import { LoomError } from "../errors.js";

export const DTYPES = [
  "float16", "float32", "float64",
  "int8", "int16", "int32", "int64",
  "uint8", "uint16", "uint32", "uint64",
  "bool",
] as const;

/** An element type, named as in numpy/loopy. */
export type Dtype = (typeof DTYPES)[number];

export type DtypeKind = "float" | "int" | "uint" | "bool";

const INFO: Readonly<Record<Dtype, { kind: DtypeKind; bits: number }>> = {
  float16: { kind: "float", bits: 16 }, float32: { kind: "float", bits: 32 }, float64: { kind: "float", bits: 64 },
  int8: { kind: "int", bits: 8 }, int16: { kind: "int", bits: 16 }, int32: { kind: "int", bits: 32 }, int64: { kind: "int", bits: 64 },
  uint8: { kind: "uint", bits: 8 }, uint16: { kind: "uint", bits: 16 }, uint32: { kind: "uint", bits: 32 }, uint64: { kind: "uint", bits: 64 },
  bool: { kind: "bool", bits: 8 },
};

/** C spellings accepted as aliases (`<float> t = …`). */
const ALIASES: Readonly<Record<string, Dtype>> = {
  float: "float32", double: "float64", half: "float16", int: "int32", uint: "uint32",
  long: "int64", ulong: "uint64", short: "int16", ushort: "uint16", char: "int8", uchar: "uint8",
  np_float32: "float32", np_float64: "float64",
};

export function isDtype(s: string): s is Dtype {
  return (DTYPES as readonly string[]).includes(s);
}

/** The dtype named `s` (numpy names, or C aliases such as `float` = float32, `double` = float64). */
export function parseDtype(s: string): Dtype {
  const t = s.trim();
  if (isDtype(t)) return t;
  const alias = ALIASES[t];
  if (alias) return alias;
  throw new LoomError(`unknown dtype "${s}"; expected one of ${DTYPES.join(", ")} (or float, double, int)`);
}

export function dtypeKind(d: Dtype): DtypeKind {
  return INFO[d].kind;
}
export function dtypeBits(d: Dtype): number {
  return INFO[d].bits;
}
export function byteSize(d: Dtype): number {
  return INFO[d].bits / 8;
}
export function isFloat(d: Dtype): boolean {
  return INFO[d].kind === "float";
}
/** The values of an integer dtype (not bool): `integerRange("int8")` is { lo: -128n, hi: 127n }; undefined for floats and bool. */
export function integerRange(d: Dtype): { readonly lo: bigint; readonly hi: bigint } | undefined {
  const { kind, bits } = INFO[d];
  if (kind !== "int" && kind !== "uint") return undefined;
  const b = BigInt(bits);
  return kind === "int" ? { lo: -(1n << (b - 1n)), hi: (1n << (b - 1n)) - 1n } : { lo: 0n, hi: (1n << b) - 1n };
}
/** Integer types and bool: the types of exact (non-rounded) arithmetic. */
export function isIntegral(d: Dtype): boolean {
  return INFO[d].kind !== "float";
}
/** 64-bit integers: values that need BigInt to be exact in JavaScript. */
export function isWideInt(d: Dtype): boolean {
  return d === "int64" || d === "uint64";
}

const SIGNED_BY_BITS: Readonly<Record<number, Dtype>> = { 8: "int8", 16: "int16", 32: "int32", 64: "int64" };

/**
 * The type of `a op b`. Floats win over integers and keep their width (`float32 * int32` is float32,
 * as in loopy, where numpy would say float64); among floats the wider wins; integers follow numpy
 * (mixed signedness takes the next signed type wide enough, `uint64` with a signed type is float64).
 */
export function promote(a: Dtype, b: Dtype): Dtype {
  if (a === b) return a;
  const ia = INFO[a];
  const ib = INFO[b];
  if (ia.kind === "bool") return b;
  if (ib.kind === "bool") return a;
  if (ia.kind === "float" || ib.kind === "float") {
    if (ia.kind === "float" && ib.kind === "float") return ia.bits >= ib.bits ? a : b;
    return ia.kind === "float" ? a : b;
  }
  if (ia.kind === ib.kind) return ia.bits >= ib.bits ? a : b;
  const [s, u] = ia.kind === "int" ? [ia, ib] : [ib, ia];
  if (s.bits > u.bits) return SIGNED_BY_BITS[s.bits]!;
  if (u.bits >= 64) return "float64";
  return SIGNED_BY_BITS[u.bits * 2]!;
}

/** The JavaScript typed array that stores elements of `d` (float16 as raw bits in Uint16Array). */
export type TypedArray =
  | Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array;

const ARRAY_CTORS = {
  float16: Uint16Array, float32: Float32Array, float64: Float64Array,
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  bool: Uint8Array,
} as const;

/** A zero-filled typed array of `length` elements of `d`. */
export function allocArray(d: Dtype, length: number): TypedArray {
  return new ARRAY_CTORS[d](length);
}

/** The dtypes whose storage is an instance of `arr`'s constructor (Uint8Array: uint8 and bool). */
export function dtypesForArray(arr: TypedArray): Dtype[] {
  return DTYPES.filter((d) => arr instanceof ARRAY_CTORS[d] && arr.constructor === ARRAY_CTORS[d]);
}

/** Whether `arr` may hold elements of `d`. */
export function arrayMatchesDtype(arr: TypedArray, d: Dtype): boolean {
  return arr.constructor === ARRAY_CTORS[d];
}
