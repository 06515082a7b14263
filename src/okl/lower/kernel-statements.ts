/**
 * Lowering one OKL @kernel, its statements: host code around the @outer nests, blocks,
 * declarations, expression statements (assignments, @atomic updates, struct and vector copies), `if`.
 */
import { atomicUpdateOf, c, dtypeKind, exprType, walkExpr, type Dtype, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import { someExpr } from "../syntax/walk.js";
import { containsInner, containsOuter, describeStmt, hasSync, innerHulls, isInnerLoop, isOuter, someAst } from "./ast-queries.js";
import { Scope, type Ctx } from "./bindings.js";
import { arrayExtents, flattenInit, rowMajor } from "./initializers.js";
import { aggregateScalars, arrayOf, layoutInitType } from "./aggregate-init.js";
import { innerAxes, loopHead, unrollValues } from "./loop-head.js";
import { isStructValue, structVariable } from "./structs.js";
import { cRemainder } from "./c-remainder.js";
import { cBinary } from "./c-conversions.js";
import { BlockLowering, COMPOUND, type BlockHost } from "./opaque.js";
import { attributedJump, needsBlock } from "./block-queries.js";
import { stageVector, vectorAssignment } from "./vector-exprs.js";
import { oneTypeStructValue, recordDeclaration } from "./record-locals.js";
import { ATOMIC_OPS } from "./kernel-core.js";
import { flatCandidate, usedFlat } from "./flat-views.js";
import { StructLocalLowering } from "./kernel-struct-locals.js";
import { wholeAxes } from "./whole-axes.js";
import { droppedPrintf } from "./printf.js";
import { isShuffle } from "./warp-shuffles.js";

/** The extents of a scalar, and its temporary's shape: shared, frozen (the kernel record freezes every shape). */
const NO_EXTENTS: readonly (number | undefined)[] = Object.freeze([]);
const NO_SHAPE: readonly Expr[] = Object.freeze([]);

export abstract class StatementLowering extends StructLocalLowering {
  protected abstract forLoop(s: A.For, ctx: Ctx): void;

  /** Declarators of multi-dimensional local arrays also used as flat pointers (flat-views.ts). */
  private readonly flatDecls = new Set<A.Declarator>();
  /** Their temporaries, stored row-major (row-layout.ts). */
  protected readonly flatViews = new Set<string>();

  /** The statement being lowered (the place of the loops it makes). */
  private at: A.Pos | undefined;

  protected override emit(lhs: Expr, rhs: Expr, ctx: Ctx, atomic: boolean, pos: A.Pos): void {
    super.emit(lhs, rhs, ctx, atomic, pos);
    this.placed(this.log.insns.at(-1)?.id, pos);
  }

  protected override addDomain(dims: string[], rows: Parameters<StructLocalLowering["addDomain"]>[1]): void {
    super.addDomain(dims, rows);
    for (const d of dims) this.placed(d, this.at);
  }




  // ---- host code: outer-most @outer nests and the scalars they use ---------------------------

  protected hostBlock(items: readonly A.Stmt[], ctx: Ctx): void {
    for (const s of items) {
      if (s.kind === "empty" || s.kind === "pragma") continue;
      if (s.kind === "compound") {
        this.hostBlock(s.items, { ...ctx, scope: new Scope(ctx.scope) });
        continue;
      }
      if (s.kind === "for" && isOuter(s)) {
        if (this.nests > 0) this.barrier("global", ctx, s.pos);
        this.nests++;
        // A warp shuffle reads a @shared copy after a barrier (warp-shuffles.ts): the nest synchronizes.
        this.nestSyncs = hasSync(s) || someAst(s, (n) => n.kind === "call" && n.callee.kind === "ident" && isShuffle(n.callee.name) && !this.file.functions.has(n.callee.name));
        this.hulls = innerHulls(s, ctx.scope);
        this.nestAxes = innerAxes(s);
        this.wholeAxes = wholeAxes(s, ctx.scope);
        for (const h of Object.entries(s.loopHints)) {
          if (h[0] === "max_inner_dims") this.maxInnerDims = [...h[1]];
          if (h[0] === "simd_length") this.simdLength = h[1][0];
        }
        this.at = s.pos;
        this.forLoop(s, ctx);
        this.at = undefined;
        continue;
      }
      if (s.kind === "for" && s.okl === undefined && containsOuter(s)) {
        // A host loop around @outer nests launches them once per iteration: with compile-time
        // bounds, each iteration's nests are lowered in turn (a global barrier between nests).
        const h = loopHead(s, ctx, this.ex);
        if (!h.constant) this.fail(`host loop "${h.name}" around @outer loops: its bounds must be compile-time constants (each iteration launches the nests again)`, s.pos);
        for (const v of unrollValues(h, s.pos, this.failAt)) {
          const scope = new Scope(ctx.scope);
          scope.set(h.name, { kind: "expr", expr: c(v) });
          this.hostBlock([s.body], { ...ctx, scope });
        }
        continue;
      }
      if (s.kind === "declaration" && !s.spec.storage.includes("typedef")) {
        // A scalar the device code may use: evaluated before the launch (an expression of the arguments).
        for (const d of s.declarators) {
          // A pointer into an argument (`dfloat *vs = vc + ln;`, nekRS's coarse solve): an alias, as in the kernel's body.
          if (d.pointers.length > 0 && d.arrayDims.length === 0 && d.init !== undefined && d.init.kind !== "initList" && !d.okl.shared) {
            this.localPointer(d, ctx);
            continue;
          }
          if (d.pointers.length > 0 || d.arrayDims.length > 0 || d.init === undefined || d.init.kind === "initList") {
            this.fail(`host statement outside the @outer loops: only scalar declarations with an initializer and pointers initialized with an argument (\`a + k\`) are supported ("${d.name}")`, d.pos);
          }
          const e = this.ex.expr(d.init, ctx);
          walkExpr(e, (n) => {
            if (n.kind === "subscript") this.fail(`host scalar "${d.name}" reads array "${n.array}"; host code cannot read device memory`, d.pos);
          });
          this.file.dtype(s.spec, s.pos);
          ctx.scope.set(d.name, { kind: "expr", expr: e });
        }
        continue;
      }
      this.fail(`host statement outside the @outer loops (${describeStmt(s)}) is not supported; only scalar declarations and @outer loops may appear there`, s.pos);
    }
  }

  // ---- statements inside an @outer nest -------------------------------------------------------

  protected block(items: readonly A.Stmt[], ctx: Ctx): void {
    // Multi-dimensional local arrays that later statements use as flat pointers (flat-views.ts).
    items.forEach((s, idx) => {
      if (s.kind !== "declaration") return;
      for (const d of s.declarators) if (flatCandidate(d) && usedFlat(items.slice(idx + 1), d.name, d.arrayDims.length)) this.flatDecls.add(d);
    });
    items.forEach((s, idx) => {
      this.stmt(s, ctx);
      // OCCA's implicit barrier (OKL.md §7): after an outer-most @inner loop that uses @shared
      // memory, unless @nobarrier, when more inner loops follow or a regular loop repeats it.
      if (s.kind === "for" && !ctx.inner && isInnerLoop(s) && !s.nobarrier && this.usesShared(s, ctx.scope)) {
        const later = items.slice(idx + 1).some((t) => containsInner(t));
        if (later || ctx.seqLoop) this.barrier("local", ctx, s.pos);
      }
    });
  }

  /** `s` as one opaque block instruction (opaque.ts), whose multi-dimensional arrays may be flat views too. */
  protected override opaque(s: A.Stmt, ctx: Ctx): void {
    if (!ctx.outer) this.fail("statements must be inside an @outer loop", s.pos);
    const host: BlockHost = {
      ex: this.ex, file: this.file, fresh: (b) => this.fresh(b), fail: this.failAt, addTemp: (t) => void this.temps.push(t),
      flatView: (name) => void this.flatViews.add(name), flatDecl: (d) => this.flatDecls.has(d),
    };
    // An opaque block is one instruction: a shuffle inside it cannot wait for the other lanes.
    const shuffle = this.ex.shuffle;
    this.ex.shuffle = (name, e) => this.fail(`"${name}" (a CUDA warp shuffle) inside a loop run as one block of C (a while loop, a loop with break/continue or with bounds known only at run time, a device function with loops) is not supported: all lanes must reach it together (call it in the @inner loop's own statements, or in a loop with compile-time bounds, which is unrolled)`, e.pos);
    let body: ReturnType<BlockLowering["lower"]>;
    try {
      body = new BlockLowering(host).lower(s, ctx);
    } finally {
      this.ex.shuffle = shuffle;
    }
    if (body.length === 0) return;
    this.log.block(this.fresh("block"), body, ctx, this.boundTemps);
    this.placed(this.log.insns.at(-1)?.id, s.pos);
  }

  protected usesShared(s: A.Stmt, scope: Scope): boolean {
    return someAst(s, (n) => {
      if (n.kind !== "ident") return false;
      const b = scope.get(n.name);
      return b?.kind === "temp" && this.tempNamed(b.name)?.addressSpace === "local";
    });
  }

  protected stmt(s: A.Stmt, ctx: Ctx): void {
    const outside = this.at;
    this.at = s.pos;
    try {
      this.stmtAt(s, ctx);
    } finally {
      this.at = outside;
    }
  }

  private stmtAt(s: A.Stmt, ctx: Ctx): void {
    if (s.kind === "expr" && this.inlineCallStatement(s.expr, ctx)) return;
    if ((s.kind === "for" || s.kind === "while" || s.kind === "doWhile") && this.lockstepJumps(s, ctx)) return;
    if ((s.kind === "switch" || s.kind === "if") && this.choosePointers(s, ctx)) return; // pointers chosen at run time
    if (s.kind === "declaration" && this.constructObjects(s, ctx)) return; // a class template's object and its constructor
    if (needsBlock(s, this.file)) return this.opaque(s, ctx);
    if (attributedJump(s)) this.fail(`"break"/"continue" of an @${(s as A.For).okl!.kind} loop is not supported (its iterations are work-items or groups)`, s.pos);
    switch (s.kind) {
      case "empty": case "pragma": return;
      case "compound": return this.block(s.items, { ...ctx, scope: new Scope(ctx.scope) });
      case "declaration": return this.declaration(s, ctx);
      case "expr": return this.exprStmt(s.expr, ctx, false);
      case "atomic": {
        const body = s.body.kind === "compound" ? s.body.items : [s.body];
        for (const b of body) {
          if (b.kind !== "expr") this.fail("@atomic blocks may contain only update statements (=, +=, -=, &=, |=, ^=, ++, --)", b.pos);
          this.exprStmt(b.expr, ctx, true);
        }
        return;
      }
      case "if": return this.ifStmt(s, ctx);
      case "for": return this.forLoop(s, ctx);
      // Inside @inner loops too: the barrier is not within the local inames, so the scheduler splits
      // the work-items' code there (all work-items reach it, as OKL requires).
      case "barrier": return this.barrier("local", ctx, s.pos);
      case "switch": case "case":
        return this.fail(`"${s.kind}" statements are not supported yet (rewrite them as if/else)`, s.pos);
      default: return this.fail(`unsupported statement ${(s as { kind: string }).kind}`, (s as { pos: A.Pos }).pos);
    }
  }

  protected declaration(s: A.Declaration, ctx: Ctx): void {
    if (s.spec.storage.includes("typedef")) this.fail("typedefs inside kernels are not supported yet", s.pos);
    // A builtin type (`double`, `int`) names no vector type, pointer typedef or struct: the lookups below are skipped.
    const builtin = s.spec.base.kind === "builtin";
    const vector = builtin ? undefined : this.file.vectorType(s.spec);
    if (vector) {
      // A vector local is one scalar per component; arrays of vectors and pointers follow the struct path below.
      const scalars = s.declarators.filter((d) => d.pointers.length === 0 && d.arrayDims.length === 0);
      for (const d of scalars) this.vectorLocal(vector, d, s.spec.qualifiers.includes("const"), ctx);
      if (scalars.length === s.declarators.length) return;
      s = { ...s, declarators: s.declarators.filter((d) => !scalars.includes(d)) };
    }
    // A pointer typedef (`typedef float *mat23 @dim(2, 3); mat23 C;`) declares pointers with its attributes.
    const expanded = builtin ? s.declarators : s.declarators.map((d) => this.file.expandTypedef(s.spec, d).declarator);
    if (!builtin && expanded.some((d, k) => d.pointers.length > s.declarators[k]!.pointers.length)) {
      for (const d of expanded) this.localPointer(d, ctx);
      return;
    }
    const auto = s.spec.base.kind === "named" && s.spec.base.name === "auto";
    // Structs whose fields mix types: one temporary per leaf (record-locals.ts); `bcData *p = bcs + k;` an alias.
    if (!auto && !builtin && recordDeclaration(this.file.structs, this.recordHost(ctx), s, ctx, (d) => this.localPointer(d, ctx))) return;
    const struct = auto || builtin ? undefined : this.file.structOf(s.spec, s.pos);
    const dtype = struct?.dtype ?? (auto ? this.autoDtype(s, ctx) : this.file.dtype(s.spec, s.pos));
    for (const d of s.declarators) {
      if (d.pointers.length > 0) {
        this.localPointer(d, ctx);
        continue;
      }
      // A const local that reads memory: its initializer lowered once, for the assignment below too
      // (unless it names the local itself, which C has in scope there).
      let lowered: Expr | undefined;
      if (!struct && d.arrayDims.length === 0 && d.init !== undefined && d.init.kind !== "initList" && !d.okl.shared && !d.okl.exclusive && s.spec.qualifiers.includes("const")) {
        // A const scalar of loop variables and arguments is their expression (affine footprints, no temporary).
        const e = this.ex.expr(d.init, ctx);
        if (this.pure(e)) {
          ctx.scope.set(d.name, { kind: "expr", expr: dtypeKind(dtype) !== "float" && dtype.endsWith("32") && this.isIntegerExpr(e) ? e : { kind: "cast", dtype, value: e } });
          continue;
        }
        if (ctx.stmtCall === undefined && !someExpr(d.init, (n) => n.kind === "ident" && n.name === d.name)) lowered = e;
      }
      const declared: readonly (number | undefined)[] = d.arrayDims.length === 0 ? NO_EXTENTS : arrayExtents(d, ctx.scope, this.failAt, d.init?.kind === "initList", `array "${d.name}" needs a size`);
      const flat = !struct && declared.length > 0 && d.init?.kind === "initList" ? flattenInit(d.init, declared, d.name, this.failAt) : undefined;
      // A struct (or array of them) with a list: C's scalars in order, braces given or elided (aggregate-init.ts).
      const sinit = struct && d.init?.kind === "initList" ? aggregateScalars(arrayOf(declared, layoutInitType(struct)), d.init, `${declared.length > 0 ? "array of " : ""}struct "${struct.name}" "${d.name}"`, d.name, this.failAt, (x, t) => x.kind !== "initList" && (this.ex.vec.typeOf(x, ctx)?.name === t.name || oneTypeStructValue(this.ex, x, ctx, t.name))) : undefined;
      const shape: readonly number[] = flat?.shape ?? (declared.length === 0 ? NO_EXTENTS as readonly number[] : declared.map((n, k) => n ?? (k === 0 ? sinit?.count : undefined) ?? 0));
      const name = this.fresh(d.name);
      this.placed(name, d.pos);
      const space = d.okl.shared ? "local" : "private";
      if (d.okl.shared && ctx.inner) this.fail(`@shared "${d.name}" must be declared between @outer and @inner loops`, d.pos);
      // A struct is an array of its scalars: one more, innermost axis (C's layout, no padding).
      const full = struct ? [...shape, struct.size] : shape;
      this.temps.push({ name, dtype, shape: full.length === 0 ? NO_SHAPE : full.map((n) => c(n)), addressSpace: space, order: "C", dimTags: undefined });
      // `@shared double s[P * Q] @dim(P, Q)`: s(i, j) is s[i + P * j] (a 1-D array of scalars only).
      const dim = d.okl.dim && shape.length === 1 && !struct ? { dims: d.okl.dim.map((x) => this.ex.expr(x, ctx)), order: d.okl.dimOrder ?? d.okl.dim.map((_, k) => k) } : undefined;
      if (d.okl.dim && !dim) this.fail(`@dim on local array "${d.name}": only a one-dimensional array of scalars can be viewed through @dim`, d.pos);
      // Also a flat pointer (`(double *) ve`): stored row-major, bound with offset 0 so a pointer to it takes one subscript.
      const view = this.flatDecls.has(d) && !struct && !dim && shape.length > 1;
      if (view) this.flatViews.add(name);
      // (A plain local, the common case, without spreads: one object of one shape.)
      ctx.scope.set(d.name, !struct && !dim && !view ? { kind: "temp", name, rank: shape.length }
        : { kind: "temp", name, rank: shape.length, ...(struct ? { struct } : {}), ...(dim ? { dim } : {}), ...(view ? { offset: c(0), rows: shape } : {}) });
      if (d.init === undefined) continue;
      if (struct) {
        if (sinit) sinit.items.forEach((item, k) => this.structScalar(structVariable(name, struct, 0), rowMajor(Math.floor(k / struct.size), shape), k % struct.size, item, ctx, d.pos));
        else this.structInit(structVariable(name, struct, shape.length), d, ctx);
        continue;
      }
      if (d.init.kind === "initList") {
        if (!flat) this.fail(`scalar "${d.name}" cannot be initialized with {…}`, d.pos);
        flat.items.forEach((item, k) => {
          this.emit({ kind: "subscript", array: name, indices: rowMajor(k, shape) }, item ? this.ex.expr(item, ctx) : c(0), ctx, false, d.pos);
        });
      } else {
        if (shape.length > 0) this.fail(`array "${d.name}" must be initialized with {…}`, d.pos);
        this.emit({ kind: "var", name }, lowered ?? this.ex.expr(d.init, ctx), ctx, false, d.pos);
      }
    }
  }

  /** C++'s `auto x = e;`: the type of `e` (a scalar; C++ deduces the same for the scalar types OKL has). */
  protected autoDtype(s: A.Declaration, ctx: Ctx): Dtype {
    const d = s.declarators[0]!;
    if (s.declarators.length !== 1 || d.init === undefined || d.init.kind === "initList" || d.pointers.length + d.arrayDims.length > 0) {
      this.fail("C++ auto: only `auto x = expression;` declaring one scalar is supported", d.pos, "OKL subset");
    }
    const e = this.ex.expr(d.init, ctx);
    const t = exprType(e, {
      varType: (n) => this.tempNamed(n)?.dtype ?? this.argNamed(n)?.dtype,
    });
    if (t === undefined) this.fail(`C++ auto: cannot deduce the type of "${d.name}" from its initializer`, d.pos, "OKL subset");
    return t.dtype;
  }

  protected exprStmt(e: A.Expr, ctx: Ctx, atomic: boolean): void {
    if (!atomic && droppedPrintf(e, this.file)) return;
    if (!atomic && this.assignPointer(e, ctx)) return;
    if (e.kind === "comma" && !atomic) {
      for (const x of e.exprs) this.exprStmt(x, ctx, false);
      return;
    }
    const vtarget = e.kind === "assign" ? e.target : (e.kind === "unary" || e.kind === "postfix") ? e.operand : undefined;
    const vector = vtarget && this.ex.vec.typeOf(vtarget, ctx);
    if (vector) {
      if (atomic) this.fail(`@atomic on a "${vector.name}" vector is not supported (no target has an atomic as wide as a vector)`, e.pos);
      if (e.kind !== "assign") this.fail(`"${(e as A.Unary).op}" on a "${vector.name}" vector is not supported`, e.pos);
      const lhs = this.ex.vec.targets(vtarget!, vector, ctx);
      const rhs = vectorAssignment(this.ex, e, vector, lhs, ctx, this.failAt);
      const staged = stageVector(lhs, rhs, (k) => {
        const name = this.fresh(`${vector.name}_tmp`);
        this.temps.push({ name, dtype: vector.dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
        this.emit({ kind: "var", name }, rhs[k]!, ctx, false, e.pos);
        return { kind: "var", name };
      });
      lhs.forEach((l, k) => this.emit(l, staged[k]!, ctx, false, e.pos));
      return;
    }
    const record = e.kind === "assign" ? this.ex.recordPlaces(e.target, ctx) : undefined;
    if (e.kind === "assign" && record) return this.copyRecord(record, e.value, ctx, e.pos, e.op !== "=" ? e.op : atomic ? "@atomic" : undefined);
    const whole = e.kind === "assign" ? this.ex.structPlace(e.target, ctx) : undefined;
    if (e.kind === "assign" && whole && isStructValue(whole)) {
      if (e.op !== "=") this.fail(`struct "${whole.layout!.name}": whole structs can only be copied with "=" (not "${e.op}")`, e.pos);
      // Under @atomic, each scalar is exchanged atomically; no target has an atomic as wide as a struct.
      return this.copyStruct(whole, e.value, ctx, e.pos, atomic);
    }
    let target: A.Expr;
    let op: A.AssignOp;
    let value: Expr;
    if (e.kind === "assign") {
      target = e.target;
      op = e.op;
      value = this.ex.expr(e.value, ctx);
    } else if ((e.kind === "unary" && (e.op === "++" || e.op === "--")) || e.kind === "postfix") {
      target = (e as A.Unary | A.Postfix).operand;
      op = (e as A.Unary).op === "++" ? "+=" : "-=";
      value = c(1);
    } else {
      return this.fail(`expression statement ${e.kind === "call" ? "calling a function (possible side effects)" : `(${e.kind})`} is not supported yet; only assignments and updates are`, e.pos);
    }
    if (atomic && !ATOMIC_OPS.has(op)) this.fail(`@atomic supports = += -= &= |= ^= ++ -- only, not "${op}"`, e.pos);
    // One store, or one per target of a pointer chosen at run time, under the conditions that choose it (choice-writes.ts).
    for (const w of this.ex.writePlaces(target, ctx)) {
      const lhs = w.place;
      const at: Ctx = w.preds.length > 0 ? { ...ctx, preds: [...ctx.preds, ...w.preds] } : ctx;
      const bin = COMPOUND;
      // A struct field stored in a dtype of its size but other signedness: C's value in its own type, then
      // stored back (the bits C keeps). An atomic update works on the storage: + - & | ^ give the same bits.
      const stored = this.ex.storedAs(target, ctx);
      let rhs = value;
      if (op !== "=") {
        const b = bin[op];
        if (!b) this.fail(`operator "${op}" is not supported yet`, e.pos);
        const own: Expr = stored && !atomic ? { kind: "cast", dtype: stored.own, value: lhs } : lhs;
        const right: Expr = stored && atomic ? { kind: "cast", dtype: stored.storage, value } : value;
        rhs = cBinary(b, own, right, this.ex.types, (l, r) => (b === "%" ? cRemainder(l, r, this.ex.signs) : { kind: "arith", op: b, left: l, right: r }));
      }
      if (stored && !(atomic && op !== "=")) rhs = { kind: "cast", dtype: stored.storage, value: op === "=" ? { kind: "cast", dtype: stored.own, value } : rhs };
      // `@atomic x = f(x)` is no exchange: the read of x would not be atomic.
      if (atomic && !atomicUpdateOf(lhs, rhs)) this.fail(`@atomic "${op}": the value must not read the target itself`, e.pos);
      this.emit(lhs, rhs, at, atomic, e.pos);
    }
  }

  protected ifStmt(s: A.If, ctx: Ctx): void {
    let cond = this.ex.truth(s.cond, ctx);
    this.checkJumpGuard(s, cond, ctx);
    // A condition that reads memory is evaluated once, before the branches may change it.
    let readsMemory = false;
    walkExpr(cond, (n) => {
      if (n.kind === "subscript" || (n.kind === "var" && this.tempNamed(n.name) !== undefined)) readsMemory = true;
    });
    if (readsMemory) {
      const name = this.fresh("cond");
      this.temps.push({ name, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
      this.emit({ kind: "var", name }, { kind: "if", cond, then: c(1), else: c(0) }, ctx, false, s.pos);
      cond = { kind: "compare", op: "!=", left: { kind: "var", name }, right: c(0) };
    }
    this.stmt(s.then, { ...ctx, scope: new Scope(ctx.scope), preds: [...ctx.preds, cond] });
    if (s.else) this.stmt(s.else, { ...ctx, scope: new Scope(ctx.scope), preds: [...ctx.preds, { kind: "not", operand: cond }] });
  }
}
