/**
 * loopy's `realize_reduction`: every `sum`/`product`/`max`/`min` becomes an accumulator and
 * instructions that fill it. Sequential: `acc_k = 0` before the loop over `k`, `acc_k = acc_k + body`
 * inside it. Over an `l`-tagged iname: a local array, one term per work-item, then a tree of
 * halving stages (the scheduler puts a local barrier between them).
 */
import { ScheduleError } from "../errors.js";
import {
  iterationDomain, arith, c, findArg, findTemporary, INDEX_DTYPE, dtypeBits, dtypeKind, exprType, formatInameTag, insnDefaults, isFloat, kernelTypeEnv,
  mapExpr, sub, uniqueName, walkExpr, v, withKernel,
  type Assignment, type Dtype, type Expr, type InameTag, type Instruction, type Kernel, type Reduce,
  type ReductionOp, type Temporary, type TypeEnv,
} from "../ir/index.js";
import { affIsConstant, affSub, dimBounds, parseSet, type Aff, type BasicSet } from "../poly/index.js";
import { localSize, offsetFrom, type ConstRange } from "./checks.js";

/**
 * The neutral element of `op` in `dtype` (unknown dtype: an implicitly typed literal): the one
 * definition every route uses. 64-bit extremes are exact: `2**63 - 1` is no double, so the int64
 * maximum is written `~(-2**63)` and the uint64 maximum `~0`, which every target and the
 * interpreter evaluate exactly.
 */
export function neutralElement(op: ReductionOp, dtype: Dtype | undefined): Expr {
  if (op === "sum") return c(0);
  if (op === "product") return c(1);
  const lowest = op === "max";
  if (dtype === undefined || isFloat(dtype)) return c(lowest ? -Infinity : Infinity, undefined, true);
  if (dtype === "bool") return c(lowest ? 0 : 1);
  const bits = dtypeBits(dtype);
  const exact = (value: number): Expr => (bits === 64 ? c(value, dtype) : c(value));
  const complement = (e: Expr): Expr => ({ kind: "bitnot", operand: e });
  if (dtypeKind(dtype) === "uint") return lowest ? c(0) : bits === 64 ? complement(exact(0)) : c(2 ** bits - 1);
  const min = exact(-(2 ** (bits - 1)));
  return lowest ? min : bits === 64 ? complement(min) : c(2 ** (bits - 1) - 1);
}

/** `acc op term`. */
function combine(op: ReductionOp, acc: Expr, term: Expr): Expr {
  switch (op) {
    case "sum": return arith("+", acc, term);
    case "product": return arith("*", acc, term);
    case "max": case "min": return { kind: "call", fn: op, args: [acc, term] };
  }
}

class Realizer {
  readonly names: Set<string>;
  readonly ids: Set<string>;
  readonly temporaries: Temporary[] = [];
  readonly domains: BasicSet[] = [];
  readonly tags: Record<string, InameTag> = {};
  private readonly env: TypeEnv;
  private readonly globalBarriers: ReadonlySet<string>;
  /** Instructions created for the instruction being realized, in order. */
  private created: Instruction[] = [];

  constructor(private readonly k: Kernel) {
    this.names = new Set<string>();
    const inames = new Set<string>();
    // Indexed loops over the kernel's (frozen) arrays: a for-of over a frozen array takes V8's
    // generic iterator, an object per element (here and below, once per variant of a sweep).
    for (let x = 0; x < k.domains.length; x++) {
      const dims = k.domains[x]!.dims;
      for (let y = 0; y < dims.length; y++) (this.names.add(dims[y]!), inames.add(dims[y]!));
    }
    // kernelTypeEnv's answers, from the inames just gathered (it gathers them again); with rules
    // left to expand, its own environment.
    this.env = k.substitutions.length > 0 ? kernelTypeEnv(k) : {
      varType: (name) => (inames.has(name) ? INDEX_DTYPE : findTemporary(k, name)?.dtype ?? findArg(k, name)?.dtype),
      expandRule: () => undefined,
    };
    for (let x = 0; x < k.args.length; x++) this.names.add(k.args[x]!.name);
    for (let x = 0; x < k.temporaries.length; x++) this.names.add(k.temporaries[x]!.name);
    this.ids = new Set<string>();
    const globalBarriers = new Set<string>();
    for (let x = 0; x < k.instructions.length; x++) {
      const i = k.instructions[x]!;
      this.ids.add(i.id);
      if (i.kind === "barrier" && i.scope === "global") globalBarriers.add(i.id);
    }
    this.globalBarriers = globalBarriers;
  }

