/**
 * Declarations and copies of structs whose fields mix types (records, record-type.ts), shared by
 * the kernel's statements (kernel-statements.ts), its arguments (kernel-arguments.ts) and opaque
 * blocks (opaque.ts): a local is one private temporary per leaf, a local / `@shared` / `@exclusive`
 * array of them one flat temporary per leaf, a pointer argument one array argument per leaf the
 * kernel uses, and `a = b` between struct values one assignment per leaf element.
 *
 *   bcData bc = {1, {0.5, 1.5, 2.5}};   ->  bc_type = 1; bc_vals[0] = 0.5; …
 *   @shared bcData s[16];              ->  local double s_vals[48]; local int s_type[16]
 */
import { c, type Dtype, type Expr, type Temporary } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding, Ctx, PointerAlias } from "./bindings.js";
import { copyPointerFields } from "./record-pointers.js";
import { arrayExtents } from "./initializers.js";
import { aggregateScalars, arrayOf, recordInitType, recordScalarSlots } from "./aggregate-init.js";
import { pathDims, product, type RecordType } from "./record-type.js";
import type { RecordPlaces } from "./records.js";
import { isStructValue, pointerField, type StructPlace, type StructTable } from "./structs.js";
import { recordValueType } from "./records.js";
import { someAst } from "./ast-queries.js";

/** What declaring records asks of the lowering around it; `assign` emits one assignment (an instruction, or a block statement). */
export interface RecordDeclHost {
  readonly ex: {
    recordPlaces(e: A.Expr, ctx: Ctx): RecordPlaces | undefined;
    expr(e: A.Expr, ctx: Ctx): Expr;
    structPlace(e: A.Expr, ctx: Ctx): StructPlace | undefined;
    readonly vec: { typeOf(e: A.Expr, ctx: Ctx): { readonly name: string } | undefined };
  };
  fresh(base: string): string;
  addTemp(t: Temporary): void;
  fail(detail: string, pos: A.Pos): never;
  assign(lhs: Expr, rhs: Expr, pos: A.Pos): void;
}

/** A record as StructTable.recordFields gives it. */
export interface RecordSpec {
  readonly name: string;
  readonly fields: ReadonlyMap<string, Dtype>;
  readonly type: RecordType;
}

/**
 * `bcData bc = …, *p = &bc, s[4];` when `s` declares structs with mixed field types: each
 * declarator declared (pointers through `pointer`); false (nothing done) for every other
 * declaration. `memory`: where `@shared`/`@exclusive` are refused (inside opaque blocks), the reason.
 */
export function recordDeclaration(structs: StructTable, h: RecordDeclHost, s: A.Declaration, ctx: Ctx, pointer: (d: A.Declarator) => void, memory?: string): boolean {
  const lookup = structs.resolve(s.spec);
  const r = lookup && "reason" in lookup ? structs.recordFields(s.spec, true) : undefined;
  if (!r) return false;
  for (const d of s.declarators) {
    if (memory && (d.okl.shared || d.okl.exclusive)) h.fail(`@${d.okl.shared ? "shared" : "exclusive"} "${d.name}" ${memory}`, d.pos);
    // A pointer field is an alias bound by assignment (record-pointers.ts): one per struct local, none per element of an array.
    const p = r.type.pointers?.[0];
    if (p && d.pointers.length === 0 && (d.arrayDims.length > 0 || d.okl.shared)) {
      h.fail(`${d.okl.shared ? "@shared struct" : "array of struct"} "${d.name}": struct "${r.name}" has a pointer field (${pointerField({ name: p, pos: r.type.members.get(p)!.pointer! })}); only a struct local (\`${r.name} ${d.name.replace(/\W/g, "")};\`, not an array or @shared) may have one, bound to the array it is assigned`, d.pos);
    }
    if (d.pointers.length > 0) pointer(d);
    else if (d.arrayDims.length > 0) declareRecords(structs, h, r, d, ctx);
    else declareRecord(structs, h, r, d, ctx);
  }
  return true;
}

/** The name of a leaf's storage: `bc` and `n.x` give `bc_n_x`. */
function leafName(base: string, key: string): string {
  return `${base}_${key.replace(/\./g, "_")}`;
}

/**
 * `bcData bc;` (also `@exclusive`): one private temporary per leaf (a scalar, or a flat array of
 * an array field's elements), bound as a record; `= {…}` (fully braced: an array or struct field
 * takes its own braces; missing values are 0, as in C) or `= other` initializes it.
 */
