/**
 * Which loops surround each instruction (loopy's `find_all_insn_inames`): the inames it uses,
 * plus those of enclosing `for` blocks, plus the inames shared by all writers of the variables it
 * reads (less the inames those writers index their assignee with), plus the inames of parent
 * domains — iterated to a fixed point. `inames=i:j` fixes the set.
 */
import { naturalCompare } from "../ir/print.js";

/** What the within-iname and dependency rules need to know about one instruction. */
export interface InsnFacts {
  readonly id: string;
  /** Free names read: right-hand side, assignee indices and predicates (rules expanded). */
  readonly reads: ReadonlySet<string>;
  /** The variable written, if an assignment. */
  readonly writes: string | undefined;
  /** Names used in the assignee's indices. */
  readonly lhsIndexNames: ReadonlySet<string>;
  readonly reductionInames: ReadonlySet<string>;
  /** Inames from `for` blocks and `inames=+…`. */
  readonly extraInames: readonly string[];
  /** `inames=i:j`: the exact set. */
  readonly fixedInames: readonly string[] | undefined;
}

/** The forest as the rule needs it: the domain parameters of each iname's home domain. */
export interface ForestFacts {
  readonly inames: ReadonlySet<string>;
  /** iname → parameters of the domain defining it. */
  readonly homeParams: ReadonlyMap<string, readonly string[]>;
  /** Names of temporaries (a domain parameter that is a temporary ties readers to its writers). */
  readonly temporaries: ReadonlySet<string>;
}

/**
 * The within-inames of every instruction, sorted, keyed by id.
 *
 *   withinInames([{id: "a", reads: {"x", "i"}, …}], forest)  // Map { "a" => ["i"] }
 */
export function withinInames(insns: readonly InsnFacts[], forest: ForestFacts): Map<string, string[]> {
  const writers = new Map<string, InsnFacts[]>();
  for (const f of insns) if (f.writes !== undefined) writers.set(f.writes, [...(writers.get(f.writes) ?? []), f]);
  const sets = new Map<string, Set<string>>();
  for (const f of insns) {
    if (f.fixedInames) {
      sets.set(f.id, new Set(f.fixedInames));
      continue;
    }
    const s = new Set<string>(f.extraInames);
    for (const n of f.reads) if (forest.inames.has(n)) s.add(n);
    sets.set(f.id, s);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of insns) {
      if (f.fixedInames) continue;
      const mine = sets.get(f.id)!;
      const before = mine.size;
      // Variable use: inames common to all writers of each variable read.
      for (const v of f.reads) {
        const ws = writers.get(v);
        if (!ws) continue;
        let common: Set<string> | undefined;
        for (const w of ws) {
          const implicit = [...sets.get(w.id)!].filter((i) => !w.lhsIndexNames.has(i));
          common = common ? new Set(implicit.filter((i) => common!.has(i))) : new Set(implicit);
        }
        for (const i of common ?? []) if (!f.reductionInames.has(i)) mine.add(i);
      }
      // Domains: parent inames of my inames, and the inames of writers of loop bounds I sit in.
      for (const i of [...mine]) {
        for (const p of forest.homeParams.get(i) ?? []) {
          if (forest.inames.has(p)) mine.add(p);
          if (forest.temporaries.has(p)) for (const w of writers.get(p) ?? []) for (const wi of sets.get(w.id)!) mine.add(wi);
        }
      }
      if (mine.size !== before) changed = true;
    }
  }
  return new Map([...sets].map(([id, s]) => [id, [...s].sort(naturalCompare)]));
}
