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
import { OklError } from "../errors.js";
import {
  assigneeName, atomicUpdateOf, c, checkOperandTypes, dtypeKind, insnDefaults, isIntegral, mapExpr, kernelRecord, uniqueName, walkExpr,
  type ArithOp, type Dtype, type Expr, type InameTag, type Instruction, type Kernel, type KernelArg, type SubstitutionRule, type Temporary,
} from "../ir/index.js";
import { addConstraints, aff, affAdd, affScale, universe, type Aff, type BasicSet } from "../poly/index.js";
import type * as A from "./ast.js";
import { exprToAff, footprintShape, type FlatAccess } from "./shapes.js";
import { isStructValue, placeElement, placeIndex, placeMember, StructTable, structReason, structVariable, type StructLayout, type StructPlace } from "./structs.js";
import { directionAgrees, iterateValue, tripCount } from "./trip.js";

export interface LowerOklOptions {
  readonly filename?: string;
  /** The source text, for the excerpt of errors. */
  readonly source?: string;
}

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

const MAX_UNROLL = 64;
/** The updates `@atomic` takes (`++`/`--` arrive as `+=`/`-=`); `=` is an atomic exchange. */
const ATOMIC_OPS: ReadonlySet<string> = new Set(["=", "+=", "-=", "&=", "|=", "^="]);

const BUILTIN_DTYPES: Readonly<Record<string, Dtype>> = {
  float: "float32", double: "float64", half: "float16", int: "int32", "unsigned int": "uint32", unsigned: "uint32",
  long: "int64", "long long": "int64", "unsigned long": "uint64", "unsigned long long": "uint64",
  short: "int16", "unsigned short": "uint16", char: "int8", "signed char": "int8", "unsigned char": "uint8", bool: "bool",
  size_t: "uint64", ptrdiff_t: "int64", int8_t: "int8", int16_t: "int16", int32_t: "int32", int64_t: "int64",
  uint8_t: "uint8", uint16_t: "uint16", uint32_t: "uint32", uint64_t: "uint64",
};

const MATH: Readonly<Record<string, string>> = {
  sqrt: "sqrt", sqrtf: "sqrt", exp: "exp", expf: "exp", log: "log", logf: "log", log10: "log10", log10f: "log10",
  log2: "log2", log2f: "log2", sin: "sin", sinf: "sin", cos: "cos", cosf: "cos", tan: "tan", tanf: "tan",
  asin: "asin", asinf: "asin", acos: "acos", acosf: "acos", atan: "atan", atanf: "atan", atan2: "atan2", atan2f: "atan2",
  sinh: "sinh", sinhf: "sinh", cosh: "cosh", coshf: "cosh", tanh: "tanh", tanhf: "tanh", pow: "pow", powf: "pow",
  fabs: "fabs", fabsf: "fabs", floor: "floor", floorf: "floor", ceil: "ceil", ceilf: "ceil", rsqrt: "rsqrt", rsqrtf: "rsqrt",
  erf: "erf", erff: "erf", fmod: "fmod", fmodf: "fmod", fma: "fma", fmaf: "fma", abs: "abs",
  min: "min", max: "max", fmin: "min", fminf: "min", fmax: "max", fmaxf: "max",
};

/**
 * What a name means inside a kernel. A local pointer aliasing an array (`const float *p = a + k;`)
 * is the array binding with an `offset` added to its (flat) subscripts.
 */
type Binding =
  | { readonly kind: "array"; readonly name: string; readonly dim?: { readonly dims: readonly Expr[]; readonly order: readonly number[] }; readonly offset?: Expr; readonly struct?: StructLayout }
  | { readonly kind: "value"; readonly name: string }
  | { readonly kind: "expr"; readonly expr: Expr }
  | { readonly kind: "temp"; readonly name: string; readonly rank: number; readonly offset?: Expr; readonly struct?: StructLayout };

class Scope {
  private readonly vars = new Map<string, Binding>();
  constructor(readonly parent?: Scope) {}
  get(n: string): Binding | undefined {
    return this.vars.get(n) ?? this.parent?.get(n);
  }
  set(n: string, b: Binding): void {
    this.vars.set(n, b);
  }
}

interface Ctx {
  readonly scope: Scope;
  readonly within: readonly string[];
  readonly preds: readonly Expr[];
  /** Inside an @outer nest / an @inner loop / a regular loop inside @outer. */
  readonly outer: boolean;
  readonly inner: boolean;
  readonly seqLoop: boolean;
}

/** A comparison `lhs op rhs` with the loop variable's value `lhs` affine. */
type Cmp = "<" | "<=" | ">" | ">=";

/** Lower every `@kernel` of `unit`. */
export function lowerOkl(unit: A.TranslationUnit, opts: LowerOklOptions = {}): Kernel[] {
  const file = new FileContext(unit, opts);
  return unit.items.filter((it): it is A.FunctionDef => it.kind === "function" && it.isKernel && it.body !== undefined)
    .map((f) => new KernelLowering(file, f).lower());
}

/** Typedefs and device functions of the file, and error reporting. */
class FileContext {
  readonly typedefs = new Map<string, A.TypeSpec>();
  readonly rules: SubstitutionRule[] = [];
  readonly ruleNames = new Set<string>();
  readonly functions = new Map<string, A.FunctionDef>();
  /** File-scope scalars with compile-time initializers (`const int offset = 1;`), seen by every kernel and device function. */
  readonly globals = new Scope();
  readonly structs: StructTable;
  constructor(readonly unit: A.TranslationUnit, readonly opts: LowerOklOptions) {
    for (const it of unit.items) {
      if (it.kind === "declaration" && it.spec.storage.includes("typedef")) {
        for (const d of it.declarators) if (d.pointers.length === 0 && d.arrayDims.length === 0) this.typedefs.set(d.name, it.spec);
      } else if (it.kind === "declaration") {
        for (const d of it.declarators) {
          if (d.pointers.length > 0 || d.arrayDims.length > 0 || d.init === undefined) continue;
          const e = this.constant(it.spec, d.init);
          if (e) this.globals.set(d.name, { kind: "expr", expr: e });
        }
      }
      if (it.kind === "function" && !it.isKernel && it.body) this.functions.set(it.name, it);
    }
    this.structs = new StructTable(unit, this.typedefs, (n) => BUILTIN_DTYPES[n], (e) => constValue(e, this.globals));
  }

  /** The lowerable struct `spec` names, undefined for a non-struct type; fails for a struct that cannot be lowered. */
  structOf(spec: A.TypeSpec, pos: A.Pos): StructLayout | undefined {
    const r = this.structs.resolve(spec);
    if (r === undefined) return undefined;
    return "layout" in r ? r.layout : this.fail(structReason(r), pos);
  }

  /** A file-scope initializer as a constant of the declared type, or undefined (not a compile-time scalar). */
  private constant(spec: A.TypeSpec, init: A.Expr): Expr | undefined {
    const b = spec.base;
    const d = b.kind === "builtin" || b.kind === "named" ? BUILTIN_DTYPES[b.name] ?? (this.typedefs.has(b.name) ? this.dtypeOrUndefined(this.typedefs.get(b.name)!) : undefined) : undefined;
    if (d === undefined) return undefined;
    const floatValue = (e: A.Expr): number | undefined =>
      e.kind === "float" ? e.value : e.kind === "unary" && e.op === "-" ? neg(floatValue(e.operand)) : e.kind === "unary" && e.op === "+" ? floatValue(e.operand) : constValue(e, this.globals);
    const neg = (v: number | undefined) => (v === undefined ? undefined : -v);
    if (d.startsWith("float")) {
      const v = floatValue(init);
      return v === undefined ? undefined : c(d === "float32" ? Math.fround(v) : v, d === "float64" ? undefined : d, true);
    }
    const v = constValue(init, this.globals);
    return v === undefined ? undefined : d === "bool" ? c(v ? 1 : 0) : c(v);
  }

  private dtypeOrUndefined(spec: A.TypeSpec): Dtype | undefined {
    try {
      return this.dtype(spec, spec.pos);
    } catch {
      return undefined;
    }
  }

  fail(detail: string, pos: A.Pos, rule = "OKL lowering"): never {
    const src = this.opts.source;
    let excerpt = "";
    if (src !== undefined && pos.file === undefined) {
      const line = src.split("\n")[pos.line - 1] ?? "";
      excerpt = `${line}\n${" ".repeat(Math.max(0, pos.column - 1))}^`;
    }
    throw new OklError(detail, pos.line, pos.column, rule, pos.file ?? this.opts.filename, excerpt);
  }

