/**
 * Semantic rules of OKL (OKL.md §2–§3, the OKL specification) over a parsed unit. Attribute
 * arguments and placement are checked while parsing (attributes.ts); this module checks what needs
 * context: kernels, loop forms, the @outer/@inner loop tree and its axes, @shared/@exclusive placement
 * and uses, @nobarrier/@max_inner_dims/@simd_length placement, @max_inner_dims against the known
 * @inner extents, break and continue, @dim arity and @dimOrder against @dim, @restrict on pointers,
 * @atomic operations. Typedefs and variables are scoped to their block.
 * Each broken rule is an OklError at the offending node, with OCCA's wording where it has one.
 */
import type { Declaration, Declarator, Expr, For, FunctionDef, OklVarInfo, Pos, Stmt, TranslationUnit, TypeSpec } from "./ast.js";
import { loopPlacementError } from "./attributes.js";
import { evalConst } from "./consteval.js";
import { isConstructorName } from "./cxx.js";
import { oklError, type Sources } from "./diag.js";
import { firstRead, stmtChildren, walkExpr, exprsOfStmt } from "./walk.js";
import { LoopTreeChecker, type LoopExtent } from "./validate-loops.js";
import { loopForm, type LoopFormHost } from "./loop-form.js";
import type { LoopKind } from "./loop-tree.js";
import type { OklError } from "../../errors.js";

export interface ValidateOptions {
  readonly filename?: string;
  /**
   * Structural validation (OCCA's `okl/validate`, default true): kernels, loop forms and the loop
   * tree, @shared/@exclusive placement, break/continue, @atomic operations. With false only the
   * checks OCCA always makes remain (attribute arguments and placement, @tile loop forms, @dim).
   */
  readonly structure?: boolean;
  /** A kernel needs at least one @outer and one @inner loop (default true; the new transpiler skips it on serial/openmp). */
  readonly requireLoops?: boolean;
  /** A file needs at least one @kernel (default true). */
  readonly requireKernel?: boolean;
}

interface TypedefInfo {
  readonly okl: OklVarInfo;
  readonly pointer: boolean;
  readonly array: boolean;
  readonly dims: readonly (Expr | undefined)[];
  readonly spec: TypeSpec;
  readonly pos: Pos;
}

interface VarInfo {
  readonly dim: readonly Expr[] | undefined;
  readonly dimPos: Pos | undefined;
  /** `@shared`/`@exclusive` (directly or through its typedef): only usable inside @inner loops. */
  readonly memory?: { readonly what: "shared" | "exclusive"; readonly at: Pos };
}

/** One block: its variables and its typedefs (a typedef inside a function body stays there). */
interface Scope {
  readonly vars: Map<string, VarInfo>;
  readonly types: Map<string, TypedefInfo>;
}

const newScope = (): Scope => ({ vars: new Map(), types: new Map() });


export class Validator {
  private readonly constants = new Map<string, number>();
  private readonly scopes: Scope[] = [newScope()];
  /** Constant trip counts and steps of the attributed loops seen so far (for @max_inner_dims). */
  private readonly extents = new Map<For, LoopExtent>();

  constructor(
    private readonly sources: Sources,
    private readonly opts: ValidateOptions = {},
  ) {}

  private get structure(): boolean {
    return this.opts.structure ?? true;
  }

  private err(detail: string, at: Pos, rule: string): OklError {
    return oklError(detail, at, rule, this.sources, this.opts.filename);
  }

  private lookup = (name: string): number | undefined => this.constants.get(name);

