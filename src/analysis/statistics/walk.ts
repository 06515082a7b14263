/**
 * What the counters share: the nodes of each instruction's expressions with the inames they run
 * over (the instruction's loops, plus the reduction inames of every reduction around the node),
 * and the symbolic number of points of such a set of inames.
 */
import { LoomError } from "../../errors.js";
import {
  chainDomain, children, inferTypes, iterationDomain, kernelTypeEnv,
  type Expr, type Instruction, type Kernel, type TypeEnv,
} from "../../ir/index.js";
import { Count, countSet } from "./count.js";

export interface CountOptions {
  /** Count an instruction once per work-item of the whole grid even where it does not use a hardware axis (loopy's count_redundant_work). */
  readonly countRedundantWork?: boolean;
  readonly subgroupSize?: number;
}

export interface Visit {
  readonly node: Expr;
  readonly insn: Instruction;
  /** The inames this node runs over (sorted). */
  readonly inames: readonly string[];
  /** Inside the index of a subscript. */
  readonly inSubscript: boolean;
  /** The left-hand side of an assignment (the stored subscript itself). */
  readonly isStore: boolean;
}

/** The kernel's typing environment after type inference. */
export function statisticsTypeEnv(k: Kernel): TypeEnv {
  return kernelTypeEnv(inferTypes(k));
}

/** Calls `visit` for every node of each assignment's left- and right-hand side (substitution rules expanded). */
export function walkKernel(k: Kernel, env: TypeEnv, visit: (v: Visit) => void): void {
  for (const insn of k.instructions) {
    if (insn.kind === "block") {
      throw new LoomError(`statistics: instruction "${insn.id}" is a block of opaque statements, whose operations and accesses cannot be counted; counts are supported for assignments, barriers and no-ops`);
    }
    if (insn.kind !== "assign") continue;
    const within = [...insn.withinInames].sort();
    const rec = (e: Expr, inames: readonly string[], inSubscript: boolean, isStore: boolean): void => {
      if (e.kind === "call") {
        const expanded = env.expandRule?.(e.fn, e.args);
        if (expanded) return rec(expanded, inames, inSubscript, false);
      }
      // A reduction's own operation runs once per point of its inames, like its body.
      const inner = e.kind === "reduce" ? [...new Set([...inames, ...e.inames])].sort() : inames;
      visit({ node: e, insn, inames: inner, inSubscript, isStore });
      const sub = inSubscript || e.kind === "subscript" || e.kind === "linear";
      for (const ch of children(e)) rec(ch, inner, sub, false);
    };
    rec(insn.lhs, within, false, true);
    rec(insn.rhs, within, false, false);
  }
}

/** The hardware-tagged inames of `k` (g and l axes). */
export function hardwareInames(k: Kernel): string[] {
  return Object.entries(k.inameTags).filter(([, t]) => t.kind === "g" || t.kind === "l" || t.kind === "l.auto").map(([i]) => i);
}

/** `g.0`, `l.1`: the hardware axis of a tagged iname, or undefined. */
function axisOf(k: Kernel, iname: string): string | undefined {
  const t = k.inameTags[iname];
  return t?.kind === "g" || t?.kind === "l" ? `${t.kind}.${t.axis}` : undefined;
}

/**
 * The extent of `iname` between the constant bounds its domain gives it alone (`0 <= i_inner <= 15`),
 * an upper bound of its number of values, or undefined when it has no such pair.
 */
function boxExtent(k: Kernel, iname: string): number | undefined {
  const d = chainDomain(k, [iname]);
  const col = d.params.length + d.dims.indexOf(iname);
  let lo = -Infinity;
  let hi = Infinity;
  for (const c of d.constraints) {
    const a = c.coeffs[col]!;
    if (a === 0 || c.coeffs.some((x, j) => j !== col && x !== 0)) continue;
    // a*x + constant (>= or =) 0
    if (a > 0 || c.eq) lo = Math.max(lo, Math.ceil(-c.constant / a));
    if (a < 0 || c.eq) hi = Math.min(hi, Math.floor(-c.constant / a));
  }
  return Number.isFinite(lo) && Number.isFinite(hi) ? Math.max(0, hi - lo + 1) : undefined;
}

/**
 * Per hardware axis, its extent (loopy's grid size upper bound): a number where every iname on
 * the axis lies in a constant box (work-item axes: the largest box), else the one iname on it.
 * With `countRedundantWork`, an instruction that does not use an axis runs once per point of it.
 * Several inames of parametric extent on one axis (the grid is their maximum) are refused.
 */
function axisExtents(k: Kernel): Map<string, number | string> {
  const byAxis = new Map<string, string[]>();
  for (const i of hardwareInames(k)) {
    const a = axisOf(k, i);
    if (!a) throw new LoomError(`countRedundantWork: iname "${i}" is tagged l.auto, whose axis the scheduler picks; tag it l.N to count redundant work`);
    byAxis.set(a, [...(byAxis.get(a) ?? []), i]);
  }
  const out = new Map<string, number | string>();
  for (const [a, names] of byAxis) {
    const boxes = names.map((i) => boxExtent(k, i));
    if (boxes.every((x) => x !== undefined)) out.set(a, Math.max(...(boxes as number[])));
    else if (new Set(names.map((i) => countSet(iterationDomain(k, [i]), k.assumptions).toString())).size === 1) out.set(a, names[0]!);
    else throw new LoomError(`countRedundantWork: the inames on axis ${a} (${names.join(", ")}) have different extents that depend on the parameters, so the grid along it is their maximum, which is not supported yet`);
  }
  return out;
}

/**
 * A memo of `Count`s of iname sets: the points of the kernel's domain projected onto the inames
 * (with `countRedundantWork`, times the extent of each hardware axis they do not use).
 */
export function domainCounter(k: Kernel, opts: CountOptions): (inames: readonly string[]) => Count {
  const memo = new Map<string, Count>();
  const axes = opts.countRedundantWork ? axisExtents(k) : new Map<string, number | string>();
  return (inames) => {
    const used = new Set(inames.map((i) => axisOf(k, i)));
    const unused = [...axes].filter(([a]) => !used.has(a)).map(([, e]) => e);
    const all = [...new Set([...inames, ...unused.filter((e): e is string => typeof e === "string")])].sort();
    const factor = unused.filter((e): e is number => typeof e === "number").reduce((x, y) => x * y, 1);
    const key = `${all.join(",")}*${factor}`;
    let hit = memo.get(key);
    if (!hit) memo.set(key, (hit = countSet(iterationDomain(k, all), k.assumptions).scale(factor)));
    return hit;
  };
}
