/**
 * C's initializer lists of aggregates (C11 6.7.9): arrays of structs, structs with array fields
 * and nested structs, fully braced or with braces elided. An aggregate's scalars are numbered in
 * C's order (declaration order, arrays row-major); a list gives each a value by that rule: a
 * braced item initializes the next subobject whole, an unbraced one the next subobject's first
 * scalar, and the items that follow its next scalars (elided braces) until it is full. Missing
 * scalars are zero, as in C. Designators are refused.
 *
 *   struct P { double x, y; }; struct P ps[2] = {{1, 2}, 3, 4};   // scalars [1, 2, 3, 4]
 *   aggregateScalars(arrayOf([2], structType), list, 'array "ps"', "ps", fail)  // { items: [1, 2, 3, 4], count: undefined }
 */
import type * as A from "../syntax/ast.js";
import type { Fail } from "./bindings.js";
import { product, type RecordType } from "./record-type.js";
import type { StructLayout } from "./struct-layout.js";

/** A C object as initialization sees it: a scalar, an array (`count` undefined: `T a[] = {…}`), a struct. */
export type InitType =
  | { readonly kind: "scalar" }
  | { readonly kind: "array"; readonly count: number | undefined; readonly elem: InitType }
  | { readonly kind: "struct"; readonly name: string; readonly members: readonly { readonly name: string; readonly type: InitType }[] };

const SCALAR: InitType = { kind: "scalar" };

/** `elem` in arrays of extents `dims` (outer first); `elem` itself for no dims. */
export function arrayOf(dims: readonly (number | undefined)[], elem: InitType): InitType {
  return dims.reduceRight<InitType>((t, n) => ({ kind: "array", count: n, elem: t }), elem);
}

/** How many scalars an object of type `t` has (a `[]` array: none yet). */
export function scalarCount(t: InitType): number {
  switch (t.kind) {
    case "scalar": return 1;
    case "array": return (t.count ?? 0) * scalarCount(t.elem);
    case "struct": return t.members.reduce((n, m) => n + scalarCount(m.type), 0);
  }
}

/** A struct with mixed field types (record-type.ts) as an initialization type. */
export function recordInitType(t: RecordType): InitType {
  return { kind: "struct", name: t.name, members: [...t.members.values()].map((m) => ({ name: m.name, type: arrayOf(m.dims, m.type ? recordInitType(m.type) : SCALAR) })) };
}

/** A struct of one scalar type (struct-layout.ts) as an initialization type: its scalar k is its storage slot k. */
export function layoutInitType(l: StructLayout): InitType {
  return { kind: "struct", name: l.name, members: [...l.fields.values()].map((f) => ({ name: f.name, type: arrayOf(f.dims, f.struct ? layoutInitType(f.struct) : SCALAR) })) };
}

/**
 * Where scalar k (C's order) of a struct with mixed field types is stored: its leaf (`pts.x`) and
 * the element of that leaf (`pts[1].x` is element 1 of leaf `pts.x`).
 */
export function recordScalarSlots(t: RecordType): { readonly key: string; readonly element: number }[] {
  const out: { key: string; element: number }[] = [];
  for (const m of t.members.values()) {
    const n = product(m.dims);
    if (!m.type) {
      for (let j = 0; j < n; j++) out.push({ key: m.name, element: j });
      continue;
    }
    const inner = recordScalarSlots(m.type);
    for (let j = 0; j < n; j++) for (const s of inner) out.push({ key: `${m.name}.${s.key}`, element: j * m.type.leaves.get(s.key)!.count + s.element });
  }
  return out;
}

/**
 * The value of each scalar of object `name` of type `t` initialized by `init`, in C's order
 * (undefined: zero), and the element count of a `[]` outer array. `what` names the object in errors.
 */