  /** The typedef chain of `spec` resolved to its merged OKL info and shape (a variable of that name in a nearer block hides it). */
  private resolve(spec: TypeSpec): TypedefInfo | undefined {
    if (spec.base.kind !== "named") return undefined;
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i]!;
      if (s.vars.has(spec.base.name)) return undefined;
      const t = s.types.get(spec.base.name);
      if (t) return t;
    }
    return undefined;
  }

  private enter(): void {
    this.scopes.push(newScope());
  }

  private leave(): void {
    this.scopes.pop();
  }

  private get scope(): Scope {
    return this.scopes[this.scopes.length - 1]!;
  }

  validate(unit: TranslationUnit): void {
    let kernels = 0;
    for (const it of unit.items) {
      if (it.kind === "declaration") this.declaration(it, { kernel: false, stack: [] }, true);
      else if (it.kind === "function") {
        if (it.isKernel) kernels++;
        this.func(it);
      }
    }
    if (kernels === 0 && this.structure && (this.opts.requireKernel ?? true)) {
      // The file's own start, not the first token of a header OCCA's `includes` put before it.
      const at = unit.pos.file === undefined ? unit.pos : { line: 1, column: 1, offset: 0, end: 0 };
      throw this.err("No [@kernel] functions found", at, "@kernel");
    }
  }

  /** Statements of a fragment (OCCA's parser tests): validated as the body of a non-kernel function. */
  validateStatements(items: readonly Stmt[]): void {
    for (const s of items) this.stmt(s, { kernel: false, stack: [] });
  }

  private func(f: FunctionDef): void {
    const restrict = f.attributes.find((a) => a.name === "restrict");
    if (restrict && f.returnPointers.length === 0) throw this.err("[@restrict] only applies to pointer types (the return type is not a pointer)", restrict.pos, "@restrict placement");
    if (f.isKernel && this.structure) {
      if (f.returnType.base.kind !== "builtin" || f.returnType.base.name !== "void" || f.returnPointers.length) {
        throw this.err("[@kernel] functions must have a [void] return type", f.attributes.find((a) => a.name === "kernel")!.pos, "@kernel return type");
      }
    }
    this.enter();
    for (const p of f.params) {
      const td = this.resolve(p.spec);
      this.checkVar(p.declarator, p.spec, td, true);
      this.declare(p.declarator, td);
    }
    if (f.body) {
      // The loop tree first: a misplaced declaration in a malformed tree is reported as the tree's error.
      const loops = new LoopTreeChecker({ err: (d, at, rule) => this.err(d, at, rule), lookup: this.lookup, extents: this.extents, requireLoops: this.opts.requireLoops ?? true });
      const roots = f.isKernel && this.structure ? loops.loopTree(f) : [];
      const ctx: Ctx = { kernel: f.isKernel, stack: [] };
      for (const s of f.body.items) this.stmt(s, ctx);
      // After the body: the @inner extents may use constants declared in it.
      for (const r of roots) loops.maxInnerDims(r);
    }
    this.leave();
  }

  /** @restrict on pointers, @dimOrder against @dim. */
  private checkVar(d: Declarator, spec: TypeSpec, td: TypedefInfo | undefined, param: boolean): void {
    const restrict = d.attributes.find((a) => a.name === "restrict") ?? (d.okl.restrict ? d.attributes[0] : undefined);
    if (d.okl.restrict && d.pointers.length === 0 && !td?.pointer && d.arrayDims.length === 0) {
      const at = restrict?.pos ?? d.pos;
      throw this.err(`[@restrict] only applies to pointer types ("${d.name}" is not a pointer)`, at, "@restrict placement");
    }
    void param;
    const dim = d.okl.dim ?? td?.okl.dim;
    const order = d.okl.dimOrder;
    if (order) {
      const at = d.attributes.find((a) => a.name === "dimOrder")?.pos ?? d.pos;
      if (dim && order.length !== dim.length) {
        throw this.err(`[@dimOrder] wrong number of arguments: "${d.name}" has ${dim.length} dimension(s), @dimOrder lists ${order.length}`, at, "@dimOrder arguments");
      }
      const n = dim?.length ?? order.length;
      for (const v of order) if (v >= n) throw this.err(`[@dimOrder] Dimensions must be in range [0, ${n - 1}] (got ${v})`, at, "@dimOrder arguments");
      if (!dim) throw this.err(`[@dimOrder] on "${d.name}" needs a [@dim] on the variable or its type`, at, "@dimOrder arguments");
    }
    void spec;
  }

  private declare(d: Declarator, td: TypedefInfo | undefined, memory?: VarInfo["memory"]): void {
    if (!d.name) return;
    const dim = d.okl.dim ?? td?.okl.dim;
    const dimPos = d.okl.dim ? d.pos : td?.pos;
    if (dim !== undefined) this.dimDeclared = true;
    this.scope.types.delete(d.name);
    this.scope.vars.set(d.name, memory ? { dim, dimPos, memory } : { dim, dimPos });
  }

  /** Why size `e` is no compile-time constant: the first name in it that is undefined or a variable (for messages). */
  private whyNotConstant(e: Expr): string {
    let why = "";
    walkExpr(e, (x) => {
      if (why || x.kind !== "ident" || this.constants.has(x.name)) return;
      why = this.findVar(x.name)
        ? `: its size uses "${x.name}", a variable, not a compile-time constant`
        : `: its size uses "${x.name}", which is not defined (no #define, defines property or constant of that name)`;
    });
    return why;
  }

  private findVar(name: string): VarInfo | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i]!;
      const v = s.vars.get(name);
      if (v) return v;
      if (s.types.has(name)) return undefined;
    }
    return undefined;
  }

  private declaration(decl: Declaration, ctx: Ctx, global: boolean): void {
    const td = this.resolve(decl.spec);
    if (decl.spec.base.kind === "enum" && decl.spec.base.members) {
      let next = 0;
      for (const m of decl.spec.base.members) {
        const v = m.value ? evalConst(m.value, this.lookup) : next;
        if (v !== undefined) this.constants.set(m.name, v);
        next = (v ?? next) + 1;
      }
    }
    const isTypedef = decl.spec.storage.includes("typedef");
    for (const d of decl.declarators) {
      for (const e of d.arrayDims) if (e) this.expr(e, ctx);
      if (d.init) {
        this.expr(d.init, ctx);
        this.selfRead(d, d.init);
      }
      this.checkVar(d, decl.spec, td, false);
      if (isTypedef) {
        const merged: OklVarInfo = {
          shared: d.okl.shared || !!td?.okl.shared,
          exclusive: d.okl.exclusive || !!td?.okl.exclusive,
          restrict: d.okl.restrict || !!td?.okl.restrict,
          dim: d.okl.dim ?? td?.okl.dim,
          dimOrder: d.okl.dimOrder ?? td?.okl.dimOrder,
        };
        this.scope.vars.delete(d.name);
        this.scope.types.set(d.name, {
          okl: merged, pointer: d.pointers.length > 0 || !!td?.pointer, array: d.arrayDims.length > 0 || !!td?.array,
          dims: [...d.arrayDims, ...(td?.dims ?? [])], spec: decl.spec, pos: d.okl.dim ? d.pos : (td?.pos ?? d.pos),
        });
        continue;
      }
      const shared = d.okl.shared || !!td?.okl.shared;
      const exclusive = d.okl.exclusive || !!td?.okl.exclusive;
      const what = shared ? "shared" : exclusive ? "exclusive" : undefined;
      if (what && (this.structure || global)) this.memoryPlacement(d, what, ctx, td, decl.pos);
      if (decl.spec.qualifiers.includes("const") || decl.spec.storage.includes("constexpr")) {
        if (d.init && d.pointers.length === 0 && d.arrayDims.length === 0) {
          const v = evalConst(d.init, this.lookup);
          if (v !== undefined) this.constants.set(d.name, v);
        }
      } else this.constants.delete(d.name);
      this.declare(d, td, what && { what, at: d.pos });
    }
  }

  /**
   * C's scope of a declared name begins at its declarator, so `const int offset = 2 * offset;` reads
   * the new, uninitialized `offset` (gcc: "may be used uninitialized"), not the argument it hides.
   */
  private selfRead(d: Declarator, init: Expr): void {
    const read = firstRead(init, d.name);
    if (!read) return;
    const hidden = this.findVar(d.name) ? `, not the "${d.name}" declared outside it, which this declaration hides` : "";
    throw this.err(`"${d.name}" is read in its own initializer: in C a name's scope begins at its declarator, so this reads the new, uninitialized "${d.name}"${hidden}; give the new variable another name`, read.pos, "self-initialization");
  }

  private memoryPlacement(d: Declarator, what: "shared" | "exclusive", ctx: Ctx, td: TypedefInfo | undefined, declPos: Pos): void {
    const rule = `@${what} placement`;
    const at = d.attributes.find((a) => a.name === what)?.pos ?? declPos;
    if (!ctx.stack.some((k) => k === "outer")) {
      throw this.err(`Must define [@${what}] variables between [@outer] and [@inner] loops ("${d.name}" is not inside an [@outer] loop)`, at, rule);
    }
    if (ctx.stack.some((k) => k === "inner")) throw this.err(`Cannot define [@${what}] variables inside an [@inner] loop`, at, rule);
    if (what === "shared") {
      const dims = [...d.arrayDims, ...(td?.dims ?? [])];
      if (dims.length === 0) throw this.err(`[@shared] variables must be arrays ("${d.name}" is not)`, at, "@shared array");
      for (const e of dims) {
        if (!e || evalConst(e, this.lookup) === undefined) {
          throw this.err(`[@shared] variables must have sizes known at compile-time ("${d.name}"${e ? this.whyNotConstant(e) : ""})`, e?.pos ?? d.pos, "@shared array");
        }
      }
    }
  }

  private stmt(s: Stmt, ctx: Ctx): void {
    switch (s.kind) {
      case "declaration":
        this.declaration(s, ctx, false);
        return;
      case "compound":
        this.enter();
        for (const x of s.items) this.stmt(x, ctx);
        this.leave();
        return;
      case "for":
        this.forStmt(s, ctx);
        return;
      case "while":
      case "doWhile":
        this.expr(s.cond, ctx);
        this.stmt(s.body, { ...ctx, stack: [...ctx.stack, "regular"] });
        return;
      case "switch":
        this.expr(s.cond, ctx);
        this.stmt(s.body, { ...ctx, stack: [...ctx.stack, "regular"] });
        return;
      case "break":
      case "continue": {
        const top = ctx.stack[ctx.stack.length - 1];
        if (this.structure && (top === "outer" || top === "inner")) {
          throw this.err(`Statement cannot be directly inside an [@${top}] loop ("${s.kind}" would leave the ${top} loop body; only a regular for, while or switch may be exited)`, s.pos, "break/continue");
        }
        return;
      }
      case "atomic":
        if (this.structure && s.body.kind === "expr") this.atomicOp(s.body.expr);
        for (const c of stmtChildren(s)) this.stmt(c, ctx);
        return;
      default:
        for (const e of exprsOfStmt(s)) this.expr(e, ctx);
        for (const c of stmtChildren(s)) this.stmt(c, ctx);
    }
  }

  private atomicOp(e: Expr): void {
    const ok =
      (e.kind === "assign" && ["=", "+=", "-=", "&=", "|=", "^="].includes(e.op)) ||
      ((e.kind === "unary" || e.kind === "postfix") && (e.op === "++" || e.op === "--"));
    if (!ok) {
      const text = this.textOf(e.pos);
      throw this.err(`Atomic does not support this operation: ${text} (@atomic takes =, +=, -=, &=, |=, ^=, ++ or --)`, e.pos, "@atomic operation");
    }
  }

  private textOf(p: Pos): string {
    return (this.sources.get(p.file ?? "") ?? "").slice(p.offset, p.end);
  }

  private readonly loopFormHost: LoopFormHost = { err: (d, at, rule) => this.err(d, at, rule), lookup: (n) => this.lookup(n), resolve: (spec) => this.resolve(spec) };

  private forStmt(f: For, ctx: Ctx): void {
    this.enter();
    const okl = f.okl;
    if (okl && !ctx.kernel && this.structure) throw this.err("Attributed loop outside [@kernel] function", f.pos, "loop placement");
    for (const a of f.attributes) {
      const why = loopPlacementError(a, okl, ctx.stack.includes("outer"));
      if (why) throw this.err(why, a.pos, `@${a.name} placement`);
    }
    if (okl && (this.structure || okl.kind === "tile")) this.extents.set(f, loopForm(f, okl.kind === "tile" ? "[@tile]" : `[@${okl.kind}]`, this.loopFormHost));
    // The header of an @inner loop runs in each work-item; that of an @outer or @tile(@outer, ...) loop does not.
    const first = okl?.kind === "tile" ? (okl.outer ?? okl.inner)?.kind : okl?.kind;
    const head: Ctx = first === "inner" ? { ...ctx, stack: [...ctx.stack, "inner"] } : ctx;
    if (f.init) {
      if (f.init.kind === "declaration") this.declaration(f.init, head, false);
      else this.expr(f.init, head);
    }
    if (f.cond) this.expr(f.cond, head);
    if (f.update) this.expr(f.update, head);
    let stack = ctx.stack;
    if (!okl) stack = [...stack, "regular"];
    else if (okl.kind === "tile") {
      const levels = [okl.outer?.kind, okl.inner?.kind].filter((k): k is LoopKind => k !== undefined);
      stack = [...stack, ...(levels.length ? levels : ["regular" as const])];
    } else stack = [...stack, okl.kind];
    this.stmt(f.body, { ...ctx, stack });
    this.leave();
  }

  /** Some variable has a @dim (until then no call can be one, and `expr` need not walk inside @inner loops). */
  private dimDeclared = false;

  private expr(e: Expr, ctx: Ctx): void {
    const checkMemory = this.structure && ctx.kernel && !ctx.stack.includes("inner");
    if (!checkMemory && !this.dimDeclared) return;
    // An array passed whole to a class's constructor is its address (a pointer field), not a use of its memory (cxx.ts).
    const addressOnly = new Set<Expr>();
    if (checkMemory && e.kind === "call" && e.callee.kind === "ident" && isConstructorName(e.callee.name)) for (const a of e.args) if (a.kind === "ident") addressOnly.add(a);
    walkExpr(e, (x) => {
      if (checkMemory && x.kind === "ident" && !addressOnly.has(x)) {
        const m = this.findVar(x.name)?.memory;
        if (m) {
          const where = ctx.stack.includes("outer") ? "between the [@outer] and [@inner] loops" : "outside every [@outer] loop";
          throw this.err(
            `Cannot use [@${m.what}] variables outside an [@inner] loop ("${x.name}", declared at line ${m.at.line}, is used here ${where}; ` +
              `[@${m.what}] memory exists per ${m.what === "shared" ? "work-group" : "work-item"} only while the [@inner] loops run)`,
            x.pos, `@${m.what} use`,
          );
        }
      }
      if (x.kind === "call" && x.callee.kind === "ident") {
        const v = this.findVar(x.callee.name);
        if (v?.dim) {
          const n = v.dim.length;
          if (x.args.length > n) throw this.err(`Too many dimensions, expected ${n} argument(s) for "${x.callee.name}"`, x.pos, "@dim arity");
          if (x.args.length < n) throw this.err(`Missing dimensions, expected ${n} argument(s) for "${x.callee.name}"`, x.pos, "@dim arity");
        }
      }
    });
  }
}

interface Ctx {
  readonly kernel: boolean;
  /** Enclosing loops, outermost first: OKL levels and regular loops/switches. */
  readonly stack: readonly ("outer" | "inner" | "regular")[];
}

/** Check a parsed unit; throws the first OklError. */
export function validateUnit(unit: TranslationUnit, sources: Sources, opts: ValidateOptions = {}): void {
  new Validator(sources, opts).validate(unit);
}
