/**
 * The reference interpreter. A kernel is compiled once (per set of argument dtypes) to one
 * JavaScript function: the schedule tree becomes nested `for` loops with bounds from the iteration
 * domains, each instruction a guarded statement. It runs the schedule every target runs
 * (src/schedule/pipeline.ts): reductions are realized, address spaces decided, barriers placed.
 * Values live in JS locals and typed arrays: no AST walking and no lookups per point.
 *
 * Device kernels with hardware axes (and every kernel with g/l tags) run group by group with
 * work-items in lockstep: parallel-code.ts. Sequential kernels run as plain loops.
 */
import { ExecutionError } from "../errors.js";
import {
  allInames, bareArrayProblem, exprEquals, findArg, findTemporary, iterationDomain, mapExpr, kernelTypeEnv, effectiveDimTags, INDEX_DTYPE, isWideInt,
  type Dtype, type Expr, type Instruction, type Kernel, type TypedArray,
} from "../ir/index.js";
import { compilePointTest, type BasicSet } from "../poly/index.js";
import { expandSubstitutions, hostProgramOf, schedule, type HostNode, type Schedule, type ScheduleNode } from "../schedule/index.js";
import { H } from "./arith-helpers.js";
import { RT } from "./race-tracker.js";
import { compileExpr, exactIndexCode, offsetCode, readCode, storeCode, type ArrayView, type ExprContext } from "./compile-expr.js";
import { guardCode, rangeCode, type SetCodeContext } from "./domain-code.js";
import { ParallelCode, type KernelCode } from "./parallel-code.js";
import { blockCode } from "./block-code.js";

/** A kernel compiled to JavaScript; `execute` runs it on prepared storage. */
export interface CompiledKernel {
  /** Names of the arrays `execute` takes, in order: array arguments, then temporaries. */
  readonly arrays: readonly string[];
  /** Names of the value arguments `execute` takes, in order. */
  readonly values: readonly string[];
  /** The generated source, for debugging. */
  readonly source: string;
  /** The scheduled kernel the code was made from (it may have temporaries `k` had not). */
  readonly kernel: Kernel;
  /** Run once: `extents[a]`/`strides[a]` describe `arrays[a]` (empty when it has no shape). */
  execute(arrays: readonly TypedArray[], extents: readonly (readonly number[])[], strides: readonly (readonly number[])[], values: readonly (number | bigint)[]): void;
}

type PointTest = (values: ArrayLike<number>) => boolean;

/** Whether `k` has any g or l tag: otherwise it runs as one group of one work-item. */
function isParallel(k: Kernel): boolean {
  return Object.values(k.inameTags).some((t) => t.kind === "g" || t.kind === "l");
}


/**
 * Compile `k` (every argument and temporary already typed) to a runnable function.
 * `compileKernel(k).execute([a, out], [[n], [n]], [[1], [1]], [n])`
 */
export function compileKernel(k: Kernel): CompiledKernel {
  return compileSchedule(schedule(k));
}

/** Compile a schedule (its kernel fully typed) to a runnable function. */
export function compileSchedule(s: Schedule): CompiledKernel {
  return new KernelCompiler(s).compile();
}

class KernelCompiler implements KernelCode {
  private readonly inameVars = new Map<string, string>();
  private readonly arrayIndex = new Map<string, number>();
  private readonly valueIndex = new Map<string, number>();
  private readonly arrays: string[] = [];
  private readonly values: string[] = [];
  private readonly functions: string[] = [];
  private readonly tests: { test: PointTest; width: number }[] = [];
  private readonly domains = new Map<string, BasicSet>();
  private readonly env;
  readonly k: Kernel;
  private readonly parallel: boolean;
  private readonly parallelCode = new ParallelCode(this);
  /** Per temporary: its address space in this run. */
  private readonly space = new Map<string, "private" | "local" | "global">();
  /** Trackers of the device kernel being compiled: array name -> JS variable. */
  trackers = new Map<string, string>();
  readonly topVars: string[] = [];

