/**
 * Lowering one OKL @kernel (lower-okl.ts), its core: the state every layer shares (domains,
 * temporaries, tags, arguments, the instruction log) and the helpers they all use (fresh names,
 * instructions, barriers, opaque blocks, expression predicates). The layers build on it in order:
 * arguments, statements, loops, then OklKernelLowering.
 */
import { cUnsigned, dtypeKind, INDEX_DTYPE, isIntegral, walkExpr, type Dtype, type Expr, type InameTag, type KernelArg, type Temporary } from "../../ir/index.js";
import type { BasicSet } from "../../poly/index.js";
import type * as A from "../syntax/ast.js";
import { Scope, type Ctx, type Fail } from "./bindings.js";
import { InstructionLog } from "./dependencies.js";
import { someNode } from "./expr-scan.js";
import { ExprLowering } from "./expressions.js";
import { FileContext } from "./file-context.js";
import { domainOf, type Row } from "./loop-rows.js";
import { BlockLowering, type BlockHost } from "./opaque.js";

/** A name that `fresh` keeps as it is (only letters, digits and `_`; not empty). */
const SAFE_NAME = /^[A-Za-z0-9_]+$/;

/** The updates `@atomic` takes (`++`/`--` arrive as `+=`/`-=`); `=` is an atomic exchange. */
export const ATOMIC_OPS: ReadonlySet<string> = new Set(["=", "+=", "-=", "&=", "|=", "^="]);

export abstract class KernelCore {
  protected readonly domains: BasicSet[] = [];
  protected readonly temps: Temporary[] = [];
  protected readonly tags: Record<string, InameTag> = {};
  protected readonly taken = new Set<string>();
  protected readonly args: KernelArg[] = [];
  protected readonly arrayArgs = new Set<string>();
  protected readonly valueArgs = new Set<string>();
  /** Pointer arguments to structs: their number of scalars per struct (the extent of their innermost axis). */
  protected readonly structArgs = new Map<string, number>();
  /** Pointer arguments to structs with mixed field types, split into field arrays: C's layout, and the argument made for each field used. */
  protected readonly recordArgs: { readonly arg: string; readonly struct: string; readonly size: number; readonly align: number; readonly fields: readonly { readonly name: string; readonly dtype: Dtype; readonly offset: number; readonly elements?: readonly number[] }[]; readonly made: Map<string, string> }[] = [];
  /** Each argument's place in the signature: [parameter index, field indices of a flattened by-value struct]. */
  protected readonly argKeys = new Map<string, readonly number[]>();
  protected readonly restrict: string[] = [];
  protected maxInnerDims: number[] | undefined;
  protected simdLength: number | undefined;
  protected nests = 0;
  /** The current outer-most @outer nest has barriers or @shared memory (its @inner loops must stay work-items). */
  protected nestSyncs = false;
  /** Per local axis of the current nest, the hull of its @inner loops' constant ranges, when they differ. */
  protected hulls = new Map<number, readonly [number, number]>();
  /** The hardware axes of the current nest's work-groups (its @inner levels'). */
  protected nestAxes: ReadonlySet<number> = new Set();
  protected readonly innerRanges = new Map<string, string>();
  /** Inames whose domains take temporaries as parameters (trip counts), and those temporaries. */
  protected readonly boundTemps = new Map<string, readonly string[]>();

  protected readonly ex: ExprLowering;
  protected readonly log: InstructionLog;
  protected readonly failAt: Fail = (detail, pos, rule) => this.file.fail(detail, pos, rule);

  constructor(protected readonly file: FileContext, protected readonly f: A.FunctionDef) {
    this.ex = new ExprLowering(file);
    this.ex.signs = { nonNegative: (name) => this.nonNegative(name) };
    // C's conversions (c-conversions.ts): arguments, temporaries, block locals; inames are int32.
    this.ex.types = { dtypeOf: (name) => this.argNamed(name)?.dtype ?? this.tempNamed(name)?.dtype ?? this.ex.localTypes.get(name) ?? (this.inames.has(name) ? INDEX_DTYPE : undefined) };
    this.log = new InstructionLog(this.arrayArgs);
  }

  /** Inames whose domain row bounds them below by a constant >= 0 (recorded by addDomain). */
  private readonly fromZero = new Set<string>();
  /** Every iname of the domains added so far. */
  private readonly inames = new Set<string>();

  /**
   * Whether `name` never holds a negative value (C's `%` keeps the IR's `%` there, c-remainder.ts):
   * an iname bounded below by a constant >= 0, an unsigned argument, temporary or array.
   */
  private nonNegative(name: string): boolean {
    if (this.fromZero.has(name)) return true;
    const dtype = this.argNamed(name)?.dtype ?? this.tempNamed(name)?.dtype;
    return dtype !== undefined && cUnsigned(dtype);
  }

  fail(detail: string, pos: A.Pos, rule?: string): never {
    return this.file.fail(detail, pos, rule);
  }

  /** Per base name, the first `_k` suffix that may be free (names are never released): `fresh` stays O(1). */
  private readonly nextSuffix = new Map<string, number>();

  protected fresh(base: string): string {
    const b = SAFE_NAME.test(base) ? base : base.replace(/[^A-Za-z0-9_]/g, "_") || "v";
    let n = b;
    if (this.taken.has(b)) {
      let k = this.nextSuffix.get(b) ?? 0;
      n = `${b}_${k}`;
      while (this.taken.has(n)) n = `${b}_${++k}`;
      this.nextSuffix.set(b, k + 1);
    }
    this.taken.add(n);
    return n;
  }

