/**
 * Instructions: assignments (with their predicates, atomic updates, array elements as flat
 * indices) and opaque blocks in their own braces. Reductions are realized by preprocessing
 * (src/schedule/reduction.ts): one that reaches code generation is refused (codegen/expr.ts).
 */
import { assertNever, CodegenError } from "../../src/errors.js";
import {
  allInames, atomicUpdateOf, bareArrayProblem, exprToAff, axisStrides, effectiveDimTags, exprToString, findArg, INDEX_DTYPE,
  kernelTypeEnv, blockLocals, blockTypeEnv, checkBlock, forAsWhile, lowerExits, mapBlockExprs, renameVars,
  type ArrayArg, type Assignment, type BlockInsn, type BlockStmt, type Dtype, type Expr, type Temporary, type TypeEnv,
} from "../../src/ir/index.js";
import { affIsConstant, type Aff } from "../../src/poly/index.js";
import type { LoopContext } from "./context.js";
import { block, evar, ibin, ilit, type Ex, type Stmt } from "../ast.js";
import { lowerCond, lowerExpr, lowerIndex, sizeEx, typeOf, type ExprScope } from "../expr.js";
import type { GuardLowering } from "./guards.js";
import { provablyNonneg } from "./divisions.js";
import { addressSpaceOf, temporaryOf, type KernelHost } from "./host.js";
import { affEx, joinEx } from "./rows.js";

/** An affine subscript's form (terms in iname order), the inames and the value parameters it reads. */
interface IndexForm {
  readonly aff?: Aff;
  readonly inames: readonly string[];
  readonly params: readonly string[];
  /** `aff` as code, with what the substitutions gave for its terms' names then (`affineIndex`). */
  code?: { readonly subs: readonly (Ex | undefined)[]; readonly ex: Ex };
}

/**
 * A key equal for two index expressions of the same structure (sums, differences and products of
 * names and integer literals: `(16*m)+n`), undefined for any other: their forms are equal (a form
 * depends on the terms and the names' types only). A kernel of thousands of statements subscripts
 * with a few dozen such expressions, each a new object.
 */
function indexKey(e: Expr): string | undefined {
  switch (e.kind) {
    case "var": return e.name;
    case "const": return e.isFloat || !Number.isSafeInteger(e.value) ? undefined : e.dtype === undefined ? String(e.value) : `${e.value}:${e.dtype}`;
    case "arith": {
      if (e.op !== "+" && e.op !== "-" && e.op !== "*") return undefined;
      const l = indexKey(e.left);
      if (l === undefined) return undefined;
      const r = indexKey(e.right);
      return r === undefined ? undefined : `(${l}${e.op}${r})`;
    }
    default: return undefined;
  }
}

/**
 * `exprToAff(ix)` by `indexKey(ix)` (the form is a function of the structure the key spells),
 * across kernels: the variants of a sweep subscript with new expression objects of a few shapes.
 * Bounded; no answer depends on it being there.
 */
function keyedAff(ix: Expr, key: string): Aff | undefined {
  let a = affsByKey.get(key);
  if (a === undefined) {
    a = exprToAff(ix) ?? null;
    if (affsByKey.size >= 4096) affsByKey.clear();
    affsByKey.set(key, a);
  }
  return a ?? undefined;
}

const affsByKey = new Map<string, Aff | null>();

/** Instructions of one device kernel. */
export class InstructionLowering {
  private readonly env;
  /** Arguments, temporaries and inames: what a block's locals must not shadow. */
  private readonly kernelNames: ReadonlySet<string>;
  private readonly params: Set<string>;
  private readonly inameRank: ReadonlyMap<string, number>;
  /** The value arguments the generated code reads (index arithmetic prints them). */
  readonly usedParams = new Set<string>();
  /** Per array subscripted so far: its declaration, dtype and axis strides as code (see `element`). */
  private readonly arrays = new Map<string, { decl: ArrayArg | Temporary; dtype: Dtype; strides: readonly Ex[] }>();
  /** `affineIndex`'s forms by index expression, and by `indexKey` (plain iname subscripts: by name). */
  private readonly indexForms = new WeakMap<Expr, IndexForm | null>();
  private readonly keyForms = new Map<string, IndexForm | null>();

