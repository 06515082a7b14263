/**
 * Structs whose fields mix types (`struct { int id; double x; double vals[3]; struct { double x, y; } n; }`),
 * which have no one-dtype layout: each scalar leaf (record-type.ts) has storage of its own. A local
 * is one private temporary per leaf (a `record` binding: a scalar, or a flat array of the leaf's
 * elements), a pointer argument to them or a local array of them one flat array per leaf (a
 * `records` binding: element i's leaf elements at i*count … i*count + count - 1). Here: places
 * of fields, of whole (or nested) struct values, and pointers into them, as IR expressions.
 *
 *   bc.u, p->u, (*p).u   -> bc_u              bcs[i].u, q->u   -> bcs_u[i], bcs_u[k]
 *   bc.vals[k], bc.n.x   -> bc_vals[k], bc_n_x                  bcs[i].vals[k] -> bcs_vals[3*i + k]
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding, Ctx, PointerAlias } from "./bindings.js";
import { rowMajorIndex } from "./initializers.js";
import { leavesUnder, product, type PointerMember, type RecordMember, type RecordType } from "./record-type.js";
import { walkAst } from "./ast-queries.js";
import { add, mul, type StructTable } from "./structs.js";
import { componentIndex, type VectorType } from "./vectors.js";

/** What the record helpers ask of the expression lowering. */
export interface RecordHost {
  readonly file: { readonly structs: StructTable };
  expr(e: A.Expr, ctx: Ctx): Expr;
  fail(detail: string, pos: A.Pos, rule?: string): never;
}

type RecordB = Extract<Binding, { kind: "record" }>;
type RecordsB = Extract<Binding, { kind: "records" }>;

/** A whole struct value as one place per leaf element (`vals[2]`, `n.x`), in leaf order. */
export interface RecordPlaces {
  readonly struct: string;
  readonly fields: ReadonlyMap<string, Expr>;
  /** A vector field (`bc.v` of type `double2`): its type; its components are `fields`, in order. */
  readonly vector?: VectorType;
  /** A struct local's pointer fields (record-pointers.ts), copied with it. */
  readonly pointers?: ReadonlyMap<string, PointerAlias>;
}

type Step = { readonly kind: "index"; readonly index: A.Expr } | { readonly kind: "member"; readonly name: string; readonly pos: A.Pos } | { readonly kind: "deref" };

/** Where a walk along `bc.n.vals[k]` stands: a struct value (`member` undefined) or a field with `left` dims still to subscript. */
interface Cursor {
  readonly b: RecordB | RecordsB;
  /** A records binding's element (its offset included); undefined while none is chosen. */
  readonly elem: Expr | undefined;
  readonly type: RecordType;
  readonly path: readonly string[];
  readonly member: RecordMember | undefined;
  readonly subs: readonly Expr[];
  readonly left: number;
  /** The subscripts given so far of a multi-dimensional array of structs (`b[1]` of `bc_t b[2][3]`). */
  readonly rows: readonly Expr[];
  /** At a pointer field (`bc.usrwrk`) with steps left (`[k]`), which apply to the array it aliases. */
  readonly rest?: boolean;
}

