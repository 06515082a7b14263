/**
 * OKL expressions as IR expressions: names through their bindings, subscripts of arguments,
 * temporaries and pointer aliases, @dim calls, struct fields as scalars, math functions and device
 * functions (substitution rules, or inlined). Reads and writes no kernel state.
 *
 *   new ExprLowering(file).expr(ast("a[i] * 2.0f"), ctx)   // a[i] * 2.0f (IR)
 */
import { c, walkExpr, type ArithOp, type CompareOp, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { usable, type Binding, type Ctx } from "./bindings.js";
import type { FileContext } from "./file-context.js";
import { exprLabel, pointerBinding, pointerSlot, type ExprLowerer } from "./inline.js";
import { cRemainder, type SignFacts } from "./c-remainder.js";
import { cBinary, cConditional, cUnary, suffixDtype, type CTypeFacts } from "./c-conversions.js";
import type { RegionAccess } from "./chosen-regions.js";
import { choiceWrites, type ChoiceWriteHost, type WritePlace } from "./choice-writes.js";
import { recordField, recordPlaces, recordPointerField, type RecordPlaces } from "./records.js";
import type { RowAccess } from "./row-layout.js";
import { stringLiteralOf } from "./string-literals.js";
import { dimIndex, lowerCall } from "./expr-calls.js";
import { placeElement, placeIndex, placeMember, structVariable, type StructPlace } from "./structs.js";
import { VectorLowering } from "./vector-exprs.js";
import { bindingElement, byValueField, derefOf, type ElementHost } from "./expr-places.js";
import { notNull, nullCompare, nullValueRefusal, testedPointer, type NullTestHost } from "./null-tests.js";
import { componentNames, layoutVector } from "./vectors.js";

/** The IR node of each C operator but `%` and the logical ones, from its converted operands. */
const BUILD = (() => {
  const arith = <O extends ArithOp>(op: O) => (left: Expr, right: Expr): Expr => ({ kind: "arith", op, left, right });
  const compare = <O extends CompareOp>(op: O) => (left: Expr, right: Expr): Expr => ({ kind: "compare", op, left, right });
  return {
    "+": arith("+"), "-": arith("-"), "*": arith("*"), "/": arith("/"), "&": arith("&"), "|": arith("|"), "^": arith("^"), "<<": arith("<<"), ">>": arith(">>"),
    "<": compare("<"), ">": compare(">"), "<=": compare("<="), ">=": compare(">="), "==": compare("=="), "!=": compare("!="),
  } as const;
})();

export class ExprLowering implements ExprLowerer {
  inlineDepth = 0;

  /** Arguments that are copies in C (array fields of a struct passed by value): never assigned. */
  readonly readOnly = new Set<string>();

  /** Subscripts of multi-dimensional local arrays, checked against their rows (row-layout.ts). */
  readonly rows: RowAccess[] = [];
  /** Accesses through pointers chosen among targets in one array at different offsets, proven apart at the end (chosen-regions.ts). */
  readonly regions: RegionAccess[] = [];

  /** Vector expressions, per component (src/okl/vector-exprs.ts). */
  readonly vec: VectorLowering = new VectorLowering(this);
  /**
   * The element offset of a byte offset into an array of `size`-byte elements (byte-pointers.ts),
   * set by the kernel lowering, which checks the bytes are whole elements (a value argument's
   * multiple on the host); undefined: C's quotient, unchecked.
   */
  byteElements?: (bytes: Expr, size: number, what: string, pos: A.Pos) => Expr;
  /** CUDA's warp shuffles (warp-shuffles.ts), set by the kernel lowering; undefined outside a kernel's statements. */
  shuffle?: (name: string, e: A.Call, ctx: Ctx) => Expr;
  /** How many instructions the kernel lowering has emitted (set by it): what precedes an access (chosen-regions.ts). */
  emitted: () => number = () => 0;
  /** The dtype of the elements a pointer binding points into (set by the kernel lowering, which knows its arguments and temporaries). */
  elementDtype: (b: Binding) => Dtype | undefined = () => undefined;
  /** Signs the kernel lowering knows (inames from a bound >= 0, unsigned names), for C's `%` (c-remainder.ts). */
  signs: SignFacts = { nonNegative: () => false };
  /** Dtypes of names (arguments, temporaries, block locals, inames), for C's conversions (c-conversions.ts). */
  types: CTypeFacts = { dtypeOf: () => undefined };
  /** The flag that a pointer argument was passed, not NULL (set by the kernel lowering, which makes it a value argument; null-tests.ts). */
  pointerPassed: (array: string, label: string, pos: A.Pos) => Expr = (_a, label, pos) => this.fail(`pointer "${label}" is tested for NULL outside a kernel`, pos);
  private readonly nullHost: NullTestHost = {
    passed: (a, l, p) => this.pointerPassed(a, l, p),
    pointerField: (e, ctx) => {
      const f = recordPointerField(this, e, ctx);
      return f && { label: f.label, binding: f.slot.binding };
    },
    fail: (d, p) => this.fail(d, p),
  };
  /** Dtypes of scalar locals of opaque blocks (not temporaries of the kernel), recorded where they are declared. */
  readonly localTypes = new Map<string, Dtype>();

  constructor(readonly file: FileContext) {}

  /**
   * One frozen node per variable name and per integer literal, shared by every expression that
   * reads it (IR nodes are immutable): a kernel of thousands of statements reads the same few
   * names and constants, and each node made is a node to freeze and to collect.
   */
  private readonly vars = new Map<string, Expr>();
  private readonly ints = new Map<number, Expr>();
  private varNode(name: string): Expr {
    let v = this.vars.get(name);
    if (!v) this.vars.set(name, (v = Object.freeze({ kind: "var", name })));
    return v;
  }
  private intConst(value: number): Expr {
    let v = this.ints.get(value);
    if (!v) this.ints.set(value, (v = Object.freeze(c(value))));
    return v;
  }

  fail(detail: string, pos: A.Pos, rule?: string): never {
    return this.file.fail(detail, pos, rule);
  }

  /**
   * A failure at `pos`, for helpers that report through a callback. Made here, not as an arrow in
   * the caller: a closure in a hot method (structPlace runs on every name) makes V8 allocate the
   * method's context on every call, whether or not the closure is made.
   */
  private failAt(pos: A.Pos): (detail: string) => never {
    return (detail) => this.fail(detail, pos);
  }

  /** A local variable or an array element that can be assigned. */
  lvalue(e: A.Expr, ctx: Ctx): Expr {
    const field = this.recordField(e, ctx);
    if (field) return field;
    const ref = this.derefOf(e, ctx);
    if (ref) {
      if (!ref.ref.writable) this.fail(`cannot assign through pointer "${ref.label}": it points to "${ref.ref.name}" (its address is taken at line ${ref.ref.pos.line}), a const or an argument that C would not let the callee write`, e.pos);
      return ref.ref.place;
    }
    let root = e;
    while (root.kind === "index") root = root.target;
    const rb = root.kind === "ident" ? ctx.scope.get(root.name) : undefined;
    if (root === e && ((rb?.kind === "array" && !rb.struct) || rb?.kind === "choice" || (rb?.kind === "temp" && rb.rank > 0 && !rb.struct && !rb.object))) {
      // `p++`, `p += k`, `p = p + 1` on a pointer (nekRS's `_strcpy` walking a string): a moving pointer.
      const n = (e as A.Ident).name;
      this.fail(`cannot move pointer "${n}" (\`${n}++\`, \`+= k\` or an assignment after its declaration): Loom moves local pointers and device functions' pointer parameters (as an offset, moving-pointers.ts), not a kernel argument, an array or a pointer chosen at run time; declare a local pointer from it inside the loops (\`p = ${n};\`) and move that, or index it (\`${n}[k]\` with a counter \`k\`)`, e.pos);
    }
    const literal = stringLiteralOf(rb);
    if (literal !== undefined) this.fail(`cannot write through "${(root as A.Ident).name}": it points into string literal ${literal}, which C does not let a program write (copy it into a local char array first)`, e.pos);
    if (rb?.kind === "table") this.fail(`file-scope array "${(root as A.Ident).name}" is read as a constant table; writing it is not supported`, e.pos);
    if (rb?.kind === "choice") this.fail(`cannot write through pointer "${rb.name}" here: it is chosen at run time among several targets (a switch, if/else or ?:), which Loom writes through in kernel statements (\`${rb.name}[i] = …\`, \`*${rb.name} = …\`), not inside a while loop, a loop with break/continue or a device function with loops`, e.pos);
    const t = e.kind === "member" && !e.arrow ? this.vec.typeOf(e.target, ctx) : undefined;
    if (t && e.kind === "member" && e.target.kind === "ident") {
      // `v.x = …` on a vector variable: its component's scalar.
      const b = ctx.scope.get(e.target.name);
      const comp = b?.kind === "vector" ? b.comps[this.vec.componentOf(e, t)]! : undefined;
      if (comp && comp.kind !== "temp") this.fail(`cannot assign to "${e.target.name}.${e.name}" (a const vector or a vector argument)`, e.pos);
      if (comp?.kind === "temp") return { kind: "var", name: comp.name };
    }
    const p = this.structPlace(e, ctx);
    const x = p ? this.structScalar(p, e) : this.expr(e, ctx);
    if (x.kind === "var" || (e.kind === "ident" && ctx.scope.get(e.name)?.kind === "expr")) {
      const name = (e as A.Ident).name;
      const b = ctx.scope.get(name);
      let loopVar = false;
      if (b?.kind === "expr") walkExpr(b.expr, (n) => void (loopVar ||= n.kind === "var" && ctx.within.includes(n.name)));
      if (loopVar) {
        // OCCA gives this no one meaning: its serial code ends the loop early, its GPU code changes one work-item's copy.
        this.fail(`cannot assign to "${name}": it is the variable of an enclosing loop, which Loom computes from the loop's index (OKL gives assigning it no single meaning across backends)`, e.pos);
      }
      if (b?.kind !== "temp") this.fail(`cannot assign to "${name}" (only local variables and array elements can be assigned)`, e.pos);
      return x;
    }
    if (x.kind !== "subscript") this.fail("the left-hand side must be a variable or an array element", e.pos);
    if (this.readOnly.has(x.array)) this.fail(`"${x.array}" is a field of a struct passed by value (a copy in C); assigning to it is not supported`, e.pos);
    return x;
  }

  /** The stores of an assignment to `e`: one per target of a pointer chosen at run time (choice-writes.ts), else the one place `lvalue` gives. */
  writePlaces(e: A.Expr, ctx: Ctx): readonly WritePlace[] {
    return choiceWrites(this.choiceHost, e, ctx) ?? [{ preds: [], place: this.lvalue(e, ctx) }];
  }
  private readonly choiceHost: ChoiceWriteHost = {
    expr: (e, ctx) => this.expr(e, ctx), fail: (d, p) => this.fail(d, p), elementDtype: (b) => this.elementDtype(b), region: (r) => void this.regions.push(r), emitted: () => this.emitted(),
    element: (b, indices, label, pos, ctx) => this.element(usable(b, this.failAt(pos)), indices, label, pos, ctx),
  };

  /** `s.f`, `p->f`, `(*p).f`, `bcs[i].f` on structs with mixed field types (records.ts), or undefined. */
  recordField(e: A.Expr, ctx: Ctx): Expr | undefined {
    return recordField(this, e, ctx);
  }

  /** A whole struct with mixed field types as one place per field (records.ts), or undefined. */
  recordPlaces(e: A.Expr, ctx: Ctx): RecordPlaces | undefined {
    return recordPlaces(this, e, ctx);
  }

  /** `*p`, `p[0]` or `*(&x)` where `p` points to one scalar: that binding and the pointer's label (expr-places.ts). */
  derefOf(e: A.Expr, ctx: Ctx): { readonly ref: Extract<Binding, { kind: "ref" }>; readonly label: string } | undefined {
    return derefOf(this, e, ctx);
  }

  /** `c.cc.ccc` on a struct argument passed by value: the binding of that field, or undefined (expr-places.ts). */
  byValueField(e: A.Expr, ctx: Ctx): Binding | undefined {
    return byValueField(e, ctx);
  }

  /**
   * The place an expression of struct type (or inside one) denotes, or undefined when `e` is not
   * rooted at a struct array or local: `a[i]`, `a[i].re`, `p->x`, `*p`, `v.m[k]`, `mat(i, j).x` (@dim).
   */
  structPlace(e: A.Expr, ctx: Ctx): StructPlace | undefined {
    // No closure per call: this runs on every name and subscript of every statement.
    switch (e.kind) {
      case "ident": {
        const b = ctx.scope.get(e.name); // (usable() without a closure: this runs on every name)
        if (b?.kind === "absent") return this.fail(b.reason, e.pos);
        if (b?.kind === "array" && b.struct) return structVariable(b.name, b.struct, 1, b.offset);
        if (b?.kind === "temp" && b.struct) {
          const p = structVariable(b.name, b.struct, b.rank, b.offset);
          return b.object ? placeIndex(p, c(0), this.failAt(e.pos)) : p; // a class object: element 0 of its array of one
        }
        return undefined;
      }
      case "index": {
        const p = this.structPlace(e.target, ctx);
        return p && placeIndex(p, this.expr(e.index, ctx), this.failAt(e.pos));
      }
      case "member": {
        const f = this.byValueField(e, ctx);
        if (f?.kind === "array" && f.struct) return structVariable(f.name, f.struct, 1, f.offset);
        if (f) return undefined;
        const p = this.structPlace(e.target, ctx);
        return p && placeMember(e.arrow ? placeIndex(p, c(0), this.failAt(e.pos)) : p, e.name, this.failAt(e.pos)); // p->f is p[0].f
      }
      case "unary": {
        const p = e.op === "*" ? this.structPlace(e.operand, ctx) : undefined;
        return p && placeIndex(p, c(0), this.failAt(e.pos));
      }
      case "call": {
        const b = e.callee.kind === "ident" ? ctx.scope.get(e.callee.name) : undefined;
        if (b?.kind !== "array" || !b.struct || !b.dim) return undefined;
        return placeIndex(structVariable(b.name, b.struct, 1), dimIndex(this, b.dim, e, ctx), this.failAt(e.pos));
      }
      default: return undefined;
    }
  }

  /** A scalar inside a struct as an IR subscript (in the storage dtype); fails for whole structs and unsubscripted arrays. */
  private structScalar(p: StructPlace, e: A.Expr): Expr {
    if (p.prefix.length < p.need) this.fail(`array of struct "${p.layout!.name}" used without a subscript`, e.pos);
    if (p.dims.length > 0) this.fail("an array field used without a subscript", e.pos);
    const v = layoutVector(p.layout);
    if (v) this.fail(`a "${v.name}" vector is used where a scalar is expected; use a component (${componentNames(v).join(", ")}) or a vector operation`, e.pos);
    if (p.layout) this.fail(`a value of struct "${p.layout.name}" is used as a scalar; use one of its fields (${[...p.layout.fields.keys()].join(", ")})`, e.pos);
    return placeElement(p);
  }

  /**
   * For a struct field stored in a dtype other than its own (`int val2` next to `unsigned int val1`):
   * the field's own dtype and the storage dtype; undefined for every other place.
   */
  storedAs(e: A.Expr, ctx: Ctx): { readonly own: Dtype; readonly storage: Dtype } | undefined {
    const p = this.structPlace(e, ctx);
    return p?.own !== undefined && p.own !== p.storage ? { own: p.own, storage: p.storage } : undefined;
  }

  /** An OKL expression as an IR expression. */
  expr(e: A.Expr, ctx: Ctx): Expr {
    // The commonest kinds first, on one read of the kind (a megamorphic load: AST nodes have many
    // shapes); none of them is a record field, a dereference or a struct place but a name of a struct.
    switch (e.kind) {
      case "ident": return this.ident(e, ctx);
      case "binary": return this.binary(e, ctx);
      case "int": return this.intConst(e.value);
    }
    const field = this.recordField(e, ctx);
    if (field) return field;
    const ref = this.derefOf(e, ctx);
    if (ref) return ref.ref.place;
    if (e.kind === "index" || e.kind === "member" || e.kind === "call" || (e.kind === "unary" && e.op === "*")) {
      const p = this.structPlace(e, ctx);
      if (p) {
        const x = this.structScalar(p, e);
        return p.own !== undefined && p.own !== p.storage ? { kind: "cast", dtype: p.own, value: x } : x;
      }
    }
    switch (e.kind) {
      case "char": return c(e.value);
      case "bool": return c(e.value ? 1 : 0);
      case "float": return e.suffix === "f" ? c(e.value, "float32", true) : c(e.value, undefined, true);
      case "member": {
        const f = this.byValueField(e, ctx);
        if (f?.kind === "value") return { kind: "var", name: f.name };
        if (f) return this.fail(`array field "${f.kind === "array" ? f.name : "?"}" of a struct passed by value used without a subscript`, e.pos);
        const vt = e.arrow ? undefined : this.vec.typeOf(e.target, ctx);
        if (vt) return this.vec.component(e, vt, ctx);
        return this.fail(`member access "${e.arrow ? "->" : "."}${e.name}" on something that is not a struct`, e.pos);
      }
      case "unary": {
        if (e.op === "-") return cUnary("-", this.expr(e.operand, ctx), this.types);
        if (e.op === "+") return this.expr(e.operand, ctx);
        if (e.op === "!") return { kind: "not", operand: this.truth(e.operand, ctx) };
        if (e.op === "~") return cUnary("~", this.expr(e.operand, ctx), this.types);
        if (e.op === "*") return this.subscript(e.operand, [], ctx, e.pos);
        return this.fail(`operator "${e.op}" is not supported in expressions yet`, e.pos);
      }
      case "conditional": {
        const cond = this.truth(e.cond, ctx);
        const arm: Ctx = { ...ctx, arms: [...(ctx.arms ?? []), cond] };
        return cConditional(cond, this.expr(e.then, arm), this.expr(e.else, arm), this.types);
      }
      case "cast": {
        if (e.type.pointers.length > 0) return this.fail("pointer casts are not supported", e.pos);
        return { kind: "cast", dtype: this.file.dtype(e.type.spec, e.pos), value: this.expr(e.operand, ctx) };
      }
      case "index": {
        const idx: A.Expr[] = [];
        let t: A.Expr = e;
        while (t.kind === "index") {
          idx.unshift(t.index);
          t = t.target;
        }
        return this.subscript(t, idx, ctx, e.pos);
      }
      case "call": return lowerCall(this, e, ctx);
      case "assign":
        // Declaration initializers and chains `a = b = c` were split into statements (syntax/assign-values.ts).
        return this.fail(`an assignment used as a value (\`${e.op}\` inside an expression) is supported only as a declaration's initializer or in a chain \`a = b = c\`, where its target has no side effects; write it as a statement of its own`, e.pos);
      default: return this.fail(`${e.kind} expressions are not supported yet`, e.pos);
    }
    return this.fail("unreachable", e.pos);
  }

  /**
   * A condition (of an `if`, a loop, `?:`, an operand of `!`, `&&`, `||`): a pointer in it is C's
   * test that it is not NULL (null-tests.ts); anything else is its value.
   */
  truth(e: A.Expr, ctx: Ctx): Expr {
    const t = testedPointer(e, ctx, this.nullHost);
    return t ? { kind: "compare", op: "!=", left: notNull(t.binding, t.label, e.pos, this.nullHost), right: c(0) } : this.expr(e, ctx);
  }

  /** A name: its binding's value (a struct variable's scalar through structPlace). */
  private ident(e: A.Ident, ctx: Ctx): Expr {
    const b = ctx.scope.get(e.name);
    if (b?.kind === "absent") return this.fail(b.reason, e.pos);
    if ((b?.kind === "array" || b?.kind === "temp") && b.struct) {
      const p = this.structPlace(e, ctx)!;
      const x = this.structScalar(p, e);
      return p.own !== undefined && p.own !== p.storage ? { kind: "cast", dtype: p.own, value: x } : x;
    }
    if (!b) return this.fail(nullValueRefusal(e.name, "used as a value") ?? `unknown identifier "${e.name}" (defines must be given with -D / opts.defines)`, e.pos);
    switch (b.kind) {
      case "byValue": return this.fail(`struct argument "${e.name}" passed by value is used whole; only its fields can be read`, e.pos);
      case "vector": return this.fail(`"${e.name}" is a "${b.type.name}" vector used where a scalar is expected; use a component (${componentNames(b.type).join(", ")}) or a vector operation`, e.pos);
      case "expr": return b.expr;
      case "value": return this.varNode(b.name);
      case "temp":
        if (b.rank > 0) this.fail(`array "${e.name}" used without a subscript`, e.pos);
        return this.varNode(b.name);
      case "array": return this.fail(`pointer "${e.name}" used without a subscript (a test for NULL is \`if (${e.name})\`, \`!${e.name}\`, \`${e.name} ? … : …\`, \`${e.name} != NULL\`)`, e.pos);
      case "ref": return this.fail(`pointer "${e.name}" (to "${b.name}") used as a value; read it as *${e.name}`, e.pos);
      case "pointers": return this.fail(`array of pointers "${e.name}" used without a subscript`, e.pos);
      case "record": return this.fail(`"${e.name}" is a value of struct "${b.struct}" used as a scalar; use one of its fields (${[...b.fields.keys()].join(", ")})`, e.pos);
      case "table": return this.fail(`array "${e.name}" used without a subscript`, e.pos);
      case "choice": return this.fail(`pointer "${e.name}" used without a subscript`, e.pos);
    }
    return this.fail("unreachable", e.pos);
  }

  /** A binary operator of two scalars. */
  private binary(e: A.Binary, ctx: Ctx): Expr {
    let l: Expr, r: Expr;
    const logical = e.op === "&&" || e.op === "||";
    if (e.op === "==" || e.op === "!=") {
      const test = nullCompare(e, ctx, this.nullHost);
      if (test) return test;
    }
    try {
      l = logical ? this.truth(e.left, ctx) : this.expr(e.left, ctx);
      r = logical ? this.truth(e.right, { ...ctx, arms: [...(ctx.arms ?? []), l] }) : this.expr(e.right, ctx);
    } catch (err) {
      // A vector operand never lowers as a scalar; say why here. Asked only on failure: asking at
      // every operator walked each operand's subtree once per enclosing operator.
      const vt = this.vec.typeOf(e.left, ctx) ?? this.vec.typeOf(e.right, ctx);
      if (vt) {
        const arith = e.op === "+" || e.op === "-" || e.op === "*" || e.op === "/";
        this.fail(arith ? `a "${vt.name}" vector is used where a scalar is expected` : `operator "${e.op}" on "${vt.name}" vectors is not supported (OCCA defines + - * / and their assignments)`, e.pos);
      }
      throw err;
    }
    // `1u`, `2ul`: C's type of a suffixed literal (an unsuffixed one stays the IR's weak literal).
    const ls = e.left.kind === "int" ? suffixDtype(e.left.value, e.left.suffix) : undefined;
    const rs = e.right.kind === "int" ? suffixDtype(e.right.value, e.right.suffix) : undefined;
    if (ls) l = c(e.left.kind === "int" ? e.left.value : 0, ls, false);
    if (rs) r = c(e.right.kind === "int" ? e.right.value : 0, rs, false);
    // No closure here (a builder per operator, made once): a closure in this method made V8
    // allocate its context on every call, at every operator of every statement.
    const op = e.op;
    switch (op) {
      case "+": case "-": case "*": case "/": case "&": case "|": case "^": case "<<": case ">>": case "<": case ">": case "<=": case ">=": case "==": case "!=":
        return cBinary(op, l, r, this.types, BUILD[op]);
      case "%": return cBinary(op, l, r, this.types, this.remainder);
      case "&&": return { kind: "logical", op: "and", left: l, right: r };
      case "||": return { kind: "logical", op: "or", left: l, right: r };
      default: return this.fail(`operator "${(e as A.Binary).op}" is not supported yet`, (e as A.Binary).pos);
    }
  }

  /** C's `%` of two converted operands (c-remainder.ts). */
  private readonly remainder = (a: Expr, b: Expr): Expr => cRemainder(a, b, this.signs);

  private subscript(base: A.Expr, idx: readonly A.Expr[], ctx: Ctx, pos: A.Pos): Expr {
    const label = exprLabel(base);
    if (base.kind !== "ident") this.structPlace(base, ctx); // fails for a struct argument that is left out
    const found = base.kind === "ident" ? ctx.scope.get(base.name) : this.byValueField(base, ctx) ?? pointerBinding(this, base, ctx, label);
    let indices: Expr[] = [];
    for (const i of idx) indices.push(this.expr(i, ctx));
    // (usable() without a closure: this runs on every subscript)
    if (found?.kind === "absent") return this.fail(found.reason, pos);
    let b = found;
    if (b?.kind === "pointers") {
      if (idx.length === 0) this.fail(`array of pointers "${label}" used without a subscript`, pos);
      b = usable(pointerSlot(this, b, idx[0]!, ctx), this.failAt(pos));
      indices = indices.slice(1);
    }
    return this.element(b, indices, label, pos, ctx);
  }

  /** Element `indices` of what `b` binds (expr-places.ts). */
  private element(b: Binding | undefined, indices: readonly Expr[], label: string, pos: A.Pos, ctx: Ctx): Expr {
    return bindingElement(this.elements, b, indices, label, pos, ctx);
  }
  private readonly elements: ElementHost = {
    fail: (d, p) => this.fail(d, p), regions: this.regions, rows: this.rows, emitted: () => this.emitted(),
  };
}
