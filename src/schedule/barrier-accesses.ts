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
  /**
   * Whether its instruction can be the source end of a barrier-needing dependency: another
   * instruction depends on it, or it belongs to or conflicts with a group (see `canBeSource`).
   * An access without it is skipped as the earlier end of a forward pair, and as the later
   * end of a loop-carried one, without looking (in an unrolled kernel, its thousands of stores).
   */
  readonly source?: boolean;
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
  /** The same four lists, of the accesses that can be a dependency's source (`Access.source`) only. */
  readonly sources: Omit<ByName, "sources">;
}

type Lists = Omit<ByName, "sources">;

const lists = (): Lists => ({ all: [], writes: [], strictAll: [], strictWrites: [] });

function push(e: Lists, a: Access, strict: boolean): void {
  e.all.push(a);
  if (strict) e.strictAll.push(a);
  if (a.write) {
    e.writes.push(a);
    if (strict) e.strictWrites.push(a);
  }
}

export function addByName(m: Map<string, ByName>, a: Access): void {
  let e = m.get(a.name);
  if (!e) m.set(a.name, (e = { ...lists(), sources: lists() }));
  const strict = !raceOk(a);
  push(e, a, strict);
  if (a.source) push(e.sources, a, strict);
}

export function raceOk(a: Access): boolean {
  return a.insn.tags.includes(WRITE_RACE_OK);
}

/**
 * The accesses of `m` that may conflict with `a` (see `pairConflict`), in the order they were
 * added: same variable, one of the two a write, not both WRITE_RACE_OK if `global` (the variable is in global memory);
 * with `sourcesOnly`, only those that can be a dependency's source (`Access.source`).
 */
export function partnersOf(m: ReadonlyMap<string, ByName>, a: Access, global: boolean, sourcesOnly = false): readonly Access[] {
  const found = m.get(a.name);
  if (!found) return [];
  const e: Lists = sourcesOnly ? found.sources : found;
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
 * Whether instruction `target` depends on `source` through the dependency graph (`insns` by id),
 * answered from the ancestors of `target` or the dependents of `source`, whichever is found
 * first: both are walked in step and the one finished is kept for later questions. Barrier
 * placement asks about pairs that touch the same memory; in an unrolled chain of thousands of
 * instructions every store's ancestors are the whole chain before it (all of them: quadratic),
 * while an earlier store has few dependents (the barrier after them, if any). An instruction no
 * other one depends on is answered at once.
 */
export class DependencyClosure {
  private readonly ancestors = new Map<string, ReadonlySet<string>>();
  private readonly descendants = new Map<string, ReadonlySet<string>>();
  private dependents: Map<string, string[]> | undefined;

  constructor(private readonly insns: ReadonlyMap<string, Instruction>) {}

  /** Whether some instruction depends on `source` directly (a walk from any target can only reach such a one). */
  hasDependents(source: string): boolean {
    return this.dependentsMap().has(source);
  }

  private dependentsMap(): Map<string, string[]> {
    if (this.dependents === undefined) {
      this.dependents = new Map();
      for (const insn of this.insns.values()) {
        for (const d of insn.dependsOn) {
          // Only edges a walk of dependsOn follows (to known instructions).
          if (!this.insns.has(d)) continue;
          const list = this.dependents.get(d);
          if (list === undefined) this.dependents.set(d, [insn.id]);
          else list.push(insn.id);
        }
      }
    }
    return this.dependents;
  }

  dependsOn(target: string, source: string): boolean {
    const known = this.ancestors.get(target);
    if (known !== undefined) return known.has(source);
    const below = this.descendants.get(source);
    if (below !== undefined) return below.has(target);
    const dependents = this.dependentsMap();
    // A walk from target adds d only when some walked instruction lists d.
    if (!dependents.has(source)) return false;
    const up = new Walk(target, (id) => this.insns.get(id)?.dependsOn ?? [], (d) => this.insns.has(d));
    const down = new Walk(source, (id) => dependents.get(id) ?? [], () => true);
    for (;;) {
      if (!up.step()) {
        this.ancestors.set(target, up.found);
        return up.found.has(source);
      }
      if (!down.step()) {
        this.descendants.set(source, down.found);
        return down.found.has(target);
      }
    }
  }
}

/** A depth-first walk from `start` along `next`, one node expanded per step. */
class Walk {
  readonly found = new Set<string>();
  private readonly stack: string[];

  constructor(start: string, private readonly next: (id: string) => readonly string[], private readonly keep: (id: string) => boolean) {
    this.stack = [start];
  }

  /** Expand one node; false when the walk is complete. */
  step(): boolean {
    const id = this.stack.pop();
    if (id === undefined) return false;
    for (const d of this.next(id)) {
      if (!this.keep(d) || this.found.has(d)) continue;
      this.found.add(d);
      this.stack.push(d);
    }
    return true;
  }
}