  /** The instructions that replace `insn`: accumulator instructions, then `insn` reading them. */
  realize(insn: Assignment): Instruction[] {
    this.created = [];
    const { expr, deps } = this.expr(insn.rhs, insn.withinInames, insn);
    const dependsOn = uniq(insn.dependsOn, deps);
    this.created.push(Object.assign({}, insn, { rhs: expr, dependsOn }));
    return this.created;
  }

  /** `e` with its reductions replaced by accumulators; `deps` are the ids the reader must follow. */
  private expr(e: Expr, within: readonly string[], insn: Assignment): { expr: Expr; deps: string[] } {
    const deps: string[] = [];
    const expr = mapExpr(e, (n) => {
      if (n.kind !== "reduce") return undefined;
      const r = this.reduction(n, within, insn);
      deps.push(r.dep);
      return r.expr;
    });
    return { expr, deps };
  }

  private reduction(r: Reduce, within: readonly string[], insn: Assignment): { expr: Expr; dep: string } {
    const local: string[] = [];
    for (let x = 0; x < r.inames.length; x++) {
      const i = r.inames[x]!;
      const t = this.k.inameTags[i];
      if (t?.kind === "g") {
        throw new ScheduleError(`instruction "${insn.id}": reduction over iname "${i}" tagged ${formatInameTag(t)} needs a global barrier; reduce over a local or sequential iname, or split the reduction (splitReductionOutward)`);
      }
      if (t?.kind === "l") local.push(i);
      if (has(within, i)) throw new ScheduleError(`instruction "${insn.id}": reduction iname "${i}" is already a loop around the instruction`);
    }
    if (local.length === 0) return this.sequential(r, within, insn);
    // Nest: one local reduction per l iname, the sequential inames innermost (the ops commute).
    const seq = r.inames.filter((i) => !local.includes(i));
    let body: Expr = seq.length > 0 ? { kind: "reduce", op: r.op, inames: seq, body: r.body } : r.body;
    for (const i of local.slice(1).reverse()) body = { kind: "reduce", op: r.op, inames: [i], body };
    return this.local(r.op, local[0]!, body, within, insn);
  }

  private dtypeOf(e: Expr): Dtype | undefined {
    return exprType(e, this.env)?.dtype;
  }

  private temporary(base: string, dtype: Dtype | undefined, shape: readonly Expr[], addressSpace: "private" | "local"): string {
    const name = uniqueName(base, this.names);
    this.names.add(name);
    this.temporaries.push({ name, dtype, shape, addressSpace, order: "C", dimTags: undefined });
    return name;
  }

  private id(base: string): string {
    const id = uniqueName(base, this.ids);
    this.ids.add(id);
    return id;
  }

  private emit(insn: Assignment, id: string, lhs: Expr, rhs: Expr, within: readonly string[], deps: readonly string[], extraPredicates: readonly Expr[] = [], innerInames: readonly string[] = []): string {
    // Object.assign onto the defaults, not a spread of them: the same fields in the same order,
    // where Node 20's spread of a fresh object into a literal costs tens of microseconds.
    const created: Assignment = Object.assign(insnDefaults(id), {
      kind: "assign" as const, lhs, rhs, atomicity: "none" as const,
      withinInames: sortNames(uniq(within)), dependsOn: uniq(deps),
      // (A copy by index: slice() of a frozen array takes V8's slow path.)
      predicates: extraPredicates.length > 0 ? [...insn.predicates, ...extraPredicates] : copyOf(insn.predicates), priority: insn.priority,
      tags: insn.tags, groups: insn.groups, conflictsWithGroups: insn.conflictsWithGroups,
    }, innerInames.length > 0 ? { innerInames: uniq(innerInames) } : {});
    this.created.push(created);
    return id;
  }

  /** `acc = neutral` outside the loops over `r.inames`, `acc = acc op body` inside. */
  private sequential(r: Reduce, within: readonly string[], insn: Assignment): { expr: Expr; dep: string } {
    const inner = concat(within, r.inames);
    const suffix = r.inames.join("_");
    const dtype = this.dtypeOf(r.body);
    const acc = this.temporary(`acc_${suffix}`, dtype, [], "private");
    // As loopy's: the init writes a fresh accumulator, so it waits on nothing but global barriers
    // (were it to wait on the reduction's fetch, `acc = 0` could not precede the loop holding the fetch).
    const initDeps: string[] = [];
    if (this.globalBarriers.size > 0) for (let x = 0; x < insn.dependsOn.length; x++) if (this.globalBarriers.has(insn.dependsOn[x]!)) initDeps.push(insn.dependsOn[x]!);
    const init = this.emit(insn, this.id(`${insn.id}_${suffix}_init`), v(acc), neutralElement(r.op, dtype), within, initDeps);
    const body = this.expr(r.body, inner, insn);
    // The reduction loops (of this and of enclosing reductions) nest inside the instruction's own
    // loops: `acc` is one scalar per point of those. Among themselves they follow the reduction's
    // order where loop priorities do not order them: a prefetch into a scalar inside the
    // reduction asks for `j_inner` outside `j_outer_inner`.
    const reductionLoops: string[] = [];
    for (let x = 0; x < inner.length; x++) if (!has(insn.withinInames, inner[x]!)) reductionLoops.push(inner[x]!);
    const loops = byPriority(reductionLoops, this.k.loopPriority);
    const update = this.emit(insn, this.id(`${insn.id}_${suffix}_update`), v(acc), combine(r.op, v(acc), body.expr), inner,
      concat(concat([init], insn.dependsOn), body.deps), [], loops);
    return { expr: v(acc), dep: update };
  }

