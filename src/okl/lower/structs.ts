/**
 * C structs in OKL kernels, for an IR without structs. A struct whose fields all have ONE scalar
 * type (nested structs and fixed-size arrays of that type included) has no padding in C: it is
 * exactly an array of that scalar. So `S *a` becomes an array of the scalar with one more,
 * innermost axis of extent `size` (the number of scalars in S), `a[i].f` becomes `a[i, offset(f)]`,
 * and a user's buffer of n structs (`Float32Array(2 * n)` for `struct { float re, im; }`) is read
 * with C's layout. Other structs (fields of different types, pointers, unions) are rejected with
 * the reason.
 *
 *   const t = new StructTable(unit, typedefs, builtin, constant);
 *   t.resolve(spec)   // { layout: { name: "Complex", dtype: "float32", size: 2, fields } }
 */
import { byteSize, c, dtypeKind, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { recordType, vectorRecord, type MemberSpec, type RecordType } from "./record-type.js";
import type { StructFieldLayout, StructLayout } from "./struct-layout.js";
import { componentNames, vectorLayout, vectorTypeNamed } from "./vectors.js";

export type { StructFieldLayout, StructLayout } from "./struct-layout.js";

/** What a type specifier names: a lowerable struct, a struct that is not (and why), or no struct (undefined). */
export type StructLookup = { readonly layout: StructLayout } | { readonly name: string; readonly reason: string };

export type StructBase = Extract<A.BaseType, { kind: "struct" }>;
type NamedBase = Extract<A.BaseType, { kind: "named" }>;

/** The struct definitions of a file, resolved on demand (memoized per definition). */
export class StructTable {
  private readonly tags = new Map<string, StructBase>();
  private readonly done = new Map<StructBase, StructLookup>();
  private readonly inProgress = new Set<StructBase>();
  /** Records by definition and the name they are known by (one type object per struct, so copies can compare them). */
  private readonly records = new Map<StructBase, Map<string, RecordType | string>>();
  /** Whether any struct of the file was split as a record (until then no expression needs records.ts's walk). */
  hasRecords = false;

  /**
   * `typedefs`: the file's non-pointer typedefs; `builtin`: the dtype of a scalar type name;
   * `constant`: the value of a compile-time integer (array field sizes).
   */
  constructor(
    unit: A.TranslationUnit,
    private readonly typedefs: ReadonlyMap<string, A.TypeSpec>,
    private readonly builtin: (name: string) => Dtype | undefined,
    private readonly constant: (e: A.Expr) => number | undefined,
  ) {
    const note = (spec: A.TypeSpec) => {
      const b = spec.base;
      if (b.kind === "struct" && b.name !== undefined && b.fields !== undefined) this.tags.set(b.name, b);
    };
    for (const it of unit.items) {
      if (it.kind === "declaration") note(it.spec);
      if (it.kind === "function") for (const p of it.params) note(p.spec);
    }
  }

  /** The struct `spec` names (`S`, `struct S`, a typedef of either), or undefined when it names none. */
  resolve(spec: A.TypeSpec): StructLookup | undefined {
    const t = this.target(spec);
    if (!t) return undefined;
    const def = this.find(t.base);
    if (def) {
      const r = this.define(def, def.name ?? "(anonymous)");
      // `typedef struct { … } S;`: the struct is known by the typedef's name.
      return t.name === (def.name ?? "(anonymous)") ? r : rename(r, t.name);
    }
    if (t.base.kind === "struct") return { name: t.name, reason: "it is declared but never defined" };
    // OCCA's vector types are structs of N scalars of one type (src/okl/vectors.ts).
    const v = vectorTypeNamed(t.base.name);
    return v && { layout: vectorLayout(v) };
  }

  /**
   * A struct that has no single-dtype layout (`{ int type; double vals[3]; }`) as a record
   * (record-type.ts): its leaves (scalar fields, array fields, fields of nested structs) with C's
   * layout; `fields` maps each leaf's path (`vals`, `n.x`) to its dtype. Undefined where a field is
   * a pointer, a union, a vector or not numeric, or `spec` names no struct.
   */
  recordFields(spec: A.TypeSpec, pointers = false): { readonly name: string; readonly fields: ReadonlyMap<string, Dtype>; readonly type: RecordType } | undefined {
    const d = this.definition(spec);
    const type = d && this.record(d.def, d.name, new Set(), pointers);
    return type && typeof type !== "string" ? { name: d.name, fields: new Map([...type.leaves].map(([k, l]) => [k, l.dtype])), type } : undefined;
  }

  /**
   * The record of struct `def` known as `name`, or why it has none. `pointers`: top-level pointer
   * fields to scalars are accepted (for a local, whose pointer field aliases an array: record-pointers.ts).
   */
  private record(def: StructBase, name: string, seen: ReadonlySet<StructBase>, pointers = false): RecordType | string {
    let byName = this.records.get(def);
    if (!byName) this.records.set(def, (byName = new Map()));
    const memoKey = pointers ? `${name}\u0000*` : name;
    const memo = byName.get(memoKey);
    if (memo !== undefined) return memo;
    const r = this.recordOf(def, name, seen, pointers);
    byName.set(memoKey, r);
    if (typeof r !== "string") this.hasRecords = true;
    return r;
  }

  private recordOf(def: StructBase, name: string, seen: ReadonlySet<StructBase>, pointers: boolean): RecordType | string {
    if (def.tag === "union") return "it is a union (its fields overlap)";
    if (seen.has(def)) return "it contains itself";
    const specs: MemberSpec[] = [];
    for (const f of def.fields ?? []) {
      const p = f.declarators.find((x) => x.pointers.length > 0);
      const dtype = this.scalar(f.spec);
      if (p && !(pointers && dtype !== undefined && f.declarators.every((x) => x.pointers.length === 1 && x.arrayDims.length === 0))) return pointerField(p);
      if (p) {
        const readOnly = f.spec.qualifiers.includes("const") ? { readOnly: true } : {};
        for (const x of f.declarators) specs.push({ name: x.name, dims: [], pointer: { dtype: dtype!, line: x.pos.line, column: x.pos.column, ...readOnly } });
        continue;
      }
      const inner = dtype === undefined ? this.definition(f.spec) : undefined;
      const vector = dtype === undefined && !inner ? vectorTypeNamed(typeName(f.spec)) : undefined;
      const type = vector ? vectorRecord(vector, componentNames(vector)) : inner && this.record(inner.def, inner.name, new Set([...seen, def]));
      if (typeof type === "string") return `field type "${inner!.name}" cannot be lowered (${type})`;
      const field = f.declarators[0]?.name ?? "?";
      if (dtype === undefined && !type) return `field "${field}" has type "${typeName(f.spec)}", which is not a numeric scalar type, an OCCA vector type or a struct`;
      for (const x of f.declarators) {
        const dims = x.arrayDims.map((e) => (e === undefined ? undefined : this.constant(e)));
        if (dims.some((v) => v === undefined || v < 1)) return `the size of array field "${x.name}" is not a positive compile-time integer`;
        specs.push({ name: x.name, dims: dims as number[], ...(type ? { type } : { dtype: dtype! }) });
      }
    }
    return specs.length > 0 ? recordType(name, specs) : "it has no fields";
  }

  /** The definition of the struct `spec` names (through typedefs and tags), whether or not it can be lowered. */
  definition(spec: A.TypeSpec): { readonly name: string; readonly def: StructBase } | undefined {
    const t = this.target(spec);
    const def = t && this.find(t.base);
    return t && def && { name: t.name, def };
  }

  /**
   * The struct or type name `spec` ends at through typedefs, with the name C knows it by (an
   * anonymous struct takes its typedef's); undefined for scalar types.
   */
  private target(spec: A.TypeSpec, seen: ReadonlySet<string> = new Set()): { readonly name: string; readonly base: StructBase | NamedBase } | undefined {
    const b = spec.base;
    if (b.kind === "struct") return { name: b.name ?? "(anonymous)", base: b };
    if (b.kind !== "named" || this.builtin(b.name) !== undefined || seen.has(b.name)) return undefined;
    const t = this.typedefs.get(b.name);
    if (!t) return { name: b.name, base: b };
    const r = this.target(t, new Set([...seen, b.name]));
    return r && (r.name === "(anonymous)" ? { ...r, name: b.name } : r);
  }

  /** The definition of a struct base (itself, or its tag's), or of a name (C++: `S *a` after `struct S { … };`). */
  private find(b: StructBase | NamedBase): StructBase | undefined {
    if (b.kind === "struct" && b.fields !== undefined) return b;
    return b.name === undefined ? undefined : this.tags.get(b.name);
  }

  private define(b: StructBase, name: string): StructLookup {
    const memo = this.done.get(b);
    if (memo) return memo;
    if (this.inProgress.has(b)) return { name, reason: "it contains itself" };
    this.inProgress.add(b);
    let r = this.layout(b, name);
    // Not one array of scalars: split into one storage per field (record-type.ts), or the reason why not.
    const rec = "reason" in r ? this.record(b, name, new Set()) : undefined;
    if (typeof rec === "string") r = { name, reason: rec };
    this.inProgress.delete(b);
    this.done.set(b, r);
    return r;
  }

  private layout(b: StructBase, name: string): StructLookup {
    const no = (reason: string): StructLookup => ({ name, reason });
    if (b.tag === "union") return no("it is a union (its fields overlap)");
    for (const f of b.fields ?? []) {
      const p = f.declarators.find((d) => d.pointers.length > 0);
      if (p) return no(pointerField(p));
    }
    const fields = new Map<string, StructFieldLayout>();
    const types: string[] = [];
    const scalars: Dtype[] = [];
    let dtype: Dtype | undefined;
    let offset = 0;
    for (const f of b.fields ?? []) {
      const inner = this.resolve(f.spec);
      if (inner && "reason" in inner) return no(`field type "${inner.name}" cannot be lowered (${inner.reason})`);
      const elem = inner ? inner.layout.dtype : this.scalar(f.spec);
      if (elem === undefined) return no(`field type "${typeName(f.spec)}" is not a numeric scalar type or such a struct`);
      for (const d of f.declarators) {
        if (d.pointers.length > 0) return no(`field "${d.name}" is a pointer`);
        const dims: number[] = [];
        for (const e of d.arrayDims) {
          const v = e === undefined ? undefined : this.constant(e);
          if (v === undefined || v < 1) return no(`the size of array field "${d.name}" is not a positive compile-time integer`);
          dims.push(v);
        }
        types.push(`${typeName(f.spec)} ${d.name}`);
        if (dtype !== undefined && !sameStorage(elem, dtype)) return no(`its fields have different types (${types.join(", ")}), so C may pad it`);
        dtype ??= elem;
        const struct = inner?.layout;
        fields.set(d.name, { name: d.name, offset, dims, struct, dtype: struct ? undefined : elem });
        const count = dims.reduce((p, n) => p * n, 1);
        for (let k = 0; k < count; k++) scalars.push(...(struct ? struct.scalars : [elem]));
        offset += count * (struct?.size ?? 1);
      }
    }
    if (dtype === undefined || offset === 0) return no("it has no fields");
    return { layout: { name, dtype, size: offset, fields, scalars } };
  }

  /** The dtype of a scalar type specifier (through typedefs), or undefined. */
  private scalar(spec: A.TypeSpec): Dtype | undefined {
    const b = spec.base;
    if (b.kind === "enum") return "int32";
    if (b.kind !== "builtin" && b.kind !== "named") return undefined;
    const d = this.builtin(b.name);
    if (d !== undefined) return d;
    const t = this.typedefs.get(b.name);
    return t && t !== spec ? this.scalar(t) : undefined;
  }
}

/**
 * A place of struct type, or inside one: array `array` at struct index `prefix` (complete with
 * `need` entries: 1 for a pointer argument, the rank for a local array), scalar `slot` inside the
 * struct, `dims` of an array field still to subscript, element type `layout` (undefined: scalar).
 *
 *   a[i].im  ->  { array: "a", prefix: [i], need: 1, slot: 1, dims: [], layout: undefined }  ->  a[i, 1]
 */
export interface StructPlace {
  readonly array: string;
  readonly prefix: readonly Expr[];
  readonly need: number;
  /** A pointer alias's offset (`S *p = a + k`), added to the first struct index. */
  readonly offset: Expr | undefined;
  readonly slot: Expr;
  readonly dims: readonly number[];
  readonly layout: StructLayout | undefined;
  /** The array's storage dtype, and the C type of the scalar field chosen (undefined: none chosen yet). */
  readonly storage: Dtype;
  readonly own: Dtype | undefined;
}

/** The place of variable `array` (a pointer argument or local array of `need` dims, or a struct local with need 0). */
export function structVariable(array: string, layout: StructLayout, need: number, offset?: Expr): StructPlace {
  return { array, prefix: [], need, offset, slot: c(0), dims: [], layout, storage: layout.dtype, own: undefined };
}

/** `p[i]`: the next struct index, or an element of an array field. */
export function placeIndex(p: StructPlace, i: Expr, fail: (msg: string) => never): StructPlace {
  if (p.prefix.length < p.need) {
    const idx = p.prefix.length === 0 && p.offset ? add(p.offset, i) : i;
    return { ...p, prefix: [...p.prefix, idx] };
  }
  if (p.dims.length === 0) return fail(p.layout ? `a value of struct "${p.layout.name}" cannot be subscripted` : "a scalar field cannot be subscripted");
  const stride = p.dims.slice(1).reduce((a, n) => a * n, 1) * (p.layout?.size ?? 1);
  return { ...p, slot: add(p.slot, mul(i, stride)), dims: p.dims.slice(1) };
}

/** `p.name` on a struct value. */
export function placeMember(p: StructPlace, name: string, fail: (msg: string) => never): StructPlace {
  if (p.prefix.length < p.need || p.dims.length > 0 || !p.layout) return fail(`".${name}" needs a struct value (subscript the array first)`);
  const f = p.layout.fields.get(name);
  if (!f) return fail(`struct "${p.layout.name}" has no field "${name}"; its fields are ${[...p.layout.fields.keys()].join(", ")}`);
  return { ...p, slot: add(p.slot, c(f.offset)), dims: f.dims, layout: f.struct, own: f.dtype };
}

/** Whether `p` is a whole struct value (all struct indices given, no field chosen or a struct field). */
export function isStructValue(p: StructPlace): boolean {
  return p.prefix.length === p.need && p.dims.length === 0 && p.layout !== undefined;
}

/** The `k`-th scalar of the place (a scalar field: k = 0) as a subscript of the lowered array. */
export function placeElement(p: StructPlace, k = 0): Expr {
  return { kind: "subscript", array: p.array, indices: [...p.prefix, add(p.slot, c(k))] };
}

/** Integer dtypes of one size (`int32`, `uint32`) can share storage; any other pair cannot. */
function sameStorage(a: Dtype, b: Dtype): boolean {
  if (a === b) return true;
  const int = (d: Dtype) => dtypeKind(d) === "int" || dtypeKind(d) === "uint";
  return int(a) && int(b) && byteSize(a) === byteSize(b);
}

/** `a + b` of index expressions, folding constants. */
export function add(a: Expr, b: Expr): Expr {
  if (a.kind === "const" && b.kind === "const" && !a.isFloat && !b.isFloat) return c(a.value + b.value);
  if (b.kind === "const" && b.value === 0) return a;
  if (a.kind === "const" && a.value === 0) return b;
  return { kind: "arith", op: "+", left: a, right: b };
}

/** `a * n` of an index expression, folding constants. */
export function mul(a: Expr, n: number): Expr {
  if (n === 1) return a;
  return a.kind === "const" && !a.isFloat ? c(a.value * n) : { kind: "arith", op: "*", left: a, right: c(n) };
}

/** Why a struct with a pointer field cannot be lowered (OCCA's reason), naming the field and where it is. */
export function pointerField(d: { readonly name: string; readonly pos: { readonly line: number; readonly column: number } }): string {
  return `field "${d.name}" is a pointer (line ${d.pos.line}:${d.pos.column}): OCCA copies a struct's bytes to the device as they are, so a host `
    + "pointer inside is no device address (OpenCL C forbids pointers in kernel-argument structs); pass what it points to as a pointer argument of the kernel";
}

/** The message for a struct that cannot be lowered. */
export function structReason(r: { readonly name: string; readonly reason: string }): string {
  return `struct "${r.name}" cannot be lowered: ${r.reason}; accepted are structs of numeric scalar fields, OCCA vector types (float4, double2, …), fixed-size arrays of them and nested such structs`;
}

function rename(r: StructLookup, name: string): StructLookup {
  return "layout" in r ? (r.layout.name === "(anonymous)" ? { layout: { ...r.layout, name } } : r) : { ...r, name: r.name === "(anonymous)" ? name : r.name };
}

function typeName(spec: A.TypeSpec): string {
  const b = spec.base;
  return b.kind === "builtin" || b.kind === "named" ? b.name : `${b.kind === "struct" ? b.tag : "enum"} ${b.name ?? "(anonymous)"}`;
}