  constructor(private readonly schedule: Schedule) {
    const k = (this.k = schedule.kernel);
    this.parallel = isParallel(k);
    for (const t of k.temporaries) {
      if (t.addressSpace === "auto") throw new ExecutionError(`temporary "${t.name}" of kernel "${k.name}" has no address space: run kernels through the scheduling passes (schedule), which decide it`);
      this.space.set(t.name, t.addressSpace);
    }
    this.env = kernelTypeEnv(k);
    allInames(k).forEach((n, idx) => this.inameVars.set(n, `i${idx}`));
    for (const a of k.args) {
      if (a.kind === "array") this.arrayIndex.set(a.name, this.arrays.push(a.name) - 1);
      else this.valueIndex.set(a.name, this.values.push(a.name) - 1);
    }
    for (const t of k.temporaries) this.arrayIndex.set(t.name, this.arrays.push(t.name) - 1);
  }

  compile(): CompiledKernel {
    const body = this.hostProgram(hostProgramOf(this.schedule), [], "  ");
    const prologue = [
      ...this.arrays.map((name, a) => {
        const n = this.view(name).extents?.length ?? 0;
        const layout = Array.from({ length: n }, (_, x) => `, e${a}_${x} = E[${a}][${x}], s${a}_${x} = S[${a}][${x}]`).join("");
        // Private storage is rebound per work-item in parallel kernels.
        return `  ${this.isPrivateCopy(name) ? "let" : "const"} d${a} = A[${a}]${layout};`;
      }),
      // Fresh private memory: NaN for floats, so a read before any write shows (race-tracker.ts freshPrivate).
      ...this.arrays.flatMap((name, a) => (this.space.get(name) === "private" ? [`  RT.freshPrivate(A[${a}], ${JSON.stringify(this.view(name).dtype)});`] : [])),
      ...this.values.map((_, v) => `  const v${v} = V[${v}];`),
      ...this.tests.map((t, m) => `  const T${m} = PT[${m}], X${m} = new Float64Array(${t.width});`),
      ...(this.parallel ? [`  const LC = new RT.Clock("work-item"), GC = new RT.Clock("group"), IC = new RT.Clock("work-item (global memory)");`] : []),
      ...(this.topVars.length > 0 ? [`  let ${this.topVars.join(", ")};`] : []),
    ];
    const source = [...prologue, ...this.functions, ...body].join("\n");
    const factory = new Function("H", "PT", "RT", `"use strict";\nreturn function kernel(A, E, S, V) {\n${source}\n};`);
    const fn = factory(H, this.tests.map((t) => t.test), RT) as CompiledKernel["execute"];
    return { arrays: this.arrays, values: this.values, source, kernel: this.k, execute: fn };
  }

  /**
   * The host program: host loops as JS loops over their bounds, each launch the device kernel's
   * code with the host inames in scope. Sequential kernels run as plain loops; the others group
   * by group (parallel-code.ts).
   */
  private hostProgram(nodes: readonly HostNode[], host: readonly string[], ind: string): string[] {
    return nodes.flatMap((n): string[] => {
      if (n.kind === "launch") {
        const dk = this.schedule.deviceKernels[n.kernel]!;
        return this.parallel || dk.groupAxes.length > 0 || dk.localAxes.length > 0
          ? this.parallelCode.deviceKernel(dk, n.kernel, host, ind)
          : this.nodes(dk.body, host, ind);
      }
      const v = this.inameVar(n.iname);
      // Derived from the domain, so computed exactly (not in int32), as the native runtime does: see exactIndexCode.
      const bound = (e: Expr, which: string) => exactIndexCode(e, this.exprCtx(`the ${which} bound of host loop ${n.iname}`, host));
      return [
        `${ind}for (let ${v} = ${bound(n.lower, "lower")}, ${v}_hi = ${bound(n.upper, "upper")}; ${v} <= ${v}_hi; ${v}++) { // host loop`,
        ...this.hostProgram(n.body, [...host, n.iname], ind + "  "),
        `${ind}}`,
      ];
    });
  }

