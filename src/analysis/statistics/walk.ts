/**
 * What the counters share: the nodes of each instruction's expressions with the inames they run
 * over (the instruction's loops, plus the reduction inames of every reduction around the node),
 * and the symbolic number of points of such a set of inames.
 */
import { LoomError } from "../../errors.js";
import {
  bareArrayProblem, chainDomain, children, findArg, findTemporary, inferTypes, insnExprs, iterationDomain, kernelTypeEnv, walkExpr,
  type Expr, type Instruction, type Kernel, type LinearSubscript, type Subscript, type TypeEnv,
} from "../../ir/index.js";
import { eliminate, type BasicSet } from "../../poly/index.js";
import type { CountGranularity } from "./count-map.js";
import { Count, countSet } from "./count.js";

export interface CountOptions {
  /** Count an instruction once per work-item of the whole grid even where it does not use a hardware axis (loopy's count_redundant_work). */
  readonly countRedundantWork?: boolean;
  /** Work-items per sub-group, for counts per sub-group (default 32). */
  readonly subgroupSize?: number;
  /**
   * What one count is: an event per work-item ("workitem", the default), per sub-group
   * ("subgroup": once for the sub-groups of a work-group, as a uniform load is), per work-group
   * ("workgroup"), or "auto": per key as loopy picks (operations and local accesses per
   * sub-group; a global access per work-item where it varies along l.0, else per sub-group).
   */
  readonly countGranularity?: CountGranularity | "auto";
}

const GRANULARITIES = ["workitem", "subgroup", "workgroup", "auto"] as const;

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

const typeEnvs = new WeakMap<Kernel, TypeEnv>();

