/**
 * OKL statements that integer domains cannot express, lowered to opaque blocks (src/ir/block.ts):
 * `while`/`do-while`, `break`/`continue`, loops whose header is not an affine `for`, and calls
 * of device functions that need statements (loops, assigned locals, `return` inside loops),
 * inlined as a labeled region that each `return` exits. Ordinary affine loops and assignments
 * keep their lowering to inames and instructions; a block sits inside them.
 *
 *   // while (x > 1) { x = x / 2; ++n; }   inside @inner loop i
 *   // -> one block instruction within i: { while (x > 1) { x = x / 2; n = n + 1; } }
 */
import { c, exprType, type ArithOp, type BlockStmt, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { cRemainder } from "./c-remainder.js";
import { cBinary } from "./c-conversions.js";
import { hasStatementCall, statementCall } from "./block-queries.js";
import { Scope, type Ctx } from "./bindings.js";
import { checkInlinable, pointerBinding, pointerParam } from "./inline.js";
import { arrayExtents, flattenInit, rowMajor } from "./initializers.js";
import { blockVectorAssign, blockVectorDeclaration } from "./block-vectors.js";
import { componentNames, toComponent, type VectorType } from "./vectors.js";
import { switchBlock, switchSegments } from "./switch.js";
import { copyRecord, recordDeclaration, type RecordDeclHost } from "./record-locals.js";
import { recordByValue } from "./records.js";
import { assignPointerField } from "./record-pointers.js";
import { flatCandidate, usedFlat } from "./flat-views.js";
import { checkUnconditional } from "./block-conditional.js";
import { droppedPrintf } from "./printf.js";

export type { BlockHost } from "./block-host.js";
import type { BlockHost } from "./block-host.js";

/** The context of a statement inside a block. */
interface BCtx {
  readonly ctx: Ctx;
  /** Inside a loop of the block (break/continue allowed). */
  readonly inLoop: boolean;
  /** Inside a switch (and no loop inside it): the label `break` exits. */
  readonly brk?: string | undefined;
  /** Inside an inlined device function: the region `return` exits and where its value goes. */
  readonly ret?: {
    readonly label: string; readonly name?: string; readonly dtype?: Dtype; readonly fn: string;
    /** A function returning a vector: its type and the locals of its components. */
    readonly vector?: { readonly type: VectorType; readonly names: readonly string[] };
  };
}

/** The operator of each compound assignment (`+=` is `+`). */
export const COMPOUND: Readonly<Record<string, ArithOp>> = {
  "+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "&=": "&", "|=": "|", "^=": "^", "<<=": "<<", ">>=": ">>",
};

/** Lowers one OKL statement (and what it contains) to the statements of a block. */
export class BlockLowering {
  constructor(private readonly host: BlockHost) {}

  /**
   * `s` as block statements. Declarations at the top (`topLevel`) are seen by the statements after
   * the block: they become private temporaries of the kernel, bound in `ctx.scope`.
   */
  lower(s: A.Stmt, ctx: Ctx): BlockStmt[] {
    const b: BCtx = { ctx, inLoop: false };
    if (s.kind === "declaration") return this.declaration(s, b, true);
    return this.stmt(s, b);
  }

  private fail(detail: string, pos: A.Pos): never {
    return this.host.fail(detail, pos);
  }

  private stmts(items: readonly A.Stmt[], b: BCtx): BlockStmt[] {
    items.forEach((s, idx) => {
      if (s.kind === "declaration") for (const d of s.declarators) if (flatCandidate(d) && usedFlat(items.slice(idx + 1), d.name, d.arrayDims.length)) this.flatDecls.add(d);
    });
    return items.flatMap((s) => this.stmt(s, b));
  }

  /** Multi-dimensional arrays declared in the block that later statements use as flat pointers (flat-views.ts). */
  private readonly flatDecls = new Set<A.Declarator>();

  private inner(b: BCtx, extra: Partial<BCtx> = {}): BCtx {
    return { ...b, ...extra, ctx: { ...b.ctx, scope: new Scope(b.ctx.scope) } };
  }

  private stmt(s: A.Stmt, b: BCtx): BlockStmt[] {
    switch (s.kind) {
      case "empty": case "pragma": return [];
      case "compound": {
        const inner = this.inner(b);
        return this.stmts(s.items, inner);
      }
      case "declaration": return this.declaration(s, b, false);
      case "expr": return this.exprStmt(s.expr, b);
      case "if": {
        const pre: BlockStmt[] = [];
        const cond = this.expr(s.cond, b, pre, true);
        return [...pre, { kind: "if", cond, then: this.stmt(s.then, this.inner(b)), else: s.else ? this.stmt(s.else, this.inner(b)) : [] }];
      }
      case "while": {
        const pre: BlockStmt[] = [];
        const cond = this.expr(s.cond, b, pre, true);
        const body = this.stmt(s.body, this.inner(b, { inLoop: true, brk: undefined }));
        if (pre.length === 0) return [{ kind: "while", cond, body }];
        // The condition needs statements: evaluated at the top of every iteration.
        return [{ kind: "while", cond: c(1), body: [...pre, { kind: "if", cond: { kind: "not", operand: cond }, then: [{ kind: "break" }], else: [] }, ...body] }];
      }
      case "doWhile": {
        const body = this.stmt(s.body, this.inner(b, { inLoop: true, brk: undefined }));
        return [{ kind: "doWhile", body, cond: this.pureExpr(s.cond, b, "the condition of a do-while loop") }];
      }
      case "for": return this.forLoop(s, b);
      case "switch": return this.switchStmt(s, b);
      case "case": return this.fail(`"${s.value === undefined ? "default" : "case"}" label outside a switch`, s.pos);
      case "break": case "continue":
        if (s.kind === "break" && b.brk !== undefined) return [{ kind: "exit", label: b.brk }];
        if (!b.inLoop) this.fail(`"${s.kind}" outside a loop`, s.pos);
        return [{ kind: s.kind }];
      case "return": {
        const r = b.ret;
        if (!r) this.fail("\"return\" in a @kernel is not supported (on OCCA's serial mode it leaves the whole kernel, on GPUs only the work-item); use a condition instead", s.pos);
        const out: BlockStmt[] = [];
        if (s.value !== undefined && r.vector) {
          const pre: BlockStmt[] = [];
          const v = this.host.ex.vec.comps(s.value, this.withCalls(b, pre), r.vector.type);
          out.push(...pre, ...r.vector.names.map((name, k): BlockStmt => ({ kind: "assign", lhs: { kind: "var", name }, rhs: toComponent(r.vector!.type, v[k]!) })));
        } else if (s.value !== undefined) {
          if (r.name === undefined) this.fail(`device function "${r.fn}" returns void but "return" has a value`, s.pos);
          const pre: BlockStmt[] = [];
          const v = this.expr(s.value, b, pre);
          out.push(...pre, { kind: "assign", lhs: { kind: "var", name: r.name }, rhs: { kind: "cast", dtype: r.dtype!, value: v } });
        }
        return [...out, { kind: "exit", label: r.label }];
      }
      case "barrier": return this.fail("@barrier inside a while loop, a loop with break/continue or a device function with loops cannot be lowered: all work-items must reach it", s.pos);
      case "atomic": return this.fail("@atomic inside a while loop, a loop with break/continue or a device function with loops is not supported yet", s.pos);
      default: return this.fail(`${(s as A.Stmt).kind} statements are not supported yet`, (s as A.Stmt).pos);
    }
  }

  /** C's switch (switch.ts): the selector once, fall-through between labeled runs, `break` leaves it. */
  private switchStmt(s: A.Switch, b: BCtx): BlockStmt[] {
    const pre: BlockStmt[] = [];
    const selector = this.expr(s.cond, b, pre);
    const segments = switchSegments(s, (m, p) => this.fail(m, p));
    const label = this.host.fresh("switch");
    const values = segments.map((g) => g.labels.map((x) => (x === undefined ? undefined : this.pureExpr(x, b, "a case label"))));
    const inner = this.inner(b, { brk: label });
    const bodies = segments.map((g) => this.stmts(g.stmts, inner));
    return [...pre, ...switchBlock(selector, this.host.fresh("switch_value"), this.host.fresh("switch_matched"), label, values, bodies)];
  }

  private forLoop(s: A.For, b: BCtx): BlockStmt[] {
    if (s.okl !== undefined) this.fail(`an @${s.okl.kind} loop inside a while loop, a loop with break/continue or a device function with loops is not supported (it must be a loop of the kernel's nest)`, s.pos);
    const inner = this.inner(b);
    const init = s.init === undefined ? [] : s.init.kind === "declaration" ? this.declaration(s.init, inner, false) : this.exprStmt(s.init, inner);
    const cond = s.cond === undefined ? c(1) : this.pureExpr(s.cond, inner, "the condition of a for loop");
    const step = s.update === undefined ? [] : this.exprStmt(s.update, inner);
    if (s.update !== undefined && hasStatementCall(s.update, this.host.file)) this.fail("the update of a for loop calls a device function with loops; move the call into the body", s.update.pos);
    const body = this.stmt(s.body, { ...inner, inLoop: true, brk: undefined, ctx: { ...inner.ctx, scope: new Scope(inner.ctx.scope) } });
    return [{ kind: "for", init, cond, step, body }];
  }

  private declaration(s: A.Declaration, b: BCtx, topLevel: boolean): BlockStmt[] {
    if (s.spec.storage.includes("typedef")) this.fail("typedefs inside kernels are not supported yet", s.pos);
    const out: BlockStmt[] = [];
    const vector = this.host.file.vectorType(s.spec);
    if (vector) return blockVectorDeclaration(this.host, s, vector, b.ctx.scope, topLevel, (pre) => this.withCalls(b, pre));
    // Structs whose fields mix types: one private temporary per leaf, initialized here (record-locals.ts).
    const pointer = (d: A.Declarator) => void b.ctx.scope.set(d.name, pointerBinding(this.host.ex, d.init ?? this.fail(`local pointer "${d.name}" must be initialized`, d.pos), b.ctx, d.name));
    if (recordDeclaration(this.host.file.structs, this.recordHost(out), s, b.ctx, pointer, "inside a while loop, a loop with break/continue or a device function with loops is not supported")) return out;
    if (s.spec.base.kind === "named" && s.spec.base.name === "auto") return this.autoDeclaration(s, b, topLevel);
    const dtype = this.host.file.dtype(s.spec, s.pos);
    for (const d of s.declarators) {
      if (d.pointers.length > 0) {
        if (d.arrayDims.length > 0 || d.init === undefined || d.init.kind === "initList") this.fail(`local pointer "${d.name}" must be initialized with an array, \`a + k\` or \`&a[k]\``, d.pos);
        b.ctx.scope.set(d.name, pointerBinding(this.host.ex, d.init, b.ctx, d.name));
        continue;
      }
      if (d.okl.shared || d.okl.exclusive) this.fail(`@${d.okl.shared ? "shared" : "exclusive"} "${d.name}" inside a while loop, a loop with break/continue or a device function with loops is not supported`, d.pos);
      if (d.arrayDims.length > 0 || topLevel) {
        // Arrays (and scalars later statements read) are private temporaries of the kernel.
        const declared = arrayExtents(d, b.ctx.scope, (m, p) => this.fail(m, p));
        const flat = declared.length > 0 && d.init?.kind === "initList" ? flattenInit(d.init, declared, d.name, (m, p) => this.fail(m, p)) : undefined;
        const shape = flat?.shape ?? declared.map((n) => n!);
        const name = this.host.fresh(d.name);
        this.host.addTemp({ name, dtype, shape: shape.map((n) => c(n)), addressSpace: "private", order: "C", dimTags: undefined });
        const pre: BlockStmt[] = [];
        if (d.init?.kind === "initList" && !flat) this.fail(`scalar "${d.name}" cannot be initialized with {…}`, d.pos);
        const items = d.init === undefined ? [] : flat ? flat.items.map((x) => (x ? this.expr(x, b, pre) : c(0))) : [this.expr(d.init, b, pre)];
        // Also a flat pointer (`(T *) Ve`): stored row-major, bound with offset 0 (as kernel-statements.ts does).
        const view = shape.length > 1 && this.host.flatView !== undefined && (this.flatDecls.has(d) || (topLevel && this.host.flatDecl?.(d) === true));
        if (view) this.host.flatView!(name);
        b.ctx.scope.set(d.name, { kind: "temp", name, rank: shape.length, ...(view ? { offset: c(0), rows: shape } : {}) });
        out.push(...pre);
        if (flat) {
          items.forEach((rhs, k) => out.push({ kind: "assign", lhs: { kind: "subscript", array: name, indices: rowMajor(k, shape) }, rhs }));
        } else if (items.length > 0) {
          if (shape.length > 0) this.fail(`array "${d.name}" must be initialized with {…}`, d.pos);
          out.push({ kind: "assign", lhs: { kind: "var", name }, rhs: items[0]! });
        }
        continue;
      }
      if (d.init?.kind === "initList") this.fail(`scalar "${d.name}" cannot be initialized with {…}`, d.pos);
      const name = this.host.fresh(d.name);
      const pre: BlockStmt[] = [];
      const init = d.init === undefined ? undefined : this.expr(d.init, b, pre);
      b.ctx.scope.set(d.name, { kind: "temp", name, rank: 0 });
      this.host.ex.localTypes.set(name, dtype); // C's conversions (c-conversions.ts)
      out.push(...pre, init === undefined ? { kind: "decl", name, dtype } : { kind: "decl", name, dtype, init });
    }
    return out;
  }

  /** C++ `auto x = e;` in a block (a nekRS .oudf's boundary function): a scalar local of e's type, as in kernel statements. */
  private autoDeclaration(s: A.Declaration, b: BCtx, topLevel: boolean): BlockStmt[] {
    const d = s.declarators[0]!;
    if (s.declarators.length !== 1 || d.init === undefined || d.init.kind === "initList" || d.pointers.length + d.arrayDims.length > 0) this.fail("C++ auto: only `auto x = expression;` declaring one scalar is supported", d.pos);
    const pre: BlockStmt[] = [];
    const init = this.expr(d.init, b, pre);
    const ex = this.host.ex;
    const dtype = exprType(init, { varType: (n) => ex.localTypes.get(n) ?? ex.types.dtypeOf(n) })?.dtype ?? this.fail(`C++ auto: cannot deduce the type of "${d.name}" from its initializer`, d.pos);
    const name = this.host.fresh(d.name);
    b.ctx.scope.set(d.name, { kind: "temp", name, rank: 0 });
    ex.localTypes.set(name, dtype); // C's conversions (c-conversions.ts)
    if (!topLevel) return [...pre, { kind: "decl", name, dtype, init }];
    this.host.addTemp({ name, dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
    return [...pre, { kind: "assign", lhs: { kind: "var", name }, rhs: init }];
  }

  /** Declarations and copies of structs with mixed field types (record-locals.ts) as assignments appended to `out`. */
  private recordHost(out: BlockStmt[]): RecordDeclHost {
    return { ...this.host, assign: (lhs, rhs) => void out.push({ kind: "assign", lhs, rhs }) };
  }

  private exprStmt(e: A.Expr, b: BCtx): BlockStmt[] {
    if (e.kind === "comma") return e.exprs.flatMap((x) => this.exprStmt(x, b));
    const pre: BlockStmt[] = [];
    if (droppedPrintf(e, this.host.file)) return pre;
    if (e.kind === "call" && statementCall(e, this.host.file)) {
      this.expr(e, b, pre); // the value (if any) is dropped
      return pre;
    }
    if (assignPointerField(this.host.ex, e, b.ctx)) return pre; // `bc.usrwrk = W;`: an alias, no statement (record-pointers.ts)
    const whole = e.kind === "assign" ? this.host.ex.vec.typeOf(e.target, b.ctx) : undefined;
    if (whole) return blockVectorAssign(this.host, e as A.Assign, whole, (pre) => this.withCalls(b, pre));
    const record = e.kind === "assign" ? this.host.ex.recordPlaces(e.target, b.ctx) : undefined;
    if (e.kind === "assign" && record) {
      copyRecord(this.recordHost(pre), record, e.value, this.withCalls(b, pre), e.pos, e.op !== "=" ? e.op : undefined);
      return pre;
    }
    let target: A.Expr;
    let rhs: (lhs: Expr) => Expr;
    if (e.kind === "assign") {
      target = e.target;
      const value = this.expr(e.value, b, pre);
      if (e.op === "=") rhs = () => value;
      else {
        const op = COMPOUND[e.op] ?? this.fail(`operator "${e.op}" is not supported yet`, e.pos);
        rhs = (lhs) => cBinary(op, lhs, value, this.host.ex.types, (l, r) => (op === "%" ? cRemainder(l, r, this.host.ex.signs) : { kind: "arith", op, left: l, right: r }));
      }
    } else if ((e.kind === "unary" && (e.op === "++" || e.op === "--")) || (e.kind === "postfix" && (e.op === "++" || e.op === "--"))) {
      target = e.operand;
      const op: ArithOp = e.op === "++" ? "+" : "-";
      rhs = (lhs) => ({ kind: "arith", op, left: lhs, right: c(1) });
    } else {
      return this.fail(`expression statement (${e.kind}) is not supported yet; only assignments, updates and calls of device functions are`, e.pos);
    }
    // A component of a vector (`v.x`, `p[i].x`) is a plain scalar; struct fields are not supported here yet.
    const component = target.kind === "member" && !target.arrow && this.host.ex.vec.typeOf(target.target, b.ctx) !== undefined;
    if (!component && this.host.ex.structPlace(target, b.ctx)) this.fail("struct values inside a while loop, a loop with break/continue or a device function with loops are not supported yet", target.pos);
    const lhs = this.host.ex.lvalue(target, this.withCalls(b, pre));
    return [...pre, { kind: "assign", lhs, rhs: rhs(lhs) }];
  }

  /** `e` lowered; device functions that need statements are inlined into `pre` first. */
  /** `e` lowered, the calls it makes appended to `pre`; `truth`: a condition (a pointer in it is a null test). */
  private expr(e: A.Expr, b: BCtx, pre: BlockStmt[], truth = false): Expr {
    checkUnconditional(e, false, this.host.file, (m, p) => this.fail(m, p));
    const ctx = this.withCalls(b, pre);
    return truth ? this.host.ex.truth(e, ctx) : this.host.ex.expr(e, ctx);
  }

  /** A condition lowered where nothing can be hoisted before it (loop conditions evaluated each iteration). */
  private pureExpr(e: A.Expr, b: BCtx, what: string): Expr {
    const pre: BlockStmt[] = [];
    const x = this.expr(e, b, pre, true);
    if (pre.length > 0) this.fail(`${what} calls a device function with loops; compute it into a variable in the body`, e.pos);
    return x;
  }

  private withCalls(b: BCtx, pre: BlockStmt[]): Ctx {
    return this.callsInto(b.ctx, pre);
  }

  /**
   * A call of device function `f` as statements appended to `pre`: scalar parameters become
   * locals holding the converted arguments, pointer parameters alias the caller's arrays, the
   * body runs in a region labeled for `f` that each `return` leaves after storing its value.
   */
  private inlineStatements(f: A.FunctionDef, e: A.Call, ctx: Ctx, pre: BlockStmt[]): Expr[] {
    const ex = this.host.ex;
    checkInlinable(ex, f, e);
    const scope = new Scope(this.host.file.globals);
    const calls = this.callsInto({ ...ctx }, pre);
    f.params.forEach((p, k) => {
      const d = p.declarator;
      const a = e.args[k]!;
      const ptr = pointerParam(ex, p, a, calls, scope);
      const record = ptr ? undefined : recordByValue(ex, this.host.file.structs, f, p, a, calls); // a struct with mixed field types by value
      if (ptr || record) {
        scope.set(d.name, (ptr ?? record)!);
        return;
      }
      const vt = this.host.file.vectorType(p.spec);
      if (vt) {
        // A vector parameter: one local per component holding the argument's component.
        const v = ex.vec.comps(a, calls, vt);
        const names = componentNames(vt).map((cn) => this.host.fresh(`${f.name}_${d.name}_${cn}`));
        names.forEach((name, j) => pre.push({ kind: "decl", name, dtype: vt.dtype, init: toComponent(vt, v[j]!) }));
        scope.set(d.name, { kind: "vector", type: vt, comps: names.map((name) => ({ kind: "temp", name, rank: 0 })) });
        return;
      }
      const dtype = this.host.file.dtype(p.spec, p.pos);
      const name = this.host.fresh(`${f.name}_${d.name}`);
      pre.push({ kind: "decl", name, dtype, init: { kind: "cast", dtype, value: ex.expr(a, calls) } });
      scope.set(d.name, { kind: "temp", name, rank: 0 });
      ex.localTypes.set(name, dtype); // C's conversions (c-conversions.ts)
    });
    const isVoid = f.returnType.base.kind === "builtin" && f.returnType.base.name === "void" && f.returnPointers.length === 0;
    const vt = f.returnPointers.length === 0 ? this.host.file.vectorType(f.returnType) : undefined;
    const dtype = isVoid || vt ? undefined : this.host.file.dtype(f.returnType, f.pos);
    const name = isVoid || vt ? undefined : this.host.fresh(`${f.name}_ret`);
    const vector = vt && { type: vt, names: componentNames(vt).map((cn) => this.host.fresh(`${f.name}_ret_${cn}`)) };
    const label = this.host.fresh(`${f.name}_body`);
    if (name !== undefined) pre.push({ kind: "decl", name, dtype: dtype! }), ex.localTypes.set(name, dtype!); // (c-conversions.ts)
    for (const n of vector?.names ?? []) pre.push({ kind: "decl", name: n, dtype: vt!.dtype });
    ex.inlineDepth++;
    try {
      const body = this.stmts(f.body!.items, {
        ctx: { ...ctx, scope, stmtCall: undefined, stmtVectorCall: undefined }, inLoop: false,
        ret: { label, fn: f.name, ...(name !== undefined ? { name, dtype: dtype! } : {}), ...(vector ? { vector } : {}) },
      });
      pre.push({ kind: "labeled", label, body });
    } finally {
      ex.inlineDepth--;
    }
    if (vector) return vector.names.map((n) => ({ kind: "var", name: n }));
    return [name === undefined ? c(0) : { kind: "var", name }];
  }

  /** `ctx` where calls of device functions that need statements are inlined into `pre`. */
  private callsInto(ctx: Ctx, pre: BlockStmt[]): Ctx {
    return {
      ...ctx,
      stmtCall: (f, call, c2) => this.scalarCall(f, call, c2, pre),
      stmtVectorCall: (f, call, c2) => this.inlineStatements(f, call, c2, pre),
    };
  }

  private scalarCall(f: A.FunctionDef, e: A.Call, ctx: Ctx, pre: BlockStmt[]): Expr {
    const r = this.inlineStatements(f, e, ctx, pre);
    if (r.length !== 1) this.fail(`"${f.name}(…)" gives a vector where a scalar is expected`, e.pos);
    return r[0]!;
  }
}