/** `e` as a walk from a record or records variable, or undefined when it starts elsewhere. */
function walk(lw: RecordHost, e: A.Expr, ctx: Ctx): Cursor | undefined {
  // The variable first (no allocation): most expressions are not records.
  if (!lw.file.structs.hasRecords) return undefined;
  let root: A.Expr = e;
  for (;;) {
    if (root.kind === "member" || root.kind === "index") root = root.target;
    else if (root.kind === "unary" && root.op === "*") root = root.operand;
    else break;
  }
  if (root.kind !== "ident") return undefined;
  const rb = ctx.scope.get(root.name);
  if (rb?.kind !== "record" && rb?.kind !== "records") return undefined;
  const steps: Step[] = [];
  let x: A.Expr = e;
  for (;;) {
    if (x.kind === "member") {
      steps.unshift({ kind: "member", name: x.name, pos: x.pos });
      if (x.arrow) steps.unshift({ kind: "deref" });
      x = x.target;
    } else if (x.kind === "index") {
      steps.unshift({ kind: "index", index: x.index });
      x = x.target;
    } else if (x.kind === "unary" && x.op === "*") {
      steps.unshift({ kind: "deref" });
      x = x.operand;
    } else break;
  }
  const b = rb;
  const name = root.name;
  let cur: Cursor = { b, elem: b.kind === "records" && b.value ? (b.offset ?? c(0)) : undefined, type: b.type, path: [], member: undefined, subs: [], left: 0, rows: [] };
  let derefOk = b.kind === "record"; // `p->f` where p is `&s`
  for (const s of steps) {
    if (cur.member?.pointer) return { ...cur, rest: true };
    if (b.kind === "records" && cur.elem === undefined) {
      const rank = b.dims?.length ?? 1;
      if (s.kind === "member") {
        lw.fail(rank > 1 ? `"${name}" is an array of ${rank} dimensions of structs "${b.struct}"; use ${name}${[..."ijklmn"].slice(0, rank).map((x) => `[${x}]`).join("")}.${s.name}` : `"${name}" points to structs "${b.struct}"; use ${name}[i].${s.name} or ${name}->${s.name}`, s.pos);
      }
      const rows = [...cur.rows, s.kind === "index" ? lw.expr(s.index, ctx) : c(0)];
      if (rows.length < rank) {
        cur = { ...cur, rows };
        continue;
      }
      const i = rank > 1 ? rowMajorFolded(rows, b.dims!) : rows[0]!;
      cur = { ...cur, rows, elem: b.offset ? add(b.offset, i) : i };
      continue;
    }
    if (s.kind === "deref" || (derefOk && s.kind === "index" && s.index.kind === "int" && s.index.value === 0)) {
      // `p->f`, `(*p).f`, `p[0].f` with p = &s.
      if (!derefOk || cur.path.length > 0) lw.fail(`"*" or "->" on "${label(name, cur)}", which is not a pointer`, e.pos);
      derefOk = false;
      continue;
    }
    derefOk = false;
    if (s.kind === "index") {
      if (!cur.member || cur.left === 0) lw.fail(`"${label(name, cur)}" is ${cur.member ? "a scalar field" : `a value of struct "${cur.type.name}"`} and cannot be subscripted`, e.pos);
      const m = cur.member;
      const left = cur.left - 1;
      cur = { ...cur, subs: [...cur.subs, lw.expr(s.index, ctx)], left };
      if (left === 0 && m.type) cur = { ...cur, type: m.type, member: undefined };
      continue;
    }
    if (cur.member) lw.fail(cur.left > 0 ? `".${s.name}" on array field "${label(name, cur)}": subscript it first` : `".${s.name}" on "${label(name, cur)}", a scalar field`, s.pos);
    const m = cur.type.members.get(vectorAlias(cur.type, s.name)) ?? lw.fail(cur.type.vector
      ? `"${cur.type.name}" has no component "${s.name}"; its components are ${[...cur.type.members.keys()].join(", ")} (or s0…s${cur.type.members.size - 1}); swizzles such as ".xy" are not supported`
      : `struct "${cur.type.name}" has no field "${s.name}" (its fields: ${[...cur.type.members.keys()].join(", ")})`, s.pos);
    cur = { ...cur, path: [...cur.path, m.name], member: m, left: m.dims.length };
    if (m.dims.length === 0 && m.type) cur = { ...cur, type: m.type, member: undefined };
  }
  return cur;
}

/** The flat row-major index of `subs` into extents `dims`, constants folded (`b[1][2]` of `b[2][3]` is 5). */
function rowMajorFolded(subs: readonly Expr[], dims: readonly number[]): Expr {
  return subs.slice(1).reduce((lin, x, k) => add(mul(lin, dims[k + 1]!), x), subs[0]!);
}

/** A vector field's component alias (`s1` is `y`); other names as they are. */
function vectorAlias(t: RecordType, name: string): string {
  const k = t.vector ? componentIndex(t.vector, name) : undefined;
  return k === undefined ? name : [...t.members.keys()][k]!;
}

