/**
 * The accesses barrier placement (barriers.ts) works with, and their index by variable: a new
 * access is checked only against the accesses it may conflict with, not against every access
 * since the last barrier (thousands in an unrolled OKL kernel: issue 21); and the dependency
 * closure, walked only for the instructions asked about.
 */
import { WRITE_RACE_OK, type Expr, type Instruction } from "../ir/index.js";

/** One read or write of a synchronized variable by an instruction. */
export interface Access {
  readonly insn: Instruction;
  readonly name: string;
  readonly write: boolean;
  /** Per-axis indices; undefined where the cell is not known (a flat `a[[…]]` index). */
  readonly indices: readonly Expr[] | undefined;
  /** The flat index of an `a[[…]]` access (`indices` is undefined there). */
  readonly linear?: Expr;
}

/**
 * The accesses of one variable, in order, and its writes among them; `strict…` leave out those of
 * instructions tagged WRITE_RACE_OK (OKL's), which need no barrier on global memory between them.
 */
export interface ByName {
  readonly all: Access[];
  readonly writes: Access[];
  readonly strictAll: Access[];
  readonly strictWrites: Access[];
}

export function addByName(m: Map<string, ByName>, a: Access): void {
  let e = m.get(a.name);
  if (!e) m.set(a.name, (e = { all: [], writes: [], strictAll: [], strictWrites: [] }));
  const strict = !raceOk(a);
  e.all.push(a);
  if (strict) e.strictAll.push(a);
  if (a.write) {
    e.writes.push(a);
    if (strict) e.strictWrites.push(a);
  }
}

export function raceOk(a: Access): boolean {
  return a.insn.tags.includes(WRITE_RACE_OK);
}

/**
 * The accesses of `m` that may conflict with `a` (see `pairConflict`), in the order they were
 * added: same variable, one of the two a write, not both WRITE_RACE_OK if `global` (the variable is in global memory).
 */
export function partnersOf(m: ReadonlyMap<string, ByName>, a: Access, global: boolean): readonly Access[] {
  const e = m.get(a.name);
  if (!e) return [];
  const strict = global && raceOk(a);
  return a.write ? (strict ? e.strictAll : e.all) : strict ? e.strictWrites : e.writes;
}

/**
 * The accesses since the last barrier, in order, indexed by variable so that a new access is
 * checked only against those it may conflict with (not against every pending access).
 */
export class Pending {
  readonly list: Access[] = [];
  readonly byName = new Map<string, ByName>();
  private readonly seen = new Set<Access>();

  constructor(from: Iterable<Access> = []) {
    this.add(from);
  }

  /** Append `xs`, each access once (a set union in order). */
  add(xs: Iterable<Access>): this {
    for (const a of xs) {
      if (this.seen.has(a)) continue;
      this.seen.add(a);
      this.list.push(a);
      addByName(this.byName, a);
    }
    return this;
  }
}

/**
 * Whether instruction `target` depends on `source` through the dependency graph (`insns` by id).
 * One instruction's closure is walked when first asked, and kept: all of them for a chain of
 * thousands of instructions would be quadratic, and barrier placement asks about the few pairs
 * that touch the same memory only. An instruction no other one depends on (the stores at the end
 * of an unrolled chain) is in no closure, and is answered without a walk.
 */
export class DependencyClosure {
  private readonly closures = new Map<string, ReadonlySet<string>>();
  private depended: Set<string> | undefined;

  constructor(private readonly insns: ReadonlyMap<string, Instruction>) {}

  dependsOn(target: string, source: string): boolean {
    if (this.depended === undefined) {
      this.depended = new Set();
      for (const insn of this.insns.values()) for (const d of insn.dependsOn) this.depended.add(d);
    }
    // A walk from target adds d only when some walked instruction lists d.
    if (!this.depended.has(source)) return false;
    let seen = this.closures.get(target);
    if (!seen) {
      const found = new Set<string>();
      const stack = [target];
      while (stack.length > 0) {
        for (const d of this.insns.get(stack.pop()!)?.dependsOn ?? []) {
          if (!this.insns.has(d) || found.has(d)) continue;
          found.add(d);
          stack.push(d);
        }
      }
      this.closures.set(target, (seen = found));
    }
    return seen.has(source);
  }
}
