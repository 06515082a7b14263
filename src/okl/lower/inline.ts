/**
 * Calls of device functions that are not one `return` (substitution rules), inlined as one
 * expression, and local pointers as aliases of the arrays they point into.
 *
 *   // float at(const float *p, int k) { if (k < 0) return 0; return p[k]; }
 *   at(a + 4, i)   // if(i < 0, 0, a[4 + i]) (with the casts C implies)
 */
import { c, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { assigned, describeStmt, walkAst } from "./ast-queries.js";
import { constValue, Scope, usable, type Binding, type Ctx } from "./bindings.js";
import type { FileContext } from "./file-context.js";
import { nullValueRefusal } from "./null-tests.js";
import { castPointer } from "./byte-pointers.js";
import { mapChoice } from "./pointer-choice.js";
import { conditionalPointer } from "./choice-writes.js";
import { recordByValue, recordPointer, recordPointerField } from "./records.js";
import { toComponent, type VectorType } from "./vectors.js";
import type { CTypeFacts } from "./c-conversions.js";
import { flatViewPointer } from "./flat-views.js";
import { literalRefusal, stringTable } from "./string-literals.js";

/** What inlining needs of expression lowering (ExprLowering). */
export interface ExprLowerer {
  readonly file: FileContext;
  /** How many inlined calls enclose the one being lowered. */
  inlineDepth: number;
  expr(e: A.Expr, ctx: Ctx): Expr;
  /** A condition: a pointer in it is the test that it is not NULL (null-tests.ts). */
  truth(e: A.Expr, ctx: Ctx): Expr;
  /** A place that can be assigned (a local, an array element, a struct field, a vector component). */
  lvalue(e: A.Expr, ctx: Ctx): Expr;
  fail(detail: string, pos: A.Pos, rule?: string): never;
  /** CUDA's warp shuffles in kernel statements (warp-shuffles.ts); absent elsewhere. */
  readonly shuffle?: (name: string, e: A.Call, ctx: Ctx) => Expr;
  /** Dtypes of names, for C's conversions (c-conversions.ts); absent: none known. */
  readonly types?: CTypeFacts;
  /** The scalar dtype of the elements of an array a pointer binding points into, where the kernel knows it (byte-pointers.ts). */
  elementDtype?(b: Binding): Dtype | undefined;
  /** Vector expressions: their type, and their components (as `want`, a vector type). */
  readonly vec: {
    typeOf(e: A.Expr, ctx: Ctx): VectorType | undefined;
    comps(e: A.Expr, ctx: Ctx, want?: VectorType): Expr[];
  };
}

/**
 * A call of a device function with pointer parameters or several statements, inlined: pointer
 * parameters alias the caller's arrays, scalar parameters and local declarations are bound to
 * their (converted) values, `if … return` chains become conditional expressions.
 */
export function inlineCall(lw: ExprLowerer, f: A.FunctionDef, e: A.Call, ctx: Ctx): Expr {
  const scope = bindParams(lw, f, e, ctx);
  lw.inlineDepth++;
  try {
    const ret = lw.file.dtype(f.returnType, f.pos);
    return { kind: "cast", dtype: ret, value: inlineBody(lw, f, f.body!.items, { ...ctx, scope }, (x, c2) => lw.expr(x, c2)) };
  } finally {
    lw.inlineDepth--;
  }
}

/** A call of a device function returning a vector, inlined: one expression per component. */
export function inlineVectorCall(lw: ExprLowerer, f: A.FunctionDef, e: A.Call, ctx: Ctx): Expr[] {
  const t = lw.file.vectorType(f.returnType)!;
  const scope = bindParams(lw, f, e, ctx);
  lw.inlineDepth++;
  try {
    // The body is lowered once per component (it is pure: declarations, if and return only).
    return Array.from({ length: t.size }, (_, k) =>
      toComponent(t, inlineBody(lw, f, f.body!.items, { ...ctx, scope }, (x, c2) => lw.vec.comps(x, c2, t)[k]!)));
  } finally {
    lw.inlineDepth--;
  }
}

/** The scope of an inlined call: pointer parameters alias arrays, others are the converted arguments. */
function bindParams(lw: ExprLowerer, f: A.FunctionDef, e: A.Call, ctx: Ctx): Scope {
  checkInlinable(lw, f, e);
  const scope = new Scope(lw.file.globals);
  f.params.forEach((p, k) => {
    const d = p.declarator;
    const a = e.args[k]!;
    const ptr = pointerParam(lw, p, a, ctx, scope);
    const t = ptr ? undefined : lw.file.vectorType(p.spec);
    const record = ptr || t ? undefined : recordByValue(lw, lw.file.structs, f, p, a, ctx); // a struct with mixed field types by value
    if (ptr) scope.set(d.name, ptr);
    else if (record) scope.set(d.name, record);
    else if (t) scope.set(d.name, vectorExprs(t, lw.vec.comps(a, ctx, t)));
    else scope.set(d.name, { kind: "expr", expr: { kind: "cast", dtype: lw.file.dtype(p.spec, p.pos), value: lw.expr(a, ctx) } });
  });
  return scope;
}

/**
 * The binding of pointer parameter `p` of an inlined device function passed `a` (read in `ctx`),
 * or undefined where `p` is not a pointer. A parameter of a pointer typedef (`const_dofArray U`
 * with `typedef const double *const_dofArray @dim(P, N)`) is spelled out first. A `@dim` parameter
 * (`const double *B @dim(P, Q)`) views what it is passed through its own extents: as in OCCA, where
 * `B(i, j)` is spelled out as `B[i + P * j]` in the function, the extents are names of the
 * function's scope (`callee`: the parameters bound so far, file constants); the outer-most axis's
 * extent is never part of an index and is not read, so it may name what the function cannot see
 * (libCEED's `elementCount`).
 */
export function pointerParam(lw: ExprLowerer, p: A.Param, a: A.Expr, ctx: Ctx, callee: Scope): Binding | undefined {
  const { spec, declarator: d } = lw.file.expandTypedef(p.spec, p.declarator);
  if (d.reference && d.pointers.length + d.arrayDims.length === 0) return referenceParam(lw, spec, d, a, ctx);
  if (d.pointers.length + d.arrayDims.length === 0) return undefined;
  const literal = d.pointers.length === 1 ? literalRefusal(a, spec, d.name) : undefined;
  if (literal) return lw.fail(literal, a.pos);
  const b = pointerBinding(lw, a, ctx, d.name);
  const dim = d.okl.dim;
  if (!dim) return b;
  if (b.kind !== "array" && !(b.kind === "temp" && b.rank === 1 && !b.struct)) return lw.fail(`@dim parameter "${d.name}": only an array of scalars (an argument, a 1-D local or @shared array, or an offset into one) can be passed to it`, p.pos, "@dim");
  const order = d.okl.dimOrder ?? dim.map((_, k) => k);
  const unread = order[order.length - 1];
  const dims = dim.map((x, k) => (k === unread ? c(0) : lw.expr(x, { ...ctx, scope: callee })));
  return { ...b, dim: { dims, order } };
}

/**
 * A C++ reference parameter `double &out` passed `a`: the caller's variable itself (its binding),
 * so the function's reads and writes are the caller's, as in C++. A const reference (`const double
 * &x`) reads the value it is passed, converted to its type, as a by-value parameter: undefined here.
 * A non-const reference to an array element or a field is read where the function reads it;
 * writing it is refused (Loom binds it to the element as a value), naming the parameter.
 */
function referenceParam(lw: ExprLowerer, spec: A.TypeSpec, d: A.Declarator, a: A.Expr, ctx: Ctx): Binding | undefined {
  if (spec.qualifiers.includes("const")) return undefined;
  if (a.kind === "ident") {
    const b = usable(ctx.scope.get(a.name), (m) => lw.fail(m, a.pos));
    if (b === undefined) return lw.fail(`unknown identifier "${a.name}" passed to reference parameter "${d.name}" (defines must be given with -D / opts.defines)`, a.pos);
    return b;
  }
  if (a.kind === "index" || a.kind === "member" || a.kind === "call" || (a.kind === "unary" && a.op === "*")) {
    return { kind: "expr", expr: lw.lvalue(a, ctx) };
  }
  return lw.fail(`reference parameter "${d.name}" (\`${exprLabel(a)}\` passed): a non-const C++ reference must be passed a variable, an array element or a field`, a.pos);
}

/** Fails where call `e` of `f` cannot be inlined: a wrong number of arguments, or calls nested too deep. */
export function checkInlinable(lw: ExprLowerer, f: A.FunctionDef, e: A.Call): void {
  if (e.args.length !== f.params.length) lw.fail(`call of "${f.name}" with ${e.args.length} argument(s); it takes ${f.params.length}`, e.pos);
  if (lw.inlineDepth > 16) lw.fail(`call of "${f.name}": device functions nested more than 16 deep (recursion?) cannot be inlined`, e.pos);
}

/** A vector bound to the expressions of its components. */
function vectorExprs(t: VectorType, comps: readonly Expr[]): Binding {
  return { kind: "vector", type: t, comps: comps.map((x) => ({ kind: "expr", expr: toComponent(t, x) })) };
}

/** The value a statement list returns, as an expression (`value` lowers the returned expression). */
function inlineBody(lw: ExprLowerer, f: A.FunctionDef, items: readonly A.Stmt[], ctx: Ctx, value: (e: A.Expr, ctx: Ctx) => Expr): Expr {
  const [s, ...rest] = items;
  const body = (xs: readonly A.Stmt[], c2: Ctx) => inlineBody(lw, f, xs, c2, value);
  if (s === undefined) return lw.fail(`device function "${f.name}" can reach its end without returning a value; it cannot be inlined`, f.pos);
  switch (s.kind) {
    case "empty": case "pragma": return body(rest, ctx);
    case "compound": return body([...s.items, ...rest], { ...ctx, scope: new Scope(ctx.scope) });
    case "return":
      if (s.value === undefined) return lw.fail(`device function "${f.name}" returns no value`, s.pos);
      return value(s.value, ctx);
    case "if":
      return {
        kind: "if", cond: lw.truth(s.cond, ctx),
        then: body([s.then, ...rest], { ...ctx, scope: new Scope(ctx.scope) }),
        else: body(s.else ? [s.else, ...rest] : rest, { ...ctx, scope: new Scope(ctx.scope) }),
      };
    case "declaration": {
      const scope = new Scope(ctx.scope);
      const t = lw.file.vectorType(s.spec);
      for (const d of s.declarators) {
        if (d.init === undefined || d.init.kind === "initList" || d.arrayDims.length > 0) {
          lw.fail(`device function "${f.name}": only initialized scalar and pointer locals can be inlined ("${d.name}")`, d.pos);
        }
        if (assigned(rest, d.name)) lw.fail(`device function "${f.name}": local "${d.name}" is assigned after its declaration; only single-assignment locals can be inlined`, d.pos);
        const inner = { ...ctx, scope };
        scope.set(d.name, d.pointers.length > 0
          ? pointerBinding(lw, d.init, inner, d.name)
          : t ? vectorExprs(t, lw.vec.comps(d.init, inner, t))
          : { kind: "expr", expr: { kind: "cast", dtype: lw.file.dtype(s.spec, s.pos), value: lw.expr(d.init, inner) } });
      }
      return body(rest, { ...ctx, scope });
    }
    default:
      return lw.fail(`device function "${f.name}": ${describeStmt(s)} cannot be inlined (declarations, if and return can)`, s.pos);
  }
}

/**
 * Whether a call of `f` inlines as one expression (declarations of single-assignment locals, `if`
 * and `return`); otherwise it needs statements, which only an opaque block can hold.
 */
export function expressionInlinable(f: A.FunctionDef): boolean {
  let hit = inlinable.get(f);
  if (hit === undefined) inlinable.set(f, (hit = f.body !== undefined && inlinableItems(f.body.items)));
  return hit;
}

/** Asked at every call of a device function: remembered per function definition. */
const inlinable = new WeakMap<A.FunctionDef, boolean>();

/** The statements of an inlinable body, each checked once (a `{…}` block is read in place). */
function inlinableItems(items0: readonly A.Stmt[]): boolean {
  let items = items0;
  for (let k = 0; k < items.length; k++) {
    const s = items[k]!;
    switch (s.kind) {
      case "empty": case "pragma": case "return": break;
      case "compound":
        items = [...s.items, ...items.slice(k + 1)];
        k = -1;
        break;
      case "if":
        if (!inlinableItems([s.then]) || (s.else !== undefined && !inlinableItems([s.else]))) return false;
        break;
      case "declaration": {
        const rest = items.slice(k + 1);
        if (!s.declarators.every((d) => d.init !== undefined && d.init.kind !== "initList" && d.arrayDims.length === 0 && !assigned(rest, d.name))) return false;
        break;
      }
      default: return false;
    }
  }
  return true;
}

/**
 * Whether a call statement `f(…);` can be inlined as the kernel's own statements: `f` returns
 * nothing (no `return` but a last `return;`) and its parameters are scalars or pointers (vectors
 * and structs passed by value take the opaque-block path).
 */
export function statementInlinable(f: A.FunctionDef, file: FileContext): boolean {
  let hit = statementOk.get(f);
  if (hit !== undefined) return hit;
  hit = f.body !== undefined && f.params.every((p) => {
    const d = p.declarator;
    return d.pointers.length + d.arrayDims.length > 0 || (file.vectorType(p.spec) === undefined && file.structs.resolve(p.spec) === undefined);
  });
  if (hit) {
    const items = f.body!.items;
    const last = items[items.length - 1];
    const body = last?.kind === "return" && last.value === undefined ? items.slice(0, -1) : items;
    for (const s of body) walkAst(s, (n) => void (hit &&= n.kind !== "return"));
  }
  statementOk.set(f, hit);
  return hit;
}

const statementOk = new WeakMap<A.FunctionDef, boolean>();

/**
 * The array a pointer expression points into, with the offset: `a`, `a + k`, `k + a`, `a - k`,
 * `&a[k]`, `(float *) a`. `what` names the pointer for errors.
 */
export function pointerBinding(lw: ExprLowerer, e: A.Expr, ctx: Ctx, what: string): Binding {
  // A part of a struct with mixed field types: an array field (`bc.vals`), a nested struct (`&bc.n`).
  const part = recordPointer(lw, e, ctx);
  if (part) return part;
  const shifted = (b: Binding, off: Expr): Binding => {
    if (b.kind === "ref") lw.fail(`pointer "${what}" points to the scalar "${b.name}"; offsets from it are not supported (C would read past it)`, e.pos);
    if (b.kind === "array") {
      if (b.dim) lw.fail(`pointer "${what}": offsets into @dim array "${b.name}" are not supported`, e.pos);
      return { ...b, offset: b.offset ? { kind: "arith", op: "+", left: b.offset, right: off } : off };
    }
    if ((b.kind === "temp" && (b.rank === 1 || b.rows !== undefined)) || b.kind === "records" || (b.kind === "table" && b.shape.length === 1)) return { ...b, offset: b.offset ? { kind: "arith", op: "+", left: b.offset, right: off } : off };
    if (b.kind === "choice") return mapChoice(b, (t) => shifted(t, off)); // each target moved
    return lw.fail(`pointer "${what}": only offsets into arguments and 1-D arrays are supported`, e.pos);
  };
  const isPointer = (x: A.Expr): boolean => {
    if (x.kind === "ident") {
      const b = ctx.scope.get(x.name);
      return b?.kind === "array" || b?.kind === "records" || (b?.kind === "temp" && b.rank > 0) || b?.kind === "table" || b?.kind === "choice";
    }
    if (x.kind === "cast") return x.type.pointers.length > 0;
    if (x.kind === "index" && x.target.kind === "ident") return ctx.scope.get(x.target.name)?.kind === "pointers";
    if (x.kind === "binary" && (x.op === "+" || x.op === "-")) return isPointer(x.left) || (x.op === "+" && isPointer(x.right));
    if (x.kind === "member") return recordPointerField(lw, x, ctx) !== undefined; // `bc.usrwrk + k`
    return x.kind === "unary" && x.op === "&";
  };
  switch (e.kind) {
    case "ident": {
      const b = usable(ctx.scope.get(e.name), (m) => lw.fail(m, e.pos));
      if (b?.kind === "array" || (b?.kind === "temp" && b.rank > 0) || b?.kind === "ref" || b?.kind === "record" || b?.kind === "records" || b?.kind === "table" || b?.kind === "choice") return b;
      if (b === undefined) lw.fail(nullValueRefusal(e.name, `given to pointer "${what}"`) ?? `unknown identifier "${e.name}" passed as pointer "${what}" (defines must be given with -D / opts.defines)`, e.pos);
      break;
    }
    case "string": return stringTable(e); // `isField("fluid velocity")` (string-literals.ts)
    case "conditional": // `c ? a : b` (choice-writes.ts)
      return conditionalPointer(e, ctx, what, (x) => lw.expr(x, ctx), (x) => pointerBinding(lw, x, ctx, what), (d, p) => lw.fail(d, p));
    case "cast":
      if (e.type.pointers.length > 0) return castPointer(lw, e, ctx, what, (x) => pointerBinding(lw, x, ctx, what), shifted);
      break;
    case "index": {
      const b = e.target.kind === "ident" ? ctx.scope.get(e.target.name) : undefined;
      if (b?.kind === "pointers") return pointerSlot(lw, b, e.index, ctx);
      const row = flatViewPointer(e, ctx.scope, (x) => lw.expr(x, ctx), false); // `ve[1]` of `double ve[2][3]` (flat-views.ts)
      if (row) return row;
      break;
    }
    case "binary":
      if (e.op === "+" && isPointer(e.left)) return shifted(pointerBinding(lw, e.left, ctx, what), lw.expr(e.right, ctx));
      if (e.op === "+" && isPointer(e.right)) return shifted(pointerBinding(lw, e.right, ctx, what), lw.expr(e.left, ctx));
      if (e.op === "-" && isPointer(e.left)) return shifted(pointerBinding(lw, e.left, ctx, what), { kind: "neg", operand: lw.expr(e.right, ctx) });
      break;
    case "unary":
      if (e.op === "&" && e.operand.kind === "index" && e.operand.target.kind === "index") {
        const at = flatViewPointer(e.operand, ctx.scope, (x) => lw.expr(x, ctx), true); // `&ve[0][0]` (flat-views.ts)
        if (at) return at;
      }
      if (e.op === "&" && e.operand.kind === "index" && e.operand.target.kind !== "index") {
        return shifted(pointerBinding(lw, e.operand.target, ctx, what), lw.expr(e.operand.index, ctx));
      }
      if (e.op === "&" && e.operand.kind === "call" && e.operand.callee.kind === "ident") {
        // &U(i, j, k) of a @dim array: a plain pointer to that element, at its flat index.
        const b = ctx.scope.get(e.operand.callee.name);
        const at = (b?.kind === "array" || b?.kind === "temp") && b.dim ? lw.expr(e.operand, ctx) : undefined;
        if ((b?.kind === "array" || b?.kind === "temp") && at?.kind === "subscript") {
          const { dim: _dim, ...plain } = b;
          return { ...plain, offset: at.indices[0]! }; // the flat index includes b's own offset
        }
      }
      if (e.op === "&") return scalarRef(lw, e.operand, ctx, what);
      if (e.op === "*" && e.operand.kind === "unary" && e.operand.op === "&") return pointerBinding(lw, e.operand.operand, ctx, what);
      break;
    default: break;
  }
  return lw.fail(`pointer "${what}": "${exprLabel(e)}" is not a pointer; only arrays (\`a\`, \`a + k\`, \`&a[k]\`) and addresses of scalars (\`&r\`, \`&s.f\`) are supported`, e.pos);
}

/**
 * `&x`: the address of a scalar (a local, a const, an argument, a struct field or a vector
 * component), as a `ref` binding; `&a` of an array is the array itself. `what` names the pointer.
 */
function scalarRef(lw: ExprLowerer, x: A.Expr, ctx: Ctx, what: string): Binding {
  if (x.kind === "ident") {
    const b = usable(ctx.scope.get(x.name), (m) => lw.fail(m, x.pos));
    if (b === undefined) return lw.fail(`unknown identifier "${x.name}" in "&${x.name}" (passed as pointer "${what}"; defines must be given with -D / opts.defines)`, x.pos);
    switch (b.kind) {
      case "temp":
        if (b.struct && b.rank > 0) return b.object ? { ...b, object: undefined } : b; // &a of an array of structs (a class object is one: class-calls.ts)
        if (b.struct) return lw.fail(`"&${x.name}": pointers to struct "${b.struct.name}" values are not supported yet (pass its fields, or an array of them)`, x.pos);
        if (b.rank > 0 || b.offset) return b; // &a of an array: the array
        return { kind: "ref", name: x.name, place: { kind: "var", name: b.name }, writable: true, pos: x.pos };
      case "expr": return { kind: "ref", name: x.name, place: b.expr, writable: false, pos: x.pos };
      case "value": return { kind: "ref", name: x.name, place: { kind: "var", name: b.name }, writable: false, pos: x.pos };
      case "ref": return lw.fail(`"&${x.name}": "${x.name}" is already a pointer (a pointer to a pointer is not supported)`, x.pos);
      case "array": case "record": case "records": return b; // &a of an array: the array; &s of a struct local: the struct
      default: return lw.fail(`"&${x.name}": only the address of a scalar, a struct field or an array element can be passed as pointer "${what}"`, x.pos);
    }
  }
  if (x.kind === "member" || (x.kind === "unary" && x.op === "*")) return { kind: "ref", name: exprLabel(x), place: lw.lvalue(x, ctx), writable: true, pos: x.pos };
  return lw.fail(`"&…" of ${x.kind === "call" ? "a call" : "this expression"}: only the address of a variable, a struct field or an array element can be taken (pointer "${what}")`, x.pos);
}

/** A short text of a name-like expression (`s.f`, `p->x`, `*p`, `a[…]`) for messages. */
export function exprLabel(e: A.Expr): string {
  switch (e.kind) {
    case "ident": return e.name;
    case "member": return `${exprLabel(e.target)}${e.arrow ? "->" : "."}${e.name}`;
    case "unary": return `${e.op}${exprLabel(e.operand)}`;
    case "index": return `${exprLabel(e.target)}[…]`;
    case "call": return `${exprLabel(e.callee)}(…)`;
    case "int": case "float": return String(e.value);
    case "binary": return `${exprLabel(e.left)} ${e.op} ${exprLabel(e.right)}`;
    case "cast": return `(…)${exprLabel(e.operand)}`;
    default: return "(…)";
  }
}

/** The alias in slot `index` of a local array of pointers; `index` must be a compile-time integer. */
export function pointerSlot(lw: ExprLowerer, b: Extract<Binding, { kind: "pointers" }>, index: A.Expr, ctx: Ctx): Binding {
  const k = pointerSlotIndex(lw, b, index, ctx);
  const slot = b.slots[k];
  if (slot === undefined) return lw.fail(`pointer "${b.name}[${k}]" is read before it is assigned; assign it an array (\`${b.name}[${k}] = a + k;\`) first`, index.pos);
  return slot;
}

/** The slot `index` names in a local array of pointers: a compile-time integer within its extent. */
export function pointerSlotIndex(lw: ExprLowerer, b: Extract<Binding, { kind: "pointers" }>, index: A.Expr, ctx: Ctx): number {
  const k = constValue(index, ctx.scope);
  if (k === undefined) {
    return lw.fail(`array of pointers "${b.name}" subscripted with "${exprLabel(index)}", which is not a compile-time integer; Loom binds each slot to the array it points into, so its subscripts must be constants (fill and read it in loops with constant bounds, which are unrolled)`, index.pos);
  }
  if (k < 0 || k >= b.slots.length) return lw.fail(`array of pointers "${b.name}" has ${b.slots.length} slot(s); slot ${k} is out of bounds`, index.pos);
  return k;
}