  private isPrivateCopy(name: string): boolean {
    return this.parallel && this.space.get(name) === "private";
  }

  // ---- what parallel-code.ts uses ----------------------------------------------------------

  spaceOf(name: string): "private" | "local" | "global" {
    return this.space.get(name) ?? "global";
  }

  arrayIndexOf(name: string): number {
    const a = this.arrayIndex.get(name);
    if (a === undefined) throw new ExecutionError(`"${name}" is not an array of kernel "${this.k.name}"`);
    return a;
  }

  inameVar(iname: string): string {
    const v = this.inameVars.get(iname);
    if (v === undefined) throw new ExecutionError(`"${iname}" is not an iname of kernel "${this.k.name}"`);
    return v;
  }

  expand(e: Expr): Expr {
    return expandSubstitutions(this.k, e);
  }

  // ---- the schedule tree -------------------------------------------------------------------

  nodes(nodes: readonly ScheduleNode[], outer: readonly string[], ind: string): string[] {
    return nodes.flatMap((n) => {
      if (n.kind === "loop") return this.loop(n.iname, n.body, outer, ind, (inner, ind2) => this.nodes(n.body, inner, ind2));
      if (n.kind === "barrier") return [`${ind}// barrier: ${n.comment}`];
      return this.insn(this.insnById(n.id), ind);
    });
  }

  /** A loop over `iname` whose range covers every instruction of the body (each guards itself). */
  loop(
    iname: string, body: readonly ScheduleNode[], outer: readonly string[], ind: string,
    emitBody: (outer: readonly string[], ind: string) => string[],
  ): string[] {
    const v = this.inameVars.get(iname)!;
    const ranges = new Map<string, { lo: string; hi: string }>();
    for (const insn of this.insnsUnder(body)) {
      const r = rangeCode(this.domainOf(insn.withinInames), iname, outer, this.setCtx([...outer, iname]), `instruction "${insn.id}"`);
      ranges.set(`${r.lo} .. ${r.hi}`, r);
    }
    const inner = emitBody([...outer, iname], ind + "  ");
    const rs = [...ranges.values()];
    if (rs.length === 1) {
      return [`${ind}for (let ${v} = ${rs[0]!.lo}, ${v}_hi = ${rs[0]!.hi}; ${v} <= ${v}_hi; ${v}++) {`, ...inner, `${ind}}`];
    }
    // Several domains: the union of their ranges (skipping empty ones).
    return [
      `${ind}{`,
      `${ind}  let ${v}_lo = Infinity, ${v}_hi = -Infinity;`,
      ...rs.map((r) => `${ind}  { const lo = ${r.lo}, hi = ${r.hi}; if (lo <= hi) { if (lo < ${v}_lo) ${v}_lo = lo; if (hi > ${v}_hi) ${v}_hi = hi; } }`),
      `${ind}  for (let ${v} = ${v}_lo; ${v} <= ${v}_hi; ${v}++) {`,
      ...inner,
      `${ind}  }`,
      `${ind}}`,
    ];
  }

  insnsUnder(nodes: readonly ScheduleNode[]): Instruction[] {
    return nodes.flatMap((n) => (n.kind === "loop" ? this.insnsUnder(n.body) : n.kind === "insn" ? [this.insnById(n.id)] : []));
  }

  private insnById(id: string): Instruction {
    const insn = this.k.instructions.find((i) => i.id === id);
    if (!insn) throw new ExecutionError(`the schedule of kernel "${this.k.name}" names instruction "${id}", which it does not have`);
    return insn;
  }

