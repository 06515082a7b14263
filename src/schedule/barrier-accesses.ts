/**
 * The accesses barrier placement (barriers.ts) works with (each instruction's reads and writes
 * of synchronized variables), their lists by variable (see
 * barrier-pending.ts for the accesses since the last barrier), and the dependency closure, walked
 * only for the instructions asked about.
 */
import { assertNever } from "../errors.js";
import { blockAccesses, insnBoundReads, WRITE_RACE_OK, type Expr, type Instruction, type Kernel } from "../ir/index.js";

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
   * An access without it is never the earlier end of a forward pair, nor the later end of a
   * loop-carried one (see Pending).
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
  /** Instructions found to have more than `narrow` dependents (see `narrowDependents`). */
  private readonly wide = new Set<string>();

  /**
   * `narrow`: how many instructions may depend on one for `narrowDependents` to list them (an
   * index entry each, see Pending); more, and the instruction's accesses are looked at in full.
   */
  constructor(private readonly insns: ReadonlyMap<string, Instruction>, readonly narrow = 64) {}

  /**
   * The instructions that depend on `source` directly or transitively, if there are at most
   * `narrow` of them (an earlier store in an unrolled kernel: the barrier after it); else
   * undefined, found without walking them all (an early link of a chain has the whole chain).
   */
  narrowDependents(source: string): ReadonlySet<string> | undefined {
    const known = this.descendants.get(source);
    if (known !== undefined) return known.size <= this.narrow ? known : undefined;
    if (this.wide.has(source)) return undefined;
    const dependents = this.dependentsMap();
    const down = new Walk(source, (id) => dependents.get(id) ?? [], () => true);
    while (down.found.size <= this.narrow) {
      if (!down.step()) {
        this.descendants.set(source, down.found);
        return down.found;
      }
    }
    this.wide.add(source);
    return undefined;
  }

  /** Whether some instruction depends on `source` directly (a walk from any target can only reach such a one). */
  hasDependents(source: string): boolean {
    return this.dependentsMap().has(source);
  }

  private dependentsMap(): Map<string, string[]> {
    if (this.dependents === undefined) {
      this.dependents = new Map();
      for (const insn of this.insns.values()) {
        const ds = insn.dependsOn;
        for (let x = 0; x < ds.length; x++) {
          const d = ds[x]!;
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
    const next = this.next(id);
    for (let x = 0; x < next.length; x++) {
      const d = next[x]!;
      if (!this.keep(d) || this.found.has(d)) continue;
      this.found.add(d);
      this.stack.push(d);
    }
    return true;
  }
}

/**
 * Whether `insn` can be the source of a barrier-needing dependency (`barrierNeedingDependency`):
 * only if some instruction depends on it (else no target's dependency walk reaches it) or it has
 * groups or conflicting groups (else no group conflict names it).
 */
export function canBeSource(deps: DependencyClosure, insn: Instruction): boolean {
  return insn.groups.length > 0 || insn.conflictsWithGroups.length > 0 || deps.hasDependents(insn.id);
}

/**
 * The accesses of synchronized variables by `insn`: what it reads and writes, and the scalars that
 * bound the loops it runs in (a local `t` of `[t] -> {[r]: 0 <= r < t}` is read by every instruction
 * inside `r`; written by another work-item, it needs a barrier before them as any read does).
 */
export function insnAccesses(insn: Instruction, synced: ReadonlySet<string>, source: boolean, k?: Pick<Kernel, "domains">): Access[] {
  const out: Access[] = [];
  if (k !== undefined) for (const name of insnBoundReads(k, insn)) if (synced.has(name)) out.push({ insn, name, write: false, indices: [], source });
  if (insn.kind === "block") {
    // A block's subscripts are not analyzed: it touches the whole variable, from any cell.
    for (let x = 0; x < insn.predicates.length; x++) readsIn(insn.predicates[x]!, insn, synced, source, out);
    const { reads: r, writes: w } = blockAccesses(insn.body);
    for (const name of r) if (synced.has(name)) out.push({ insn, name, write: false, indices: undefined, source });
    for (const name of w) if (synced.has(name)) out.push({ insn, name, write: true, indices: undefined, source });
    return out;
  }
  if (insn.kind !== "assign") return out;
  for (let x = 0; x < insn.predicates.length; x++) readsIn(insn.predicates[x]!, insn, synced, source, out);
  readsIn(insn.rhs, insn, synced, source, out);
  const lhs = insn.lhs;
  if (lhs.kind === "subscript") for (let x = 0; x < lhs.indices.length; x++) readsIn(lhs.indices[x]!, insn, synced, source, out);
  if (lhs.kind === "linear") readsIn(lhs.index, insn, synced, source, out);
  const name = lhs.kind === "var" ? lhs.name : lhs.kind === "subscript" || lhs.kind === "linear" ? lhs.array : undefined;
  if (name !== undefined && synced.has(name)) {
    out.push({ insn, name, write: true, indices: lhs.kind === "subscript" ? lhs.indices : lhs.kind === "var" ? [] : undefined, ...(lhs.kind === "linear" ? { linear: lhs.index } : {}), source });
  }
  return out;
}

/**
 * The reads of synchronized variables in `e`, pre-order (walkExpr's order), added to `out`: a plain
 * recursion, no closure per instruction, indexed loops over the (frozen) children (a for-of over a
 * frozen array allocates per element).
 */
function readsIn(e: Expr, insn: Instruction, synced: ReadonlySet<string>, source: boolean, out: Access[]): void {
  switch (e.kind) {
    case "var":
      if (synced.has(e.name)) out.push({ insn, name: e.name, write: false, indices: [], source });
      return;
    case "const": return;
    case "subscript":
      if (synced.has(e.array)) out.push({ insn, name: e.array, write: false, indices: e.indices, source });
      for (let x = 0; x < e.indices.length; x++) readsIn(e.indices[x]!, insn, synced, source, out);
      return;
    case "linear":
      if (synced.has(e.array)) out.push({ insn, name: e.array, write: false, indices: undefined, linear: e.index, source });
      readsIn(e.index, insn, synced, source, out);
      return;
    case "arith": case "compare": case "logical": readsIn(e.left, insn, synced, source, out); readsIn(e.right, insn, synced, source, out); return;
    case "neg": case "bitnot": case "not": readsIn(e.operand, insn, synced, source, out); return;
    case "if": readsIn(e.cond, insn, synced, source, out); readsIn(e.then, insn, synced, source, out); readsIn(e.else, insn, synced, source, out); return;
    case "call": for (let x = 0; x < e.args.length; x++) readsIn(e.args[x]!, insn, synced, source, out); return;
    case "reduce": readsIn(e.body, insn, synced, source, out); return;
    case "cast": readsIn(e.value, insn, synced, source, out); return;
    default: return assertNever(e, "expression");
  }
}