  /**
   * A tree reduction over `iname` (tagged `l.N`, constant size S) in local array `acc[…, S]` (one
   * leading axis per `l` iname around the instruction): each work-item stores its term, then
   * stages `acc[x] = acc[x] op acc[x + s]` for `x < s`, s halving down to 1 (a size that is not a
   * power of two is first folded onto the largest power of two below it).
   */
  private local(op: ReductionOp, iname: string, bodyIn: Expr, within: readonly string[], insn: Assignment): { expr: Expr; dep: string } {
    const tag = this.k.inameTags[iname] as InameTag & { kind: "l" };
    const range = localSize(this.k, iname, insn.id, `the tree reduction over "${iname}" (a local array of one cell per work-item)`);
    const size = range.size;
    const outer = within.filter((i) => this.k.inameTags[i]?.kind === "l");
    const outerRanges = outer.map((i) => localSize(this.k, i, insn.id, `the tree reduction over "${iname}" inside it (a local array with an axis per work-item index)`));
    const prefix = outer.map((i, m) => offsetFrom(i, outerRanges[m]!.lower));
    const inner = [...within, iname];
    const dtype = this.dtypeOf(bodyIn);
    const acc = this.temporary(`acc_${iname}`, dtype, [...outerRanges.map((o) => c(o.size)), c(size)], "local");
    const cell = (x: Expr): Expr => sub(acc, ...prefix, x);

    let last: string[] = [];
    if (!this.coversRange(inner, iname, range)) {
      // Work-items outside the reduction's domain contribute the neutral element.
      const all = this.hwIname(`red_${iname}`, size, tag.axis);
      last = [this.emit(insn, this.id(`${insn.id}_${iname}_init`), cell(v(all)), neutralElement(op, dtype), [...within, all], insn.dependsOn)];
    }
    const body = this.expr(bodyIn, inner, insn);
    const transfer = this.emit(insn, this.id(`${insn.id}_${iname}_transfer`), cell(offsetFrom(iname, range.lower)), body.expr, inner,
      [...last, ...insn.dependsOn, ...body.deps]);
    let prev = transfer;
    const strides: number[] = [];
    let pow = 1;
    while (pow * 2 <= size) pow *= 2;
    if (pow < size) strides.push(pow);
    for (let s = pow / 2; s >= 1; s /= 2) strides.push(s);
    strides.forEach((s, stage) => {
      const x = this.hwIname(`red_${iname}_s${stage}`, size, tag.axis);
      const guard = { kind: "compare", op: "<", left: v(x), right: c(s === pow ? size - pow : s) } as const;
      prev = this.emit(insn, this.id(`${insn.id}_${iname}_stage${stage}`), cell(v(x)),
        combine(op, cell(v(x)), cell(arith("+", v(x), c(s)))), [...within, x], [prev], [guard]);
    });
    return { expr: cell(c(0)), dep: prev };
  }

  /** A fresh iname over `0 … size-1` on local axis `axis`. */
  private hwIname(base: string, size: number, axis: number): string {
    const name = uniqueName(base, this.names);
    this.names.add(name);
    this.domains.push(parseSet(`{[${name}]: 0 <= ${name} < ${size}}`));
    this.tags[name] = { kind: "l", axis };
    return name;
  }

  /** Whether, at every point of the loops around it, `iname` takes every value of its constant range. */
  private coversRange(inner: readonly string[], iname: string, range: ConstRange): boolean {
    const outer = inner.filter((i) => i !== iname);
    const b = dimBounds(iterationDomain(this.k, inner), iname, outer);
    if (!b.exact) return false;
    const last = { ...range.lower, constant: range.lower.constant + range.size - 1 };
    const lowOk = b.lower.every((l) => l.denom === 1 && isConstAtMost(affSub(l.aff, range.lower), 0));
    const highOk = b.upper.every((u) => u.denom === 1 && isConstAtMost(affSub(last, u.aff), 0));
    return lowOk && highOk;
  }
}