  constructor(
    private readonly h: KernelHost, private readonly guards: GuardLowering,
  ) {
    const k = h.k;
    // The kernel's names keep their types through lowering: each asked once, not per expression node.
    const env = kernelTypeEnv(k);
    const types = new Map<string, Dtype | undefined>();
    this.env = {
      ...env,
      varType: (n: string) => {
        if (!types.has(n)) {
          // A temporary's dtype by the index (`kernelTypeEnv` searches the list): inames come first.
          const d = this.inameRank.has(n) ? undefined : temporaryOf(k, n)?.dtype;
          types.set(n, d ?? env.varType(n));
        }
        return types.get(n);
      },
    };
    const kernelNames = new Set<string>();
    const params = new Set<string>();
    for (const a of k.args) {
      kernelNames.add(a.name);
      if (a.kind === "value") params.add(a.name);
    }
    for (const t of k.temporaries) kernelNames.add(t.name);
    for (const d of k.domains) for (const n of d.dims) kernelNames.add(n);
    this.kernelNames = kernelNames;
    this.params = params;
    const rank = new Map<string, number>();
    const inames = allInames(k);
    for (let r = 0; r < inames.length; r++) rank.set(inames[r]!, r);
    this.inameRank = rank;
  }

  insn(id: string, known: readonly string[], ctx: LoopContext): Stmt[] {
    const insn = this.h.insnOf(id);
    if (insn.kind === "nop") return [];
    if (insn.kind === "barrier") {
      if (insn.scope === "global") throw new CodegenError(`kernel "${this.h.k.name}": global barrier "${id}" inside a device kernel`);
      return [{ k: "barrier", comment: `for ${id}`, memory: insn.memKind ?? "local+global" }];
    }
    const d = this.h.insnDomain(insn);
    if (insn.kind === "block") return this.guards.guarded(d, known, ctx, insn.id, (c) => this.block(insn, known, c));
    return this.guards.guarded(d, known, ctx, insn.id, (c) => this.assign(insn, known, c));
  }

  /**
   * An opaque block as statements in its own braces: locals renamed away from the kernel's names
   * (a stride or bound may print a parameter inside), exits lowered to flags, `for` to `while`.
   */
  private block(insn: BlockInsn, known: readonly string[], ctx: LoopContext): Stmt[] {
    const problem = checkBlock(insn.body);
    if (problem) throw new CodegenError(`block "${insn.id}": ${problem}`);
    const avoid = new Set([...this.kernelNames, ...this.params]);
    const declared = [...blockLocals(insn.body).keys()];
    this.h.names.take(declared);
    const renames = new Map(declared.filter((n) => avoid.has(n)).map((n) => [n, this.h.names.fresh(n)]));
    let body = renames.size > 0 ? renameLocals(insn.body, renames) : insn.body;
    body = lowerExits(body, new Set([...avoid, ...blockLocals(body).keys()]));
    const locals = blockLocals(body);
    // The exit flags lowerExits declared are the block's own locals too.
    this.h.names.take(locals.keys());
    const outer = this.scope(insn.id, known, ctx);
    const scope: ExprScope = {
      insnId: outer.insnId,
      env: blockTypeEnv(outer.env, locals),
      varEx: (n) => (locals.has(n) ? { ex: evar(n), dtype: locals.get(n)! } : outer.varEx(n)),
      element: (e) => this.element(e, scope),
      nonneg: (e) => outer.nonneg!(e),
    };
    const stmts = (list: readonly BlockStmt[]): Stmt[] => list.flatMap((s): Stmt[] => {
      switch (s.kind) {
        case "decl": return [{ k: "decl", dtype: s.dtype, name: s.name, init: s.init ? lowerExpr(s.init, s.dtype, scope) : { k: "lit", value: 0, dtype: s.dtype } }];
        case "assign": {
          const lhs = s.lhs;
          if (lhs.kind === "var") {
            const dtype = locals.get(lhs.name) ?? this.dtypeOf(lhs.name, insn.id);
            return [{ k: "assign", name: lhs.name, dtype, rhs: lowerExpr(s.rhs, dtype, scope) }];
          }
          if (lhs.kind === "subscript" || lhs.kind === "linear") {
            const el = scope.element(lhs);
            return [{ k: "assign", array: el.array, index: el.index, dtype: el.dtype, rhs: lowerExpr(s.rhs, el.dtype, scope) }];
          }
          throw new CodegenError(`block "${insn.id}": cannot assign to ${exprToString(lhs)}`);
        }
        case "if": {
          const els = stmts(s.else);
          return [{ k: "if", cond: lowerCond(s.cond, scope), then: block(stmts(s.then)), ...(els.length > 0 ? { else: block(els) } : {}) }];
        }
        case "while": return [{ k: "while", cond: lowerCond(s.cond, scope), body: block(stmts(s.body)) }];
        case "doWhile": return [{ k: "doWhile", body: block(stmts(s.body)), cond: lowerCond(s.cond, scope) }];
        case "for": return [block(stmts(forAsWhile(s)))];
        case "break": case "continue": return [{ k: s.kind }];
        case "labeled": case "exit": throw new CodegenError(`block "${insn.id}": ${s.kind} left after lowering exits`);
        default: return assertNever(s, "block statement");
      }
    });
    const main = stmts(body);
    const taken = this.h.absorbedPredicates(insn);
    const preds = insn.predicates.filter((_, at) => !taken.has(at)).map((p) => lowerCond(p, outer));
    const inner = [block(main)];
    if (preds.length === 0) return inner;
    const cond = joinEx("&&", preds, "bool");
    return [{ k: "if", cond, then: inner[0]! }];
  }