  dtype(spec: A.TypeSpec, pos: A.Pos): Dtype {
    const b = spec.base;
    if (b.kind === "builtin") {
      const d = BUILTIN_DTYPES[b.name];
      if (d) return d;
    } else if (b.kind === "named") {
      const d = BUILTIN_DTYPES[b.name];
      if (d) return d;
      const t = this.typedefs.get(b.name);
      if (t) return this.dtype(t, pos);
    }
    const st = this.structs?.resolve(spec);
    if (st) return this.fail("reason" in st ? structReason(st) : `struct "${st.layout.name}" is used where a scalar is expected (pointers to it, arrays of it and locals of it are lowered, by-value arguments and parameters are not)`, pos);
    return this.fail(`type "${b.kind === "builtin" || b.kind === "named" ? b.name : b.kind}" is not supported yet (numeric scalar types and pointers to them are)`, pos);
  }

  /**
   * A device function `T f(scalars) { return e; }` as a substitution rule (expanded where called);
   * false for other device functions (inlined at the call instead) and unknown names.
   */
  rule(name: string, lowerWith: (e: A.Expr, scope: Scope) => Expr): boolean {
    if (this.ruleNames.has(name)) return true;
    const f = this.functions.get(name);
    if (!f) return false;
    const items = f.body!.items.filter((s) => s.kind !== "empty");
    const ret = items[0];
    if (items.length !== 1 || ret?.kind !== "return" || ret.value === undefined || f.params.some((p) => p.declarator.pointers.length + p.declarator.arrayDims.length > 0)) {
      return false;
    }
    const scope = new Scope(this.globals);
    const params = f.params.map((p) => p.declarator.name);
    // C converts the arguments to the parameter types and the result to the return type.
    f.params.forEach((p) => scope.set(p.declarator.name, { kind: "expr", expr: { kind: "cast", dtype: this.dtype(p.spec, p.pos), value: { kind: "var", name: p.declarator.name } } }));
    this.ruleNames.add(name);
    this.rules.push({ name, params, expr: { kind: "cast", dtype: this.dtype(f.returnType, f.pos), value: lowerWith(ret.value, scope) } });
    return true;
  }
}

class KernelLowering {
  private readonly domains: BasicSet[] = [];
  private readonly insns: Instruction[] = [];
  private readonly temps: Temporary[] = [];
  private readonly tags: Record<string, InameTag> = {};
  private readonly taken = new Set<string>();
  private readonly lastWriter = new Map<string, string>();
  private readonly readersSince = new Map<string, string[]>();
  private sinceBarrier: string[] = [];
  private lastBarrier: string | undefined;
  private readonly accesses = new Map<string, FlatAccess[]>();
  private readonly written = new Set<string>();
  private readonly read = new Set<string>();
  private readonly args: KernelArg[] = [];
  private readonly arrayArgs = new Set<string>();
  private readonly valueArgs = new Set<string>();
  /** Pointer arguments to structs: their number of scalars per struct (the extent of their innermost axis). */
  private readonly structArgs = new Map<string, number>();
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

  constructor(private readonly file: FileContext, private readonly f: A.FunctionDef) {}

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
    for (const p of f.params) {
      const d = p.declarator;
      if (d.name === "") continue;
      const struct = this.file.structOf(p.spec, p.pos);
      if (struct && d.pointers.length + d.arrayDims.length === 0) this.fail(`argument "${d.name}": struct "${struct.name}" passed by value is not supported yet (pass a pointer)`, d.pos);
      const dtype = struct?.dtype ?? this.file.dtype(p.spec, p.pos);
      if (d.pointers.length + d.arrayDims.length > 1) this.fail(`argument "${d.name}": pointers to pointers are not supported`, d.pos);
      if (d.pointers.length + d.arrayDims.length === 1) {
        this.arrayArgs.add(d.name);
        if (d.okl.restrict || d.pointers[0]?.qualifiers.includes("restrict")) this.restrict.push(d.name);
        const dim = d.okl.dim ? { dims: d.okl.dim.map((e) => this.expr(e, this.rootCtx(scope))), order: d.okl.dimOrder ?? d.okl.dim.map((_, k) => k) } : undefined;
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
        const h = this.loopHead(s, ctx);
        if (!h.constant) this.fail(`host loop "${h.name}" around @outer loops: its bounds must be compile-time constants (each iteration launches the nests again)`, s.pos);
        for (const v of unrollValues(h, s.pos, this)) {
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
          const e = this.expr(d.init, ctx);
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
      case "while": case "doWhile": case "break": case "continue": case "return": case "switch": case "case":
        return this.fail(`"${s.kind}" statements cannot be expressed over integer domains; carrying them as opaque blocks is not supported yet`, s.pos);
      default: return this.fail(`unsupported statement ${(s as { kind: string }).kind}`, (s as { pos: A.Pos }).pos);
    }
  }

  private declaration(s: A.Declaration, ctx: Ctx): void {
    if (s.spec.storage.includes("typedef")) this.fail("typedefs inside kernels are not supported yet", s.pos);
    const struct = this.file.structOf(s.spec, s.pos);
    const dtype = struct?.dtype ?? this.file.dtype(s.spec, s.pos);
    for (const d of s.declarators) {
      if (d.pointers.length > 0) {
        // A local pointer is an alias of the array it points into (OKL kernels use them for offsets).
        if (d.arrayDims.length > 0 || d.init === undefined || d.init.kind === "initList") this.fail(`local pointer "${d.name}" must be initialized with an array, \`a + k\` or \`&a[k]\``, d.pos);
        // @exclusive changes nothing for an alias that is never reassigned; a @shared pointer would be one per group.
        if (d.okl.shared) this.fail(`local pointer "${d.name}" cannot be @shared`, d.pos);
        ctx.scope.set(d.name, this.pointerBinding(d.init, ctx, d.name));
        continue;
      }
      if (!struct && d.arrayDims.length === 0 && d.init !== undefined && d.init.kind !== "initList" && !d.okl.shared && !d.okl.exclusive && s.spec.qualifiers.includes("const")) {
        // A const scalar of loop variables and arguments is their expression (affine footprints, no temporary).
        const e = this.expr(d.init, ctx);
        if (this.pure(e)) {
          ctx.scope.set(d.name, { kind: "expr", expr: dtypeKind(dtype) !== "float" && dtype.endsWith("32") && this.isIntegerExpr(e) ? e : { kind: "cast", dtype, value: e } });
          continue;
        }
      }
      const shape = d.arrayDims.map((e) => {
        if (e === undefined) this.fail(`array "${d.name}" needs a size`, d.pos);
        const v = constValue(e, ctx.scope, this);
        if (v === undefined || v < 1) this.fail(`the size of array "${d.name}" must be a positive compile-time integer`, e.pos);
        return v;
      });
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
        if (shape.length !== 1) this.fail(`initializer lists are supported for 1-D arrays only ("${d.name}")`, d.pos);
        for (let k = 0; k < shape[0]!; k++) {
          const item = d.init.items[k];
          this.emit({ kind: "subscript", array: name, indices: [c(k)] }, item ? this.expr(item, ctx) : c(0), ctx, false, d.pos);
        }
      } else {
        if (shape.length > 0) this.fail(`array "${d.name}" must be initialized with {…}`, d.pos);
        this.emit({ kind: "var", name }, this.expr(d.init, ctx), ctx, false, d.pos);
      }
    }
  }

