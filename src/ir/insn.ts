/** Instructions (loopy's "statements"): assignments, barriers and no-ops. */
import type { Expr } from "./expr.js";

export type SyncScope = "local" | "global" | "any";

/** `nosync=id@scope`: no barrier of `scope` is needed between this instruction and `id`. */
export interface NoSync {
  readonly id: string;
  readonly scope: SyncScope;
}

interface InsnBase {
  /** Unique within the kernel. */
  readonly id: string;
  /** The loops around the instruction (reduction inames excluded), sorted. */
  readonly withinInames: readonly string[];
  /** Ids of instructions whose code must come before this one. */
  readonly dependsOn: readonly string[];
  /** Conditions that must all hold for an instance to run (`if=` and enclosing `if` blocks). */
  readonly predicates: readonly Expr[];
  readonly noSyncWith: readonly NoSync[];
  /** Higher runs sooner when dependencies allow. */
  readonly priority: number;
  /**
   * Loops that must be the innermost around this instruction, outer first: the reduction inames
   * of a realized accumulator update (`acc_k = acc_k + …` must run its `k` loop inside the loops
   * of the instruction it came from, whatever the kernel-wide loop order).
   */
  readonly innerInames?: readonly string[];
  readonly tags: readonly string[];
  readonly groups: readonly string[];
  readonly conflictsWithGroups: readonly string[];
}

/** `lhs = rhs`; `atomicity` "update" makes the read-modify-write atomic, "init" an atomic first write. */
export interface Assignment extends InsnBase {
  readonly kind: "assign";
  readonly lhs: Expr;
  readonly rhs: Expr;
  readonly atomicity: "none" | "update" | "init";
}

/** `... lbarrier` / `... gbarrier`: all work-items of a group (or of the grid) meet here. */
export interface BarrierInsn extends InsnBase {
  readonly kind: "barrier";
  readonly scope: "local" | "global";
  /** `{mem_kind=…}`: the memory the barrier fences; absent means the default of `scope`. */
  readonly memKind?: "local" | "global";
}

/** `... nop`: a point to gather dependencies. */
export interface NoOpInsn extends InsnBase {
  readonly kind: "nop";
}

export type Instruction = Assignment | BarrierInsn | NoOpInsn;

/** Default values for the common fields of an instruction. */
export function insnDefaults(id: string): Omit<InsnBase, never> {
  return {
    id, withinInames: [], dependsOn: [], predicates: [], noSyncWith: [], priority: 0,
    tags: [], groups: [], conflictsWithGroups: [],
  };
}

/** Glob match as loopy's fnmatch for ids (`init_*`, `?`). */
export function globMatch(pattern: string, name: string): boolean {
  if (!/[*?[]/.test(pattern)) return pattern === name;
  const re = pattern.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${re}$`).test(name);
}