  private assign(insn: Assignment, known: readonly string[], ctx: LoopContext): Stmt[] {
    const scope = this.scope(insn.id, known, ctx);
    const lhs = insn.lhs;
    const taken = this.h.absorbedPredicates(insn);
    const preds = insn.predicates.filter((_, at) => !taken.has(at)).map((p) => lowerCond(p, scope));
    let stmt: Stmt;
    if (lhs.kind === "var") {
      const dtype = this.dtypeOf(lhs.name, insn.id);
      stmt = { k: "assign", name: lhs.name, dtype, rhs: this.rhs(insn, dtype, scope) };
    } else if (lhs.kind === "subscript" || lhs.kind === "linear") {
      const el = scope.element(lhs);
      stmt = { k: "assign", array: el.array, index: el.index, dtype: el.dtype, rhs: this.rhs(insn, el.dtype, scope) };
    } else {
      throw new CodegenError(`instruction "${insn.id}": cannot assign to ${exprToString(lhs)}`);
    }
    if (insn.atomicity === "update") stmt = this.atomic(insn, stmt, scope);
    const body = [stmt];
    if (preds.length === 0) return body;
    const cond = joinEx("&&", preds, "bool");
    return [{ k: "if", cond, then: block(body) }];
  }

  private rhs(insn: Assignment, dtype: Dtype, scope: ExprScope): Ex {
    return lowerExpr(insn.rhs, dtype, scope);
  }

  /**
   * `x = x op v` (op + - & | ^ min max) or `x = v` as an atomic update or exchange. Private cells
   * are one work-item's own, so their update stays plain; OpenMP puts `#pragma omp atomic` (`write`
   * for an exchange) before a plain update, and a critical section around min/max.
   */
  private atomic(insn: Assignment, stmt: Stmt & { k: "assign" }, scope: ExprScope): Stmt {
    if (this.h.opts.atomics === "plain") return stmt;
    const u = atomicUpdateOf(insn.lhs, insn.rhs);
    if (!u) {
      throw new CodegenError(`instruction "${insn.id}": an atomic update must be x = x op v (op one of + - & | ^ min max) or an exchange x = v, got ${exprToString(insn.rhs)}`);
    }
    const space = addressSpaceOf(this.h.k, stmt.array ?? stmt.name!);
    if (space === "private") return stmt;
    if (this.h.opts.atomics === "omp" && (u.op === "min" || u.op === "max")) return block([{ k: "raw", text: "#pragma omp critical" }, stmt]);
    const atomic = { ...stmt, rhs: lowerExpr(u.value, stmt.dtype, scope), atomic: { op: u.op, space } };
    if (this.h.opts.atomics === "omp") return block([{ k: "raw", text: u.op === "=" ? "#pragma omp atomic write" : "#pragma omp atomic" }, atomic]);
    return atomic;
  }

  private dtypeOf(name: string, insnId: string): Dtype {
    const d = temporaryOf(this.h.k, name)?.dtype ?? findArg(this.h.k, name)?.dtype;
    if (!d) throw new CodegenError(`instruction "${insnId}": the dtype of "${name}" is unknown; add dtypes before generating code`);
    return d;
  }

  /** `ctx`: the loop context where the instruction runs (what proves a numerator non-negative). */
  private scope(insnId: string, known: readonly string[], ctx: LoopContext): ExprScope {
    return new InsnScope(this, insnId, this.env, known, ctx);
  }