export function aggregateScalars(
  t: InitType, init: A.InitList, what: string, name: string, fail: Fail, isValueOf?: (e: A.Expr, t: Extract<InitType, { kind: "struct" }>) => boolean,
): { readonly items: (A.Expr | undefined)[]; readonly count: number | undefined } {
  const out: (A.Expr | undefined)[] = [];
  const accepted = "accepted are lists of values in C's order, each struct or array in braces of its own or with its braces left out";
  const describe = (x: InitType): string => (x.kind === "struct" ? `struct "${x.name}"` : x.kind === "array" ? `an array of ${x.count ?? "?"}` : "a scalar");

  /** Fill `x` at scalar `base` from `list`, a braced initializer of it; returns the scalars it spans. */
  const braced = (x: InitType, list: A.InitList, base: number, where: string): number => {
    const d = list.designators.findIndex((y) => y !== undefined);
    if (d >= 0) fail(`${what}: designated initializers are not supported (in ${where}); ${accepted}`, list.items[d]?.pos ?? list.pos);
    if (x.kind === "scalar") {
      if (list.items.length !== 1) fail(`${what}: ${where} is a scalar, initialized with ${list.items.length === 0 ? "empty braces" : `${list.items.length} values`}`, list.pos);
      const v = list.items[0]!;
      if (v.kind === "initList") return braced(x, v, base, where);
      out[base] = v;
      return 1;
    }
    const it = { k: 0 };
    const spans = elided(x, list.items, it, base, where);
    if (it.k < list.items.length) fail(`${what}: too many initializers for ${where} (${describe(x)}); ${accepted}`, list.items[it.k]!.pos);
    return spans;
  };

  /** Fill the subobjects of `x` at `base` in order from `items[it.k…]` (its own braces given, or elided); returns the scalars it spans. */
  const elided = (x: InitType, items: readonly A.Expr[], it: { k: number }, base: number, where: string): number => {
    if (x.kind === "scalar") {
      out[base] = items[it.k++]!;
      return 1;
    }
    // An expression of the struct's own type (`{bcs[e], 3}`) initializes it whole, as in C: its scalars are that value's.
    if (x.kind === "struct" && isValueOf?.(items[it.k]!, x)) {
      scalarPaths(x, items[it.k++]!).forEach((e, k) => (out[base + k] = e));
      return scalarCount(x);
    }
    const subs = x.kind === "struct" ? x.members.map((m) => ({ type: m.type, where: `${where}.${m.name}` })) : undefined;
    const count = x.kind === "array" ? x.count : subs!.length;
    let at = 0;
    for (let j = 0; it.k < items.length && (count === undefined || j < count); j++) {
      const sub = subs ? subs[j]! : { type: (x as Extract<InitType, { kind: "array" }>).elem, where: `${where}[${j}]` };
      const item = items[it.k]!;
      if (item.kind === "initList") {
        it.k++;
        braced(sub.type, item, base + at, sub.where);
      } else elided(sub.type, items, it, base + at, sub.where);
      at += scalarCount(sub.type);
    }
    return x.kind === "array" && x.count === undefined ? at : scalarCount(x);
  };

  const spans = braced(t, init, 0, name);
  const count = t.kind === "array" && t.count === undefined ? Math.max(1, Math.ceil(spans / scalarCount(t.elem))) : undefined;
  const total = count !== undefined ? count * scalarCount((t as Extract<InitType, { kind: "array" }>).elem) : scalarCount(t);
  return { items: Array.from({ length: total }, (_, k) => out[k]), count };
}

/** The scalars of value `e` of type `t` as expressions, in C's order: `e.type`, `e.vals[0]`, `e.pts[1].x`. */
function scalarPaths(t: InitType, e: A.Expr): A.Expr[] {
  switch (t.kind) {
    case "scalar": return [e];
    case "array": return Array.from({ length: t.count ?? 0 }, (_, j) => scalarPaths(t.elem, { kind: "index", target: e, index: { kind: "int", value: j, text: String(j), suffix: "", pos: e.pos }, pos: e.pos })).flat();
    case "struct": return t.members.flatMap((m) => scalarPaths(m.type, { kind: "member", target: e, name: m.name, arrow: false, pos: e.pos }));
  }
}
