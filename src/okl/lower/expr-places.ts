/**
 * The places names and pointers denote, for expressions.ts (split out of it): an element of what a
 * name binds (an argument at its offset, a temporary, its multi-dimensional subscripts recorded for
 * the row-layout check, a constant table, a pointer to one scalar, an array field of a struct passed
 * by value, row-major into one flat argument, a pointer chosen at run time among targets), the scalar
 * a pointer to one scalar points to (`*p`, `*(&x)`), and a field of a struct passed by value.
 *
 *   bindingElement(host, { kind: "array", name: "x", offset: e*8 }, [n], "x", pos, ctx)   // x[e*8 + n]
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { usable, type Binding, type Ctx } from "./bindings.js";
import { exprLabel, pointerBinding, type ExprLowerer } from "./inline.js";
import { regionAccess, type RegionAccess } from "./chosen-regions.js";
import { rowMajorIndex } from "./initializers.js";
import { chosenRead } from "./pointer-choice.js";
import type { RowAccess } from "./row-layout.js";
import { constIndex, tableRead } from "./tables.js";

/** What an element needs from the expression lowering: failures, and the accesses it records for later proofs. */
export interface ElementHost {
  readonly fail: (detail: string, pos: A.Pos) => never;
  /** Accesses through chosen pointers (chosen-regions.ts). */
  readonly regions: RegionAccess[];
  /** Subscripts of multi-dimensional local arrays (row-layout.ts). */
  readonly rows: RowAccess[];
  /** How many instructions precede the access. */
  readonly emitted: () => number;
}

/** Element `indices` of what `b` binds (a chosen pointer: of the target chosen); `label` names it in messages. */
export function bindingElement(host: ElementHost, b: Binding | undefined, indices: readonly Expr[], label: string, pos: A.Pos, ctx: Ctx): Expr {
  // Plain arguments and temporaries first, with no closure made (this runs on every subscript).
  if (b?.kind === "array" && !b.extents && !b.struct && indices.length <= 1) return { kind: "subscript", array: b.name, indices: [offsetBy(b.offset, indices[0] ?? c(0))] };
  if (b?.kind === "temp" && !b.struct && !b.offset && b.rank <= 1 && indices.length === b.rank) return { kind: "subscript", array: b.name, indices };
  const fail = (detail: string): never => host.fail(detail, pos);
  if (b?.kind === "choice") {
    // Reads through targets in one array at different offsets are recorded for the proof that writes stay apart (chosen-regions.ts).
    const note = (x: Expr, array: string, t: Binding) => void host.regions.push(regionAccess(x, array, t as { offset?: Expr }, ctx.within, false, label, pos, host.emitted()));
    return chosenRead(b, (t) => bindingElement(host, usable(t, fail), indices, label, pos, ctx), note);
  }
  if (b?.kind === "ref") {
    const zero = indices.every((i) => constIndex(i) === 0);
    if (indices.length > 1 || !zero) fail(`pointer "${label}" points to the scalar "${b.name}"; only *${label} or ${label}[0] can be read`);
    return b.place;
  }
  if (b?.kind === "table") return tableRead(b, indices, label, pos, host.fail);
  if (b?.kind === "array" && b.extents) {
    // An array field of a struct passed by value: row-major subscripts into one flat argument.
    if (indices.length !== b.extents.length) fail(`array field "${b.name}" has ${b.extents.length} dimension(s), subscripted with ${indices.length}`);
    return { kind: "subscript", array: b.name, indices: [rowMajorIndex(indices, b.extents)] };
  }
  if (b?.kind === "records") fail(`"${label}" holds structs "${b.struct}" (fields ${[...b.fields.keys()].join(", ")}); only their fields can be read and written (${b.name}[i].${[...b.fields.keys()][0]})`);
  if ((b?.kind === "array" || b?.kind === "temp") && b.struct) fail(`"${label}" is an array of struct "${b.struct.name}"; only its elements' fields can be read`);
  if (b?.kind === "array") {
    if (indices.length > 1) fail(`pointer argument "${label}" takes one subscript (it is a flat array)`);
    return { kind: "subscript", array: b.name, indices: [offsetBy(b.offset, indices[0] ?? c(0))] };
  }
  if (b?.kind === "temp") {
    if (b.offset && indices.length <= 1) return { kind: "subscript", array: b.name, indices: [offsetBy(b.offset, indices[0] ?? c(0))] };
    if (indices.length === 0 && b.rank === 1 && !b.struct) return { kind: "subscript", array: b.name, indices: [c(0)] }; // `*buf` is buf[0]
    if (indices.length !== b.rank) fail(`array "${label}" has ${b.rank} dimension(s), subscripted with ${indices.length}`);
    if (b.rank > 1) host.rows.push({ array: b.name, label, indices, within: ctx.within, preds: ctx.preds, pos }); // row-layout.ts
    return { kind: "subscript", array: b.name, indices };
  }
  if (b === undefined) return fail(`unknown identifier "${label}" (defines must be given with -D / opts.defines)`);
  return fail(`"${label}" is not an array`);
}

/**
 * `*p`, `p[0]` or `*(&x)` where `p` points to one scalar (a `ref` binding): that binding and the
 * pointer's label; undefined for every other expression.
 */
export function derefOf(lw: ExprLowerer, e: A.Expr, ctx: Ctx): { readonly ref: Extract<Binding, { kind: "ref" }>; readonly label: string } | undefined {
  let base: A.Expr;
  if (e.kind === "unary" && e.op === "*") base = e.operand;
  else if (e.kind === "index" && e.index.kind === "int" && e.index.value === 0) base = e.target;
  else return undefined;
  if (base.kind === "ident") {
    const b = ctx.scope.get(base.name);
    return b?.kind === "ref" ? { ref: b, label: base.name } : undefined;
  }
  if (base.kind === "unary" && base.op === "&" && base.operand.kind !== "index") {
    const b = pointerBinding(lw, base, ctx, exprLabel(base));
    return b.kind === "ref" ? { ref: b, label: exprLabel(base) } : undefined;
  }
  return undefined;
}

/** `c.cc.ccc` (only `.`) on a struct argument passed by value: the binding of that field, or undefined. */
export function byValueField(e: A.Expr, ctx: Ctx): Binding | undefined {
  const path: string[] = [];
  let t = e;
  while (t.kind === "member" && !t.arrow) {
    path.unshift(t.name);
    t = t.target;
  }
  if (t.kind !== "ident" || path.length === 0) return undefined;
  const b = ctx.scope.get(t.name);
  return b?.kind === "byValue" ? b.field(path, e.pos) : undefined;
}

/** `off + i`, or `i` without an offset. */
function offsetBy(off: Expr | undefined, i: Expr): Expr {
  return off ? { kind: "arith", op: "+", left: off, right: i } : i;
}