  /** The temporaries by name (the list only grows: the map catches up when asked). */
  private readonly tempIndex = new Map<string, Temporary>();
  protected tempNamed(name: string): Temporary | undefined {
    for (let k = this.tempIndex.size; k < this.temps.length; k++) this.tempIndex.set(this.temps[k]!.name, this.temps[k]!);
    return this.tempIndex.get(name);
  }

  /** The arguments by name (as tempNamed). */
  private readonly argIndex = new Map<string, KernelArg>();
  protected argNamed(name: string): KernelArg | undefined {
    for (let k = this.argIndex.size; k < this.args.length; k++) this.argIndex.set(this.args[k]!.name, this.args[k]!);
    return this.argIndex.get(name);
  }

  protected rootCtx(scope: Scope): Ctx {
    return { scope, within: [], preds: [], outer: false, inner: false, seqLoop: false };
  }

  protected addDomain(dims: string[], rows: Row[]): void {
    this.domains.push(domainOf(dims, rows));
    for (const d of dims) this.inames.add(d);
    // `a*d + k >= 0` (or `= 0`) with a > 0 and no other name: d >= ceil(-k/a), which is >= 0 when k < a.
    for (const r of rows) {
      const names = Object.keys(r.aff.terms);
      const a = r.aff.terms[names[0]!];
      if (names.length === 1 && dims.includes(names[0]!) && a !== undefined && a > 0 && r.aff.constant < a) this.fromZero.add(names[0]!);
    }
  }

  // ---- instructions and dependencies ----------------------------------------------------------

  protected emit(lhs: Expr, rhs: Expr, ctx: Ctx, atomic: boolean, pos: A.Pos): void {
    if (!ctx.outer) this.fail("statements must be inside an @outer loop", pos);
    this.log.assign(this.fresh("insn"), lhs, rhs, ctx, atomic, this.boundTemps);
  }

  /** `s` as one opaque block instruction inside the current loops (src/okl/opaque.ts). */
  protected opaque(s: A.Stmt, ctx: Ctx): void {
    if (!ctx.outer) this.fail("statements must be inside an @outer loop", s.pos);
    const host: BlockHost = { ex: this.ex, file: this.file, fresh: (b) => this.fresh(b), fail: this.failAt, addTemp: (t) => void this.temps.push(t) };
    const body = new BlockLowering(host).lower(s, ctx);
    if (body.length > 0) this.log.block(this.fresh("block"), body, ctx, this.boundTemps);
  }

  protected barrier(scope: "local" | "global", ctx: Ctx, pos: A.Pos): void {
    if (scope === "local" && !ctx.outer) this.fail("@barrier outside an @outer loop", pos);
    const id = this.fresh(scope === "global" ? "gbarrier" : "barrier");
    this.log.barrier(id, scope, scope === "global" ? [] : ctx.within.filter((i) => this.tags[i]?.kind !== "l").sort());
  }

  // ---- expression types -----------------------------------------------------------------------


  /** `e` reads no memory (no array element, no temporary): its value is fixed where it is bound. */
  protected pure(e: Expr): boolean {
    return !someNode(e, (n) => n.kind === "subscript" || n.kind === "linear" || (n.kind === "var" && this.tempNamed(n.name) !== undefined));
  }

  /** `e` has an integer type: integer constants, loop indices, integer arguments and arithmetic of them. */
  protected isIntegerExpr(e: Expr): boolean {
    switch (e.kind) {
      case "const": return !e.isFloat && (e.dtype === undefined || isIntegral(e.dtype));
      case "var": {
        const a = this.argNamed(e.name);
        return a ? a.dtype !== undefined && isIntegral(a.dtype) : this.domains.some((d) => d.dims.includes(e.name));
      }
      case "neg": case "bitnot": return this.isIntegerExpr(e.operand);
      case "arith": return this.isIntegerExpr(e.left) && this.isIntegerExpr(e.right);
      case "cast": return e.dtype !== undefined && isIntegral(e.dtype);
      default: return false;
    }
  }

  /** `e` when it reads no memory, else a private temporary of type `dtype` set to `e` here (C evaluates a loop header once). */
  protected capture(e: Expr, base: string, dtype: Dtype, ctx: Ctx, pos: A.Pos): Expr {
    if (this.pure(e)) return e;
    const name = this.fresh(base);
    this.temps.push({ name, dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
    this.emit({ kind: "var", name }, e, ctx, false, pos);
    return { kind: "var", name };
  }

  /** Whether `e` may have a floating-point type (float constants, casts, float arguments and temporaries). */
  protected floatTyped(e: Expr): boolean {
    let found = false;
    const isFloat = (d: Dtype | undefined) => d !== undefined && dtypeKind(d) === "float";
    walkExpr(e, (n) => {
      if ((n.kind === "const" && (n.isFloat || isFloat(n.dtype))) || (n.kind === "cast" && isFloat(n.dtype))) found = true;
      const name = n.kind === "var" ? n.name : n.kind === "subscript" || n.kind === "linear" ? n.array : undefined;
      if (name !== undefined && isFloat(this.argNamed(name)?.dtype ?? this.tempNamed(name)?.dtype)) found = true;
      if (n.kind === "cast") return false;
      return undefined;
    });
    return found;
  }
}