/** The kernel's typing environment after type inference (once per kernel: kernels are frozen values). */
export function statisticsTypeEnv(k: Kernel): TypeEnv {
  let env = typeEnvs.get(k);
  if (!env) typeEnvs.set(k, (env = kernelTypeEnv(inferTypes(k))));
  return env;
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

/**
 * The array element `node` loads or stores, as a subscript: `a[i]` and `a[[k]]` themselves, and
 * the bare name of a 0-d array argument or temporary (`out = sum(i, a[i])` with `out: float64[]`
 * stores its one element, as the code's `out[0] = ...` does); undefined for anything else. A bare
 * name of an array with axes is a LoomError, as the interpreter refuses it.
 */
export function elementAccess(k: Kernel, node: Expr, insn: Instruction): Subscript | LinearSubscript | undefined {
  if (node.kind === "subscript" || node.kind === "linear") return node;
  if (node.kind !== "var") return undefined;
  const arg = findArg(k, node.name);
  const arr = arg ? (arg.kind === "array" ? arg : undefined) : findTemporary(k, node.name);
  if (!arr) return undefined;
  const bare = bareArrayProblem(k, node.name, insn.id);
  if (bare) throw new LoomError(`statistics: ${bare}, so which element it accesses is not defined (write ${node.name}[${Array(arr.shape!.length).fill("0").join(", ")}])`);
  return { kind: "subscript", array: node.name, indices: [] };
}

/**
 * The hardware-tagged inames of `k` (g and l axes) that some instruction runs over (its loops or
 * a reduction's inames): a tagged iname no instruction uses is on no launch's grid (the
 * scheduler leaves it out), so it makes no redundant work and no work-items.
 */
export function hardwareInames(k: Kernel): string[] {
  const used = new Set<string>();
  for (const insn of k.instructions) {
    for (const i of insn.withinInames) used.add(i);
    for (const e of insnExprs(insn)) walkExpr(e, (n) => { if (n.kind === "reduce") n.inames.forEach((i) => used.add(i)); });
  }
  return Object.entries(k.inameTags).filter(([i, t]) => used.has(i) && (t.kind === "g" || t.kind === "l" || t.kind === "l.auto")).map(([i]) => i);
}

/** `g.0`, `l.1`: the hardware axis of a tagged iname, or undefined. */
function axisOf(k: Kernel, iname: string): string | undefined {
  const t = k.inameTags[iname];
  return t?.kind === "g" || t?.kind === "l" ? `${t.kind}.${t.axis}` : undefined;
}

/**
 * The extent of `iname` between the constant bounds its domain gives it alone (`0 <= i_inner <= 15`),
 * or, failing those rows, its projection (the other inames eliminated: `0 <= i_inner_outer <= 1`
 * from `0 <= i_inner_inner <= 4 - 3*i_inner_outer`, as the launch's grid has it): an upper bound of
 * its number of values, or undefined when it has no such pair.
 */
function boxExtent(k: Kernel, iname: string): number | undefined {
  const chain = chainDomain(k, [iname]);
  return constantBox(chain, iname) ?? constantBox(eliminate(chain, [...chain.dims.filter((d) => d !== iname), ...chain.exists]), iname);
}

/** The extent between the constant rows of `iname` alone in `d`, or undefined without such a pair. */
function constantBox(d: BasicSet, iname: string): number | undefined {
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
function axisExtents(k: Kernel, groupsOnly = false): Map<string, number | string> {
  const byAxis = new Map<string, string[]>();
  for (const i of hardwareInames(k)) {
    if (groupsOnly && k.inameTags[i]?.kind !== "g") continue;
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
 * Refuses a kernel whose global barriers split it into several device kernels: each launches its
 * own grid (the inames its instructions use), which the counts of redundant work and of
 * sub-groups would need per instruction, and which only the schedule knows.
 */
function oneGrid(k: Kernel, what: string): void {
  const gb = k.instructions.filter((i) => i.kind === "barrier" && i.scope === "global").map((i) => `"${i.id}"`);
  if (gb.length > 0) {
    throw new LoomError(`${what}: kernel "${k.name}" has global barriers (${gb.join(", ")}), which split it into device kernels that each launch their own grid; ` +
      `counting per grid is not supported: count per work-item, without countRedundantWork`);
  }
}

/**
 * A memo of `Count`s of iname sets: the points of the kernel's domain projected onto the inames
 * (with `countRedundantWork`, times the extent of each hardware axis they do not use).
 */
export function domainCounter(k: Kernel, opts: CountOptions, groupsOnly = false): (inames: readonly string[]) => Count {
  const memo = new Map<string, Count>();
  if (opts.countRedundantWork && hardwareInames(k).length > 0) oneGrid(k, "countRedundantWork");
  const axes = opts.countRedundantWork ? axisExtents(k, groupsOnly) : new Map<string, number | string>();
  return (inames) => {
    const used = new Set(inames.map((i) => axisOf(k, i)));
    const unused = [...axes].filter(([a]) => !used.has(a)).map(([, e]) => e);
    const byName = unused.filter((e): e is string => typeof e === "string").sort();
    const factor = unused.filter((e): e is number => typeof e === "number").reduce((x, y) => x * y, 1);
    const key = `${[...inames].sort().join(",")}*${byName.join(",")}*${factor}`;
    let hit = memo.get(key);
    if (!hit) {
      // The grid along an unused axis is every value of its iname, whatever the instruction's own
      // inames are: a product, not the joint domain (where i_outer and i_inner are tied).
      hit = countSet(iterationDomain(k, [...inames].sort()), k.assumptions).scale(factor);
      for (const i of byName) hit = hit.mul(countSet(iterationDomain(k, [i]), k.assumptions));
      memo.set(key, hit);
    }
    return hit;
  };
}

/** Whether `iname` runs along a local (work-item) axis. */
function isLocal(k: Kernel, iname: string): boolean {
  const t = k.inameTags[iname]?.kind;
  return t === "l" || t === "l.auto";
}

/** The granularity option, checked. */
export function granularityOption(opts: CountOptions, who: string): CountGranularity | "auto" {
  const g = opts.countGranularity ?? "workitem";
  if (!(GRANULARITIES as readonly string[]).includes(g)) {
    throw new LoomError(`${who}: countGranularity "${String(g)}" is not one of ${GRANULARITIES.join(", ")}`);
  }
  const sgs = opts.subgroupSize;
  if (sgs !== undefined && !(Number.isSafeInteger(sgs) && sgs >= 1)) {
    throw new LoomError(`${who}: subgroupSize ${String(sgs)} is not a positive integer (work-items per sub-group, e.g. 32)`);
  }
  return g;
}

/**
 * The work-items of a work-group: per local axis the largest constant box of an iname on it
 * (loopy's grid size upper bound), multiplied. A LoomError when an extent depends on the parameters.
 */
export function workGroupSize(k: Kernel, who: string): number {
  const byAxis = new Map<number, number>();
  for (const i of hardwareInames(k)) {
    const t = k.inameTags[i]!;
    if (t.kind === "g") continue;
    if (t.kind === "l.auto") throw new LoomError(`${who}: iname "${i}" is tagged l.auto, whose axis the scheduler picks; tag it l.N to count per sub-group`);
    if (t.kind !== "l") continue;
    const e = boxExtent(k, i);
    if (e === undefined) throw new LoomError(`${who}: the extent of "${i}" (l.${t.axis}) depends on the parameters, so the work-group size, and the sub-groups in it, are not known; split it by a constant to count per sub-group`);
    byAxis.set(t.axis, Math.max(byAxis.get(t.axis) ?? 0, e));
  }
  return [...byAxis.values()].reduce((x, y) => x * y, 1);
}

/**
 * Counts of iname sets at a granularity: per work-item, the points (domainCounter); per
 * work-group, the points without the local inames (redundant work over g axes only); per
 * sub-group, that times the sub-groups of a work-group, ceil(work-group size / subgroupSize).
 */
export function granularityCounter(k: Kernel, opts: CountOptions, who: string): (inames: readonly string[], g: CountGranularity) => Count {
  const items = domainCounter(k, opts);
  let groups: ((inames: readonly string[]) => Count) | undefined;
  let subgroups: number | undefined;
  return (inames, g) => {
    if (g === "workitem") return items(inames);
    groups ??= domainCounter(k, opts, true);
    const perGroup = groups(inames.filter((i) => !isLocal(k, i)));
    if (g === "workgroup") return perGroup;
    if (subgroups === undefined && hardwareInames(k).some((i) => isLocal(k, i))) oneGrid(k, `${who} per sub-group`);
    subgroups ??= Math.ceil(workGroupSize(k, who) / (opts.subgroupSize ?? 32));
    return perGroup.scale(subgroups);
  };
}
