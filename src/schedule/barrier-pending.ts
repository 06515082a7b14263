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

/** Lists no longer than this are scanned (a few accesses: no maps built); longer ones are indexed. */
const SCAN_UP_TO = 24;

/**
 * The accesses since the last barrier, in order (each once), indexed by the dependency graph
 * (`candidates`) once the list is long. Accesses whose instruction has more dependents than the
 * closure's `narrow`, or groups, are kept in `wide` and always looked at: the index leaves out only
 * pairs that cannot need a barrier. A short list (most loop bodies: a copy per loop entered, an
 * empty one per barrier) is scanned with the same rule and builds no map.
 */
export class Pending {
  readonly list: Access[] = [];
  /** Each access's place in `list` (long lists: `add` tests membership, candidates are returned in that order). */
  private at: Map<Access, number> | undefined;
  /** Every access by variable (long lists). */
  private byName: Map<string, ByName> | undefined;
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
    const out = new Pending(this.deps, [], this.plain);
    // The list holds each access once already: copied as it is (indexed again once it is long).
    for (let x = 0; x < this.list.length; x++) out.list.push(this.list[x]!);
    if (out.list.length > SCAN_UP_TO) out.indexAll();
    return out;
  }

  /** Append `xs`, each access once (a set union in order). */
  add(xs: Iterable<Access>): this {
    for (const a of xs) {
      if (this.at !== undefined) {
        if (this.at.has(a)) continue;
      } else if (this.list.includes(a)) continue;
      this.list.push(a);
      if (this.at !== undefined) this.note(a, this.list.length - 1);
      else if (this.list.length > SCAN_UP_TO) this.indexAll();
    }
    return this;
  }

  /** The maps of a long list, from the list so far (then kept by `add`). */
  private indexAll(): void {
    this.at = new Map();
    this.byName = new Map();
    for (let x = 0; x < this.list.length; x++) this.note(this.list[x]!, x);
  }

  private note(a: Access, x: number): void {
    this.at!.set(a, x);
    addByName(this.byName!, a);
    pushTo(this.byInsn ??= new Map(), a.insn.id, a);
    if (a.source && !this.plain) pushTo(this.unindexed ??= new Map(), a.name, a);
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
    if (this.at === undefined) return this.scan(later, global, reverse);
    const all = partnersOf(this.byName!, later, global);
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
    return found.length > 1 ? found.sort((x, y) => this.at!.get(x)! - this.at!.get(y)!) : found;
  }

  /**
   * `candidates` of a short list, by a scan in order with the index's rule: forward, sources that
   * are wide or whose dependents include `later`'s instruction; reverse, every partner where
   * `later`'s instruction has many dependents, else the wide sources and the accesses of its
   * dependents.
   */
  private scan(later: Access, global: boolean, reverse: boolean): readonly Access[] {
    let out: Access[] | undefined;
    let below: ReadonlySet<string> | undefined;
    let belowAsked = false;
    for (let x = 0; x < this.list.length; x++) {
      const e = this.list[x]!;
      if (!memoryPartners(e, later, global)) continue;
      let take: boolean;
      if (this.plain) take = reverse || e.source === true;
      else if (!reverse) take = e.source === true && (grouped(e) || this.dependsOnEarlier(e, later));
      else {
        if (!belowAsked) (below = this.deps.narrowDependents(later.insn.id), belowAsked = true);
        take = below === undefined || (e.source === true && this.isWide(e)) || below.has(e.insn.id);
      }
      if (take) (out ??= []).push(e);
    }
    return out ?? NONE;
  }

  /** Whether `later`'s instruction is among the dependents of `e`'s (which are few), or `e`'s has many (wide). */
  private dependsOnEarlier(e: Access, later: Access): boolean {
    const below = this.deps.narrowDependents(e.insn.id);
    return below === undefined || below.has(later.insn.id);
  }

  private isWide(e: Access): boolean {
    return grouped(e) || this.deps.narrowDependents(e.insn.id) === undefined;
  }
}

const NONE: readonly Access[] = Object.freeze([]);

function pushTo<K, V>(m: Map<K, V[]>, key: K, v: V): void {
  const list = m.get(key);
  if (list === undefined) m.set(key, [v]);
  else list.push(v);
}
