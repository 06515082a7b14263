/**
 * Array accesses of the instructions and the shapes they imply: the bounding box of each axis's
 * index over the iteration domain of the access (the instruction's within-inames plus the
 * inames of enclosing reductions).
 */
import type { Expr } from "../ir/expr.js";
import type { Kernel } from "../ir/kernel.js";
import { aff, affAdd } from "../poly/index.js";
import { affToExpr, constMin, exprToAff, indexBounds, joinMax, maxOf } from "./shapes.js";
import type { Aff } from "../poly/index.js";

/** The expressions of one instruction (rules expanded) and its within-inames. */
export interface AccessInput {
  readonly lhs: Expr | undefined;
  readonly rhs: Expr | undefined;
  readonly predicates: readonly Expr[];
  readonly within: readonly string[];
}

interface Access {
  readonly indices: readonly Expr[] | undefined; // undefined: a linear subscript
  readonly inames: ReadonlySet<string>;
  readonly write: boolean;
}

function collect(e: Expr, name: string, inames: ReadonlySet<string>, write: boolean, out: Access[]): void {
  switch (e.kind) {
    case "subscript":
      if (e.array === name) out.push({ indices: e.indices, inames, write });
      for (const i of e.indices) collect(i, name, inames, false, out);
      return;
    case "linear":
      if (e.array === name) out.push({ indices: undefined, inames, write });
      collect(e.index, name, inames, false, out);
      return;
    case "reduce":
      collect(e.body, name, new Set([...inames, ...e.inames]), false, out);
      return;
    case "var": case "const": return;
    case "arith": case "compare": case "logical": collect(e.left, name, inames, false, out); collect(e.right, name, inames, false, out); return;
    case "neg": case "bitnot": case "not": collect(e.operand, name, inames, false, out); return;
    case "if": for (const k of [e.cond, e.then, e.else]) collect(k, name, inames, false, out); return;
    case "call": for (const a of e.args) collect(a, name, inames, false, out); return;
    case "cast": collect(e.value, name, inames, false, out); return;
  }
}

function accessesOf(insns: readonly AccessInput[], name: string): Access[] {
  const out: Access[] = [];
  for (const insn of insns) {
    const inames = new Set(insn.within);
    if (insn.lhs) collect(insn.lhs, name, inames, true, out);
    if (insn.rhs) collect(insn.rhs, name, inames, false, out);
    for (const p of insn.predicates) collect(p, name, inames, false, out);
  }
  return out;
}

/** Largest index per axis over `accs`, or undefined where it is not one affine form. */
function axisMaxima(k: Kernel, accs: readonly Access[], rank: number): (Aff | undefined)[] {
  return Array.from({ length: rank }, (_, d) => {
    let m: Aff | undefined;
    for (const [n, a] of accs.entries()) {
      const idx = exprToAff(a.indices![d]!);
      const mx = idx && maxOf(indexBounds(k, a.inames, idx).upper);
      m = n === 0 ? mx : joinMax(m, mx);
      if (!m) return undefined;
    }
    return m;
  });
}

/**
 * The shape of argument `name` from its accesses (`a[i]`, `a[i+1]` over `0 <= i < n` → [n + 1]):
 * `[]` when it is never subscripted, undefined
 * when an index is not affine, a linear subscript is used, or a bound is not one affine form.
 */
export function accessShape(k: Kernel, insns: readonly AccessInput[], name: string, temporaries: ReadonlySet<string>): Expr[] | undefined {
  const accs = accessesOf(insns, name);
  if (accs.length === 0) return [];
  if (accs.some((a) => a.indices === undefined)) return undefined;
  const rank = accs[0]!.indices!.length;
  if (accs.some((a) => a.indices!.length !== rank)) return undefined;
  const maxima = axisMaxima(k, accs, rank);
  if (maxima.some((m) => m === undefined || Object.keys(m.terms).some((t) => temporaries.has(t)))) return undefined;
  return maxima.map((m) => affToExpr(affAdd(m!, aff({}, 1))));
}

/**
 * The shape of a `<> t[ii] = …` temporary (`0 <= ii < 8` → [8]; `0 <= i < n` → [n], a parametric
 * shape, which loopy makes a global temporary) from the indices it is written with: each axis runs
 * from 0 to the largest written index, a constant or one affine form in the kernel's parameters
 * (never in a value computed in the kernel). `fail` reports why not.
 */
export function temporaryShape(k: Kernel, insns: readonly AccessInput[], name: string, fail: (msg: string) => never, temporaries: ReadonlySet<string> = new Set()): Expr[] {
  const all = accessesOf(insns, name);
  const writes = all.filter((a) => a.write);
  const accs = writes.length > 0 ? writes : all;
  if (accs.some((a) => a.indices === undefined)) fail(`cannot infer the shape of temporary "${name}" from a linear subscript [[…]]; declare it with temporary()`);
  const rank = accs[0]?.indices?.length ?? 0;
  if (accs.some((a) => a.indices!.length !== rank)) fail(`temporary "${name}" is written with different numbers of indices`);
  return Array.from({ length: rank }, (_, d) => {
    let hi: Aff | undefined;
    for (const [n, a] of accs.entries()) {
      const idx = exprToAff(a.indices![d]!);
      if (!idx) fail(`cannot infer the shape of temporary "${name}": index ${d} is not affine in the inames`);
      const b = indexBounds(k, a.inames, idx);
      const mx = maxOf(b.upper);
      const computed = mx && Object.keys(mx.terms).filter((t) => temporaries.has(t));
      if (!mx || computed!.length > 0) {
        const shown = mx ? ` (it is at most ${exprToAffText(mx)}, and ${computed!.join(", ")} ${computed!.length > 1 ? "are values" : "is a value"} computed in the kernel)` : " (its largest value is not one affine form in the parameters)";
        fail(`cannot infer the shape of temporary "${name}": the bounds of its written indices must be constants or affine in the kernel's parameters${shown}; declare it with temporary()`);
      }
      const lo = constMin(b.lower);
      if (lo === undefined || lo < 0) fail(`cannot infer the shape of temporary "${name}": index ${d} may be negative`);
      const both = n === 0 ? mx : Object.keys(mx.terms).length === 0 && Object.keys(hi!.terms).length === 0 ? aff({}, Math.max(mx.constant, hi!.constant)) : joinMax(hi, mx);
      if (!both) fail(`cannot infer the shape of temporary "${name}": its writers reach different largest indices ${exprToAffText(hi!)} and ${exprToAffText(mx)} along axis ${d}; declare it with temporary()`);
      hi = both;
    }
    return affToExpr(affAdd(hi!, aff({}, 1)));
  });
}

function exprToAffText(a: Aff): string {
  const parts = Object.entries(a.terms).map(([n, k]) => (k === 1 ? n : `${k}*${n}`));
  if (a.constant !== 0 || parts.length === 0) parts.push(String(a.constant));
  return parts.join(" + ").replace(/\+ -/g, "- ");
}
