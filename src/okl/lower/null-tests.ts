/**
 * Null tests of pointers (nekRS's optional arrays: `if (b)`, `if (!b)`, `b ? b[i] : 0`, `b != NULL`,
 * `b == nullptr`, `b != 0`). A kernel's pointer argument may be passed as NULL (`run(k, { b: null })`,
 * or a NULL pointer from a C host): whether it was is a value argument the host computes
 * (`b_passed`, Kernel.oklOptions.derivedArgs `okl_passed(b)`, 1 or 0), which the test reads; an
 * argument passed as NULL has no elements, so reading one is the interpreter's bounds error and the
 * native backends' bounds proof refuses a read the test does not guard. A pointer into an argument
 * (`p = b + k`, a device function's parameter given `b`, a struct local's pointer field `bc.usrwrk = b`
 * tested as `bc->usrwrk` in a device function given `&bc`) tests its argument. Local arrays, file-scope
 * tables and addresses of scalars are never NULL in C (the test is 1); a pointer chosen at run time
 * among several is refused.
 *
 *   if (b) x[i] = b[i];   // if (b_passed != 0) x[i] = b[i]
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding, Ctx, Fail } from "./bindings.js";

/** What the test of a pointer needs from the kernel lowering. */
export interface NullTestHost {
  /** The flag that pointer argument `array` was passed (an int32 value argument, 1 or 0). */
  readonly passed: (array: string, label: string, pos: A.Pos) => Expr;
  /** The alias a struct local's pointer field holds (`bc.usrwrk`, `bc->usrwrk` given `&bc`; unset before its first assignment), undefined for other members. */
  readonly pointerField: (e: A.Member, ctx: Ctx) => { readonly label: string; readonly binding: Binding | undefined } | undefined;
  readonly fail: Fail;
}

/** A pointer C may test for NULL: a name (pointerNamed) or a struct local's pointer field, with its label. */
export interface TestedPointer { readonly binding: Binding; readonly label: string }

/**
 * What `e` tests where it is a pointer, else undefined. A pointer field tests the array its
 * assignment bound (`bc.usrwrk = W;` then `if (bc->usrwrk)` tests W); one tested before any
 * assignment is refused (C reads an indeterminate pointer there).
 */
export function testedPointer(e: A.Expr, ctx: Ctx, host: NullTestHost): TestedPointer | undefined {
  if (e.kind === "ident") {
    const b = pointerNamed(e, ctx);
    return b && { binding: b, label: e.name };
  }
  if (e.kind !== "member") return undefined;
  const field = host.pointerField(e, ctx);
  if (!field) return undefined;
  if (!field.binding) {
    return host.fail(`pointer field "${field.label}" is tested for NULL before any assignment gives it an array; Loom binds a struct's pointer field to the argument its assignment names (\`${field.label} = W;\`), and tests that argument: assign the field before the test`, e.pos);
  }
  return { binding: field.binding, label: field.label };
}

/** C's null pointer constant: `0`, `NULL` and `nullptr` (unless the file declares them), `(T *) 0`. */
export function isNullConstant(e: A.Expr, ctx: Ctx): boolean {
  switch (e.kind) {
    case "int": return e.value === 0;
    case "ident": return (e.name === "NULL" || e.name === "nullptr") && ctx.scope.get(e.name) === undefined;
    case "cast": return e.type.pointers.length > 0 && isNullConstant(e.operand, ctx);
    default: return false;
  }
}

/** The binding of `e` where it names a pointer or an array (what C may test for NULL), else undefined. */
export function pointerNamed(e: A.Expr, ctx: Ctx): Binding | undefined {
  if (e.kind !== "ident") return undefined;
  const b = ctx.scope.get(e.name);
  switch (b?.kind) {
    case "array": case "table": case "ref": case "choice": case "pointers": return b;
    case "temp": return b.rank > 0 ? b : undefined;
    default: return undefined;
  }
}

/** `label` (bound to `b`) is not NULL, as an int expression (1 or 0). */
export function notNull(b: Binding, label: string, pos: A.Pos, host: NullTestHost): Expr {
  switch (b.kind) {
    case "array": return b.extents ? c(1) : host.passed(b.name, label, pos); // an array field of a struct passed by value is never NULL
    case "temp": case "table": case "ref": case "pointers": return c(1);
    default: return host.fail(`"${label}" is tested for NULL, but it is chosen at run time among several pointers; Loom tests a kernel's pointer arguments (and pointers into them) for NULL: test the argument it was chosen from`, pos);
  }
}

/** `p == NULL` / `p != 0` / `NULL != p` as an int expression, or undefined where `e` is no such test. */
export function nullCompare(e: A.Binary, ctx: Ctx, host: NullTestHost): Expr | undefined {
  if (e.op !== "==" && e.op !== "!=") return undefined;
  const [ptr, other] = isNullConstant(e.right, ctx) ? [e.left, e.right] : [e.right, e.left];
  if (!isNullConstant(other, ctx)) return undefined;
  const t = testedPointer(ptr, ctx, host);
  if (!t) return undefined;
  return { kind: "compare", op: e.op, left: notNull(t.binding, t.label, ptr.pos, host), right: c(0) };
}

/** The refusal of a null pointer constant used other than in a test (`p = NULL;`, `f(nullptr)`), or undefined for other names. */
export function nullValueRefusal(name: string, what: string): string | undefined {
  if (name !== "NULL" && name !== "nullptr") return undefined;
  return `"${name}" ${what}: Loom reads a null pointer only in a test of a pointer argument (\`b != ${name}\`, \`if (b)\`, where the caller passes b as null); a pointer that may be NULL must be a kernel argument (give it an array, or test a flag)`;
}
