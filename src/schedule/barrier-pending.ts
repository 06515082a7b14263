/**
 * The accesses since the last barrier (barriers.ts), indexed so that a new access is paired only
 * with those a barrier could be needed for: a pair needs one only where the later instruction
 * depends on the earlier (or, loop-carried, the earlier on the later) or their groups conflict
 * (`barrierNeedingDependency`). In bench/scale's unrolled kernel with a global barrier after every
 * store, each store's only dependents are the barrier and what follows it: looking at every
 * earlier store of the same array made placement quadratic (717k pairs at 3,000 instructions,
 * issue 21); the index finds none to look at.
 */
import { addByName, partnersOf, raceOk, type Access, type ByName, type DependencyClosure } from "./barrier-accesses.js";

/** Whether `e` (pending) and `later` may conflict by their memory alone: `partnersOf`'s rule. */
function memoryPartners(e: Access, later: Access, global: boolean): boolean {
  return e.name === later.name && (e.write || later.write) && !(global && raceOk(e) && raceOk(later));
}

/** Whether `a`'s instruction belongs to or conflicts with a group: a pair through groups needs no dependency. */
const grouped = (a: Access): boolean => a.insn.groups.length > 0 || a.insn.conflictsWithGroups.length > 0;

/**
 * The accesses since the last barrier, in order (each once), by variable, and indexed by the
 * dependency graph (`candidates`). Accesses whose instruction has more dependents than the
 * closure's `narrow`, or groups, are kept in `wide` and always looked at: the index leaves out only
 * pairs that cannot need a barrier.
 */
export class Pending {
  readonly list: Access[] = [];
  readonly byName = new Map<string, ByName>();
  /** Each access's place in `list`: candidates are returned in that order. */
  private readonly at = new Map<Access, number>();
  /** Source accesses (`Access.source`) with few dependents, under each dependent's id, then by variable. */
  private reaching: Map<string, Map<string, Access[]>> | undefined;
  /** Source accesses with many dependents or with groups, by variable. */
  private wide: Map<string, ByName> | undefined;
  /** Every access under its instruction's id (loop-carried pairs: the dependents of the later one). */
  private byInsn: Map<string, Access[]> | undefined;
  /**
   * Source accesses not indexed yet, by variable, in order: indexed when an access they may pair
   * with asks (thousands of reads of an OKL kernel's `s_D` never are: no write of it follows them).
   */
  private unindexed: Map<string, Access[]> | undefined;

  /** `plain`: no index, `candidates` are every pending access of the variable (the route the index is checked against). */
  constructor(private readonly deps: DependencyClosure, from: Iterable<Access> = [], private readonly plain = false) {
    this.add(from);
  }

  /** An empty list over the same dependency closure. */
  empty(): Pending {
    return new Pending(this.deps, [], this.plain);
  }

  /** A copy of this list (then `add` to it). */
  copy(): Pending {
    return new Pending(this.deps, this.list, this.plain);
  }

  /** Append `xs`, each access once (a set union in order). */
  add(xs: Iterable<Access>): this {
    for (const a of xs) {
      if (this.at.has(a)) continue;
      this.at.set(a, this.list.length);
      this.list.push(a);
      addByName(this.byName, a);
      pushTo(this.byInsn ??= new Map(), a.insn.id, a);
      if (!a.source || this.plain) continue;
      pushTo(this.unindexed ??= new Map(), a.name, a);
    }
    return this;
  }

  /** Index the pending source accesses of `name` under their dependents, or as wide (in order: the lists stay in pending order). */
  private index(name: string): void {
    const u = this.unindexed?.get(name);
    if (u === undefined) return;
    this.unindexed!.delete(name);
    for (const a of u) {
      const below = grouped(a) ? undefined : this.deps.narrowDependents(a.insn.id);
      if (below === undefined) {
        addByName(this.wide ??= new Map(), a);
        continue;
      }
      for (const t of below) {
        let byVar = (this.reaching ??= new Map()).get(t);
        if (byVar === undefined) this.reaching.set(t, (byVar = new Map()));
        pushTo(byVar, a.name, a);
      }
    }
  }

  /**
   * The pending accesses that may need a barrier before `later`, in order: of the same variable,
   * one of the two a write (not both WRITE_RACE_OK where `global`), and (`reverse` false) sources
   * whose instruction `later`'s depends on, or (`reverse`: a loop-carried pair) those whose
   * instruction depends on `later`'s; with groups, any. Every pair `pairConflict` accepts is
   * among them; `later` must be a source where `reverse`.
   */
  candidates(later: Access, global: boolean, reverse: boolean): readonly Access[] {
    const all = partnersOf(this.byName, later, global);
    if (this.plain) return reverse ? all : all.filter((e) => e.source);
    if (all.length === 0) return all;
    this.index(later.name);
    const wide = this.wide === undefined ? [] : partnersOf(this.wide, later, global);
    let found: Access[];
    if (!reverse) {
      found = [];
      for (const e of this.reaching?.get(later.insn.id)?.get(later.name) ?? []) if (memoryPartners(e, later, global)) found.push(e);
    } else {
      const below = this.deps.narrowDependents(later.insn.id);
      if (below === undefined) return all;
      found = [];
      for (const d of below) {
        for (const e of this.byInsn?.get(d) ?? []) {
          // A wide access is taken below, once.
          if (memoryPartners(e, later, global) && !(e.source && this.isWide(e))) found.push(e);
        }
      }
    }
    if (found.length === 0) return wide;
    if (wide.length > 0) found.push(...wide);
    return found.length > 1 ? found.sort((x, y) => this.at.get(x)! - this.at.get(y)!) : found;
  }

  private isWide(e: Access): boolean {
    return grouped(e) || this.deps.narrowDependents(e.insn.id) === undefined;
  }
}

function pushTo<K, V>(m: Map<K, V[]>, key: K, v: V): void {
  const list = m.get(key);
  if (list === undefined) m.set(key, [v]);
  else list.push(v);
}