export function declareRecord(structs: StructTable, h: RecordDeclHost, r: RecordSpec, d: A.Declarator, ctx: Ctx): void {
  sharedPlace(h, d, ctx);
  const fields = new Map<string, Binding>();
  for (const [key, leaf] of r.type.leaves) {
    const name = h.fresh(leafName(d.name, key));
    h.addTemp({ name, dtype: leaf.dtype, shape: leaf.count > 1 || leaf.dims.length > 0 ? [c(leaf.count)] : [], addressSpace: d.okl.shared ? "local" : "private", order: "C", dimTags: undefined });
    fields.set(key, { kind: "temp", name, rank: leaf.count > 1 || leaf.dims.length > 0 ? 1 : 0 });
  }
  const pointers = r.type.pointers && new Map(r.type.pointers.map((p): [string, PointerAlias] => [p, { binding: undefined, at: undefined, text: "" }]));
  const b: Binding = { kind: "record", name: d.name, struct: r.name, type: r.type, fields, ...(pointers ? { pointers } : {}) };
  ctx.scope.set(d.name, b);
  if (d.init === undefined) return;
  const self = h.ex.recordPlaces({ kind: "ident", name: d.name, pos: d.pos }, ctx)!;
  if (d.init.kind !== "initList") return copyRecord(h, self, d.init, ctx, d.pos);
  if (pointers) h.fail(`struct "${r.name}" "${d.name}" has pointer field${pointers.size > 1 ? "s" : ""} ${[...pointers.keys()].join(", ")}: initialize it field by field (\`${d.name}.${[...pointers.keys()][0]} = W;\`), not with {…}`, d.init.pos);
  const { items } = aggregateScalars(recordInitType(r.type), d.init, `struct "${r.name}" "${d.name}"`, d.name, (m, p) => h.fail(m, p), structValue(structs, h, ctx));
  recordScalarSlots(r.type).forEach(({ key, element }, k) => {
    const leaf = r.type.leaves.get(key)!;
    const item = items[k];
    h.assign(self.fields.get(leaf.count > 1 ? `${key}[${element}]` : key)!, { kind: "cast", dtype: leaf.dtype, value: item ? h.ex.expr(item, ctx) : c(0) }, d.pos);
  });
}

/** Whether an initializer item is a whole struct (or vector) value of the subobject's type (`{bcs[e], …}`, `{1, make_double2(x, y)}`). */
function structValue(structs: StructTable, h: RecordDeclHost, ctx: Ctx): (e: A.Expr, t: { readonly name: string }) => boolean {
  return (e, t) => {
    if (e.kind === "initList") return false;
    if (recordValueType(structs, e, ctx)?.name === t.name || h.ex.vec.typeOf(e, ctx)?.name === t.name) return true;
    return oneTypeStructValue(h.ex, e, ctx, t.name);
  };
}

/**
 * Whether `e` is a whole value of the one-type struct `name` (`ps[e]`); its subscripts are lowered
 * to know, so an item with a call in it (which could emit statements) is taken as no such value.
 */
export function oneTypeStructValue(ex: { structPlace(e: A.Expr, ctx: Ctx): StructPlace | undefined }, e: A.Expr, ctx: Ctx, name: string): boolean {
  if (someAst(e, (n) => n.kind === "call")) return false;
  const p = ex.structPlace(e, ctx);
  return p !== undefined && isStructValue(p) && p.layout!.name === name;
}

/** `@shared` memory is declared between the `@outer` and `@inner` loops. */
function sharedPlace(h: RecordDeclHost, d: A.Declarator, ctx: Ctx): void {
  if (d.okl.shared && ctx.inner) h.fail(`@shared "${d.name}" must be declared between @outer and @inner loops`, d.pos);
  // CUDA refuses initializers of __shared__ variables and OpenCL those of __local ones.
  if (d.okl.shared && d.init !== undefined) h.fail(`@shared "${d.name}" cannot have an initializer (CUDA and OpenCL refuse them on shared memory); assign it inside an @inner loop`, d.init.pos);
}

/**
 * `to = value` for struct values with mixed field types (`bc = bcs[i]`, `bcs[i] = bc`, `bc.n = *q`):
 * one assignment per leaf element. `refused`: the operator (`+=`, `@atomic`) that makes it an error.
 */
export function copyRecord(h: RecordDeclHost, to: RecordPlaces, value: A.Expr, ctx: Ctx, pos: A.Pos, refused?: string): void {
  if (refused) h.fail(`struct "${to.struct}": whole structs can only be copied with "=" (not "${refused}")`, pos);
  const from = h.ex.recordPlaces(value, ctx);
  if (!from || from.struct !== to.struct || from.fields.size !== to.fields.size) {
    h.fail(`a struct "${to.struct}" can only be assigned a struct "${to.struct}" (a local, an element of an array of them, *p or a nested struct field)${from ? `, not a struct "${from.struct}"` : ""}`, value.pos);
  }
  // Each leaf element is its own storage: copying one never changes another, so no staging is needed.
  for (const [f, x] of to.fields) h.assign(x, from.fields.get(f)!, pos);
  copyPointerFields(h, to.pointers, from!.pointers, to.struct, pos);
}

