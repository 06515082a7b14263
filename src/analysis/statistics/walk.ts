/**
 * What the counters share: the nodes of each instruction's expressions with the inames they run
 * over (the instruction's loops, plus the reduction inames of every reduction around the node),
 * and the symbolic number of points of such a set of inames.
 */
import { LoomError } from "../../errors.js";
import {
  children, inferTypes, iterationDomain, kernelTypeEnv,
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

/**
 * A memo of `Count`s of iname sets: the points of the kernel's domain projected onto the inames
 * (and onto every hardware iname too with `countRedundantWork`).
 */
export function domainCounter(k: Kernel, opts: CountOptions): (inames: readonly string[]) => Count {
  const memo = new Map<string, Count>();
  const extra = opts.countRedundantWork ? hardwareInames(k) : [];
  return (inames) => {
    const all = [...new Set([...inames, ...extra])].sort();
    const key = all.join(",");
    let hit = memo.get(key);
    if (!hit) memo.set(key, (hit = countSet(iterationDomain(k, all), k.assumptions)));
    return hit;
  };
}
