/**
 * The layout of a lowerable struct (structs.ts) as an array of scalars; also the layout of OCCA's
 * vector types (vectors.ts), which are structs of 2-16 components. Its own module so that
 * structs.ts and vectors.ts both use it without importing each other. (Structs whose fields mix
 * types have C's padded layout instead: record-type.ts.)
 */
import type { Dtype } from "../../ir/index.js";

/** A field of a lowerable struct: its first scalar's offset, its array dims, its struct type if any. */
export interface StructFieldLayout {
  readonly name: string;
  readonly offset: number;
  /** `float v[4]` -> [4] (row-major), [] for a plain field. */
  readonly dims: readonly number[];
  /** The field's own struct type (`CC cc;`), undefined for a scalar. */
  readonly struct: StructLayout | undefined;
  /** A scalar field's own C type (it may differ from the struct's storage dtype in signedness only). */
  readonly dtype: Dtype | undefined;
}

/**
 * A struct that is an array of `size` scalars stored as `dtype`. Scalars of one size that differ
 * in signedness only (`unsigned int` and `int`) share the storage dtype: `scalars[k]` is scalar k's
 * own C type, and a read converts to it, a write back (C's two's-complement conversions keep the bits).
 */
export interface StructLayout {
  readonly name: string;
  readonly dtype: Dtype;
  readonly size: number;
  readonly fields: ReadonlyMap<string, StructFieldLayout>;
  readonly scalars: readonly Dtype[];
}