/**
 * The struct type of `e` when it is a whole value of, or inside, a struct mixing types (`bc`,
 * `bcs[i]`, `bc.uv`, `bcs[i].pts[1]`, `b[1][2]`), read from the syntax alone: no subscript is lowered, so asking
 * (vector-exprs.ts's typeOf, initializer lists) lowers nothing twice. Undefined otherwise, and for
 * a malformed path (the lowering of the use reports it).
 */
export function recordValueType(structs: StructTable, e: A.Expr, ctx: Ctx): RecordType | undefined {
  if (!structs.hasRecords || (e.kind !== "member" && e.kind !== "index" && e.kind !== "unary" && e.kind !== "ident")) return undefined;
  const steps: ("index" | "deref" | string)[] = [];
  let x: A.Expr = e;
  for (;;) {
    if (x.kind === "member") {
      steps.unshift(x.name);
      if (x.arrow) steps.unshift("deref");
      x = x.target;
    } else if (x.kind === "index" || (x.kind === "unary" && x.op === "*")) {
      steps.unshift(x.kind === "index" ? "index" : "deref");
      x = x.kind === "index" ? x.target : x.operand;
    } else break;
  }
  const b = x.kind === "ident" ? ctx.scope.get(x.name) : undefined;
  if (b?.kind !== "record" && b?.kind !== "records") return undefined;
  // Element steps first (a records binding not already at an element), then a deref of `&s` at most.
  let rows = b.kind === "records" && !b.value ? b.dims?.length ?? 1 : 0;
  let derefOk = b.kind === "record";
  let type = b.type;
  let member: RecordMember | undefined;
  let left = 0;
  for (const st of steps) {
    if (rows > 0) {
      if (st !== "index" && st !== "deref") return undefined;
      rows--;
      continue;
    }
    if (st === "deref" || (st === "index" && derefOk && member === undefined)) {
      if (!derefOk) return undefined;
      derefOk = false;
      continue;
    }
    derefOk = false;
    if (st === "index") {
      if (!member || left === 0) return undefined;
      if (--left === 0 && member.type) [type, member] = [member.type, undefined];
      continue;
    }
    const m = member ? undefined : type.members.get(vectorAlias(type, st));
    if (!m) return undefined;
    [member, left] = [m, m.dims.length];
    if (left === 0 && m.type) [type, member] = [m.type, undefined];
  }
  return rows === 0 && member === undefined ? type : undefined;
}

function label(name: string, cur: Cursor): string {
  return [name, ...cur.path].join(".");
}

/** The flat element index of leaf `key` (dims `dims`) for subscripts `subs` and element `j` of what they leave. */
function within(subs: readonly Expr[], dims: readonly number[], j: number): Expr {
  const rest = product(dims.slice(subs.length));
  if (subs.length === 0) return c(j);
  return add(mul(rowMajorIndex(subs, dims.slice(0, subs.length)), rest), c(j));
}

/** Element `flat` of leaf `key` of the cursor's variable, as an IR place. */
function leafPlace(cur: Cursor, key: string, flat: Expr, pos: A.Pos): Expr {
  const b = cur.b;
  if (b.kind === "record") {
    const t = b.fields.get(key) as Extract<Binding, { kind: "temp" }>;
    if (t.rank === 0 && !t.offset) return { kind: "var", name: t.name };
    return { kind: "subscript", array: t.name, indices: [t.offset ? add(t.offset, flat) : flat] };
  }
  const count = b.type.leaves.get(key)!.count;
  return { kind: "subscript", array: b.field(key, pos), indices: [add(mul(cur.elem!, count), flat)] };
}

/** The key of the cursor's current field (its path) or struct prefix. */
function keyOf(cur: Cursor): string {
  return cur.path.join(".");
}

/**
 * The pointer field a member expression names on a struct local (`bc.usrwrk`, `p->usrwrk` with
 * `p = &bc`, `(*p).usrwrk`), or undefined for every other expression.
 */
