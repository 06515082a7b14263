/**
 * OKL AST -> Loom kernels. One kernel per `@kernel` function; each outer-most `@outer` nest is
 * separated from the next by a global barrier, so the scheduler makes it its own device kernel,
 * in order (OCCA's `_occa_<name>_<k>`). Loops with affine bounds become inames over integer
 * domains (steps other than 1 and decreasing loops through a trip-count iname), `@outer(k)` /
 * `@inner(k)` become `g.k` / `l.k` with OCCA's automatic axis numbering, `@tile` a block and an
 * in-tile iname with the documented span semantics (OKL.md §5, not OCCA's stride bug).
 * Statements become instructions in program order with the data dependencies between them;
 * `if` conditions become predicates, `@shared`/`@exclusive` local/private temporaries, `@atomic`
 * atomic updates, `@barrier` and OCCA's implicit barriers local barriers.
 *
 *   lowerOkl(parseOklAst(src))   // [Kernel "addVectors"]
 */
import {
  atomicUpdateOf, c, dtypeKind, exprType, isIntegral, uniqueName, walkExpr,
  type Dtype, type Expr, type InameTag, type Kernel, type KernelArg, type Temporary,
} from "../ir/index.js";
import { aff, affAdd, affScale, type Aff, type BasicSet } from "../poly/index.js";
import { assembleKernel } from "./assemble.js";
import type * as A from "./ast.js";
import { constRange, containsInner, containsOuter, describeStmt, hasSync, innerHulls, isInnerLoop, isOuter, levelsBelow, walkAst } from "./ast-queries.js";
import { constValue, Scope, type Binding, type Ctx, type Fail, type ScalarBinding } from "./bindings.js";
import { InstructionLog } from "./dependencies.js";
import { ExprLowering } from "./expressions.js";
import { FileContext, type LowerOklOptions } from "./file-context.js";
import { bindFileConstants } from "./file-constants.js";
import { pointerBinding } from "./inline.js";
import { arrayExtents, flattenInit, rowMajor } from "./initializers.js";
import { affineRange, checkHeaderNotWritten, loopHead, tileAxes, unrollValues, type LoopHead } from "./loop-head.js";
import { affineBound, affToIr, cmpRows, domainOf, type Row } from "./loop-rows.js";
import { isStructValue, placeElement, structReason, structVariable, type StructBase, type StructPlace } from "./structs.js";
import { attributedJump, BlockLowering, COMPOUND, needsBlock, type BlockHost } from "./opaque.js";
import { stageVector, vectorAssignment, vectorInit } from "./vector-exprs.js";
import { directionAgrees, iterateValue, tripCount } from "./trip.js";
import { componentNames, type VectorType } from "./vectors.js";

export type { LowerOklOptions } from "./file-context.js";

/** What OKL attributes say beyond the IR: kept per kernel (`oklKernelOptions(k)`). */
export interface OklKernelOptions {
  readonly restrict: readonly string[];
  readonly maxInnerDims?: readonly number[];
  readonly simdLength?: number;
}
const kernelOptions = new WeakMap<Kernel, OklKernelOptions>();
/** The `@restrict` arguments and `@max_inner_dims`/`@simd_length` of an imported kernel. */
export function oklKernelOptions(k: Kernel): OklKernelOptions | undefined {
  return kernelOptions.get(k);
}

/** The updates `@atomic` takes (`++`/`--` arrive as `+=`/`-=`); `=` is an atomic exchange. */
const ATOMIC_OPS: ReadonlySet<string> = new Set(["=", "+=", "-=", "&=", "|=", "^="]);

/** Lower every `@kernel` of `unit`. */
export function lowerOkl(unit: A.TranslationUnit, opts: LowerOklOptions = {}): Kernel[] {
  const file = new FileContext(unit, opts);
  bindFileConstants(file);
  return unit.items.filter((it): it is A.FunctionDef => it.kind === "function" && it.isKernel && it.body !== undefined)
    .map((f) => new KernelLowering(file, f).lower());
}

class KernelLowering {
  private readonly domains: BasicSet[] = [];
  private readonly temps: Temporary[] = [];
  private readonly tags: Record<string, InameTag> = {};
  private readonly taken = new Set<string>();
  private readonly args: KernelArg[] = [];
  private readonly arrayArgs = new Set<string>();
  private readonly valueArgs = new Set<string>();
  /** Pointer arguments to structs: their number of scalars per struct (the extent of their innermost axis). */
  private readonly structArgs = new Map<string, number>();
  /** Each argument's place in the signature: [parameter index, field indices of a flattened by-value struct]. */
  private readonly argKeys = new Map<string, readonly number[]>();
  private readonly restrict: string[] = [];
  private maxInnerDims: number[] | undefined;
  private simdLength: number | undefined;
  private nests = 0;
  /** The current outer-most @outer nest has barriers or @shared memory (its @inner loops must stay work-items). */
  private nestSyncs = false;
  /** Per local axis of the current nest, the hull of its @inner loops' constant ranges, when they differ. */
  private hulls = new Map<number, readonly [number, number]>();
  private readonly innerRanges = new Map<string, string>();
  /** Inames whose domains take temporaries as parameters (trip counts), and those temporaries. */
  private readonly boundTemps = new Map<string, readonly string[]>();

  private readonly ex: ExprLowering;
  private readonly log: InstructionLog;
  private readonly failAt: Fail = (detail, pos, rule) => this.file.fail(detail, pos, rule);

  constructor(private readonly file: FileContext, private readonly f: A.FunctionDef) {
    this.ex = new ExprLowering(file);
    this.log = new InstructionLog(this.arrayArgs);
  }

  fail(detail: string, pos: A.Pos, rule?: string): never {
    return this.file.fail(detail, pos, rule);
  }

  private fresh(base: string): string {
    const n = uniqueName(base.replace(/[^A-Za-z0-9_]/g, "_") || "v", this.taken);
    this.taken.add(n);
    return n;
  }