  private insn(insn: Instruction, ind: string): string[] {
    if (insn.kind === "block") return blockCode(this, insn, ind);
    if (insn.kind !== "assign") return [`${ind}// ${insn.kind} ${JSON.stringify(insn.id)}`];
    const scope = [...insn.withinInames];
    const ctx = this.exprCtx(insn.id, scope);
    const cond = this.conditions(insn, scope, ctx);
    const lhs = expandSubstitutions(this.k, insn.lhs);
    const store = insn.atomicity === "update"
      ? this.atomicStore(insn.id, lhs, expandSubstitutions(this.k, insn.rhs), ctx)
      : this.plainStore(insn.id, lhs, insn.rhs, ctx, "instruction");
    return [`${ind}// ${JSON.stringify(insn.id)}`, cond.length > 0 ? `${ind}if (${cond.join(" && ")}) { ${store} }` : `${ind}{ ${store} }`];
  }

  /** When an instruction runs at a point of its loops: its domain's guard and its predicates (none when always). */
  conditions(insn: Instruction, scope: readonly string[], ctx: ExprContext): string[] {
    const guard = guardCode(this.domainOf(scope), this.setCtx(scope));
    const preds = insn.predicates.map((p) => `(${compileExpr(expandSubstitutions(this.k, p), "bool", ctx)}) !== 0`);
    return [guard, ...preds].filter((c) => c !== "true");
  }

  /** A store of `rhs` (converted to the target's dtype) to a scalar variable or an array element. */
  plainStore(insnId: string, lhs: Expr, rhs: Expr, ctx: ExprContext, what: "instruction" | "block"): string {
    const value = (d: Dtype) => compileExpr(expandSubstitutions(this.k, rhs), d, ctx);
    if (lhs.kind === "var") {
      const view = this.scalarView(lhs.name, insnId, "write");
      return storeCode(view, "0", value(view.dtype), insnId);
    }
    if (lhs.kind === "subscript" || lhs.kind === "linear") {
      const view = this.writableView(lhs.array, insnId);
      return `const r = ${value(view.dtype)}; ${storeCode(view, offsetCode(lhs, view, ctx), "r", insnId)}`;
    }
    throw new ExecutionError(`${what} "${insnId}": cannot assign to ${lhs.kind}`);
  }

  /**
   * An atomic update runs like a plain one (one work-item at a time), but its read and write of
   * the target cell are recorded as atomic: other work-items' atomic updates of it are no race.
   */
  private atomicStore(insnId: string, lhs: Expr, rhs: Expr, ctx: ExprContext): string {
    let view: ArrayView;
    let offset: string;
    if (lhs.kind === "var") {
      view = this.scalarView(lhs.name, insnId, "write");
      offset = "0";
    } else if (lhs.kind === "subscript" || lhs.kind === "linear") {
      view = this.writableView(lhs.array, insnId);
      offset = offsetCode(lhs, view, ctx);
    } else {
      throw new ExecutionError(`instruction "${insnId}": cannot assign to ${lhs.kind}`);
    }
    // The target inside the right-hand side is the atomic read of the cell just located.
    const self = "(atomic target)";
    const value = mapExpr(rhs, (n) => (exprEquals(n, lhs) ? { kind: "var", name: self } : undefined));
    const env = ctx.env;
    const atomicCtx: ExprContext = {
      ...ctx,
      env: { ...env, varType: (n) => (n === self ? view.dtype : env.varType(n)) },
      varCode: (n) => (n === self ? { code: readCode(view, "o", insnId, true), dtype: view.dtype } : ctx.varCode(n)),
    };
    return `const o = ${offset}; const r = ${compileExpr(value, view.dtype, atomicCtx)}; ${storeCode(view, "o", "r", insnId, true)}`;
  }



  // ---- names -------------------------------------------------------------------------------

  domainOf(inames: readonly string[]): BasicSet {
    const key = [...inames].sort().join(",");
    let s = this.domains.get(key);
    if (!s) {
      s = iterationDomain(this.k, [...inames]);
      this.domains.set(key, s);
    }
    return s;
  }

  private setCtx(scope: readonly string[]): SetCodeContext {
    return {
      nameCode: (name) => {
        if (scope.includes(name)) return this.inameVars.get(name)!;
        return this.paramCode(name);
      },
      pointTest: (s) => {
        const vars = [...s.params, ...s.dims];
        const m = this.tests.push({ test: compilePointTest(s, vars), width: vars.length }) - 1;
        const fill = vars.map((n, x) => `X${m}[${x}] = ${scope.includes(n) ? this.inameVars.get(n)! : this.paramCode(n)}`);
        return `(${[...fill, `T${m}(X${m})`].join(", ")})`;
      },
    };
  }

