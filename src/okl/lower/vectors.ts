/**
 * OCCA's vector types (`float2/3/4`, `double…`, `int…`, `uint…`, `char…`, `uchar…`, `short…`,
 * `ushort…`, `long…`, `ulong…`) for an IR without them: scalarization. A vector value is its N
 * component expressions; a vector local or inlined parameter is one scalar per component; a
 * pointer to vectors is an array with one more, innermost axis of extent N (the layout of OCCA's
 * serial mode and CUDA: `float3` is 12 bytes, not OpenCL's 16), so `p[i].y` is `p[i, 1]`.
 * The functions follow OCCA's serial definitions (include/occa/defines/vector.hpp): componentwise
 * `+ - * /` with vectors and scalars (a scalar operand is converted to the component type first),
 * `length(v) = sqrt(Σ v_k²)`, `normalize(v) = v * (T)(1.0 / length(v))` (the reciprocal in
 * double), `dot(a, b) = Σ a_k b_k`, `clamp(v, lo, hi)` componentwise
 * `v < lo ? lo : (hi < v ? hi : v)`.
 *
 *   vectorTypeNamed("float3")   // { name: "float3", dtype: "float32", size: 3 }
 */
import { c, dtypeKind, type Dtype, type Expr } from "../../ir/index.js";
import type { StructFieldLayout, StructLayout } from "./struct-layout.js";

/** A vector type: its name, component dtype and number of components. */
export interface VectorType {
  readonly name: string;
  readonly dtype: Dtype;
  readonly size: number;
}

/** OCCA's vector element type names and their dtypes. */
const ELEMENTS: Readonly<Record<string, Dtype>> = {
  float: "float32", double: "float64", int: "int32", uint: "uint32", char: "int8", uchar: "uint8",
  short: "int16", ushort: "uint16", long: "int64", ulong: "uint64",
};

/** The component names of a vector of `size` components (`x y z w`; `s0 s1 …` are aliases). */
export const COMPONENTS = ["x", "y", "z", "w"] as const;

/** The vector type a type name denotes (`float3`), or undefined. */
export function vectorTypeNamed(name: string): VectorType | undefined {
  const m = /^([a-z]+)([234])$/.exec(name);
  const dtype = m ? ELEMENTS[m[1]!] : undefined;
  return dtype === undefined ? undefined : { name, dtype, size: Number(m![2]) };
}

/** The index of component `name` (`y`, `s1`) of a vector of type `t`, or undefined. */
export function componentIndex(t: VectorType, name: string): number | undefined {
  const k = COMPONENTS.indexOf(name as (typeof COMPONENTS)[number]);
  const s = /^s([0-3])$/.exec(name);
  const i = k >= 0 ? k : s ? Number(s[1]) : -1;
  return i >= 0 && i < t.size ? i : undefined;
}

/** The component names of `t` (`x, y, z`), for messages and argument names. */
export function componentNames(t: VectorType): readonly string[] {
  return COMPONENTS.slice(0, t.size);
}

/**
 * `t` as a struct layout of N scalars (`x y z` at offsets 0 1 2, and the aliases `s0 s1 s2`): what
 * pointers to vectors and arrays of vectors are lowered with (src/okl/structs.ts).
 */
export function vectorLayout(t: VectorType): StructLayout {
  const memo = layoutsByName.get(t.name);
  if (memo) return memo;
  const fields = new Map<string, StructFieldLayout>();
  for (let k = 0; k < t.size; k++) {
    fields.set(COMPONENTS[k]!, { name: COMPONENTS[k]!, offset: k, dims: [], struct: undefined, dtype: t.dtype });
  }
  for (let k = 0; k < t.size; k++) fields.set(`s${k}`, { name: `s${k}`, offset: k, dims: [], struct: undefined, dtype: t.dtype });
  const layout: StructLayout = { name: t.name, dtype: t.dtype, size: t.size, fields, scalars: Array<Dtype>(t.size).fill(t.dtype) };
  vectorLayouts.set(layout, t);
  layoutsByName.set(t.name, layout);
  return layout;
}
const vectorLayouts = new WeakMap<StructLayout, VectorType>();
const layoutsByName = new Map<string, StructLayout>();

/** The vector type a struct layout stands for (made by `vectorLayout`), or undefined for a real struct. */
export function layoutVector(l: StructLayout | undefined): VectorType | undefined {
  return l === undefined ? undefined : vectorLayouts.get(l);
}

/** Component arithmetic of `t`: C computes char/short in int and converts back to the component type. */
export function narrow(t: VectorType, e: Expr): Expr {
  const d = t.dtype;
  return d === "int8" || d === "uint8" || d === "int16" || d === "uint16" ? { kind: "cast", dtype: d, value: e } : e;
}

/** `e` converted to the component type (a scalar operand of a vector operator, a constructor argument). */
export function toComponent(t: VectorType, e: Expr): Expr {
  if (e.kind === "const" && e.dtype === t.dtype) return e;
  return { kind: "cast", dtype: t.dtype, value: e };
}

/** Σ a_k * b_k, left to right as OCCA writes it. */
export function dotOf(t: VectorType, a: readonly Expr[], b: readonly Expr[]): Expr {
  let s: Expr = { kind: "arith", op: "*", left: a[0]!, right: b[0]! };
  for (let k = 1; k < t.size; k++) s = { kind: "arith", op: "+", left: s, right: { kind: "arith", op: "*", left: a[k]!, right: b[k]! } };
  return narrow(t, s);
}

/** OCCA's `length(v)`: `sqrt(Σ v_k²)` returned as the component type. */
export function lengthOf(t: VectorType, v: readonly Expr[]): Expr {
  const r: Expr = { kind: "call", fn: "sqrt", args: [dotOf(t, v, v)] };
  return dtypeKind(t.dtype) === "float" ? r : { kind: "cast", dtype: t.dtype, value: r };
}

/** OCCA's `normalize(v)`: `invNorm = (T)(1.0 / length(v))`, then `invNorm * v_k`. */
export function normalizeOf(t: VectorType, v: readonly Expr[]): Expr[] {
  const inv: Expr = {
    kind: "cast", dtype: t.dtype,
    value: { kind: "arith", op: "/", left: c(1, "float64", true), right: { kind: "cast", dtype: "float64", value: lengthOf(t, v) } },
  };
  return v.map((x) => narrow(t, { kind: "arith", op: "*", left: inv, right: x }));
}

/** OCCA's scalar `clamp(val, min, max)`: `val < min ? min : (max < val ? max : val)`. */
export function clampOf(val: Expr, lo: Expr, hi: Expr): Expr {
  return {
    kind: "if", cond: { kind: "compare", op: "<", left: val, right: lo }, then: lo,
    else: { kind: "if", cond: { kind: "compare", op: "<", left: hi, right: val }, then: hi, else: val },
  };
}

/** `cross(a, b)` of 3-component vectors (OpenCL's and CUDA's helper; OCCA's serial header has none). */
export function crossOf(t: VectorType, a: readonly Expr[], b: readonly Expr[]): Expr[] {
  const m = (i: number, j: number): Expr => ({ kind: "arith", op: "*", left: a[i]!, right: b[j]! });
  const d = (i: number, j: number): Expr => narrow(t, { kind: "arith", op: "-", left: m(i, j), right: m(j, i) });
  return [d(1, 2), d(2, 0), d(0, 1)];
}