export function recordPointerField(
  lw: RecordHost, e: A.Expr, ctx: Ctx,
): { readonly label: string; readonly slot: PointerAlias; readonly pointer: PointerMember } | undefined {
  if (e.kind !== "member") return undefined;
  const cur = walk(lw, e, ctx);
  if (!cur?.member?.pointer || cur.rest || cur.b.kind !== "record") return undefined;
  const slot = cur.b.pointers?.get(keyOf(cur));
  return slot && { label: label(cur.b.name, cur), slot, pointer: cur.member.pointer };
}

/**
 * A scalar of a struct with mixed field types: `s.f`, `p->f`, `(*p).f`, `bcs[i].f`, `s.vals[k]`,
 * `s.n.x`, `bcs[i].pts[j].x` (a `record` or `records` binding); undefined for every other expression.
 */
export function recordField(lw: RecordHost, e: A.Expr, ctx: Ctx): Expr | undefined {
  if (e.kind !== "member" && e.kind !== "index") return undefined;
  const cur = walk(lw, e, ctx);
  if (!cur || cur.path.length === 0) return undefined;
  // `bc.usrwrk[k]`: a subscript of the array the field aliases (the general path, through recordPointer).
  if (cur.rest) return undefined;
  if (cur.member?.pointer) lw.fail(`pointer field "${label(cur.b.name, cur)}" used as a value; read through it (${label(cur.b.name, cur)}[k], *${label(cur.b.name, cur)})`, e.pos);
  // Here `e` is used as a scalar (pointer parameters ask recordPointer first).
  if (!cur.member) lw.fail(`"${label(cur.b.name, cur)}" is a value of struct "${cur.type.name}" used as a scalar; use one of its fields (${[...cur.type.members.keys()].join(", ")})`, e.pos);
  if (cur.left > 0) lw.fail(`array field "${label(cur.b.name, cur)}" used without ${cur.left > 1 ? `${cur.left} subscripts` : "a subscript"}`, e.pos);
  const key = keyOf(cur);
  const leaf = cur.b.type.leaves.get(key)!;
  return leafPlace(cur, key, within(cur.subs, leaf.dims, 0), e.pos);
}

/**
 * A whole struct with mixed field types, or a nested struct in one, as one place per leaf element,
 * for copies: a local (`bc`), an element of an array of them (`bcs[i]`, `p[0]`, `*p`), a nested
 * struct field (`bc.n`, `bcs[i].pts[1]`); undefined for every other expression.
 */
export function recordPlaces(lw: RecordHost, e: A.Expr, ctx: Ctx): RecordPlaces | undefined {
  const cur = walk(lw, e, ctx);
  if (!cur || cur.member || (cur.b.kind === "records" && cur.elem === undefined)) return undefined;
  const prefix = keyOf(cur);
  const fields = new Map<string, Expr>();
  for (const [rel, leaf] of leavesUnder(cur.b.type, prefix)) {
    const n = leaf.count / product(leaf.dims.slice(0, cur.subs.length));
    for (let j = 0; j < n; j++) fields.set(n > 1 ? `${rel}[${j}]` : rel, leafPlace(cur, leaf.key, within(cur.subs, leaf.dims, j), e.pos));
  }
  const pointers = cur.b.kind === "record" && cur.path.length === 0 ? cur.b.pointers : undefined;
  return { struct: cur.type.name, fields, ...(cur.type.vector ? { vector: cur.type.vector } : {}), ...(pointers ? { pointers } : {}) };
}

/**
 * What a device function's pointer parameter binds to when passed a part of such a struct: an
 * array field (`bc.vals`, `bcs[i].vals`, `bc.m[1]`) is a 1-D array at its first element; `&bc.n`
 * or `&bcs[i].n` of a nested struct is a record (or records) view of its leaves. Undefined for
 * every other expression (`&bc`, `&bcs[i]`, `&bc.u` take the general paths).
 */
