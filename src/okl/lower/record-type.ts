/**
 * Structs whose fields mix types (`struct bc { int type; double vals[3]; struct { double x, y; } n; }`),
 * "records": C pads them, so no IR array holds them; each scalar LEAF of the struct (a scalar field,
 * an array field, a field of a nested struct) gets storage of its own. This module is the records'
 * type: C's layout (x86-64 / aarch64: each scalar aligned to its size, a struct to its largest
 * member) and the leaves, each with its array dims along the path and the byte offset of each of its
 * elements inside the struct (what the host helpers in src/okl/struct-args.ts read and write).
 *
 *   struct bc { int type; double vals[3]; }   -> size 32, align 8,
 *     leaves: type (int32, dims [], offsets [0]), vals (float64, dims [3], offsets [8, 16, 24])
 *   struct pts { char k; struct { double x; int i; } p[2]; } -> leaf "p.x": dims [2], offsets [8, 24]
 */
import { byteSize, type Dtype } from "../../ir/index.js";
import type { VectorType } from "./vectors.js";

/** A field of a record: a scalar (`dtype`) or a nested struct (`type`), with its array dims and byte offset. */
export interface RecordMember {
  readonly name: string;
  readonly dims: readonly number[];
  readonly offset: number;
  readonly dtype?: Dtype;
  readonly type?: RecordType;
  /** A pointer field (`const double *usrwrk`): no storage; a local's alias of the array it is assigned (record-pointers.ts). */
  readonly pointer?: PointerMember;
}

/** A pointer field: what it points to, and where it is declared (for errors). */
export interface PointerMember {
  readonly dtype: Dtype;
  /** A pointer to const (`const double *usrwrk`): writing through it is refused, as C refuses it (record-pointers.ts). */
  readonly readOnly?: boolean;
  readonly line: number;
  readonly column: number;
}

/** A scalar leaf: `key` is its path (`n.x`), `dims` every array dim along the path (outer first), `offsets` each element's byte offset, row-major. */
export interface RecordLeaf {
  readonly key: string;
  readonly dtype: Dtype;
  readonly dims: readonly number[];
  readonly count: number;
  readonly offsets: readonly number[];
}

export interface RecordType {
  readonly name: string;
  readonly members: ReadonlyMap<string, RecordMember>;
  readonly size: number;
  readonly align: number;
  readonly leaves: ReadonlyMap<string, RecordLeaf>;
  /** An OCCA vector type (`double2`) as a field of such a struct: a struct of its components x, y, z, w. */
  readonly vector?: VectorType;
  /** The names of its pointer fields (only a local may have them: record-pointers.ts). */
  readonly pointers?: readonly string[];
}

/** A field as declared: a scalar dtype or a nested record, and its array dims. */
export interface MemberSpec {
  readonly name: string;
  readonly dims: readonly number[];
  readonly dtype?: Dtype;
  readonly type?: RecordType;
  readonly pointer?: PointerMember;
}

/** C's layout of a struct with these fields, and its leaves. */
export function recordType(name: string, specs: readonly MemberSpec[]): RecordType {
  const members = new Map<string, RecordMember>();
  const leaves = new Map<string, RecordLeaf>();
  let at = 0;
  let align = 1;
  const pointers: string[] = [];
  for (const m of specs) {
    if (m.pointer) {
      // 8 bytes on x86-64 and aarch64, as host code lays it out; no storage of its own here.
      at = Math.ceil(at / 8) * 8;
      members.set(m.name, { ...m, offset: at });
      pointers.push(m.name);
      at += 8;
      align = Math.max(align, 8);
      continue;
    }
    const a = m.type ? m.type.align : byteSize(m.dtype!);
    const size = m.type ? m.type.size : byteSize(m.dtype!);
    at = Math.ceil(at / a) * a;
    members.set(m.name, { ...m, offset: at });
    const n = product(m.dims);
    if (m.dtype) {
      leaves.set(m.name, { key: m.name, dtype: m.dtype, dims: m.dims, count: n, offsets: Array.from({ length: n }, (_, k) => at + k * size) });
    } else {
      for (const l of m.type!.leaves.values()) {
        const base = at;
        const offsets = Array.from({ length: n }, (_, j) => l.offsets.map((o) => base + j * size + o)).flat();
        leaves.set(`${m.name}.${l.key}`, { key: `${m.name}.${l.key}`, dtype: l.dtype, dims: [...m.dims, ...l.dims], count: n * l.count, offsets });
      }
    }
    at += n * size;
    align = Math.max(align, a);
  }
  return { name, members, size: Math.ceil(at / align) * align, align, leaves, ...(pointers.length > 0 ? { pointers } : {}) };
}

/**
 * OCCA's vector type `v` as a field of a struct mixing types: a struct of its components, each
 * aligned to its own size, as in OCCA's serial mode (its `struct float4 { float x, y, z, w; }`) and
 * Loom's pointers to vectors: `float3` is 12 bytes, `double2` 16 bytes aligned to 8. (CUDA's
 * vector_types.h aligns float4 and double2 to 16 and OpenCL's float3 is 16 bytes: host code
 * packing such structs with those types has another layout; oklStructArg shows this one.)
 */
export function vectorRecord(v: VectorType, components: readonly string[]): RecordType {
  return { ...recordType(v.name, components.map((name) => ({ name, dims: [], dtype: v.dtype }))), vector: v };
}

/** The array dims of each segment of leaf `key`'s path, as declared (`pts.x` of `P pts[4]`: [[4], []]). */
export function pathDims(t: RecordType, key: string): number[][] {
  const out: number[][] = [];
  let at: RecordType | undefined = t;
  for (const seg of key.split(".")) {
    const m: RecordMember | undefined = at?.members.get(seg);
    out.push([...(m?.dims ?? [])]);
    at = m?.type;
  }
  return out;
}

/** The leaves under `prefix` (a nested struct's path; "" for all), keyed relative to it. */
export function leavesUnder(t: RecordType, prefix: string): [rel: string, leaf: RecordLeaf][] {
  if (prefix === "") return [...t.leaves].map(([k, l]) => [k, l]);
  return [...t.leaves].filter(([k]) => k.startsWith(`${prefix}.`)).map(([k, l]) => [k.slice(prefix.length + 1), l]);
}

export function product(dims: readonly number[]): number {
  return dims.reduce((p, n) => p * n, 1);
}