function isConstAtMost(a: Aff, bound: number): boolean {
  return affIsConstant(a) && a.constant <= bound;
}

/**
 * Realize every reduction of `k` (see the module comment). For `out[i] = sum(k, a[i,k]) {id=insn}`:
 * `acc_k = 0 {id=insn_k_init}`, `acc_k = acc_k + a[i,k] {id=insn_k_update}`, `out[i] = acc_k {id=insn}`.
 */
export function realizeReductions(k: Kernel): Kernel {
  const insns = k.instructions;
  let first = 0;
  while (first < insns.length && !(insns[first]!.kind === "assign" && hasReduction((insns[first] as Assignment).rhs))) first++;
  if (first === insns.length) return k;
  const r = new Realizer(k);
  const instructions: Instruction[] = [];
  for (let x = 0; x < first; x++) instructions.push(insns[x]!);
  for (let x = first; x < insns.length; x++) {
    const insn = insns[x]!;
    if (insn.kind === "assign" && (x === first || hasReduction(insn.rhs))) {
      for (const made of r.realize(insn)) instructions.push(made);
    } else instructions.push(insn);
  }
  // The domain list and tags stay the same objects where a reduction adds none (sequential ones):
  // what later passes remember per domain list (hardware axes, constant ranges) is found again.
  return withKernel(k, Object.assign(
    { instructions, temporaries: concat(k.temporaries, r.temporaries) },
    r.domains.length > 0 ? { domains: [...k.domains, ...r.domains], inameTags: { ...k.inameTags, ...r.tags } } : {},
  ));
}

function hasReduction(e: Expr): boolean {
  let found = false;
  walkExpr(e, (n) => {
    if (n.kind === "reduce") found = true;
    return !found;
  });
  return found;
}

/** The names of `xs` then `ys`, each once, in order (no Set spread: small lists, many variants). */
function uniq(xs: readonly string[], ys: readonly string[] = []): string[] {
  if (xs.length + ys.length > 16) return [...new Set([...xs, ...ys])];
  const out: string[] = [];
  for (let x = 0; x < xs.length; x++) if (!out.includes(xs[x]!)) out.push(xs[x]!);
  for (let y = 0; y < ys.length; y++) if (!out.includes(ys[y]!)) out.push(ys[y]!);
  return out;
}

/** `xs` then `ys` in a new array, by index (a spread of a frozen array takes V8's slow path). */
function concat<T>(xs: readonly T[], ys: readonly T[]): T[] {
  const out: T[] = [];
  for (let x = 0; x < xs.length; x++) out.push(xs[x]!);
  for (let y = 0; y < ys.length; y++) out.push(ys[y]!);
  return out;
}

/** Whether `xs` holds `name`, by index (includes() over a frozen array takes V8's slow path). */
function has(xs: readonly string[], name: string): boolean {
  for (let x = 0; x < xs.length; x++) if (xs[x] === name) return true;
  return false;
}

/** A copy of `xs`, by index. */
function copyOf<T>(xs: readonly T[]): T[] {
  const out: T[] = [];
  for (let x = 0; x < xs.length; x++) out.push(xs[x]!);
  return out;
}

/** `xs` sorted as `sort()` sorts strings (by UTF-16 code units), in place: an insertion sort, no buffer (short lists). */
function sortNames(xs: string[]): string[] {
  if (xs.length > 16) return xs.sort();
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i]!;
    let j = i - 1;
    for (; j >= 0 && xs[j]! > x; j--) xs[j + 1] = xs[j]!;
    xs[j + 1] = x;
  }
  return xs;
}

/** `loops` reordered so that every loop priority between two of them holds; the others keep their order. */
function byPriority(loops: readonly string[], priorities: readonly (readonly string[])[]): string[] {
  if (loops.length < 2) return loops.slice();
  // An indexed loop over the (frozen) priorities: some() over a frozen array takes V8's slow path.
  const before = (a: string, b: string) => {
    for (let x = 0; x < priorities.length; x++) {
      const at = priorities[x]!.indexOf(a);
      if (at >= 0 && priorities[x]!.indexOf(b) > at) return true;
    }
    return false;
  };
  const left = [...loops];
  const out: string[] = [];
  while (left.length > 0) {
    // The first loop no other remaining one must precede (a cycle, which loop priorities refuse, takes the first).
    const at = Math.max(0, left.findIndex((x) => !left.some((y) => y !== x && before(y, x))));
    out.push(left.splice(at, 1)[0]!);
  }
  return out;
}