export function recordPointer(lw: RecordHost, e: A.Expr, ctx: Ctx): Binding | undefined {
  const addr = e.kind === "unary" && e.op === "&";
  const target = addr ? e.operand : e;
  if (target.kind !== "member" && target.kind !== "index") return undefined;
  const cur = walk(lw, target, ctx);
  if (cur?.member?.pointer && !cur.rest) return pointerFieldAlias(lw, cur, addr, e.pos);
  // `&b[1][2]` of a multi-dimensional array of structs: a pointer to its element (`&bcs[i]` takes the general path).
  if (cur && addr && cur.path.length === 0 && cur.b.kind === "records" && cur.b.dims && cur.elem) return view(lw, cur, e.pos, false);
  // `b[1]` of `bc_t b[2][3]`, a row, passed as a `bc_t *`: a pointer to its first element.
  if (cur && !addr && cur.path.length === 0 && cur.b.kind === "records" && cur.b.dims && !cur.elem && cur.rows.length === cur.b.dims.length - 1) {
    const dims = cur.b.dims;
    const row = mul(rowMajorFolded(cur.rows, dims.slice(0, -1)), dims[dims.length - 1]!);
    return { ...cur.b, dims: undefined, value: false, offset: cur.b.offset ? add(cur.b.offset, row) : row };
  }
  if (!cur || cur.path.length === 0) return undefined;
  const b = cur.b;
  // `bcs[i].pts` or `bc.pts`, an array field of structs, decays to a pointer to its first element.
  if (cur.member?.type && cur.left === 1 && !addr) return view(lw, { ...cur, subs: [...cur.subs, c(0)], left: 0, type: cur.member.type, member: undefined }, e.pos, false);
  if (cur.member && cur.left > 0 && !addr) {
    if (cur.left > 1 || cur.member.type) lw.fail(`"${label(b.name, cur)}" passed as a pointer: only a 1-D array of scalars in a struct with mixed field types can be (subscript it down to one dimension)`, e.pos);
    const key = keyOf(cur);
    const flat = within(cur.subs, b.type.leaves.get(key)!.dims, 0);
    if (b.kind === "record") {
      const t = b.fields.get(key) as Extract<Binding, { kind: "temp" }>;
      const at = t.offset ? add(t.offset, flat) : flat;
      return { kind: "temp", name: t.name, rank: 1, ...(at.kind === "const" && at.value === 0 ? {} : { offset: at }) };
    }
    const at = add(mul(cur.elem!, b.type.leaves.get(key)!.count), flat);
    const name = b.field(key, e.pos);
    return b.local ? { kind: "temp", name, rank: 1, offset: at } : { kind: "array", name, offset: at };
  }
  if (!addr || cur.member) return undefined;
  return view(lw, cur, e.pos, false);
}

/** The array pointer field `bc.usrwrk` aliases (record-pointers.ts): what `bc.usrwrk[k]`, `*bc.usrwrk` and passing it read. */
function pointerFieldAlias(lw: RecordHost, cur: Cursor, addr: boolean, pos: A.Pos): Binding {
  const what = label(cur.b.name, cur);
  if (addr) lw.fail(`"&${what}": the address of pointer field "${what}" (a pointer to a pointer) is not supported`, pos);
  const slot = cur.b.kind === "record" ? cur.b.pointers?.get(keyOf(cur)) : undefined;
  if (!slot?.binding) {
    lw.fail(`pointer field "${what}" is read before it is assigned (reading through it is undefined in C); assign it an argument (\`${what} = W;\`, \`W + k\`) first`, pos);
  }
  return slot.binding;
}