  lower(): Kernel {
    const f = this.f;
    const scope = new Scope(this.file.globals);
    for (const p of f.params) {
      const d = p.declarator;
      if (d.name === "") continue;
      this.taken.add(d.name);
    }
    for (const [index, p] of f.params.entries()) {
      const { spec, declarator: d } = this.file.expandTypedef(p.spec, p.declarator);
      if (d.name === "") continue;
      this.argKeys.set(d.name, [index]);
      const levels = d.pointers.length + d.arrayDims.length;
      const vector = levels === 0 ? this.file.vectorType(spec) : undefined;
      if (vector) {
        scope.set(d.name, this.vectorArg(d.name, vector, index));
        continue;
      }
      const def = levels === 0 ? this.file.structs.definition(spec) : undefined;
      if (def) {
        scope.set(d.name, this.byValue(d.name, def, index));
        continue;
      }
      // No IR type holds pointers to pointers or structs that cannot be lowered: such an argument
      // is left out of the kernel's arguments, and naming it in the body is the error.
      const unusable = (why: string) => scope.set(d.name, { kind: "absent", reason: `argument "${d.name}": ${why} (an argument Loom cannot represent is left out of the kernel while the kernel does not use it)` });
      if (levels > 1) {
        unusable("pointers to pointers are not supported");
        continue;
      }
      const lookup = this.file.structs.resolve(spec);
      if (lookup && "reason" in lookup) {
        unusable(structReason(lookup));
        continue;
      }
      const struct = lookup?.layout;
      const dtype = struct?.dtype ?? this.file.dtype(spec, p.pos);
      if (levels === 1) {
        this.arrayArgs.add(d.name);
        if (d.okl.restrict || d.pointers[0]?.qualifiers.includes("restrict")) this.restrict.push(d.name);
        const dim = d.okl.dim ? { dims: d.okl.dim.map((e) => this.ex.expr(e, this.rootCtx(scope))), order: d.okl.dimOrder ?? d.okl.dim.map((_, k) => k) } : undefined;
        scope.set(d.name, { kind: "array", name: d.name, ...(dim ? { dim } : {}), ...(struct ? { struct } : {}) });
        if (struct) this.structArgs.set(d.name, struct.size);
        this.args.push({ kind: "array", name: d.name, dtype, shape: undefined, order: "C", dimTags: undefined, isInput: true, isOutput: false });
      } else {
        this.valueArgs.add(d.name);
        scope.set(d.name, { kind: "value", name: d.name });
        this.args.push({ kind: "value", name: d.name, dtype });
      }
    }
    const ctx = this.rootCtx(scope);
    if (f.body!.items.some((s) => containsOuter(s))) this.hostBlock(f.body!.items, ctx);
    else {
      // Without @outer loops (accepted when the loop check is off, as on OCCA's serial and OpenMP
      // modes), the body runs once: one work-group of one work-item, regular loops sequential.
      this.nests = 1;
      this.block(f.body!.items, { ...ctx, outer: true });
    }
    return this.finish();
  }

  /**
   * A struct argument passed by value, flattened: each field the kernel reads becomes an argument
   * named `<arg>_<field path>` (`c.cc.ccc` -> `c_cc_ccc`, `c.d[k]` -> the array `c_d`), made on
   * first use and placed where the struct was, in field order. Fields never read are no arguments.
   */
  private byValue(arg: string, top: { readonly name: string; readonly def: StructBase }, index: number): Binding {
    const made = new Map<string, Binding>();
    const field = (path: readonly string[], pos: A.Pos): Binding => {
      const key = path.join(".");
      const memo = made.get(key);
      if (memo) return memo;
      let cur: { readonly name: string; readonly def: StructBase } | undefined = top;
      let found: { spec: A.TypeSpec; d: A.Declarator } | undefined;
      const order: number[] = [];
      for (const [k, name] of path.entries()) {
        if (!cur) return this.fail(`"${arg}.${path.slice(0, k).join(".")}" is not a struct`, pos);
        const all = (cur.def.fields ?? []).flatMap((f) => f.declarators.map((d) => ({ spec: f.spec, d })));
        const at = all.findIndex((x) => x.d.name === name);
        if (at < 0) return this.fail(`struct "${cur.name}" has no field "${name}"; its fields are ${all.map((x) => x.d.name).join(", ")}`, pos);
        found = all[at]!;
        order.push(at);
        if (k < path.length - 1) {
          if (found.d.pointers.length + found.d.arrayDims.length > 0) this.fail(`"${arg}.${path.slice(0, k + 1).join(".")}": only struct fields (not pointers or arrays) of a struct passed by value can be followed by "."`, pos);
          cur = this.file.structs.definition(found.spec);
        }
      }
      const { spec, declarator: d } = this.file.expandTypedef(found!.spec, found!.d);
      const dims = d.arrayDims.map((e) => {
        const v = e === undefined ? undefined : constValue(e, this.file.globals);
        return v !== undefined && v > 0 ? v : this.fail(`the size of array field "${key}" is not a positive compile-time integer`, pos);
      });
      const lookup = this.file.structs.resolve(spec);
      if (lookup && "reason" in lookup) this.fail(structReason(lookup), pos);
      const struct = lookup?.layout;
      if (d.pointers.length + (dims.length > 0 ? 1 : 0) > 1) this.fail(`field "${arg}.${key}": pointers to pointers and arrays of pointers are not supported`, pos);
      if (struct && (d.pointers.length + dims.length === 0 || dims.length > 1)) {
        this.fail(`field "${arg}.${key}" of struct "${struct.name}": use its fields${dims.length > 1 ? " (multi-dimensional arrays of structs in a struct passed by value are not supported)" : ""}`, pos);
      }
      const dtype = struct?.dtype ?? this.file.dtype(spec, pos);
      const name = this.fresh(`${arg}_${path.join("_")}`);
      this.argKeys.set(name, [index, ...order]);
      let b: Binding;
      if (d.pointers.length + dims.length === 0) {
        this.valueArgs.add(name);
        this.args.push({ kind: "value", name, dtype });
        b = { kind: "value", name };
      } else {
        this.arrayArgs.add(name);
        if (struct) this.structArgs.set(name, struct.size);
        if (d.okl.restrict || d.pointers[0]?.qualifiers.includes("restrict")) this.restrict.push(name);
        // An array field is copied with the struct: the kernel reads its copy and cannot write the caller's.
        if (dims.length > 0) this.ex.readOnly.add(name);
        this.args.push({ kind: "array", name, dtype, shape: undefined, order: "C", dimTags: undefined, isInput: true, isOutput: false });
        b = { kind: "array", name, ...(struct ? { struct } : {}), ...(dims.length > 0 && !struct ? { extents: dims } : {}) };
      }
      made.set(key, b);
      return b;
    };
    return { kind: "byValue", name: arg, field };
  }