  /** A domain parameter as a JS number: a value argument or a scalar written by the kernel. */
  private paramCode(name: string): string {
    const v = this.valueIndex.get(name);
    if (v !== undefined) return isWideInt(findArg(this.k, name)!.dtype!) ? `Number(v${v})` : `v${v}`;
    if (this.arrayIndex.has(name)) {
      const view = this.scalarView(name, "(domain)", "read");
      return isWideInt(view.dtype) ? `Number(${readCode(view, "0", "(domain)")})` : readCode(view, "0", "(domain)");
    }
    if (this.inameVars.has(name)) throw new ExecutionError(`a domain uses iname "${name}" as a parameter outside the loop over it`);
    throw new ExecutionError(`domain parameter "${name}" is neither a value argument nor a scalar temporary of kernel "${this.k.name}"`);
  }

  exprCtx(insnId: string, scope: readonly string[]): ExprContext {
    return {
      insnId,
      env: this.env,
      varCode: (name) => {
        if (scope.includes(name)) return { code: this.inameVars.get(name)!, dtype: INDEX_DTYPE };
        if (this.inameVars.has(name)) throw new ExecutionError(`instruction "${insnId}" uses iname "${name}" outside the loops around it (${scope.join(", ") || "none"})`);
        const v = this.valueIndex.get(name);
        if (v !== undefined) return { code: `v${v}`, dtype: findArg(this.k, name)!.dtype! };
        const view = this.scalarView(name, insnId, "read");
        return { code: readCode(view, "0", insnId), dtype: view.dtype };
      },
      array: (name) => {
        if (!this.arrayIndex.has(name)) throw new ExecutionError(`instruction "${insnId}" subscripts "${name}", which is not an array of kernel "${this.k.name}"`);
        return this.view(name);
      },
      reductionCode: () => {
        throw new ExecutionError(`instruction "${insnId}": a reduction reached the interpreter unrealized; kernels are run through the scheduling passes, which realize every reduction`);
      },
    };
  }

  private view(name: string): ArrayView {
    const a = this.arrayIndex.get(name)!;
    const arg = findArg(this.k, name);
    const decl = arg?.kind === "array" ? arg : findTemporary(this.k, name)!;
    if (!decl.dtype) throw new ExecutionError(`the dtype of "${name}" is unknown; add dtypes or pass the array`);
    const shape = decl.shape;
    if (shape && effectiveDimTags(decl).some((t) => t.kind === "sep")) {
      throw new ExecutionError(`array "${name}": "sep" axes are not supported yet by the interpreter`);
    }
    const axes = shape?.map((_, x) => x);
    return {
      name, dtype: decl.dtype, data: `d${a}`,
      extents: axes?.map((x) => `e${a}_${x}`), strides: axes?.map((x) => `s${a}_${x}`),
      ...(this.trackers.has(name) ? { tracker: this.trackers.get(name)! } : {}),
    };
  }

  private scalarView(name: string, insnId: string, what: "read" | "write"): ArrayView {
    if (this.valueIndex.has(name)) throw new ExecutionError(`instruction "${insnId}" writes "${name}", a value argument; only arrays and temporaries can be written`);
    if (!this.arrayIndex.has(name)) throw new ExecutionError(`instruction "${insnId}" ${what}s "${name}", which is not a variable of kernel "${this.k.name}"`);
    const bare = bareArrayProblem(this.k, name, insnId);
    if (bare) throw new ExecutionError(bare);
    return this.view(name);
  }

  private writableView(name: string, insnId: string): ArrayView {
    if (!this.arrayIndex.has(name)) throw new ExecutionError(`instruction "${insnId}" writes "${name}", which is not an array of kernel "${this.k.name}"`);
    return this.view(name);
  }
}
