/**
 * Pointer fields of struct locals (nekRS's `bcData`: `@globalPtr const dfloat *usrwrk;`). A local
 * struct has no bytes in the IR (one temporary per scalar leaf, records.ts), so its pointer field
 * holds no address either: it is an alias, like a local pointer (kernel-pointers.ts), bound by its
 * first assignment to the array it points into, with the offset (`bc.usrwrk = W + k;`). Reads
 * through it (`bc.usrwrk[i]`, `bc->usrwrk[i]` in a device function given `&bc`, `*bc.usrwrk`) are
 * reads of that array. A later assignment must give the same alias: one assigning another array or
 * offset, here or on another path (`if (a) bc.p = U; else bc.p = V;`), has no one alias and is refused.
 *
 *   struct bcData bc; bc.usrwrk = W + 2*offset; f(&bc);   // in f: bc->usrwrk[bc->idM]  ->  W[2*offset + bc_idM]
 */
import type * as A from "../syntax/ast.js";
import type { Binding, Ctx, PointerAlias } from "./bindings.js";
import { exprLabel, pointerBinding, type ExprLowerer } from "./inline.js";
import { recordPointerField, type RecordHost } from "./records.js";

/** `bc.usrwrk = W;` binding a struct local's pointer field; false where `e` is no such assignment. */
export function assignPointerField(lw: ExprLowerer, e: A.Expr, ctx: Ctx): boolean {
  // Every assignment and update statement comes here first (kernel statements and opaque blocks).
  const place = e.kind === "assign" ? e.target : (e.kind === "unary" && (e.op === "++" || e.op === "--")) || e.kind === "postfix" ? e.operand : undefined;
  if (place !== undefined) refuseConstFieldWrite(lw, place, ctx);
  if (e.kind !== "assign" || e.target.kind !== "member") return false;
  const field = recordPointerField(lw, e.target, ctx);
  if (!field) return false;
  if (e.op !== "=") lw.fail(`pointer field "${field.label}" can only be assigned with "=" (pointer arithmetic on a field, \`${field.label} ${e.op} …\`, is not supported: assign \`${field.label} = W + k\`)`, e.pos);
  bind(lw, field.label, field.slot, pointerBinding(lw, e.value, ctx, field.label), exprLabel(e.value), e.pos);
  return true;
}

/** `to = from` of struct locals: each pointer field `from` has bound is bound in `to` too (the same rule as an assignment). */
export function copyPointerFields(lw: { fail(detail: string, pos: A.Pos): never }, to: ReadonlyMap<string, PointerAlias> | undefined, from: ReadonlyMap<string, PointerAlias> | undefined, label: string, pos: A.Pos): void {
  for (const [name, slot] of to ?? []) {
    const src = from?.get(name);
    if (src?.binding) bind(lw, `${label}.${name}`, slot, src.binding, src.text, pos);
  }
}

function bind(lw: { fail(detail: string, pos: A.Pos): never }, label: string, slot: PointerAlias, b: Binding, text: string, pos: A.Pos): void {
  if (slot.binding === undefined) {
    slot.binding = b;
    slot.at = pos;
    slot.text = text;
    return;
  }
  if (sameAlias(slot.binding, b)) return;
  lw.fail(
    `pointer field "${label}" is assigned "${text}" here and "${slot.text}" at line ${slot.at!.line}: Loom binds a struct's pointer field to one array `
      + "for the whole kernel (an alias, not a stored address), so it must be assigned the same argument with the same offset on every path; "
      + "use a second struct, or pass the other array to the device function as a pointer argument",
    pos,
  );
}

/** Whether two aliases are the same array at the same offset (compared as data: bindings are plain records, apart from a records binding's field lookup). */
function sameAlias(a: Binding, b: Binding): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || ("name" in a && "name" in b && a.name !== b.name)) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Refuses a write through a struct local's pointer-to-const field, as C does: `bc.w[i] = x`,
 * `*bc.w = x`, `*(bc.w + k) = x`, `bc->w[i] += x` in a device function given `&bc` (`target` is the
 * place assigned, incremented or decremented). Anything else returns at once (a syntactic test first:
 * every assignment asks).
 */
export function refuseConstFieldWrite(lw: RecordHost, target: A.Expr, ctx: Ctx): void {
  let base = target.kind === "index" ? target.target : target.kind === "unary" && target.op === "*" ? target.operand : undefined;
  if (base?.kind === "binary" && (base.op === "+" || base.op === "-")) base = base.left.kind === "member" ? base.left : base.right;
  if (base?.kind !== "member") return;
  const field = recordPointerField(lw, base, ctx);
  if (!field?.pointer.readOnly) return;
  const p = field.pointer;
  lw.fail(
    `cannot write through pointer field "${field.label}": it is declared at line ${p.line}:${p.column} as a pointer to const, `
      + "which C does not let a program write through; drop `const` from the field, or write the array through the kernel argument itself",
    target.pos,
  );
}