  /**
   * A vector passed by value, flattened like a struct passed by value: one value argument per
   * component, `<arg>_x`, `<arg>_y`, … (all of them, read or not), placed where the vector was.
   */
  private vectorArg(arg: string, t: VectorType, index: number): Binding {
    const comps = componentNames(t).map((cn, k): ScalarBinding => {
      const name = this.fresh(`${arg}_${cn}`);
      this.argKeys.set(name, [index, k]);
      this.valueArgs.add(name);
      this.args.push({ kind: "value", name, dtype: t.dtype });
      return { kind: "value", name };
    });
    return { kind: "vector", type: t, comps };
  }

  private rootCtx(scope: Scope): Ctx {
    return { scope, within: [], preds: [], outer: false, inner: false, seqLoop: false };
  }

  // ---- host code: outer-most @outer nests and the scalars they use ---------------------------

  private hostBlock(items: readonly A.Stmt[], ctx: Ctx): void {
    for (const s of items) {
      if (s.kind === "empty" || s.kind === "pragma") continue;
      if (s.kind === "compound") {
        this.hostBlock(s.items, { ...ctx, scope: new Scope(ctx.scope) });
        continue;
      }
      if (s.kind === "for" && isOuter(s)) {
        if (this.nests > 0) this.barrier("global", ctx, s.pos);
        this.nests++;
        this.nestSyncs = hasSync(s);
        this.hulls = innerHulls(s, ctx.scope);
        for (const h of Object.entries(s.loopHints)) {
          if (h[0] === "max_inner_dims") this.maxInnerDims = [...h[1]];
          if (h[0] === "simd_length") this.simdLength = h[1][0];
        }
        this.forLoop(s, ctx);
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
          if (d.pointers.length > 0 || d.arrayDims.length > 0 || d.init === undefined || d.init.kind === "initList") {
            this.fail(`host statement outside the @outer loops: only scalar declarations with an initializer are supported ("${d.name}")`, d.pos);
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

  private block(items: readonly A.Stmt[], ctx: Ctx): void {
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

  private usesShared(s: A.Stmt, scope: Scope): boolean {
    let found = false;
    const local = new Set(this.temps.filter((t) => t.addressSpace === "local").map((t) => t.name));
    walkAst(s, (n) => {
      if (n.kind === "ident") {
        const b = scope.get(n.name);
        if (b?.kind === "temp" && local.has(b.name)) found = true;
      }
    });
    return found;
  }

  private stmt(s: A.Stmt, ctx: Ctx): void {
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

  private declaration(s: A.Declaration, ctx: Ctx): void {
    if (s.spec.storage.includes("typedef")) this.fail("typedefs inside kernels are not supported yet", s.pos);
    const vector = this.file.vectorType(s.spec);
    if (vector) {
      // A vector local is one scalar per component; arrays of vectors and pointers follow the struct path below.
      const scalars = s.declarators.filter((d) => d.pointers.length === 0 && d.arrayDims.length === 0);
      for (const d of scalars) this.vectorLocal(vector, d, s.spec.qualifiers.includes("const"), ctx);
      if (scalars.length === s.declarators.length) return;
      s = { ...s, declarators: s.declarators.filter((d) => !scalars.includes(d)) };
    }
    const auto = s.spec.base.kind === "named" && s.spec.base.name === "auto";
    const struct = auto ? undefined : this.file.structOf(s.spec, s.pos);
    const dtype = struct?.dtype ?? (auto ? this.autoDtype(s, ctx) : this.file.dtype(s.spec, s.pos));
    for (const d of s.declarators) {
      if (d.pointers.length > 0) {
        // A local pointer is an alias of the array it points into (OKL kernels use them for offsets).
        if (d.init === undefined) this.fail(`local pointer "${d.name}" is not initialized (reading through it is undefined in C); a local pointer must alias an array: \`a\`, \`a + k\` or \`&a[k]\``, d.pos);
        if (d.arrayDims.length > 0 || d.init.kind === "initList") this.fail(`local pointer "${d.name}" must be initialized with an array, \`a + k\` or \`&a[k]\``, d.pos);
        // @exclusive changes nothing for an alias that is never reassigned; a @shared pointer would be one per group.
        if (d.okl.shared) this.fail(`local pointer "${d.name}" cannot be @shared`, d.pos);
        ctx.scope.set(d.name, pointerBinding(this.ex, d.init, ctx, d.name));
        continue;
      }
      if (!struct && d.arrayDims.length === 0 && d.init !== undefined && d.init.kind !== "initList" && !d.okl.shared && !d.okl.exclusive && s.spec.qualifiers.includes("const")) {
        // A const scalar of loop variables and arguments is their expression (affine footprints, no temporary).
        const e = this.ex.expr(d.init, ctx);
        if (this.pure(e)) {
          ctx.scope.set(d.name, { kind: "expr", expr: dtypeKind(dtype) !== "float" && dtype.endsWith("32") && this.isIntegerExpr(e) ? e : { kind: "cast", dtype, value: e } });
          continue;
        }
      }
      const declared = arrayExtents(d, ctx.scope, this.failAt, d.init?.kind === "initList" && !struct, `array "${d.name}" needs a size`);
      const flat = !struct && declared.length > 0 && d.init?.kind === "initList" ? flattenInit(d.init, declared, d.name, this.failAt) : undefined;
      const shape = flat?.shape ?? declared.map((n) => n!);
      const name = this.fresh(d.name);
      const space = d.okl.shared ? "local" : "private";
      if (d.okl.shared && ctx.inner) this.fail(`@shared "${d.name}" must be declared between @outer and @inner loops`, d.pos);
      // A struct is an array of its scalars: one more, innermost axis (C's layout, no padding).
      const full = struct ? [...shape, struct.size] : shape;
      this.temps.push({ name, dtype, shape: full.map((n) => c(n)), addressSpace: space, order: "C", dimTags: undefined });
      ctx.scope.set(d.name, { kind: "temp", name, rank: shape.length, ...(struct ? { struct } : {}) });
      if (d.init === undefined) continue;
      if (struct) {
        this.structInit(structVariable(name, struct, shape.length), d, ctx);
        continue;
      }
      if (d.init.kind === "initList") {
        if (!flat) this.fail(`scalar "${d.name}" cannot be initialized with {…}`, d.pos);
        flat.items.forEach((item, k) => {
          this.emit({ kind: "subscript", array: name, indices: rowMajor(k, shape) }, item ? this.ex.expr(item, ctx) : c(0), ctx, false, d.pos);
        });
      } else {
        if (shape.length > 0) this.fail(`array "${d.name}" must be initialized with {…}`, d.pos);
        this.emit({ kind: "var", name }, this.ex.expr(d.init, ctx), ctx, false, d.pos);
      }
    }
  }

  /** C++'s `auto x = e;`: the type of `e` (a scalar; C++ deduces the same for the scalar types OKL has). */
  private autoDtype(s: A.Declaration, ctx: Ctx): Dtype {
    const d = s.declarators[0]!;
    if (s.declarators.length !== 1 || d.init === undefined || d.init.kind === "initList" || d.pointers.length + d.arrayDims.length > 0) {
      this.fail("C++ auto: only `auto x = expression;` declaring one scalar is supported", d.pos, "OKL subset");
    }
    const e = this.ex.expr(d.init, ctx);
    const t = exprType(e, {
      varType: (n) => this.temps.find((x) => x.name === n)?.dtype ?? this.args.find((x) => x.name === n)?.dtype,
    });
    if (t === undefined) this.fail(`C++ auto: cannot deduce the type of "${d.name}" from its initializer`, d.pos, "OKL subset");
    return t.dtype;
  }

  private exprStmt(e: A.Expr, ctx: Ctx, atomic: boolean): void {
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
    const lhs = this.ex.lvalue(target, ctx);
    if (atomic && !ATOMIC_OPS.has(op)) this.fail(`@atomic supports = += -= &= |= ^= ++ -- only, not "${op}"`, e.pos);
    const bin = COMPOUND;
    // A struct field stored in a dtype of its size but other signedness: C's value in its own type, then
    // stored back (the bits C keeps). An atomic update works on the storage: + - & | ^ give the same bits.
    const stored = this.ex.storedAs(target, ctx);
    let rhs = value;
    if (op !== "=") {
      const b = bin[op];
      if (!b) this.fail(`operator "${op}" is not supported yet`, e.pos);
      const own: Expr = stored && !atomic ? { kind: "cast", dtype: stored.own, value: lhs } : lhs;
      rhs = { kind: "arith", op: b, left: own, right: stored && atomic ? { kind: "cast", dtype: stored.storage, value } : value };
    }
    if (stored && !(atomic && op !== "=")) rhs = { kind: "cast", dtype: stored.storage, value: op === "=" ? { kind: "cast", dtype: stored.own, value } : rhs };
    // `@atomic x = f(x)` is no exchange: the read of x would not be atomic.
    if (atomic && !atomicUpdateOf(lhs, rhs)) this.fail(`@atomic "${op}": the value must not read the target itself`, e.pos);
    this.emit(lhs, rhs, ctx, atomic, e.pos);
  }

  /**
   * `float3 v = …;`: one scalar per component, bound as expressions when the vector is const and
   * its value reads no memory (like const scalars), else private temporaries assigned here.
   */
  private vectorLocal(t: VectorType, d: A.Declarator, isConst: boolean, ctx: Ctx): void {
    const init = d.init === undefined ? undefined : vectorInit(this.ex, t, d, ctx, this.failAt);
    if (init && isConst && !d.okl.shared && !d.okl.exclusive && init.every((x) => this.pure(x))) {
      ctx.scope.set(d.name, { kind: "vector", type: t, comps: init.map((expr) => ({ kind: "expr", expr })) });
      return;
    }
    if (d.okl.shared && ctx.inner) this.fail(`@shared "${d.name}" must be declared between @outer and @inner loops`, d.pos);
    const comps = componentNames(t).map((cn): ScalarBinding => {
      const name = this.fresh(`${d.name}_${cn}`);
      this.temps.push({ name, dtype: t.dtype, shape: [], addressSpace: d.okl.shared ? "local" : "private", order: "C", dimTags: undefined });
      return { kind: "temp", name, rank: 0 };
    });
    init?.forEach((x, k) => this.emit({ kind: "var", name: (comps[k] as { name: string }).name }, x, ctx, false, d.pos));
    ctx.scope.set(d.name, { kind: "vector", type: t, comps });
  }

  /** `S v = w;` or `S v = {x, y};`: the struct's scalars one by one. */
  private structInit(dst: StructPlace, d: A.Declarator, ctx: Ctx): void {
    const init = d.init!;
    const layout = dst.layout!;
    if (init.kind !== "initList") {
      if (dst.need > 0) this.fail(`array "${d.name}" must be initialized with {…}`, d.pos);
      return this.copyStruct(dst, init, ctx, d.pos);
    }
    if (dst.need > 0 || init.items.length > layout.size || init.items.some((x) => x.kind === "initList") || init.designators.some((x) => x !== undefined)) {
      this.fail(`struct "${layout.name}" "${d.name}": only a flat initializer list of at most ${layout.size} scalars is supported for struct locals`, d.pos);
    }
    for (let k = 0; k < layout.size; k++) {
      const item = init.items[k];
      const own = layout.scalars[k]!;
      const value = item ? this.ex.expr(item, ctx) : c(0);
      this.emit(placeElement(dst, k), own === layout.dtype ? value : { kind: "cast", dtype: layout.dtype, value: { kind: "cast", dtype: own, value } }, ctx, false, d.pos);
    }
  }

  /** `dst = src` of whole structs: one assignment per scalar (C copies the bytes, which are these scalars). */
  private copyStruct(dst: StructPlace, src: A.Expr, ctx: Ctx, pos: A.Pos, atomic = false): void {
    const layout = dst.layout!;
    const from = this.ex.structPlace(src, ctx);
    if (!from || !isStructValue(from) || from.layout!.name !== layout.name) {
      this.fail(`struct "${layout.name}" can only be assigned a value of struct "${layout.name}" (an element, a local or a field of that type)`, src.pos);
    }
    for (let k = 0; k < layout.size; k++) this.emit(placeElement(dst, k), placeElement(from, k), ctx, atomic, pos);
  }

  private ifStmt(s: A.If, ctx: Ctx): void {
    let cond = this.ex.expr(s.cond, ctx);
    // A condition that reads memory is evaluated once, before the branches may change it.
    let readsMemory = false;
    walkExpr(cond, (n) => {
      if (n.kind === "subscript" || (n.kind === "var" && this.temps.some((t) => t.name === n.name))) readsMemory = true;
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

  // ---- loops ----------------------------------------------------------------------------------

  private forLoop(s: A.For, ctx: Ctx): void {
    const h = loopHead(s, ctx, this.ex);
    if (s.okl === undefined && h.constant) {
      const values = unrollValues(h, s.pos, this.failAt);
      for (const v of values) {
        const scope = new Scope(ctx.scope);
        scope.set(h.name, { kind: "expr", expr: c(v) });
        this.stmt(s.body, { ...ctx, scope, seqLoop: true });
      }
      return;
    }
    if (this.needsTrip(h)) return this.tripLoop(s, h, ctx);
    if (h.step === undefined) this.fail(`loop "${h.name}": the update must be ++, --, += c or -= c with a constant c (use a constant step, or bounds known at compile time)`, s.update?.pos ?? s.pos);
    const okl = s.okl;
    const scope = new Scope(ctx.scope);
    let inner: Ctx;
    const guards: Expr[] = [];
    if (okl?.kind === "tile") {
      const size = constValue(okl.size, ctx.scope);
      if (size === undefined || size < 1) this.fail("@tile: the tile size must be a positive compile-time integer", okl.size.pos);
      const to = this.fresh(`${h.name}_tile`);
      const ti = this.fresh(`${h.name}_in_tile`);
      // Documented semantics: block loop over start + K*to, in-tile start + K*to + d*ti, 0 <= d*ti < K.
      const sgn = h.step > 0 ? 1 : -1;
      const d = Math.abs(h.step);
      const start = h.startAff ?? this.fail(`@tile: the start of loop "${h.name}" must be affine`, s.pos);
      const block = affAdd(start, aff({ [to]: sgn * size }));
      const value = affAdd(block, aff({ [ti]: sgn * d }));
      // Work-items over runtime-sized blocks around a sequential in-tile loop: the check is a guard,
      // so that the blocks' range (the work-group size) does not depend on the in-tile iname.
      const checkGuard = okl.check && okl.outer?.kind === "inner" && okl.inner?.kind !== "inner" && this.launchSized(h);
      if (checkGuard) guards.push({ kind: "compare", op: h.cmp, left: affToIr(value), right: h.end });
      const rows = [
        { aff: aff({ [to]: 1 }), eq: false }, { aff: aff({ [ti]: 1 }), eq: false }, { aff: aff({ [ti]: -d }, size - 1), eq: false },
        ...cmpRows(block, h.cmp, h.end, s.pos, this.failAt),
        ...(okl.check && !checkGuard ? cmpRows(value, h.cmp, h.end, s.pos, this.failAt) : []),
      ];
      this.addDomain([to, ti], rows);
      const axes = tileAxes(s, okl);
      // Both levels @inner on one axis (`@tile(4, @inner(1), @inner(1))`): the in-tile level takes it.
      const sameAxis = okl.outer?.kind === "inner" && okl.inner?.kind === "inner" && axes[0] === axes[1];
      if (okl.outer && (okl.outer.kind === "outer" || this.workItems(h, !sameAxis))) this.tags[to] = { kind: okl.outer.kind === "outer" ? "g" : "l", axis: axes[0]! };
      if (okl.inner) this.tags[ti] = { kind: okl.inner.kind === "outer" ? "g" : "l", axis: axes[1]! };
      scope.set(h.name, { kind: "expr", expr: affToIr(value) });
      const anyInner = okl.outer?.kind === "inner" || okl.inner?.kind === "inner";
      inner = { ...ctx, scope, within: [...ctx.within, to, ti], preds: [...ctx.preds, ...guards], outer: true, inner: ctx.inner || anyInner, seqLoop: ctx.seqLoop || (!okl.outer && !okl.inner) };
    } else {
      const iname = this.fresh(h.name);
      let value: Aff;
      let rows: { aff: Aff; eq: boolean }[];
      const own = okl?.kind === "inner" ? constRange(s, ctx.scope) : undefined;
      const hull = own && okl?.kind === "inner" ? this.hulls.get(okl.axis ?? levelsBelow(s.body, "inner")) : undefined;
      if (own && hull) {
        // Sibling @inner loops on one axis with different constant ranges: one launch extent (the
        // hull), each loop's work-items guarded by its own range (OCCA runs the extra ones idle too).
        value = aff({ [iname]: 1 });
        rows = [{ aff: aff({ [iname]: 1 }, -hull[0]), eq: false }, { aff: aff({ [iname]: -1 }, hull[1]), eq: false }];
        const v: Expr = { kind: "var", name: iname };
        if (own[0] > hull[0]) guards.push({ kind: "compare", op: ">=", left: v, right: c(own[0]) });
        if (own[1] < hull[1]) guards.push({ kind: "compare", op: "<=", left: v, right: c(own[1]) });
      } else if (h.step === 1 && h.startAff !== undefined && !(okl?.kind === "inner" && (this.launchSized(h) || this.offsetInner(h)))) {
        value = aff({ [iname]: 1 });
        rows = [{ aff: affAdd(value, affScale(h.startAff, -1)), eq: false }, ...cmpRows(value, h.cmp, h.end, s.pos, this.failAt)];
      } else {
        const start = h.startAff ?? this.fail(`loop "${h.name}": the start must be affine in the arguments and enclosing loop variables`, s.pos);
        value = affAdd(start, aff({ [iname]: h.step }));
        rows = [{ aff: aff({ [iname]: 1 }), eq: false }, ...cmpRows(value, h.cmp, h.end, s.pos, this.failAt)];
      }
      this.addDomain([iname], rows);
      if (okl && (okl.kind === "outer" || this.workItems(h))) {
        this.tags[iname] = { kind: okl.kind === "outer" ? "g" : "l", axis: okl.axis ?? levelsBelow(s.body, okl.kind) };
        // A runtime-sized @inner loop counts from 0 (OCCA's `i = init + ID`): siblings share the base and
        // the scheduler sizes the axis to the largest of them, guarding each by its own range.
        if (okl.kind === "inner" && !this.launchSized(h)) this.checkInnerRange(iname, rows, s.pos);
      }
      scope.set(h.name, { kind: "expr", expr: affToIr(value) });
      inner = {
        ...ctx, scope, within: [...ctx.within, iname], preds: [...ctx.preds, ...guards], outer: ctx.outer || okl?.kind === "outer",
        inner: ctx.inner || okl?.kind === "inner", seqLoop: ctx.seqLoop || (okl === undefined && ctx.outer),
      };
    }
    if (okl && okl.kind !== "tile" && okl.kind === "inner" && !ctx.outer) this.fail("Cannot have [@inner] loop outside of an [@outer] loop", s.pos, "OKL §3.4");
    this.stmt(s.body, inner);
  }

  /** The loop's start, bound or step is not affine (reads memory, divides a parameter): it iterates a trip count. */
  private needsTrip(h: LoopHead): boolean {
    if (h.step === undefined) return h.update?.amount !== undefined && constValue(h.update.amount, h.ctx.scope) === undefined;
    return h.startAff === undefined || !affineBound(h.end, h.cmp);
  }

  /**
   * A loop whose start, bound or step is not affine (`k < cnt[j]`, `i += n/16 + 1`): C's trip
   * count (`tripCount`) goes into an int32 temporary before the loop, an iname `t` runs over
   * `0 <= t < trip` (a domain with the temporary as parameter), and `i = start ± step*t`; a start or
   * step that reads memory is kept in a temporary of the iterator's type. `@tile` keeps its
   * documented span semantics: blocks `start ± K*t` (affine rows when start and bound are), in-tile
   * `block ± step*u` over `0 <= u < K` guarded by `step*u < K`. Loop levels whose trip count is
   * computed on the device cannot be grid or work-group extents: such @outer and @inner levels run
   * sequentially (refused in nests with @shared memory or barriers). Bounds affine in the arguments
   * never come here: they size the launch.
   */
  private tripLoop(s: A.For, h: LoopHead, ctx0: Ctx): void {
    const okl = s.okl;
    const upd = h.update ?? this.fail(`Expected update [${h.name}] with one of these operators [++, --, +=, -=]`, s.update?.pos ?? s.pos, "OKL §3.1");
    if (!directionAgrees(upd.increasing, h.cmp)) {
      this.fail(`loop "${h.name}": the update ${upd.increasing ? "increases" : "decreases"} "${h.name}" but the condition is "${h.name} ${h.cmp} …": the loop runs zero times or never ends; with bounds that are not affine it is not supported`, s.pos);
    }
    if (okl?.kind === "inner" && !ctx0.outer) this.fail("Cannot have [@inner] loop outside of an [@outer] loop", s.pos, "OKL §3.4");
    checkHeaderNotWritten(s, h, ctx0, this.failAt);
    // The trip count is computed on the device, also before an @outer nest (every work-item computes it).
    const ctx: Ctx = { ...ctx0, outer: true };
    for (const [what, e] of [["bound", h.end], ["start", h.start]] as const) {
      if (this.floatTyped(e)) this.fail(`loop "${h.name}": its ${what} has a floating-point type; only integer bounds that are not affine are supported`, s.pos);
    }
    const amountConst = upd.amount === undefined ? 1 : constValue(upd.amount, ctx.scope);
    if (amountConst !== undefined && amountConst <= 0) this.fail(`loop "${h.name}": the step must be positive (the loop would not terminate)`, s.update?.pos ?? s.pos);
    // Start and step are kept signed (the iterator's value where the loop runs); the trip count compares in the iterator's type.
    const held: Dtype = h.dtype.endsWith("64") ? "int64" : "int32";
    const step = amountConst !== undefined ? c(amountConst) : this.capture(this.ex.expr(upd.amount!, ctx), `${h.name}_step`, held, ctx, s.pos);
    const wide = (e: Expr): Expr => (h.dtype === "int32" ? e : { kind: "cast", dtype: h.dtype, value: e });
    const trip = (start: Expr, stride: Expr, base: string): string => {
      const name = this.fresh(base);
      this.temps.push({ name, dtype: "int32", shape: [], addressSpace: "private", order: "C", dimTags: undefined });
      const count = tripCount(wide(start), wide(h.end), stride, h.cmp);
      this.emit({ kind: "var", name }, h.dtype === "int32" ? count : { kind: "cast", dtype: "int32", value: count }, ctx, false, s.pos);
      return name;
    };
    const below = (t: string, n: string) => [{ aff: aff({ [t]: 1 }), eq: false }, { aff: aff({ [t]: -1, [n]: 1 }, -1), eq: false }];
    const scope = new Scope(ctx0.scope);
    const sequential = () => {
      if (this.nestSyncs && okl) {
        this.fail(`loop "${h.name}": its trip count is computed on the device (its bounds or step are not affine in the kernel's arguments), so this ` +
          `${okl.kind === "tile" ? "@tile block" : `@${okl.kind}`} loop cannot size the launch and runs sequentially, which is not supported in a nest with @shared memory or barriers ` +
          `(bounds affine in the arguments, like \`j < n\`, or constant are)`, s.pos);
      }
    };
    if (okl?.kind !== "tile") {
      if (okl) sequential();
      const start = this.capture(h.start, `${h.name}_start`, held, ctx, s.pos);
      const n = trip(start, step, `${h.name}_trip`);
      const t = this.fresh(h.name);
      this.addDomain([t], below(t, n));
      this.boundTemps.set(t, [n]);
      scope.set(h.name, { kind: "expr", expr: iterateValue(start, step, t, upd.increasing) });
      this.stmt(s.body, {
        ...ctx0, scope, within: [...ctx0.within, t], outer: ctx0.outer || okl?.kind === "outer",
        inner: ctx0.inner || okl?.kind === "inner", seqLoop: ctx0.seqLoop || (okl === undefined && ctx0.outer),
      });
      return;
    }
    const size = constValue(okl.size, ctx.scope);
    if (size === undefined || size < 1) this.fail("@tile: the tile size must be a positive compile-time integer", okl.size.pos);
    const to = this.fresh(`${h.name}_tile`);
    const ti = this.fresh(`${h.name}_in_tile`);
    const rows: { aff: Aff; eq: boolean }[] = [];
    const guards: Expr[] = [];
    const bound: string[] = [];
    const affineBlock = h.startAff !== undefined && affineBound(h.end, h.cmp);
    let block: Expr;
    if (affineBlock) {
      const b = affAdd(h.startAff, aff({ [to]: (upd.increasing ? 1 : -1) * size }));
      rows.push({ aff: aff({ [to]: 1 }), eq: false }, ...cmpRows(b, h.cmp, h.end, s.pos, this.failAt));
      block = affToIr(b);
    } else {
      if (okl.outer) sequential();
      const start = this.capture(h.start, `${h.name}_start`, held, ctx, s.pos);
      const n = trip(start, c(size), `${h.name}_tiles`);
      rows.push(...below(to, n));
      bound.push(n);
      block = iterateValue(start, c(size), to, upd.increasing);
    }
    rows.push({ aff: aff({ [ti]: 1 }), eq: false });
    if (amountConst !== undefined) rows.push({ aff: aff({ [ti]: -amountConst }, size - 1), eq: false });
    else {
      // step >= 1, so the in-tile iterations are among 0 <= u < K.
      rows.push({ aff: aff({ [ti]: -1 }, size - 1), eq: false });
      guards.push({ kind: "compare", op: "<", left: { kind: "arith", op: "*", left: step, right: { kind: "var", name: ti } }, right: c(size) });
    }
    const value = iterateValue(block, step, ti, upd.increasing);
    if (okl.check) guards.push({ kind: "compare", op: h.cmp, left: wide(value), right: wide(h.end) });
    this.addDomain([to, ti], rows);
    for (const i of [to, ti]) this.boundTemps.set(i, bound);
    const axes = tileAxes(s, okl);
    if (okl.outer && affineBlock && (okl.outer.kind === "outer" || this.workItems(h))) this.tags[to] = { kind: okl.outer.kind === "outer" ? "g" : "l", axis: axes[0]! };
    if (okl.inner) this.tags[ti] = { kind: okl.inner.kind === "outer" ? "g" : "l", axis: axes[1]! };
    scope.set(h.name, { kind: "expr", expr: value });
    const anyInner = okl.outer?.kind === "inner" || okl.inner?.kind === "inner";
    this.stmt(s.body, {
      ...ctx0, scope, within: [...ctx0.within, to, ti], preds: [...ctx0.preds, ...guards], outer: true,
      inner: ctx0.inner || anyInner, seqLoop: ctx0.seqLoop || (!okl.outer && !okl.inner),
    });
  }

  /** `e` when it reads no memory, else a private temporary of type `dtype` set to `e` here (C evaluates a loop header once). */
  private capture(e: Expr, base: string, dtype: Dtype, ctx: Ctx, pos: A.Pos): Expr {
    if (this.pure(e)) return e;
    const name = this.fresh(base);
    this.temps.push({ name, dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
    this.emit({ kind: "var", name }, e, ctx, false, pos);
    return { kind: "var", name };
  }

  /** Whether `e` may have a floating-point type (float constants, casts, float arguments and temporaries). */
  private floatTyped(e: Expr): boolean {
    let found = false;
    const isFloat = (d: Dtype | undefined) => d !== undefined && dtypeKind(d) === "float";
    walkExpr(e, (n) => {
      if ((n.kind === "const" && (n.isFloat || isFloat(n.dtype))) || (n.kind === "cast" && isFloat(n.dtype))) found = true;
      const name = n.kind === "var" ? n.name : n.kind === "subscript" || n.kind === "linear" ? n.array : undefined;
      if (name !== undefined && isFloat(this.args.find((a) => a.name === name)?.dtype ?? this.temps.find((t) => t.name === name)?.dtype)) found = true;
      if (n.kind === "cast") return false;
      return undefined;
    });
    return found;
  }

  /**
   * Whether an @inner loop becomes work-items: always where its trip count is a compile-time
   * constant or an affine expression of the kernel's arguments (`j < n`: the launch sizes the
   * work-group, OCCA's runtime-sized @inner). Other trip counts (`j <= i`, bounds of enclosing
   * loops) differ between work-items of one group, so such a loop runs sequentially in each
   * work-item, which means the same where the nest has no barrier and no @shared memory (work-items
   * then never observe one another); with them, it stays a work-item loop and scheduling refuses it.
   */
  private workItems(h: LoopHead, launch = true): boolean {
    const r = affineRange(h);
    return (r !== undefined && Object.keys(r.span.terms).length === 0) || (launch && this.launchSized(h)) || this.nestSyncs;
  }

  /**
   * An @inner loop that starts at an enclosing loop's value and runs a constant trip count
   * (`for (j = i; j < i + 16; ++j; @inner)`): its work-items count from 0 (`j = i + id`, as OCCA's
   * do), so the work-group has the trip count's size rather than the hull of `j` over every `i`.
   */
  private offsetInner(h: LoopHead): boolean {
    const r = affineRange(h);
    return r !== undefined && Object.keys(r.span.terms).length === 0 && Object.keys(r.start.terms).some((n) => !this.valueArgs.has(n));
  }

  /** Start and bound of the loop are affine in the kernel's value arguments only, not constant apart: the launch evaluates its extent. */
  private launchSized(h: LoopHead): boolean {
    const r = affineRange(h);
    if (!r || h.step === undefined || Object.keys(r.span.terms).length === 0) return false;
    return [...Object.keys(r.end.terms), ...Object.keys(r.start.terms)].every((n) => this.valueArgs.has(n));
  }

  /**
   * Sibling @inner loops on one axis must have the same range in Loom (one launch extent); OCCA
   * accepts different trip counts without guards (OKL.md §11.9). Not supported yet.
   */
  private checkInnerRange(iname: string, rows: readonly { aff: Aff; eq: boolean }[], pos: A.Pos): void {
    const tag = this.tags[iname] as { kind: "l"; axis: number };
    const key = `${this.nests}:${tag.axis}`;
    const range = JSON.stringify(rows.map((r) => [Object.entries(r.aff.terms).map(([n, c0]) => [n === iname ? "@" : n, c0]).sort(), r.aff.constant, r.eq]));
    const prev = this.innerRanges.get(key);
    if (prev !== undefined && prev !== range) {
      this.fail(`sibling @inner loops on axis ${tag.axis} have different ranges; Loom needs one launch extent per axis (guarding the shorter loops is not supported yet)`, pos);
    }
    this.innerRanges.set(key, range);
  }

  private addDomain(dims: string[], rows: Row[]): void {
    this.domains.push(domainOf(dims, rows));
  }

  // ---- instructions and dependencies ----------------------------------------------------------

  private emit(lhs: Expr, rhs: Expr, ctx: Ctx, atomic: boolean, pos: A.Pos): void {
    if (!ctx.outer) this.fail("statements must be inside an @outer loop", pos);
    this.log.assign(this.fresh("insn"), lhs, rhs, ctx, atomic, this.boundTemps);
  }

  /** `s` as one opaque block instruction inside the current loops (src/okl/opaque.ts). */
  private opaque(s: A.Stmt, ctx: Ctx): void {
    if (!ctx.outer) this.fail("statements must be inside an @outer loop", s.pos);
    const host: BlockHost = { ex: this.ex, file: this.file, fresh: (b) => this.fresh(b), fail: this.failAt, addTemp: (t) => void this.temps.push(t) };
    const body = new BlockLowering(host).lower(s, ctx);
    if (body.length > 0) this.log.block(this.fresh("block"), body, ctx, this.boundTemps);
  }

  private barrier(scope: "local" | "global", ctx: Ctx, pos: A.Pos): void {
    if (scope === "local" && !ctx.outer) this.fail("@barrier outside an @outer loop", pos);
    const id = this.fresh(scope === "global" ? "gbarrier" : "barrier");
    this.log.barrier(id, scope, scope === "global" ? [] : ctx.within.filter((i) => this.tags[i]?.kind !== "l").sort());
  }

  // ---- expression types -----------------------------------------------------------------------


  /** `e` reads no memory (no array element, no temporary): its value is fixed where it is bound. */
  private pure(e: Expr): boolean {
    let ok = true;
    walkExpr(e, (n) => {
      if (n.kind === "subscript" || n.kind === "linear" || (n.kind === "var" && this.temps.some((t) => t.name === n.name))) ok = false;
    });
    return ok;
  }

  /** `e` has an integer type: integer constants, loop indices, integer arguments and arithmetic of them. */
  private isIntegerExpr(e: Expr): boolean {
    switch (e.kind) {
      case "const": return !e.isFloat && (e.dtype === undefined || isIntegral(e.dtype));
      case "var": {
        const a = this.args.find((x) => x.name === e.name);
        return a ? a.dtype !== undefined && isIntegral(a.dtype) : this.domains.some((d) => d.dims.includes(e.name));
      }
      case "neg": case "bitnot": return this.isIntegerExpr(e.operand);
      case "arith": return this.isIntegerExpr(e.left) && this.isIntegerExpr(e.right);
      case "cast": return e.dtype !== undefined && isIntegral(e.dtype);
      default: return false;
    }
  }

  // ---- the kernel -----------------------------------------------------------------------------

  /** The arguments in signature order (flattened struct fields are made in the order they are first read). */
  private sortedArgs(): KernelArg[] {
    const key = (a: KernelArg) => this.argKeys.get(a.name) ?? [];
    const cmp = (x: readonly number[], y: readonly number[]): number => {
      for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
      return x.length - y.length;
    };
    return [...this.args].sort((a, b) => cmp(key(a), key(b)));
  }

  private finish(): Kernel {
    if (this.nests === 0) this.fail(`[@kernel] requires at least one [@outer] for-loop`, this.f.pos, "OKL §2");
    const k = assembleKernel({
      name: this.f.name, pos: this.f.pos, domains: this.domains, insns: this.log.insns, args: this.sortedArgs(), temps: this.temps,
      rules: this.file.rules, tags: this.tags, accesses: this.log.accesses, read: this.log.read, written: this.log.written,
      structArgs: this.structArgs,
    }, this.failAt);
    kernelOptions.set(k, {
      restrict: this.restrict,
      ...(this.maxInnerDims ? { maxInnerDims: this.maxInnerDims } : {}),
      ...(this.simdLength !== undefined ? { simdLength: this.simdLength } : {}),
    });
    return k;
  }
}
