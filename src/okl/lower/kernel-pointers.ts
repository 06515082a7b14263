/**
 * Lowering one OKL @kernel, its pointers and calls: local pointers as aliases of the arrays they
 * point into (declared with an initializer, assigned once, or an array of them filled slot by
 * slot), and statement calls of device functions that return nothing, inlined as the kernel's own
 * statements with pointer parameters bound to the caller's arrays or scalars (`&r`).
 */
import { c, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { assigned } from "./ast-queries.js";
import { Scope, type Binding, type Ctx } from "./bindings.js";
import { hasStatementCall } from "./block-queries.js";
import { checkInlinable, pointerBinding, pointerParam, pointerSlotIndex, statementInlinable } from "./inline.js";
import { arrayExtents } from "./initializers.js";
import { ArgumentLowering } from "./kernel-arguments.js";
import { assignPointerField } from "./record-pointers.js";
import { recordByValue } from "./records.js";
import { constructorOf, defaultConstructor, isClassObject, memberCall } from "./class-calls.js";
import { choiceOf, conditionalWays, foldInt, pointerArms, wayTaken } from "./pointer-choice.js";

export abstract class PointerLowering extends ArgumentLowering {
  /** Local pointers declared without an initializer, by their placeholder binding: where they were declared. */
  private readonly pendingPointers = new WeakMap<Binding, { readonly declarator: A.Declarator; readonly ctx: Ctx }>();
  /** Local pointers by the scope of the block that declares them (they may be assigned there, pointer-choice.ts). */
  private readonly localPointers = new WeakMap<Scope, Map<string, A.Declarator>>();
  protected abstract block(items: readonly A.Stmt[], ctx: Ctx): void;
  protected abstract declaration(s: A.Declaration, ctx: Ctx): void;

  /**
   * `S<…> obj{a, b};` of a class template with a constructor: the object declared, then its
   * constructor inlined on its address (`S::ctor(&obj, a, b)`). False for other declarations.
   */
  protected constructObjects(s: A.Declaration, ctx: Ctx): boolean {
    if (!isClassObject(s.spec, this.file)) return false;
    // One object of a struct with a single-dtype layout is an array of one (`&obj` is then that
    // array, which `self->f` in its methods reads); a struct with mixed fields is a record either way.
    const one = !("reason" in (this.file.structs.resolve(s.spec) ?? { reason: "" }));
    for (const d of s.declarators) {
      const call = constructorOf(d) ?? defaultConstructor(s.spec, d, this.file); // `S<…> obj;` runs S() as C++ does
      if (d.arrayDims.length > 0 && defaultConstructor(s.spec, { ...d, arrayDims: [], init: undefined }, this.file)) {
        this.fail(`array of objects "${d.name}": C++ runs the constructor of "${(s.spec.base as { name: string }).name}" on each element, which Loom does not (declare the objects one by one)`, d.pos, "OKL subset");
      }
      const whole = one && d.pointers.length + d.arrayDims.length === 0;
      // `S obj = other;` copies (C++'s implicit copy constructor): declared, then assigned as a whole.
      const copy = whole && !call && d.init !== undefined && d.init.kind !== "initList" ? d.init : undefined;
      this.declaration({ ...s, declarators: [{ ...d, init: call || copy ? undefined : d.init, ...(whole ? { arrayDims: [{ kind: "int", value: 1, pos: d.pos } as A.Expr] } : {}) }] }, ctx);
      const b = ctx.scope.get(d.name);
      if (whole && b?.kind === "temp") ctx.scope.set(d.name, { ...b, object: true }); // `obj.f` reads its field
      if (copy) {
        const target: A.Expr = { kind: "ident", name: d.name, pos: d.pos } as A.Expr;
        this.block([{ kind: "expr", attributes: [], expr: { kind: "assign", op: "=", target, value: copy, pos: d.pos } as A.Expr, pos: d.pos }], ctx);
      }
      if (!call) continue;
      const self: A.Expr = { kind: "unary", op: "&", operand: { kind: "ident", name: d.name, pos: d.pos }, pos: d.pos } as A.Expr;
      if (d.pointers.length + d.arrayDims.length > 0) this.fail(`"${d.name}": a constructor call initializes an object, not a pointer or an array`, d.pos);
      if (!this.inlineCallStatement({ ...call, args: [self, ...call.args] }, ctx)) this.fail(`the constructor of "${d.name}" cannot be inlined`, call.pos);
    }
    return true;
  }

  /** What precedes an access through ping-pong pointers: the instructions emitted so far (chosen-regions.ts). */
  protected readonly emittedCount = (this.ex.emitted = () => this.log.insns.length);

  /** Pointer casts check the type the pointer points to (byte-pointers.ts): the dtype of an argument's or a temporary's elements. */
  private readonly elementDtypes = (this.ex.elementDtype = (b: Binding): Dtype | undefined => {
    switch (b.kind) {
      case "array": return b.struct || b.extents ? undefined : this.argNamed(b.name)?.dtype;
      case "temp": return b.struct ? undefined : this.tempNamed(b.name)?.dtype;
      case "table": return b.values[0]?.kind === "cast" ? b.values[0].dtype : undefined;
      case "choice": {
        const ds = new Set([b.otherwise, ...b.options.map((o) => o.target)].map((t) => this.elementDtypes(t)));
        return ds.size === 1 ? [...ds][0] : undefined;
      }
      default: return undefined;
    }
  });

  /**
   * `f(args);` calling a device function that returns nothing, inlined as the kernel's own
   * statements: pointer parameters alias the caller's arrays or scalars (`&r`), scalar parameters
   * are the converted arguments (kept in a temporary where the body assigns the parameter or the
   * argument reads memory). False where the call takes the opaque-block path instead.
   */
  protected inlineCallStatement(e0: A.Expr, ctx: Ctx): boolean {
    const e = memberCall(e0, ctx, this.file, this.failAt) ?? e0; // `obj.method(…)` of a class template instance
    if (e.kind !== "call" || e.callee.kind !== "ident") return false;
    const f = this.file.functions.get(e.callee.name);
    if (!f || !statementInlinable(f, this.file) || e.args.some((a) => hasStatementCall(a, this.file))) return false;
    checkInlinable(this.ex, f, e);
    const scope = new Scope(this.file.globals);
    f.params.forEach((p, k) => {
      const d = p.declarator;
      const a = e.args[k]!;
      const ptr = pointerParam(this.ex, p, a, ctx, scope); // a pointer (of a pointer typedef, or with @dim)
      if (ptr) return scope.set(d.name, ptr);
      const record = recordByValue(this.ex, this.file.structs, f, p, a, ctx); // a struct with mixed field types by value
      if (record) return scope.set(d.name, record);
      const dtype = this.file.dtype(p.spec, p.pos);
      const value: Expr = { kind: "cast", dtype, value: this.ex.expr(a, ctx) };
      if (this.pure(value) && !assigned(f.body!.items, d.name)) return scope.set(d.name, { kind: "expr", expr: value });
      const name = this.fresh(`${f.name}_${d.name}`);
      this.temps.push({ name, dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
      this.emit({ kind: "var", name }, value, ctx, false, a.pos);
      scope.set(d.name, { kind: "temp", name, rank: 0 });
    });
    this.ex.inlineDepth++;
    try {
      this.block(f.body!.items, { ...ctx, scope });
    } finally {
      this.ex.inlineDepth--;
    }
    return true;
  }

  /**
   * A local pointer: an alias of the array it points into (OKL kernels use them for offsets and for
   * @dim views). Bound by its initializer, or by the first assignment `p = a;` in the block that
   * declares it, under the same loops and conditions (so one alias holds wherever `p` is read).
   * Its own @dim/@dimOrder (or its typedef's) index the array it aliases.
   */
  protected localPointer(d: A.Declarator, ctx: Ctx): void {
    if (d.arrayDims.length === 1 && !d.okl.shared && !d.okl.dim) return this.pointerArray(d, ctx);
    if (d.arrayDims.length > 0 || d.init?.kind === "initList") this.fail(`local pointer "${d.name}" must be initialized with an array, \`a + k\` or \`&a[k]\``, d.pos);
    // @exclusive changes nothing for an alias that is never reassigned; a @shared pointer would be one per group.
    if (d.okl.shared) this.fail(`local pointer "${d.name}" cannot be @shared`, d.pos);
    let declared = this.localPointers.get(ctx.scope);
    if (!declared) this.localPointers.set(ctx.scope, (declared = new Map()));
    declared.set(d.name, d);
    if (d.init !== undefined) {
      ctx.scope.set(d.name, this.alias(d, d.init, ctx));
      return;
    }
    const pending: Binding = {
      kind: "absent",
      reason: `local pointer "${d.name}" is read before it is assigned (reading through it is undefined in C); assign it an array (\`${d.name} = a;\`, \`a + k\`, \`&a[k]\`) first, in the block that declares it`,
    };
    this.pendingPointers.set(pending, { declarator: d, ctx });
    ctx.scope.set(d.name, pending);
  }

  /**
   * `T *p[n];` (or `= {a, b + k}`): one alias per slot, each bound where it is assigned at a
   * compile-time subscript (`for (s = 0; s < n; ++s) p[s] = a + s*N;`, a constant loop unrolled).
   */
  private pointerArray(d: A.Declarator, ctx: Ctx): void {
    const [n] = arrayExtents(d, ctx.scope, this.failAt, d.init?.kind === "initList");
    const init = d.init;
    if (init !== undefined && init.kind !== "initList") this.fail(`array of pointers "${d.name}" must be initialized with {…} or assigned slot by slot`, d.pos);
    const items = init?.items ?? [];
    if (n !== undefined && items.length > n) this.fail(`array of pointers "${d.name}" has ${n} slot(s) but ${items.length} initializers`, d.pos);
    const slots: (Binding | undefined)[] = Array.from({ length: n ?? items.length }, (_, k) => (items[k] ? pointerBinding(this.ex, items[k]!, ctx, `${d.name}[${k}]`) : undefined));
    ctx.scope.set(d.name, { kind: "pointers", name: d.name, slots, preds: ctx.preds.length });
  }

  /** `p = a;` binding a declared, not yet assigned local pointer `p`; false where `e` is no such assignment. */
  protected assignPointer(e: A.Expr, ctx: Ctx): boolean {
    if (assignPointerField(this.ex, e, ctx)) return true; // `bc.usrwrk = W;` on a struct local
    if (e.kind === "assign" && e.target.kind === "index" && e.target.target.kind === "ident") {
      const b = ctx.scope.get(e.target.target.name);
      if (b?.kind !== "pointers") return false;
      if (e.op !== "=") this.fail(`array of pointers "${b.name}": a slot can only be assigned with "=" (pointer arithmetic on a slot is not supported)`, e.pos);
      if (ctx.preds.length !== b.preds) this.fail(`array of pointers "${b.name}": its slots must be assigned outside conditions entered after its declaration (one alias for every read)`, e.pos);
      const slot = pointerSlotIndex(this.ex, b, e.target.index, ctx);
      b.slots[slot] = pointerBinding(this.ex, e.value, ctx, `${b.name}[${slot}]`);
      return true;
    }
    if (e.kind !== "assign" || e.target.kind !== "ident") return false;
    const b = ctx.scope.get(e.target.name);
    const pending = b && this.pendingPointers.get(b);
    if (!pending) {
      // A local pointer of this block assigned again in it: from here on, the new alias.
      const d = e.op === "=" ? this.blockPointer(e.target.name, ctx) : undefined;
      if (d) ctx.scope.set(d.name, this.alias(d, e.value, ctx));
      return d !== undefined;
    }
    const d = pending.declarator;
    const same = (x: readonly unknown[], y: readonly unknown[]) => x.length === y.length && x.every((v, k) => v === y[k]);
    if (e.op !== "=" || ctx.scope !== pending.ctx.scope || !same(ctx.within, pending.ctx.within) || !same(ctx.preds, pending.ctx.preds)) {
      this.fail(`local pointer "${d.name}" must be assigned with "=" in the block that declares it, outside loops and conditions entered after its declaration (one alias for every read)`, e.pos);
    }
    ctx.scope.set(d.name, this.alias(d, e.value, ctx));
    return true;
  }

  /**
   * A switch or an if/else chain that assigns local pointers of this block (and nothing else):
   * each pointer becomes a choice among its targets per way through it, by a snapshot of the way
   * taken (pointer-choice.ts). False where it assigns none of them.
   */
  protected choosePointers(s: A.Switch | A.If, ctx: Ctx): boolean {
    const declared = this.localPointers.get(ctx.scope);
    if (!declared) return false;
    const ways = pointerArms(s, (n) => declared.has(n) && this.blockPointer(n, ctx) !== undefined, this.failAt);
    if (!ways) return false;
    let conds: (Expr | undefined)[];
    const arms = [...ways.arms];
    if (ways.kind === "if") conds = arms.map((a) => (a.labels[0] ? this.ex.expr(a.labels[0], ctx) : undefined));
    else {
      const sel = this.ex.expr((s as A.Switch).cond, ctx);
      const eq = (x: A.Expr): Expr => ({ kind: "compare", op: "==", left: sel, right: this.ex.expr(x, ctx) });
      const labelled = arms.flatMap((a) => a.labels.filter((x): x is A.Expr => x !== undefined));
      const none: Expr = labelled.length === 0 ? c(1) : { kind: "not", operand: labelled.map(eq).reduce((l, r) => ({ kind: "logical", op: "or", left: l, right: r })) };
      conds = arms.map((a) => a.labels.map((x) => (x === undefined ? none : eq(x))).reduce((l, r) => ({ kind: "logical", op: "or", left: l, right: r })));
      // The way with `default` (or the one added for no match) catches the rest: last in the chain.
      const k = arms.findIndex((a) => a.labels.includes(undefined));
      conds = [...conds.slice(0, k), ...conds.slice(k + 1), undefined];
      arms.push(arms.splice(k, 1)[0]!);
    }
    conds[conds.length - 1] = undefined;
    const which = this.snapshot(wayTaken(conds), ctx, s.pos);
    const names = new Set(arms.flatMap((a) => a.assigns.map((x) => (x.target as A.Ident).name)));
    const finals = arms.map((a) => {
      const scope = new Scope(ctx.scope);
      for (const x of a.assigns) scope.set((x.target as A.Ident).name, this.alias(declared.get((x.target as A.Ident).name)!, x.value, { ...ctx, scope }));
      return scope;
    });
    for (const n of names) ctx.scope.set(n, choiceOf(n, which, finals.map((f) => f.get(n)!)));
    return true;
  }

  /** `e` held in a fresh private int where it is not a constant (the way taken, read at every later use). */
  private snapshot(e: Expr, ctx: Ctx, pos: A.Pos): Expr {
    const v = foldInt(e);
    if (v !== undefined) return c(v);
    const name = this.fresh("way");
    this.temps.push({ name, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
    this.emit({ kind: "var", name }, e, ctx, false, pos);
    return { kind: "var", name };
  }

  /** The declarator of local pointer `name` when `ctx` is in the block that declares it (where it may be assigned). */
  private blockPointer(name: string, ctx: Ctx): A.Declarator | undefined {
    const d = this.localPointers.get(ctx.scope)?.get(name);
    const b = d && ctx.scope.get(name);
    return b && b.kind !== "absent" || (b && this.pendingPointers.has(b)) ? d : undefined;
  }

  /** The array `init` points into, seen through `d`'s own @dim and @dimOrder when it has them. */
  private alias(d: A.Declarator, init: A.Expr, ctx: Ctx): Binding {
    if (init.kind === "conditional" && !d.okl.dim) {
      // `p = c ? a : b`: a choice by the snapshot of the way taken.
      const ways = conditionalWays(init, (x) => this.ex.expr(x, ctx));
      const which = this.snapshot(ways.which, ctx, init.pos);
      return choiceOf(d.name, which, ways.leaves.map((x) => pointerBinding(this.ex, x, ctx, d.name)));
    }
    const b = pointerBinding(this.ex, init, ctx, d.name);
    if (!d.okl.dim) return b;
    if (b.kind !== "array" || b.offset !== undefined) this.fail(`local pointer "${d.name}" with @dim must alias a whole array argument (offsets and local arrays are not supported with @dim)`, d.pos);
    return { ...b, dim: { dims: d.okl.dim.map((x) => this.ex.expr(x, ctx)), order: d.okl.dimOrder ?? d.okl.dim.map((_, k) => k) } };
  }

}
