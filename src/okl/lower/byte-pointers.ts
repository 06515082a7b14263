/**
 * Pointer casts: gslib's strided views `(const T *)((const char *)p_base + i*p_stride)` move a
 * pointer by a count of bytes. C defines that (and the read through it) only where the address is
 * aligned for T and T is the type `p` points to (else it reads another type's bytes), so with T
 * the element type of `p` it is `p + bytes / sizeof(T)` exactly. Casts that would reinterpret an
 * array's elements as another type, and byte pointers used any other way, are refused.
 *
 *   (const double *)((const char *)r_base + i*r_stride)   // r_base + i*r_stride_elements
 *
 * A stride that is not a whole number of elements (12 bytes between doubles) would read misaligned
 * bytes, which C leaves undefined: the kernel lowering makes `r_stride / 8` a value argument the
 * host computes, refusing a remainder (kernel-launch.ts byteElements), and a constant offset is
 * checked here and now; an offset of any other form is refused, as nothing could check it.
 */
import { OklError } from "../../errors.js";
import { byteSize, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding, Ctx } from "./bindings.js";
import type { FileContext } from "./file-context.js";

/** What a cast needs of expression lowering (inline.ts's ExprLowerer has it; not imported: inline.ts imports this module). */
interface ExprLowerer {
  readonly file: FileContext;
  expr(e: A.Expr, ctx: Ctx): Expr;
  fail(detail: string, pos: A.Pos, rule?: string): never;
  elementDtype?(b: Binding): Dtype | undefined;
  byteElements?: (bytes: Expr, size: number, what: string, pos: A.Pos) => Expr;
}

/** The pointer a cast `(T *) x` gives; `inner` is the binding of a pointer expression, `shifted` moves one by elements. */
export function castPointer(
  lw: ExprLowerer, e: A.Cast, ctx: Ctx, what: string,
  inner: (x: A.Expr) => Binding, shifted: (b: Binding, off: Expr) => Binding,
): Binding {
  if (isBytePointer(lw, e.type)) {
    return lw.fail(`pointer "${what}": a byte pointer \`(char *)…\` is supported only inside \`(T *)((char *)p + bytes)\`, with T the type p points to (a strided view, read as p + bytes / sizeof(T))`, e.pos);
  }
  const o = e.operand;
  const bytes = byteView(lw, o);
  const t = castDtype(lw, e.type);
  if (!bytes) {
    const b = inner(o);
    const own = lw.elementDtype?.(b);
    if (t !== undefined && own !== undefined && own !== t) return lw.fail(reinterpret(what, own, t), e.pos);
    return b;
  }
  const b = inner(bytes.base);
  const own = lw.elementDtype?.(b);
  if (t === undefined || own === undefined) {
    return lw.fail(`pointer "${what}": \`(T *)((char *)p + bytes)\` needs T and the type p points to be known scalar types (to read it as p + bytes / sizeof(T))`, e.pos);
  }
  if (own !== t) return lw.fail(reinterpret(what, own, t), e.pos);
  if (bytes.offset === undefined) return b;
  const n = lw.expr(bytes.offset, ctx);
  const signed: Expr = bytes.negate ? { kind: "neg", operand: n } : n;
  const elements: Expr = lw.byteElements?.(signed, byteSize(t), what, bytes.offset.pos) ??
    { kind: "arith", op: "/", left: signed, right: { kind: "const", value: byteSize(t), isFloat: false } };
  return shifted(b, elements);
}

function reinterpret(what: string, own: Dtype, t: Dtype): string {
  return `pointer "${what}": a cast from a pointer to ${own} to a pointer to ${t} would read the ${own} elements' bytes as ${t} values, which Loom does not support (cast the values instead: (${t}) p[k])`;
}

/** `(char *)p + bytes`, `(char *)p - bytes` or `(char *)p`: the pointer `base` and the byte offset; undefined for other expressions. */
function byteView(lw: ExprLowerer, x: A.Expr): { readonly base: A.Expr; readonly offset?: A.Expr; readonly negate?: boolean } | undefined {
  const bytePtr = (y: A.Expr): y is A.Cast => y.kind === "cast" && isBytePointer(lw, y.type);
  if (bytePtr(x)) return { base: x.operand };
  if (x.kind !== "binary" || (x.op !== "+" && x.op !== "-")) return undefined;
  if (bytePtr(x.left)) return { base: x.left.operand, offset: x.right, negate: x.op === "-" };
  if (x.op === "+" && bytePtr(x.right)) return { base: x.right.operand, offset: x.left };
  return undefined;
}

/** Whether `t` is `char *` (signed or unsigned): a pointer that moves by bytes. */
function isBytePointer(lw: ExprLowerer, t: A.TypeName): boolean {
  if (t.pointers.length !== 1) return false;
  const d = castDtype(lw, t);
  return d === "int8" || d === "uint8";
}

/** The scalar dtype a one-level pointer type points to, or undefined (void, structs, vectors, pointers to pointers). */
function castDtype(lw: ExprLowerer, t: A.TypeName): Dtype | undefined {
  if (t.pointers.length !== 1 || t.spec.base.kind !== "builtin" && t.spec.base.kind !== "named") return undefined;
  try {
    return lw.file.dtype(t.spec, t.pos);
  } catch (err) {
    if (err instanceof OklError) return undefined;
    throw err;
  }
}
