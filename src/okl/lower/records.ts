/**
 * Structs whose fields mix types (`struct { int id; double x; }`), which have no one-dtype layout:
 * a local is one private scalar per field (a `record` binding), a pointer argument to them or a
 * local array of them one array per field (a `records` binding). Here: their fields and whole
 * values as IR places.
 *
 *   bc.u, p->u, (*p).u   -> bc_u (a private scalar)          bcs[i].u, q->u -> bcs_u[i], bcs_u[k]
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding, Ctx } from "./bindings.js";

/** What the record helpers ask of the expression lowering. */
export interface RecordHost {
  expr(e: A.Expr, ctx: Ctx): Expr;
  fail(detail: string, pos: A.Pos, rule?: string): never;
}

/** A whole struct value as one place per field, in field order. */
export interface RecordPlaces {
  readonly struct: string;
  readonly fields: ReadonlyMap<string, Expr>;
}

/**
 * `s.f`, `p->f` or `(*p).f` on a local of a struct with mixed field types (a `record` binding;
 * `p` is `&s` passed to a device function): the field's private scalar; undefined for every other
 * expression.
 */
export function recordField(lw: RecordHost, e: A.Expr, ctx: Ctx): Expr | undefined {
  if (e.kind !== "member") return undefined;
  let t = e.target;
  if (!e.arrow && t.kind === "unary" && t.op === "*") t = t.operand;
  const deref = e.arrow || t !== e.target;
  // `bc[i].u` on an array of such structs (a split pointer argument or a local array): `bc_u[i]`.
  if (!deref && t.kind === "index" && t.target.kind === "ident") {
    const r = ctx.scope.get(t.target.name);
    if (r?.kind === "records") return recordsField(r, lw.expr(t.index, ctx), e);
  }
  if (t.kind !== "ident") return undefined;
  const b = ctx.scope.get(t.name);
  if (b?.kind === "records") {
    if (!deref) lw.fail(`"${t.name}" points to structs "${b.struct}"; use ${t.name}[i].${e.name} or ${t.name}->${e.name}`, e.pos);
    return recordsField(b, c(0), e);
  }
  if (b?.kind !== "record") return undefined;
  const f = b.fields.get(e.name);
  if (f?.kind !== "temp") return lw.fail(`struct "${b.struct}" has no field "${e.name}" (its fields: ${[...b.fields.keys()].join(", ")})`, e.pos);
  return { kind: "var", name: f.name };
}

/**
 * A whole struct with mixed field types as one place per field, for copies: a local (`bc`), an
 * element of an array of them (`bcs[i]`, `p[0]`) or `*p`; undefined for every other expression.
 */
export function recordPlaces(lw: RecordHost, e: A.Expr, ctx: Ctx): RecordPlaces | undefined {
  let base = e;
  let index: Expr | undefined;
  if (e.kind === "index") [base, index] = [e.target, lw.expr(e.index, ctx)];
  else if (e.kind === "unary" && e.op === "*") [base, index] = [e.operand, c(0)];
  if (base.kind !== "ident") return undefined;
  const b = ctx.scope.get(base.name);
  if (b?.kind === "record" && index === undefined) {
    return { struct: b.struct, fields: new Map([...b.fields].map(([f, x]) => [f, { kind: "var", name: (x as { name: string }).name }])) };
  }
  if (b?.kind !== "records" || index === undefined) return undefined;
  const at: Expr = b.offset ? { kind: "arith", op: "+", left: b.offset, right: index } : index;
  return { struct: b.struct, fields: new Map([...b.fields.keys()].map((f) => [f, { kind: "subscript", array: b.field(f, e.pos), indices: [at] }])) };
}

/** Field `e.name` of element `i` of a records binding: an element of that field's array. */
function recordsField(b: Extract<Binding, { kind: "records" }>, i: Expr, e: Extract<A.Expr, { kind: "member" }>): Expr {
  const index: Expr = b.offset ? { kind: "arith", op: "+", left: b.offset, right: i } : i;
  return { kind: "subscript", array: b.field(e.name, e.pos), indices: [index] };
}