  /** A name read as a value in instruction `insnId` within the loops over `known` (`InsnScope.varEx`). */
  varEx(name: string, insnId: string, known: readonly string[]): { ex: Ex; dtype: Dtype } {
    const sub = this.h.subst.get(name);
    if (sub) return { ex: sub, dtype: INDEX_DTYPE };
    if (known.includes(name)) return { ex: evar(name), dtype: INDEX_DTYPE };
    if (this.kernelNames.has(name)) {
      if (!findArg(this.h.k, name) && !temporaryOf(this.h.k, name)) {
        throw new CodegenError(`instruction "${insnId}" uses iname "${name}" outside the loops around it`);
      }
      // C would read the first element, a meaning the kernel never had.
      const bare = bareArrayProblem(this.h.k, name, insnId);
      if (bare) throw new CodegenError(bare);
    }
    return { ex: evar(name), dtype: this.dtypeOf(name, insnId) };
  }

  /** `InsnScope.nonneg`: `e` provably in [0, INT32_MAX] within the loops over `known`, in `ctx`. */
  nonneg(e: Expr, known: readonly string[], ctx: LoopContext): boolean {
    // A block's locals are renamed away from these names, so no local is taken for one.
    const int32 = (n: string) => this.params.has(n) && findArg(this.h.k, n)?.dtype === "int32";
    return provablyNonneg(e, ctx, (n) => known.includes(n) || int32(n), int32);
  }

  /** Flat index of `a[i, j]` from the strides of the array's axis tags: `a[n * i + j]`. */
  element(e: Expr & { kind: "subscript" | "linear" }, scope: ExprScope): { array: string; index: Ex; dtype: Dtype } {
    const known = this.arrays.get(e.array);
    const arg = known ? undefined : findArg(this.h.k, e.array);
    const decl = known?.decl ?? (arg?.kind === "array" ? arg : temporaryOf(this.h.k, e.array));
    if (!decl) throw new CodegenError(`instruction "${scope.insnId}" subscripts "${e.array}", which is not an array of kernel "${this.h.k.name}"`);
    const dtype = known?.dtype ?? this.dtypeOf(e.array, scope.insnId);
    if (e.kind === "linear") return { array: e.array, index: lowerIndex(e.index, scope, `linear index of "${e.array}"`), dtype };
    const shape = decl.shape;
    if (!shape) throw new CodegenError(`instruction "${scope.insnId}": "${e.array}" has no shape; give it one or use a linear subscript ${e.array}[[…]]`);
    if (shape.length !== e.indices.length) throw new CodegenError(`instruction "${scope.insnId}": "${e.array}" has ${shape.length} axes but is subscripted with ${e.indices.length} indices`);
    let strides = known?.strides;
    if (!strides) {
      const tags = effectiveDimTags(decl);
      if (tags.some((t) => t.kind === "sep" || t.kind === "vec")) throw new CodegenError(`array "${e.array}": sep and vec axes are not supported by code generation yet`);
      // Each axis's stride as code, once per array (a kernel of thousands of statements subscripts a few arrays).
      strides = axisStrides(shape, tags).map((st) => sizeEx(st!, (n) => this.param(n)));
      this.arrays.set(e.array, { decl, dtype, strides });
    }
    let index: Ex = ilit(0);
    const check = this.h.opts.checkAxis;
    for (let a = 0; a < e.indices.length; a++) {
      const ix = e.indices[a]!;
      let axis = this.affineIndex(ix, scope) ?? lowerIndex(ix, scope, `index ${a} of "${e.array}"`);
      if (check) axis = check(axis, sizeEx(shape[a]!, (n) => this.param(n)), e.array, a, scope.insnId);
      index = ibin("+", index, ibin("*", strides[a]!, axis));
    }
    return { array: e.array, index, dtype };
  }

  /**
   * An affine int32 subscript over inames and int32 parameters, terms in the kernel's iname order
   * (outer before inner, as loopy prints `128 * gid(0) + lid(0)`, not `lid(0) + gid(0) * 128`),
   * constants of unrolled inames folded; undefined for anything else.
   */
  private affineIndex(ix: Expr, scope: ExprScope): Ex | undefined {
    // The form depends on the expression and the kernel's types only (not on the loops around):
    // remembered per index (a split's `4*e_outer + e_inner` is one object in every instruction)
    // and per iname (`a[n]`), outside blocks, whose locals type names their own way.
    const memo = scope.env === this.env;
    const key = memo ? indexKey(ix) : undefined;
    let form = key !== undefined ? this.keyForms.get(key) : memo ? this.indexForms.get(ix) : undefined;
    if (form === undefined) {
      form = this.indexForm(ix, scope, key);
      if (key !== undefined) this.keyForms.set(key, form);
      else if (memo) this.indexForms.set(ix, form);
    }
    if (form === null) return undefined;
    for (const n of form.inames) scope.varEx(n); // the "outside the loops around it" check
    for (const n of form.params) this.usedParams.add(n);
    return form.aff && this.formEx(form, form.aff);
  }