/** The struct value the cursor stands at as a record (or records) binding of its leaves: `&bc.n` (a pointer), C's copy of `bcs[i]` (`value`). */
function view(lw: RecordHost, cur: Cursor, pos: A.Pos, value: boolean): Binding {
  const b = cur.b;
  if (cur.path.length === 0) return b.kind === "record" ? b : { ...b, offset: cur.elem!, value, dims: undefined };
  const prefix = keyOf(cur);
  const under = leavesUnder(b.type, prefix);
  const temp = (key: string) => (b as RecordB).fields.get(key) as Extract<Binding, { kind: "temp" }>;
  if (b.kind === "record" && cur.subs.length > 0 && under.every(([, leaf]) => !temp(leaf.key).offset)) {
    // `&bc.pts[1]` of a local: its temporaries seen as an array of structs "pt" from element 1, so `q[1]` is `bc.pts[2]`.
    const dims = under[0]![1].dims.slice(0, cur.subs.length);
    return {
      kind: "records", name: label(b.name, cur), struct: cur.type.name, type: cur.type, local: true, value,
      fields: new Map(under.map(([rel, leaf]) => [rel, leaf.dtype])),
      field: (f, at) => (b.fields.get(`${prefix}.${f}`) as Extract<Binding, { kind: "temp" }> | undefined)?.name ?? lw.fail(`struct "${cur.type.name}" has no field "${f}"`, at),
      offset: rowMajorFolded(cur.subs, dims),
    };
  }
  if (b.kind === "record") {
    const fields = new Map<string, Binding>();
    for (const [rel, leaf] of under) {
      const t = b.fields.get(leaf.key) as Extract<Binding, { kind: "temp" }>;
      const flat = within(cur.subs, leaf.dims, 0);
      const plain = cur.subs.length === 0 && t.rank === 0;
      fields.set(rel, plain ? t : { kind: "temp", name: t.name, rank: 1, offset: t.offset ? add(t.offset, flat) : flat });
    }
    return { kind: "record", name: label(b.name, cur), struct: cur.type.name, type: cur.type, fields };
  }
  // `&bcs[i].pts[1]`: element 1 of the array of structs pts is element i*2 + 1 of an array of them
  // (each leaf under pts holds 2 of its elements per struct, struct i's first), so a view of
  // struct P at that element; `q[1]` through it is the next element of pts, as in C.
  const dims = under[0]![1].dims.slice(0, cur.subs.length);
  const elem = cur.subs.length === 0 ? cur.elem! : add(mul(cur.elem!, product(dims)), rowMajorFolded(cur.subs, dims));
  return {
    kind: "records", name: label(b.name, cur), struct: cur.type.name, type: cur.type, local: b.local, value,
    fields: new Map(under.map(([rel, leaf]) => [rel, leaf.dtype])),
    field: (f, at) => b.field(`${prefix}.${f}`, at),
    offset: elem,
  };
}

/**
 * Parameter `p` of device function `f` taking a struct with mixed field types by value, passed
 * `a`: a view of the argument's leaves (C's copy, which `f` must not write: it reads the caller's
 * storage); undefined for every other parameter.
 */
export function recordByValue(lw: RecordHost, structs: StructTable, f: A.FunctionDef, p: A.Param, a: A.Expr, ctx: Ctx): Binding | undefined {
  const d = p.declarator;
  if (d.pointers.length + d.arrayDims.length > 0 || (p.spec.base.kind !== "struct" && p.spec.base.kind !== "named")) return undefined;
  const lookup = structs.resolve(p.spec);
  const r = lookup && "reason" in lookup ? structs.recordFields(p.spec) : undefined;
  if (!r) return undefined;
  let written = false;
  const root = (x: A.Expr): A.Expr => (x.kind === "member" || x.kind === "index" ? root(x.target) : x);
  for (const s of f.body?.items ?? []) {
    walkAst(s, (n) => {
      const target = n.kind === "assign" ? n.target : (n.kind === "unary" && (n.op === "++" || n.op === "--" || n.op === "&")) || n.kind === "postfix" ? n.operand : undefined;
      const t = target && root(target);
      written ||= t?.kind === "ident" && t.name === d.name;
    });
  }
  if (written) lw.fail(`device function "${f.name}" writes (or takes the address of) its parameter "${d.name}", a struct "${r.name}" passed by value; Loom passes it as a view of the caller's struct, so copy it into a local inside the function, or take a pointer`, d.pos);
  const cur = walk(lw, a, ctx);
  if (!cur || cur.member || (cur.b.kind === "records" && cur.elem === undefined)) lw.fail(`argument ${d.name} of "${f.name}" takes a struct "${r.name}"; pass a struct value (a local, an element of an array of them, *p or a nested struct field)`, a.pos);
  if (cur.type.name !== r.name) lw.fail(`argument ${d.name} of "${f.name}" takes a struct "${r.name}", not a struct "${cur.type.name}"`, a.pos);
  return view(lw, cur, a.pos, true);
}