  private exprStmt(e: A.Expr, ctx: Ctx, atomic: boolean): void {
    if (e.kind === "comma" && !atomic) {
      for (const x of e.exprs) this.exprStmt(x, ctx, false);
      return;
    }
    const whole = e.kind === "assign" ? this.structPlace(e.target, ctx) : undefined;
    if (e.kind === "assign" && whole && isStructValue(whole)) {
      if (e.op !== "=" || atomic) this.fail(`struct "${whole.layout!.name}": whole structs can only be copied with a plain "=" (not "${e.op}"${atomic ? " under @atomic" : ""})`, e.pos);
      return this.copyStruct(whole, e.value, ctx, e.pos);
    }
    let target: A.Expr;
    let op: A.AssignOp;
    let value: Expr;
    if (e.kind === "assign") {
      target = e.target;
      op = e.op;
      value = this.expr(e.value, ctx);
    } else if ((e.kind === "unary" && (e.op === "++" || e.op === "--")) || e.kind === "postfix") {
      target = (e as A.Unary | A.Postfix).operand;
      op = (e as A.Unary).op === "++" ? "+=" : "-=";
      value = c(1);
    } else {
      return this.fail(`expression statement ${e.kind === "call" ? "calling a function (possible side effects)" : `(${e.kind})`} is not supported yet; only assignments and updates are`, e.pos);
    }
    const lhs = this.lvalue(target, ctx);
    if (atomic && !ATOMIC_OPS.has(op)) this.fail(`@atomic supports = += -= &= |= ^= ++ -- only, not "${op}"`, e.pos);
    const bin: Record<string, ArithOp> = {
      "+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "&=": "&", "|=": "|", "^=": "^", "<<=": "<<", ">>=": ">>",
    };
    let rhs = value;
    if (op !== "=") {
      const b = bin[op];
      if (!b) this.fail(`operator "${op}" is not supported yet`, e.pos);
      rhs = { kind: "arith", op: b, left: lhs, right: value };
    }
    // `@atomic x = f(x)` is no exchange: the read of x would not be atomic.
    if (atomic && !atomicUpdateOf(lhs, rhs)) this.fail(`@atomic "${op}": the value must not read the target itself`, e.pos);
    this.emit(lhs, rhs, ctx, atomic, e.pos);
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
      this.emit(placeElement(dst, k), item ? this.expr(item, ctx) : c(0), ctx, false, d.pos);
    }
  }

  /** `dst = src` of whole structs: one assignment per scalar (C copies the bytes, which are these scalars). */
  private copyStruct(dst: StructPlace, src: A.Expr, ctx: Ctx, pos: A.Pos): void {
    const layout = dst.layout!;
    const from = this.structPlace(src, ctx);
    if (!from || !isStructValue(from) || from.layout!.name !== layout.name) {
      this.fail(`struct "${layout.name}" can only be assigned a value of struct "${layout.name}" (an element, a local or a field of that type)`, src.pos);
    }
    for (let k = 0; k < layout.size; k++) this.emit(placeElement(dst, k), placeElement(from, k), ctx, false, pos);
  }

  private ifStmt(s: A.If, ctx: Ctx): void {
    let cond = this.expr(s.cond, ctx);
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
    const h = this.loopHead(s, ctx);
    if (s.okl === undefined && h.constant) {
      const values = unrollValues(h, s.pos, this);
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
      const size = constValue(okl.size, ctx.scope, this);
      if (size === undefined || size < 1) this.fail("@tile: the tile size must be a positive compile-time integer", okl.size.pos);
      const to = this.fresh(`${h.name}_tile`);
      const ti = this.fresh(`${h.name}_in_tile`);
      // Documented semantics: block loop over start + K*to, in-tile start + K*to + d*ti, 0 <= d*ti < K.
      const sgn = h.step > 0 ? 1 : -1;
      const d = Math.abs(h.step);
      const start = h.startAff ?? this.fail(`@tile: the start of loop "${h.name}" must be affine`, s.pos);
      const block = affAdd(start, aff({ [to]: sgn * size }));
      const value = affAdd(block, aff({ [ti]: sgn * d }));
      const rows = [
        { aff: aff({ [to]: 1 }), eq: false }, { aff: aff({ [ti]: 1 }), eq: false }, { aff: aff({ [ti]: -d }, size - 1), eq: false },
        ...this.cmpRows(block, h.cmp, h.end, s.pos),
        ...(okl.check ? this.cmpRows(value, h.cmp, h.end, s.pos) : []),
      ];
      this.addDomain([to, ti], rows);
      const axes = this.tileAxes(s, okl);
      if (okl.outer && (okl.outer.kind === "outer" || this.workItems(h))) this.tags[to] = { kind: okl.outer.kind === "outer" ? "g" : "l", axis: axes[0]! };
      if (okl.inner) this.tags[ti] = { kind: okl.inner.kind === "outer" ? "g" : "l", axis: axes[1]! };
      scope.set(h.name, { kind: "expr", expr: affToIr(value) });
      const anyInner = okl.outer?.kind === "inner" || okl.inner?.kind === "inner";
      inner = { ...ctx, scope, within: [...ctx.within, to, ti], outer: true, inner: ctx.inner || anyInner, seqLoop: ctx.seqLoop || (!okl.outer && !okl.inner) };
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
      } else if (h.step === 1 && h.startAff !== undefined) {
        value = aff({ [iname]: 1 });
        rows = [{ aff: affAdd(value, affScale(h.startAff, -1)), eq: false }, ...this.cmpRows(value, h.cmp, h.end, s.pos)];
      } else {
        const start = h.startAff ?? this.fail(`loop "${h.name}": the start must be affine in the arguments and enclosing loop variables`, s.pos);
        value = affAdd(start, aff({ [iname]: h.step }));
        rows = [{ aff: aff({ [iname]: 1 }), eq: false }, ...this.cmpRows(value, h.cmp, h.end, s.pos)];
      }
      this.addDomain([iname], rows);
      if (okl && (okl.kind === "outer" || this.workItems(h))) {
        this.tags[iname] = { kind: okl.kind === "outer" ? "g" : "l", axis: okl.axis ?? levelsBelow(s.body, okl.kind) };
        if (okl.kind === "inner") this.checkInnerRange(iname, rows, s.pos);
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

  /** Whether `end` (compared with `cmp`) becomes affine domain rows (cmpRows accepts it). */
  private affineBound(end: Expr, cmp: Cmp): boolean {
    if (end.kind === "call" && end.args.length === 2 && ((end.fn === "min" && (cmp === "<" || cmp === "<=")) || (end.fn === "max" && (cmp === ">" || cmp === ">=")))) {
      return end.args.every((a) => this.affineBound(a, cmp));
    }
    if (exprToAff(end)) return true;
    return end.kind === "arith" && (end.op === "/" || end.op === "//") && end.right.kind === "const" && end.right.value > 0 && exprToAff(end.left) !== undefined;
  }

  /** The loop's start, bound or step is not affine (reads memory, divides a parameter): it iterates a trip count. */
  private needsTrip(h: LoopHead): boolean {
    if (h.step === undefined) return h.update?.amount !== undefined && constValue(h.update.amount, h.ctx.scope, this) === undefined;
    return h.startAff === undefined || !this.affineBound(h.end, h.cmp);
  }

  /**
   * A loop whose start, bound or step is not affine (`k < cnt[j]`, `i += n/16 + 1`): C's trip
   * count (`tripCount`) goes into an int32 temporary before the loop, an iname `t` runs over
   * `0 <= t < trip` (a domain with the temporary as parameter), and `i = start ± step*t`; a start or
   * step that reads memory is kept in a temporary of the iterator's type. `@tile` keeps its
   * documented span semantics: blocks `start ± K*t` (affine rows when start and bound are), in-tile
   * `block ± step*u` over `0 <= u < K` guarded by `step*u < K`. Loop levels whose trip count is
   * computed on the device cannot be grid or work-group extents: such @outer and @inner levels run
   * sequentially (refused in nests with @shared memory or barriers).
   */
  private tripLoop(s: A.For, h: LoopHead, ctx0: Ctx): void {
    const okl = s.okl;
    const upd = h.update ?? this.fail(`Expected update [${h.name}] with one of these operators [++, --, +=, -=]`, s.update?.pos ?? s.pos, "OKL §3.1");
    if (!directionAgrees(upd.increasing, h.cmp)) {
      this.fail(`loop "${h.name}": the update ${upd.increasing ? "increases" : "decreases"} "${h.name}" but the condition is "${h.name} ${h.cmp} …": the loop runs zero times or never ends; with bounds that are not affine it is not supported`, s.pos);
    }
    if (okl?.kind === "inner" && !ctx0.outer) this.fail("Cannot have [@inner] loop outside of an [@outer] loop", s.pos, "OKL §3.4");
    this.checkHeaderNotWritten(s, h, ctx0);
    // The trip count is computed on the device, also before an @outer nest (every work-item computes it).
    const ctx: Ctx = { ...ctx0, outer: true };
    for (const [what, e] of [["bound", h.end], ["start", h.start]] as const) {
      if (this.floatTyped(e)) this.fail(`loop "${h.name}": its ${what} has a floating-point type; only integer bounds that are not affine are supported`, s.pos);
    }
    const amountConst = upd.amount === undefined ? 1 : constValue(upd.amount, ctx.scope, this);
    if (amountConst !== undefined && amountConst <= 0) this.fail(`loop "${h.name}": the step must be positive (the loop would not terminate)`, s.update?.pos ?? s.pos);
    // Start and step are kept signed (the iterator's value where the loop runs); the trip count compares in the iterator's type.
    const held: Dtype = h.dtype.endsWith("64") ? "int64" : "int32";
    const step = amountConst !== undefined ? c(amountConst) : this.capture(this.expr(upd.amount!, ctx), `${h.name}_step`, held, ctx, s.pos);
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
      if (this.nestSyncs && okl) this.fail(`loop "${h.name}": its trip count is computed at run time, so this ${okl.kind === "tile" ? "@tile block" : `@${okl.kind}`} loop runs sequentially, which is not supported in a nest with @shared memory or barriers`, s.pos);
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
    const size = constValue(okl.size, ctx.scope, this);
    if (size === undefined || size < 1) this.fail("@tile: the tile size must be a positive compile-time integer", okl.size.pos);
    const to = this.fresh(`${h.name}_tile`);
    const ti = this.fresh(`${h.name}_in_tile`);
    const rows: { aff: Aff; eq: boolean }[] = [];
    const guards: Expr[] = [];
    const bound: string[] = [];
    const affineBlock = h.startAff !== undefined && this.affineBound(h.end, h.cmp);
    let block: Expr;
    if (affineBlock) {
      const b = affAdd(h.startAff, aff({ [to]: (upd.increasing ? 1 : -1) * size }));
      rows.push({ aff: aff({ [to]: 1 }), eq: false }, ...this.cmpRows(b, h.cmp, h.end, s.pos));
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
    const axes = this.tileAxes(s, okl);
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
   * C evaluates a loop's condition every iteration; Loom computes the trip count once, which is the
   * same only when the body writes nothing the header reads.
   */
  private checkHeaderNotWritten(s: A.For, h: LoopHead, ctx: Ctx): void {
    const storage = (n: string): string => {
      const b = ctx.scope.get(n);
      return b?.kind === "array" || b?.kind === "temp" || b?.kind === "value" ? b.name : n;
    };
    const read = new Set<string>();
    const header = [s.cond, s.update, s.init?.kind === "declaration" ? s.init.declarators[0]?.init : s.init];
    for (const x of header) if (x) walkAst(x, (n) => { if (n.kind === "ident" && n.name !== h.name) read.add(storage(n.name)); });
    const root = (x: A.Expr): string | undefined =>
      x.kind === "ident" ? x.name : x.kind === "index" ? root(x.target) : x.kind === "unary" && x.op === "*" ? root(x.operand) : x.kind === "call" ? root(x.callee) : undefined;
    walkAst(s.body, (n) => {
      const target = n.kind === "assign" ? n.target : (n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--") ? n.operand : undefined;
      const r = target && root(target);
      if (r !== undefined && read.has(storage(r))) {
        this.fail(`loop "${h.name}": its header reads "${r}", which the loop body writes; C re-evaluates the condition every iteration, Loom computes the trip count once before the loop (not supported)`, target!.pos);
      }
    });
  }

  /**
   * Whether an @inner loop becomes work-items: Loom's work-group sizes are compile-time constants,
   * so an @inner loop whose trip count is not (`i < n`) runs as a sequential loop in each work-item
   * instead, which means the same where the nest has no barrier and no @shared memory (work-items
   * then never observe one another); with them, it stays a work-item loop and code generation asks
   * for a split.
   */
  private workItems(h: LoopHead): boolean {
    const end = exprToAff(h.end);
    const span = end && h.startAff ? affAdd(end, affScale(h.startAff, -1)) : undefined;
    return (span !== undefined && Object.keys(span.terms).length === 0) || this.nestSyncs;
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

  /** Axes of the two levels of a @tile (explicit, else OCCA's numbering from the innermost). */
  private tileAxes(s: A.For, t: Extract<A.OklLoop, { kind: "tile" }>): [number | undefined, number | undefined] {
    const below = (k: "outer" | "inner") => levelsBelow(s.body, k);
    const innerAxis = t.inner ? t.inner.axis ?? below(t.inner.kind) : undefined;
    const outerAxis = t.outer ? t.outer.axis ?? below(t.outer.kind) + (t.inner?.kind === t.outer.kind ? 1 : 0) : undefined;
    return [outerAxis, innerAxis];
  }

  private loopHead(s: A.For, ctx: Ctx): LoopHead {
    const init = s.init;
    if (!init || init.kind !== "declaration" || init.declarators.length !== 1 || init.declarators[0]!.init === undefined) {
      return this.fail("OKL for loop init-statement must be a simple declaration with initializer (`int i = …`)", s.pos, "OKL §3.1");
    }
    const decl = init.declarators[0]!;
    const name = decl.name;
    const start = this.expr(decl.init!, ctx);
    const cond = s.cond;
    if (!cond || cond.kind !== "binary" || !["<", "<=", ">", ">="].includes(cond.op)) {
      return this.fail(`Expected to compare [${name}] with one of these operators [<, <=, >=, >]`, cond?.pos ?? s.pos, "OKL §3.1");
    }
    const isVar = (e: A.Expr) => e.kind === "ident" && e.name === name;
    const flip: Record<string, Cmp> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
    let cmp: Cmp;
    let endAst: A.Expr;
    if (isVar(cond.left)) {
      cmp = cond.op as Cmp;
      endAst = cond.right;
    } else if (isVar(cond.right)) {
      cmp = flip[cond.op]!;
      endAst = cond.left;
    } else return this.fail(`Expected comparing [${name}] with some bound`, cond.pos, "OKL §3.1");
    const end = this.expr(endAst, ctx);
    const u = s.update;
    let step: number | undefined;
    if (u && (u.kind === "unary" || u.kind === "postfix") && isVar(u.operand) && (u.op === "++" || u.op === "--")) step = u.op === "++" ? 1 : -1;
    else if (u && u.kind === "assign" && isVar(u.target) && (u.op === "+=" || u.op === "-=")) {
      const v = constValue(u.value, ctx.scope, this);
      if (v !== undefined && v > 0) step = u.op === "+=" ? v : -v;
    }
    const constant = constValue(decl.init!, ctx.scope, this) !== undefined && constValue(endAst, ctx.scope, this) !== undefined;
    const update = u && (u.kind === "unary" || u.kind === "postfix") && isVar(u.operand) && (u.op === "++" || u.op === "--")
      ? { increasing: u.op === "++", amount: undefined }
      : u && u.kind === "assign" && isVar(u.target) && (u.op === "+=" || u.op === "-=") ? { increasing: u.op === "+=", amount: u.value } : undefined;
    return { name, start, startAff: exprToAff(start), cmp, end, step, update, dtype: this.file.dtype(init.spec, init.pos), constant, s, ctx };
  }

  /** Rows for `value cmp end`, where `end` is affine or an affine form divided by a positive constant. */
  private cmpRows(value: Aff, cmp: Cmp, end: Expr, pos: A.Pos): { aff: Aff; eq: boolean }[] {
    // v <= min(a, b) is v <= a and v <= b; v >= max(a, b) likewise.
    if (end.kind === "call" && end.args.length === 2 && ((end.fn === "min" && (cmp === "<" || cmp === "<=")) || (end.fn === "max" && (cmp === ">" || cmp === ">=")))) {
      return end.args.flatMap((a) => this.cmpRows(value, cmp, a, pos));
    }
    let num = exprToAff(end);
    let den = 1;
    if (!num && end.kind === "arith" && (end.op === "/" || end.op === "//") && end.right.kind === "const" && end.right.value > 0) {
      num = exprToAff(end.left);
      den = end.right.value;
    }
    if (!num) return this.fail("loop bound is not affine in the arguments and enclosing loop variables; data-dependent bounds are not supported yet", pos);
    const dv = affScale(value, den);
    const minus = (a: Aff, b: Aff) => affAdd(a, affScale(b, -1));
    // Integer value v, bound floor(N/d) (C division of a non-negative N):
    //   v < N/d <=> d*v + d <= N;  v <= N/d <=> d*v <= N;  v > N/d <=> d*v >= N + 1;  v >= N/d <=> d*v + d >= N + 1.
    switch (cmp) {
      case "<": return [{ aff: minus(num, affAdd(dv, aff({}, den))), eq: false }];
      case "<=": return [{ aff: minus(num, dv), eq: false }];
      case ">": return [{ aff: minus(dv, affAdd(num, aff({}, 1))), eq: false }];
      case ">=": return [{ aff: minus(affAdd(dv, aff({}, den)), affAdd(num, aff({}, 1))), eq: false }];
    }
  }

  private addDomain(dims: string[], rows: { aff: Aff; eq: boolean }[]): void {
    const names = new Set(rows.flatMap((r) => Object.keys(r.aff.terms)));
    const params = [...names].filter((n) => !dims.includes(n)).sort();
    this.domains.push(addConstraints(universe(params, dims), rows));
  }

  // ---- instructions and dependencies ----------------------------------------------------------

  private emit(lhs: Expr, rhs: Expr, ctx: Ctx, atomic: boolean, pos: A.Pos): void {
    if (!ctx.outer) this.fail("statements must be inside an @outer loop", pos);
    const id = this.fresh("insn");
    const target = assigneeName(lhs);
    const reads = new Set<string>();
    const note = (e: Expr, write: boolean) => walkExpr(e, (n) => {
      if (n.kind === "var") reads.add(n.name);
      if (n.kind === "subscript") {
        if (!(write && n === lhs)) reads.add(n.array);
        if (this.arrayArgs.has(n.array)) {
          (write && n === lhs ? this.written : this.read).add(n.array);
          const list = this.accesses.get(n.array) ?? [];
          list.push({ index: n.indices[0]!, within: ctx.within, guards: affineGuards(ctx.preds) });
          this.accesses.set(n.array, list);
        }
      }
    });
    note(lhs, true);
    note(rhs, false);
    for (const p of ctx.preds) note(p, false);
    if (atomic) reads.add(target);
    // A loop bounded by a trip-count temporary reads it (its domain's parameter).
    for (const i of ctx.within) for (const t of this.boundTemps.get(i) ?? []) reads.add(t);
    const deps = new Set<string>();
    for (const r of reads) {
      const w = this.lastWriter.get(r);
      if (w) deps.add(w);
      if (r !== target) this.readersSince.set(r, [...(this.readersSince.get(r) ?? []), id]);
    }
    const w = this.lastWriter.get(target);
    if (w) deps.add(w);
    for (const rd of this.readersSince.get(target) ?? []) deps.add(rd);
    if (this.lastBarrier) deps.add(this.lastBarrier);
    this.lastWriter.set(target, id);
    this.readersSince.set(target, []);
    this.sinceBarrier.push(id);
    this.insns.push({
      ...insnDefaults(id), kind: "assign", lhs, rhs, atomicity: atomic ? "update" : "none",
      withinInames: [...ctx.within].sort(), dependsOn: [...deps].sort(), predicates: [...ctx.preds],
    });
  }

  private barrier(scope: "local" | "global", ctx: Ctx, pos: A.Pos): void {
    if (scope === "local" && !ctx.outer) this.fail("@barrier outside an @outer loop", pos);
    const id = this.fresh(scope === "global" ? "gbarrier" : "barrier");
    const deps = [...this.sinceBarrier, ...(this.lastBarrier ? [this.lastBarrier] : [])];
    this.insns.push({
      ...insnDefaults(id), kind: "barrier", scope,
      withinInames: scope === "global" ? [] : ctx.within.filter((i) => this.tags[i]?.kind !== "l").sort(), dependsOn: [...new Set(deps)].sort(),
    });
    this.sinceBarrier = [];
    this.lastBarrier = id;
  }

  // ---- expressions ----------------------------------------------------------------------------

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

  private lvalue(e: A.Expr, ctx: Ctx): Expr {
    const x = this.expr(e, ctx);
    if (x.kind === "var") {
      const b = ctx.scope.get((e as A.Ident).name);
      if (b?.kind !== "temp") this.fail(`cannot assign to "${(e as A.Ident).name}" (only local variables and array elements can be assigned)`, e.pos);
      return x;
    }
    if (x.kind !== "subscript") this.fail("the left-hand side must be a variable or an array element", e.pos);
    return x;
  }

  /**
   * The place an expression of struct type (or inside one) denotes, or undefined when `e` is not
   * rooted at a struct array or local: `a[i]`, `a[i].re`, `p->x`, `*p`, `v.m[k]`, `mat(i, j).x` (@dim).
   */
  private structPlace(e: A.Expr, ctx: Ctx): StructPlace | undefined {
    const fail = (m: string): never => this.fail(m, e.pos);
    switch (e.kind) {
      case "ident": {
        const b = ctx.scope.get(e.name);
        if (b?.kind === "array" && b.struct) return structVariable(b.name, b.struct, 1, b.offset);
        if (b?.kind === "temp" && b.struct) return structVariable(b.name, b.struct, b.rank, b.offset);
        return undefined;
      }
      case "index": {
        const p = this.structPlace(e.target, ctx);
        return p && placeIndex(p, this.expr(e.index, ctx), fail);
      }
      case "member": {
        const p = this.structPlace(e.target, ctx);
        return p && placeMember(e.arrow ? placeIndex(p, c(0), fail) : p, e.name, fail); // p->f is p[0].f
      }
      case "unary": {
        const p = e.op === "*" ? this.structPlace(e.operand, ctx) : undefined;
        return p && placeIndex(p, c(0), fail);
      }
      case "call": {
        const b = e.callee.kind === "ident" ? ctx.scope.get(e.callee.name) : undefined;
        if (b?.kind !== "array" || !b.struct || !b.dim) return undefined;
        return placeIndex(structVariable(b.name, b.struct, 1), this.dimIndex(b.dim, e, ctx), fail);
      }
      default: return undefined;
    }
  }

  /** A scalar inside a struct as an IR subscript; fails for whole structs and unsubscripted arrays. */
  private structScalar(p: StructPlace, e: A.Expr): Expr {
    if (p.prefix.length < p.need) this.fail(`array of struct "${p.layout!.name}" used without a subscript`, e.pos);
    if (p.dims.length > 0) this.fail("an array field used without a subscript", e.pos);
    if (p.layout) this.fail(`a value of struct "${p.layout.name}" is used as a scalar; use one of its fields (${[...p.layout.fields.keys()].join(", ")})`, e.pos);
    return placeElement(p);
  }

  /** An OKL expression as an IR expression. */
  expr(e: A.Expr, ctx: Ctx): Expr {
    if (e.kind === "ident" || e.kind === "index" || e.kind === "member" || e.kind === "call" || (e.kind === "unary" && e.op === "*")) {
      const p = this.structPlace(e, ctx);
      if (p) return this.structScalar(p, e);
    }
    switch (e.kind) {
      case "int": return c(e.value);
      case "char": return c(e.value);
      case "bool": return c(e.value ? 1 : 0);
      case "float": return e.suffix === "f" ? c(e.value, "float32", true) : c(e.value, undefined, true);
      case "ident": {
        const b = ctx.scope.get(e.name);
        if (!b) return this.fail(`unknown identifier "${e.name}" (defines must be given with -D / opts.defines)`, e.pos);
        switch (b.kind) {
          case "expr": return b.expr;
          case "value": return { kind: "var", name: b.name };
          case "temp":
            if (b.rank > 0) this.fail(`array "${e.name}" used without a subscript`, e.pos);
            return { kind: "var", name: b.name };
          case "array": return this.fail(`pointer "${e.name}" used without a subscript`, e.pos);
        }
        break;
      }
      case "unary": {
        if (e.op === "-") return { kind: "neg", operand: this.expr(e.operand, ctx) };
        if (e.op === "+") return this.expr(e.operand, ctx);
        if (e.op === "!") return { kind: "not", operand: this.expr(e.operand, ctx) };
        if (e.op === "~") return { kind: "bitnot", operand: this.expr(e.operand, ctx) };
        if (e.op === "*") return this.subscript(e.operand, [], ctx, e.pos);
        return this.fail(`operator "${e.op}" is not supported in expressions yet`, e.pos);
      }
      case "binary": {
        const l = this.expr(e.left, ctx);
        const r = this.expr(e.right, ctx);
        switch (e.op) {
          case "+": case "-": case "*": case "/": case "%": return { kind: "arith", op: e.op, left: l, right: r };
          case "<": case ">": case "<=": case ">=": case "==": case "!=": return { kind: "compare", op: e.op, left: l, right: r };
          case "&&": return { kind: "logical", op: "and", left: l, right: r };
          case "||": return { kind: "logical", op: "or", left: l, right: r };
          case "&": case "|": case "^": case "<<": case ">>": return { kind: "arith", op: e.op, left: l, right: r };
          default: return this.fail(`operator "${(e as A.Binary).op}" is not supported yet`, (e as A.Binary).pos);
        }
      }
      case "conditional": return { kind: "if", cond: this.expr(e.cond, ctx), then: this.expr(e.then, ctx), else: this.expr(e.else, ctx) };
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
      case "call": return this.call(e, ctx);
      default: return this.fail(`${e.kind} expressions are not supported yet`, e.pos);
    }
    return this.fail("unreachable", e.pos);
  }

  private subscript(base: A.Expr, idx: readonly A.Expr[], ctx: Ctx, pos: A.Pos): Expr {
    const label = base.kind === "ident" ? base.name : "the pointer";
    const b = base.kind === "ident" ? ctx.scope.get(base.name) : this.pointerBinding(base, ctx, label);
    const indices = idx.map((i) => this.expr(i, ctx));
    const at = (off: Expr | undefined, i: Expr): Expr => (off ? { kind: "arith", op: "+", left: off, right: i } : i);
    if ((b?.kind === "array" || b?.kind === "temp") && b.struct) this.fail(`"${label}" is an array of struct "${b.struct.name}"; only its elements' fields can be read`, pos);
    if (b?.kind === "array") {
      if (indices.length > 1) this.fail(`pointer argument "${label}" takes one subscript (it is a flat array)`, pos);
      return { kind: "subscript", array: b.name, indices: [at(b.offset, indices[0] ?? c(0))] };
    }
    if (b?.kind === "temp") {
      if (b.offset && indices.length <= 1) return { kind: "subscript", array: b.name, indices: [at(b.offset, indices[0] ?? c(0))] };
      if (indices.length !== b.rank) this.fail(`array "${label}" has ${b.rank} dimension(s), subscripted with ${indices.length}`, pos);
      return { kind: "subscript", array: b.name, indices };
    }
    return this.fail(`"${label}" is not an array`, pos);
  }

  private call(e: A.Call, ctx: Ctx): Expr {
    if (e.callee.kind !== "ident") return this.fail("only calls of named functions are supported", e.pos);
    const name = e.callee.name;
    const b = ctx.scope.get(name);
    const args = () => e.args.map((a) => this.expr(a, ctx));
    if (b?.kind === "array" && b.dim) return { kind: "subscript", array: b.name, indices: [this.dimIndex(b.dim, e, ctx)] };
    const helper = /^loopy_(floor_div|mod|min|max|fmod)_[a-z0-9]+$/.exec(name);
    if (helper) {
      const [x, y] = args();
      if (helper[1] === "floor_div") return { kind: "arith", op: "//", left: x!, right: y! };
      if (helper[1] === "mod" || helper[1] === "fmod") return { kind: "arith", op: "%", left: x!, right: y! };
      return { kind: "call", fn: helper[1]!, args: [x!, y!] };
    }
    const fn = MATH[name];
    if (fn) return { kind: "call", fn, args: args() };
    if (this.file.rule(name, (x, scope) => this.expr(x, { ...ctx, scope }))) return { kind: "call", fn: name, args: args() };
    const f = this.file.functions.get(name);
    if (f) return this.inline(f, e, ctx);
    return this.fail(`call of unknown function "${name}" (math functions and device functions defined in the file are supported)`, e.pos);
  }

  /** @dim: x(a0, …) -> the flat index a_p0 + D_p0 * (a_p1 + D_p1 * (…)) (OKL.md §8). */
  private dimIndex(dim: { readonly dims: readonly Expr[]; readonly order: readonly number[] }, e: A.Call, ctx: Ctx): Expr {
    const { dims, order } = dim;
    if (e.args.length !== dims.length) this.fail(`${e.args.length > dims.length ? "Too many" : "Missing"} dimensions, expected ${dims.length} argument(s)`, e.pos, "@dim");
    const a = e.args.map((x) => this.expr(x, ctx));
    let lin: Expr = a[order[order.length - 1]!]!;
    for (let k = order.length - 2; k >= 0; k--) {
      const p = order[k]!;
      lin = { kind: "arith", op: "+", left: a[p]!, right: { kind: "arith", op: "*", left: dims[p]!, right: lin } };
    }
    return lin;
  }

  private inlineDepth = 0;

  /**
   * A call of a device function with pointer parameters or several statements, inlined: pointer
   * parameters alias the caller's arrays, scalar parameters and local declarations are bound to
   * their (converted) values, `if … return` chains become conditional expressions.
   */
  private inline(f: A.FunctionDef, e: A.Call, ctx: Ctx): Expr {
    if (e.args.length !== f.params.length) this.fail(`call of "${f.name}" with ${e.args.length} argument(s); it takes ${f.params.length}`, e.pos);
    if (this.inlineDepth > 16) this.fail(`call of "${f.name}": device functions nested more than 16 deep (recursion?) cannot be inlined`, e.pos);
    const scope = new Scope(this.file.globals);
    f.params.forEach((p, k) => {
      const d = p.declarator;
      const a = e.args[k]!;
      if (d.pointers.length + d.arrayDims.length > 0) scope.set(d.name, this.pointerBinding(a, ctx, d.name));
      else scope.set(d.name, { kind: "expr", expr: { kind: "cast", dtype: this.file.dtype(p.spec, p.pos), value: this.expr(a, ctx) } });
    });
    this.inlineDepth++;
    try {
      const ret = this.file.dtype(f.returnType, f.pos);
      return { kind: "cast", dtype: ret, value: this.inlineBody(f, f.body!.items, { ...ctx, scope }) };
    } finally {
      this.inlineDepth--;
    }
  }

  /** The value a statement list returns, as an expression. */
  private inlineBody(f: A.FunctionDef, items: readonly A.Stmt[], ctx: Ctx): Expr {
    const [s, ...rest] = items;
    if (s === undefined) return this.fail(`device function "${f.name}" can reach its end without returning a value; it cannot be inlined`, f.pos);
    switch (s.kind) {
      case "empty": case "pragma": return this.inlineBody(f, rest, ctx);
      case "compound": return this.inlineBody(f, [...s.items, ...rest], { ...ctx, scope: new Scope(ctx.scope) });
      case "return":
        if (s.value === undefined) return this.fail(`device function "${f.name}" returns no value`, s.pos);
        return this.expr(s.value, ctx);
      case "if":
        return {
          kind: "if", cond: this.expr(s.cond, ctx),
          then: this.inlineBody(f, [s.then, ...rest], { ...ctx, scope: new Scope(ctx.scope) }),
          else: this.inlineBody(f, s.else ? [s.else, ...rest] : rest, { ...ctx, scope: new Scope(ctx.scope) }),
        };
      case "declaration": {
        const scope = new Scope(ctx.scope);
        for (const d of s.declarators) {
          if (d.init === undefined || d.init.kind === "initList" || d.arrayDims.length > 0) {
            this.fail(`device function "${f.name}": only initialized scalar and pointer locals can be inlined ("${d.name}")`, d.pos);
          }
          if (assigned(rest, d.name)) this.fail(`device function "${f.name}": local "${d.name}" is assigned after its declaration; only single-assignment locals can be inlined`, d.pos);
          scope.set(d.name, d.pointers.length > 0
            ? this.pointerBinding(d.init, { ...ctx, scope }, d.name)
            : { kind: "expr", expr: { kind: "cast", dtype: this.file.dtype(s.spec, s.pos), value: this.expr(d.init, { ...ctx, scope }) } });
        }
        return this.inlineBody(f, rest, { ...ctx, scope });
      }
      default:
        return this.fail(`device function "${f.name}": ${describeStmt(s)} cannot be inlined (declarations, if and return can)`, s.pos);
    }
  }

  /**
   * The array a pointer expression points into, with the offset: `a`, `a + k`, `k + a`, `a - k`,
   * `&a[k]`, `(float *) a`. `what` names the pointer for errors.
   */
  private pointerBinding(e: A.Expr, ctx: Ctx, what: string): Binding {
    const shifted = (b: Binding, off: Expr): Binding => {
      if (b.kind === "array") {
        if (b.dim) this.fail(`pointer "${what}": offsets into @dim array "${b.name}" are not supported`, e.pos);
        return { ...b, offset: b.offset ? { kind: "arith", op: "+", left: b.offset, right: off } : off };
      }
      if (b.kind === "temp" && b.rank === 1) return { ...b, offset: b.offset ? { kind: "arith", op: "+", left: b.offset, right: off } : off };
      return this.fail(`pointer "${what}": only offsets into arguments and 1-D arrays are supported`, e.pos);
    };
    const isPointer = (x: A.Expr): boolean => {
      if (x.kind === "ident") {
        const b = ctx.scope.get(x.name);
        return b?.kind === "array" || (b?.kind === "temp" && b.rank > 0);
      }
      if (x.kind === "cast") return x.type.pointers.length > 0;
      if (x.kind === "binary" && (x.op === "+" || x.op === "-")) return isPointer(x.left) || (x.op === "+" && isPointer(x.right));
      return x.kind === "unary" && x.op === "&";
    };
    switch (e.kind) {
      case "ident": {
        const b = ctx.scope.get(e.name);
        if (b?.kind === "array" || (b?.kind === "temp" && b.rank > 0)) return b;
        break;
      }
      case "cast":
        if (e.type.pointers.length > 0) return this.pointerBinding(e.operand, ctx, what);
        break;
      case "binary":
        if (e.op === "+" && isPointer(e.left)) return shifted(this.pointerBinding(e.left, ctx, what), this.expr(e.right, ctx));
        if (e.op === "+" && isPointer(e.right)) return shifted(this.pointerBinding(e.right, ctx, what), this.expr(e.left, ctx));
        if (e.op === "-" && isPointer(e.left)) return shifted(this.pointerBinding(e.left, ctx, what), { kind: "neg", operand: this.expr(e.right, ctx) });
        break;
      case "unary":
        if (e.op === "&" && e.operand.kind === "index" && e.operand.target.kind !== "index") {
          return shifted(this.pointerBinding(e.operand.target, ctx, what), this.expr(e.operand.index, ctx));
        }
        break;
      default: break;
    }
    return this.fail(`pointer "${what}": only aliases of arrays (\`a\`, \`a + k\`, \`&a[k]\`) are supported`, e.pos);
  }

  // ---- the kernel -----------------------------------------------------------------------------

  private finish(): Kernel {
    if (this.nests === 0) this.fail(`[@kernel] requires at least one [@outer] for-loop`, this.f.pos, "OKL §2");
    const tempNames = new Set(this.temps.map((t) => t.name));
    const notParams = new Set([...this.domains.flatMap((d) => [...d.dims]), ...tempNames]);
    const shell = kernelRecord({ name: this.f.name, domains: this.domains, instructions: [], args: [] });
    const unsized = new Set<string>();
    const args = this.args.map((a): KernelArg => {
      if (a.kind !== "array") return a;
      const footprint = footprintShape(shell, this.accesses.get(a.name) ?? [], notParams);
      if (footprint === undefined) unsized.add(a.name);
      const fields = this.structArgs.get(a.name);
      const shape = footprint && fields !== undefined ? [...footprint, c(fields)] : footprint;
      return { ...a, shape, isInput: this.read.has(a.name) || !this.written.has(a.name), isOutput: this.written.has(a.name) };
    });
    // An argument without a shape is a flat buffer of unknown length: its elements are linear subscripts a[[i]].
    // A struct's scalar k of element i is element i * size + k (C's layout).
    const linear = (n: Extract<Expr, { kind: "subscript" }>): Expr => {
      const size = this.structArgs.get(n.array);
      return size === undefined ? flat(n.indices[0]!) : { kind: "arith", op: "+", left: { kind: "arith", op: "*", left: flat(n.indices[0]!), right: c(size) }, right: flat(n.indices[1]!) };
    };
    const flat = (e: Expr): Expr => mapExpr(e, (n) => (n.kind === "subscript" && unsized.has(n.array) ? { kind: "linear", array: n.array, index: linear(n) } : undefined));
    const insns = unsized.size === 0 ? this.insns : this.insns.map((i): Instruction => (i.kind === "assign"
      ? { ...i, lhs: flat(i.lhs), rhs: flat(i.rhs), predicates: i.predicates.map(flat) }
      : { ...i, predicates: i.predicates.map(flat) }));
    const k = kernelRecord({
      name: this.f.name, domains: this.domains, instructions: insns, args, temporaries: this.temps,
      substitutions: this.file.rules.slice(), inameTags: { ...this.tags },
    });
    // C rejects bitwise operators on floating-point operands.
    const bad = checkOperandTypes(k);
    if (bad) this.fail(`${bad.message.replace(/cast\(int32, …\)/, "(int)")}`, this.f.pos);
    kernelOptions.set(k, {
      restrict: this.restrict,
      ...(this.maxInnerDims ? { maxInnerDims: this.maxInnerDims } : {}),
      ...(this.simdLength !== undefined ? { simdLength: this.simdLength } : {}),
    });
    return k;
  }
}

interface LoopHead {
  readonly name: string;
  readonly start: Expr;
  readonly startAff: Aff | undefined;
  readonly cmp: Cmp;
  readonly end: Expr;
  /** Signed constant step, undefined when the update is not `±= c`. */
  readonly step: number | undefined;
  /** The update's direction and amount (`i -= e`: decreasing by e), undefined for other updates. */
  readonly update: { readonly increasing: boolean; readonly amount: A.Expr | undefined } | undefined;
  /** The iterator's declared type. */
  readonly dtype: Dtype;
  /** Start and end are compile-time constants (the loop can be unrolled at import). */
  readonly constant: boolean;
  readonly s: A.For;
  readonly ctx: Ctx;
}

/** The values of a loop whose start, bound and update are compile-time constants (`alive /= 2`). */
function unrollValues(h: LoopHead, pos: A.Pos, k: KernelLowering): number[] {
  const s = h.s;
  const decl = (s.init as A.Declaration).declarators[0]!;
  let v = constValue(decl.init!, h.ctx.scope, k)!;
  const out: number[] = [];
  const bound = (x: number) => {
    const scope = new Scope(h.ctx.scope);
    scope.set(h.name, { kind: "expr", expr: c(x) });
    return scope;
  };
  while (constValue(s.cond!, bound(v), k) !== 0) {
    out.push(v);
    if (out.length > MAX_UNROLL) k.fail(`loop "${h.name}" with a non-affine update runs more than ${MAX_UNROLL} times; only short compile-time loops are unrolled`, pos);
    const u = s.update!;
    const scope = bound(v);
    if ((u.kind === "unary" || u.kind === "postfix") && (u.op === "++" || u.op === "--")) v += u.op === "++" ? 1 : -1;
    else if (u.kind === "assign" && u.target.kind === "ident" && u.target.name === h.name) {
      const rhs = constValue(u.value, scope, k);
      const ops: Record<string, (a: number, b: number) => number> = {
        "=": (_a, b) => b, "+=": (a, b) => a + b, "-=": (a, b) => a - b, "*=": (a, b) => a * b,
        "/=": (a, b) => Math.trunc(a / b), ">>=": (a, b) => a >> b, "<<=": (a, b) => a << b,
      };
      const op = ops[u.op];
      if (rhs === undefined || !op) return k.fail(`Expected update [${h.name}] with one of these operators [++, --, +=, -=]`, u.pos, "OKL §3.1");
      v = op(v, rhs);
    } else return k.fail(`Expected update [${h.name}] with one of these operators [++, --, +=, -=]`, u.pos, "OKL §3.1");
  }
  return out;
}

/** The value of a compile-time integer expression (literals, arithmetic, constant bindings), or undefined. */
function constValue(e: A.Expr, scope: Scope, k?: KernelLowering): number | undefined {
  switch (e.kind) {
    case "int": case "char": return e.value;
    case "bool": return e.value ? 1 : 0;
    case "ident": {
      const b = scope.get(e.name);
      return b?.kind === "expr" && b.expr.kind === "const" && Number.isInteger(b.expr.value) ? b.expr.value : undefined;
    }
    case "unary": {
      const v = constValue(e.operand, scope, k);
      if (v === undefined) return undefined;
      return e.op === "-" ? -v : e.op === "+" ? v : e.op === "!" ? (v ? 0 : 1) : e.op === "~" ? ~v : undefined;
    }
    case "cast": return constValue(e.operand, scope, k);
    case "conditional": {
      const cnd = constValue(e.cond, scope, k);
      return cnd === undefined ? undefined : constValue(cnd ? e.then : e.else, scope, k);
    }
    case "binary": {
      const a = constValue(e.left, scope, k);
      const b = constValue(e.right, scope, k);
      if (a === undefined || b === undefined) return undefined;
      switch (e.op) {
        case "+": return a + b;
        case "-": return a - b;
        case "*": return a * b;
        case "/": return b === 0 ? undefined : Math.trunc(a / b);
        case "%": return b === 0 ? undefined : a % b;
        case "<<": return a << b;
        case ">>": return a >> b;
        case "&": return a & b;
        case "|": return a | b;
        case "^": return a ^ b;
        case "<": return +(a < b);
        case ">": return +(a > b);
        case "<=": return +(a <= b);
        case ">=": return +(a >= b);
        case "==": return +(a === b);
        case "!=": return +(a !== b);
        case "&&": return +(a !== 0 && b !== 0);
        case "||": return +(a !== 0 || b !== 0);
      }
      return undefined;
    }
    default: return undefined;
  }
}

/** The predicates that are affine comparisons, as `g >= 0` forms (for footprints). */
function affineGuards(preds: readonly Expr[]): Aff[] {
  const out: Aff[] = [];
  for (const p0 of preds) {
    let p = p0;
    let neg = false;
    if (p.kind === "not") {
      p = p.operand;
      neg = true;
    }
    if (p.kind !== "compare") continue;
    const l = exprToAff(p.left);
    const r = exprToAff(p.right);
    if (!l || !r) continue;
    const d = affAdd(r, affScale(l, -1)); // r - l
    const op = neg ? ({ "<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==" } as const)[p.op] : p.op;
    if (op === "<") out.push(affAdd(d, aff({}, -1)));
    else if (op === "<=") out.push(d);
    else if (op === ">") out.push(affAdd(affScale(d, -1), aff({}, -1)));
    else if (op === ">=") out.push(affScale(d, -1));
    else if (op === "==") out.push(d, affScale(d, -1));
  }
  return out;
}

function affToIr(a: Aff): Expr {
  let out: Expr | undefined;
  for (const [n, k] of Object.entries(a.terms)) {
    const t: Expr = k === 1 ? { kind: "var", name: n } : { kind: "arith", op: "*", left: c(k), right: { kind: "var", name: n } };
    out = out === undefined ? t : { kind: "arith", op: "+", left: out, right: t };
  }
  if (out === undefined) return c(a.constant);
  return a.constant === 0 ? out : { kind: "arith", op: "+", left: out, right: c(a.constant) };
}

/** The values `[lo, hi]` of a loop with compile-time bounds and a step of ±1, else undefined. */
function constRange(s: A.For, scope: Scope): [number, number] | undefined {
  const init = s.init;
  const cond = s.cond;
  const u = s.update;
  if (init?.kind !== "declaration" || init.declarators.length !== 1 || cond?.kind !== "binary" || !u) return undefined;
  const d = init.declarators[0]!;
  const isVar = (e: A.Expr) => e.kind === "ident" && e.name === d.name;
  const start = d.init && constValue(d.init, scope);
  const flip: Record<string, string> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
  const op = isVar(cond.left) ? cond.op : isVar(cond.right) ? flip[cond.op] : undefined;
  const end = constValue(isVar(cond.left) ? cond.right : cond.left, scope);
  let step: number | undefined;
  if ((u.kind === "unary" || u.kind === "postfix") && isVar(u.operand) && (u.op === "++" || u.op === "--")) step = u.op === "++" ? 1 : -1;
  else if (u.kind === "assign" && isVar(u.target) && (u.op === "+=" || u.op === "-=") && constValue(u.value, scope) === 1) step = u.op === "+=" ? 1 : -1;
  if (start === undefined || end === undefined || step === undefined) return undefined;
  if (step === 1 && (op === "<" || op === "<=")) return [start, op === "<" ? end - 1 : end];
  if (step === -1 && (op === ">" || op === ">=")) return [op === ">" ? end + 1 : end, start];
  return undefined;
}

/**
 * Per local axis, the hull of the constant ranges of the plain @inner loops of nest `s`, for the
 * axes where these ranges differ (and all are constant).
 */
function innerHulls(s: A.Stmt, scope: Scope): Map<number, readonly [number, number]> {
  const ranges = new Map<number, ([number, number] | undefined)[]>();
  walkAst(s, (n) => {
    if (n.kind !== "for" || n.okl?.kind !== "inner") return;
    const axis = n.okl.axis ?? levelsBelow(n.body, "inner");
    ranges.set(axis, [...(ranges.get(axis) ?? []), constRange(n, scope)]);
  });
  const out = new Map<number, readonly [number, number]>();
  for (const [axis, rs] of ranges) {
    if (rs.some((r) => r === undefined || r[0] > r[1])) continue;
    const all = rs as [number, number][];
    if (all.every((r) => r[0] === all[0]![0] && r[1] === all[0]![1])) continue;
    out.set(axis, [Math.min(...all.map((r) => r[0])), Math.max(...all.map((r) => r[1]))]);
  }
  return out;
}

/** `s` contains a @barrier or a @shared declaration. */
function hasSync(s: A.Stmt): boolean {
  let found = false;
  walkAst(s, (n) => {
    if (n.kind === "barrier" || (n.kind === "declaration" && n.declarators.some((d) => d.okl.shared))) found = true;
  });
  return found;
}

function containsOuter(s: A.Stmt): boolean {
  let found = false;
  walkAst(s, (n) => {
    if (n.kind === "for" && isOuter(n)) found = true;
  });
  return found;
}

function isOuter(s: A.For): boolean {
  const o = s.okl;
  return o !== undefined && (o.kind === "outer" || (o.kind === "tile" && o.outer?.kind === "outer"));
}
function isInnerLoop(s: A.For): boolean {
  const o = s.okl;
  return o !== undefined && (o.kind === "inner" || (o.kind === "tile" && (o.outer?.kind === "inner" || o.inner?.kind === "inner")));
}
function containsInner(s: A.Stmt): boolean {
  let found = false;
  walkAst(s, (n) => {
    if (n.kind === "for" && isInnerLoop(n)) found = true;
  });
  return found;
}

/** Same-kind attributed levels strictly below `s` along the deepest path (OCCA's auto axis). */
function levelsBelow(s: A.Stmt, kind: "outer" | "inner"): number {
  const levels = (x: A.Stmt): number => {
    switch (x.kind) {
      case "compound": return Math.max(0, ...x.items.map(levels));
      case "if": return Math.max(levels(x.then), x.else ? levels(x.else) : 0);
      case "for": {
        const o = x.okl;
        const own = o === undefined ? 0 : o.kind === "tile" ? (o.outer?.kind === kind ? 1 : 0) + (o.inner?.kind === kind ? 1 : 0) : o.kind === kind ? 1 : 0;
        return own + levels(x.body);
      }
      case "while": case "doWhile": return levels(x.body);
      default: return 0;
    }
  };
  return levels(s);
}

/** Visit statements and expressions of `s` (pre-order). */
function walkAst(s: A.Stmt | A.Expr, visit: (n: A.Stmt | A.Expr) => void): void {
  visit(s);
  const kids: (A.Stmt | A.Expr | undefined)[] = [];
  switch (s.kind) {
    case "compound": kids.push(...s.items); break;
    case "expr": kids.push(s.expr); break;
    case "if": kids.push(s.cond, s.then, s.else); break;
    case "for": kids.push(s.init?.kind === "declaration" ? undefined : s.init, s.cond, s.update, s.body); break;
    case "while": case "doWhile": kids.push(s.cond, s.body); break;
    case "atomic": kids.push(s.body); break;
    case "declaration": for (const d of s.declarators) kids.push(d.init); break;
    case "unary": case "postfix": kids.push(s.operand); break;
    case "binary": kids.push(s.left, s.right); break;
    case "assign": kids.push(s.target, s.value); break;
    case "conditional": kids.push(s.cond, s.then, s.else); break;
    case "cast": kids.push(s.operand); break;
    case "call": kids.push(s.callee, ...s.args); break;
    case "index": kids.push(s.target, s.index); break;
    case "member": kids.push(s.target); break;
    case "comma": kids.push(...s.exprs); break;
    case "initList": kids.push(...s.items); break;
    default: break;
  }
  for (const k of kids) if (k) walkAst(k, visit);
}

/** Whether some statement of `items` assigns to (or increments) the variable `name`. */
function assigned(items: readonly A.Stmt[], name: string): boolean {
  let found = false;
  const isName = (x: A.Expr) => x.kind === "ident" && x.name === name;
  for (const s of items) {
    walkAst(s, (n) => {
      if ((n.kind === "assign" && isName(n.target)) || ((n.kind === "unary" || n.kind === "postfix") && (n.op === "++" || n.op === "--") && isName(n.operand))) found = true;
    });
  }
  return found;
}

function describeStmt(s: A.Stmt): string {
  if (s.kind === "for") return "a for loop that is not an @outer loop";
  if (s.kind === "expr") return "an expression statement";
  return `a ${s.kind} statement`;
}