  /** `form.aff` as code, made again only where a substitution of one of its names changed (an unrolled copy's value). */
  private formEx(form: IndexForm, a: Aff): Ex {
    const subst = this.h.subst;
    const hit = form.code;
    if (hit !== undefined) {
      let same = true;
      let at = 0;
      for (const n in a.terms) if (subst.get(n) !== hit.subs[at++]) (same = false);
      if (same) return hit.ex;
    }
    const subs: (Ex | undefined)[] = [];
    for (const n in a.terms) subs.push(subst.get(n));
    const ex = this.affEx(a);
    form.code = { subs, ex };
    return ex;
  }

  /**
   * `affineIndex`'s form of `ix`: its affine form, terms ordered, and its inames and parameters;
   * null where there is none, no `aff` where a term is neither (the terms before it still count).
   */
  private indexForm(ix: Expr, scope: ExprScope, key: string | undefined): IndexForm | null {
    const a = key !== undefined ? keyedAff(ix, key) : exprToAff(ix);
    if (!a || affIsConstant(a) || typeOf(ix, scope).dtype !== "int32") return null;
    const inames: string[] = [];
    const params: string[] = [];
    // Terms by the kernel's iname order (others after, as they were): the sort's order, stable.
    const rank = this.inameRank;
    let sorted = true;
    let last = -1;
    for (const n in a.terms) {
      if (rank.has(n)) inames.push(n);
      else if (this.params.has(n) && findArg(this.h.k, n)?.dtype === "int32") params.push(n);
      else return { inames, params };
      const r = rank.get(n) ?? rank.size;
      if (r < last) sorted = false;
      last = r;
    }
    if (sorted) return { aff: a, inames, params };
    // A stable insertion sort (a few terms): `sort` allocates its work arrays.
    const names: string[] = [];
    const ranks: number[] = [];
    for (const n in a.terms) {
      const r = rank.get(n) ?? rank.size;
      let j = names.length;
      names.push(n);
      ranks.push(r);
      while (j > 0 && ranks[j - 1]! > r) {
        names[j] = names[j - 1]!;
        ranks[j] = ranks[j - 1]!;
        j--;
      }
      names[j] = n;
      ranks[j] = r;
    }
    const terms: Record<string, number> = {};
    for (const n of names) terms[n] = a.terms[n]!;
    return { aff: { terms, constant: a.constant }, inames, params };
  }

  private param(n: string): Ex {
    this.usedParams.add(n);
    return evar(n);
  }

  private affEx(a: Aff): Ex {
    return affEx(a, this.h.subst);
  }
}

/**
 * Where one instruction's expressions are lowered: its id, the loops around it (`known`) and their
 * context. A class, not an object of closures: one is made per instruction.
 */
class InsnScope implements ExprScope {
  constructor(
    private readonly l: InstructionLowering, readonly insnId: string, readonly env: TypeEnv,
    private readonly known: readonly string[], private readonly ctx: LoopContext,
  ) {}

  varEx(name: string): { ex: Ex; dtype: Dtype } {
    return this.l.varEx(name, this.insnId, this.known);
  }

  element(e: Expr & { kind: "subscript" | "linear" }): { array: string; index: Ex; dtype: Dtype } {
    return this.l.element(e, this);
  }

  nonneg(e: Expr): boolean {
    return this.l.nonneg(e, this.known, this.ctx);
  }
}

/** `body` with its locals renamed (declarations and uses). */
function renameLocals(body: readonly BlockStmt[], names: ReadonlyMap<string, string>): readonly BlockStmt[] {
  const renamed = mapBlockExprs(body, (e) => renameVars(e, names));
  const decls = (list: readonly BlockStmt[]): BlockStmt[] => list.map((s): BlockStmt => {
    switch (s.kind) {
      case "decl": return names.has(s.name) ? { ...s, name: names.get(s.name)! } : s;
      case "if": return { ...s, then: decls(s.then), else: decls(s.else) };
      case "while": case "doWhile": case "labeled": return { ...s, body: decls(s.body) };
      case "for": return { ...s, init: decls(s.init), body: decls(s.body), step: decls(s.step) };
      default: return s;
    }
  });
  return decls(renamed);
}