/**
 * `@shared bcData s_bc[16];` (also private and `@exclusive` arrays): one flat temporary per leaf
 * in that memory, element i's leaf elements at i*count … (`s_bc[t].vals[k]` is `s_bc_vals[3*t + k]`).
 */
export function declareRecords(structs: StructTable, h: RecordDeclHost, r: RecordSpec, d: A.Declarator, ctx: Ctx): void {
  sharedPlace(h, d, ctx);
  if (d.init !== undefined && d.init.kind !== "initList") h.fail(`array of struct "${r.name}" "${d.name}" must be initialized with {…}`, d.init.pos);
  const fail = (m: string, p: A.Pos): never => h.fail(m, p);
  const declared = arrayExtents(d, ctx.scope, fail, undefined, `array "${d.name}" needs a size`);
  const init = d.init && aggregateScalars(arrayOf(declared, recordInitType(r.type)), d.init as A.InitList, `array of struct "${r.name}" "${d.name}"`, d.name, fail, structValue(structs, h, ctx));
  const dims = declared.map((x, k) => x ?? (k === 0 ? init!.count! : 0));
  const n = product(dims);
  const names = new Map<string, string>();
  for (const [key, leaf] of r.type.leaves) {
    const name = h.fresh(leafName(d.name, key));
    h.addTemp({ name, dtype: leaf.dtype, shape: [c(n * leaf.count)], addressSpace: d.okl.shared ? "local" : "private", order: "C", dimTags: undefined });
    names.set(key, name);
  }
  const field = (f: string, pos: A.Pos): string => names.get(f) ?? h.fail(`struct "${r.name}" has no field "${f}" (its fields: ${[...r.fields.keys()].join(", ")})`, pos);
  ctx.scope.set(d.name, { kind: "records", name: d.name, struct: r.name, type: r.type, fields: r.fields, field, local: true, ...(dims.length > 1 ? { dims } : {}) });
  if (!init) return;
  // C zero-fills what the list leaves out: every scalar of every element is assigned.
  const slots = recordScalarSlots(r.type);
  for (let e = 0; e < n; e++) {
    slots.forEach(({ key, element }, k) => {
      const leaf = r.type.leaves.get(key)!;
      const item = init.items[e * slots.length + k];
      h.assign({ kind: "subscript", array: names.get(key)!, indices: [c(e * leaf.count + element)] }, { kind: "cast", dtype: leaf.dtype, value: item ? h.ex.expr(item, ctx) : c(0) }, d.pos);
    });
  }
}

/** A pointer argument's C layout, as Kernel.oklOptions.structArgs keeps it, and the arguments made per leaf. */
export interface RecordArg {
  readonly arg: string;
  readonly struct: string;
  readonly size: number;
  readonly align: number;
  readonly fields: readonly { readonly name: string; readonly dtype: Dtype; readonly offset: number; readonly elements?: readonly number[]; readonly dims: readonly (readonly number[])[] }[];
  readonly made: Map<string, string>;
}

/** What a split pointer argument asks of the argument lowering: a fresh array argument for leaf `key` (its index among the leaves given). */
export type MakeLeafArg = (name: string, dtype: Dtype, leafIndex: number) => void;

/**
 * `bcData *bcs`: one array argument per leaf the kernel uses, `<arg>_<leaf path>`, made on first
 * use by `make` (`bcs[i].vals[k]` is `bcs_vals[3*i + k]`); `layout` receives C's layout of the
 * struct for the host helpers (src/okl/struct-args.ts).
 */
export function recordsArgument(arg: string, r: RecordSpec, fresh: (base: string) => string, make: MakeLeafArg, fail: (m: string, p: A.Pos) => never): { binding: Binding; layout: RecordArg } {
  const keys = [...r.type.leaves.keys()];
  const made = new Map<string, string>();
  const layout: RecordArg = {
    arg, struct: r.name, size: r.type.size, align: r.type.align, made,
    fields: [...r.type.leaves.values()].map((l) => ({ name: l.key, dtype: l.dtype, offset: l.offsets[0]!, ...(l.count > 1 || l.dims.length > 0 ? { elements: l.offsets } : {}), dims: pathDims(r.type, l.key) })),
  };
  const field = (f: string, pos: A.Pos): string => {
    const memo = made.get(f);
    if (memo) return memo;
    const leaf = r.type.leaves.get(f) ?? fail(`struct "${r.name}" has no field "${f}" (its fields: ${keys.join(", ")})`, pos);
    const name = fresh(leafName(arg, f));
    make(name, leaf.dtype, keys.indexOf(f));
    made.set(f, name);
    return name;
  };
  return { binding: { kind: "records", name: arg, struct: r.name, type: r.type, fields: r.fields, field }, layout };
}
