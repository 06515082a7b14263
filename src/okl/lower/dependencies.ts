/**
 * The instructions of a kernel in program order, with the data dependencies between them: each
 * instruction depends on the last writer of what it reads and writes, on the readers of what it
 * overwrites since the last write, and on the last barrier; a barrier depends on everything since
 * the previous one. Also records which array arguments are read and written, and their accesses
 * (for footprints).
 *
 *   log.assign("insn", a[i] = b[i], ctx, false, bound); log.barrier("barrier", "local", [])
 */
import { assigneeName, blockAccesses, blockExprs, guardedSubscripts, insnDefaults, insnExprs, walkExpr, WRITE_RACE_OK, type BlockStmt, type Expr, type Instruction } from "../../ir/index.js";
import type { Ctx } from "./bindings.js";
import { eachNode, frozenExpr, needsTypeCheck, someNode } from "./expr-scan.js";
import { affineGuards } from "./loop-rows.js";
import type { FlatAccess } from "./shapes.js";

/** The empty list every instruction without tags, groups or predicates shares. */
const NONE: readonly never[] = Object.freeze([]);

/**
 * The tags of every imported instruction: OCCA checks no write races, so the instructions keep the
 * author's meaning, racy or not (instructions that transformations add later are checked). One
 * frozen list shared by all (assemble.ts adds it to any instruction made without it).
 */
const RACE_OK: readonly string[] = Object.freeze([WRITE_RACE_OK]);

export class InstructionLog {
  readonly insns: Instruction[] = [];
  private readonly lastWriter = new Map<string, string>();
  private readonly readersSince = new Map<string, string[]>();
  private sinceBarrier: string[] = [];
  private lastBarrier: string | undefined;
  /** Per array argument, its subscripts with their inames and affine guards. */
  readonly accesses = new Map<string, FlatAccess[]>();
  readonly written = new Set<string>();
  readonly read = new Set<string>();
  /** The instructions with a node C's operand-type check types (`needsTypeCheck`), seen in the walk that finds their reads. */
  readonly typeChecked = new Set<string>();
  private typed = false;

  /** The names the instruction being appended reads: one set, emptied per instruction (not one to collect per instruction). */
  private readonly reads = new Set<string>();

  /** `arrayArgs`: the kernel's pointer arguments (their accesses are recorded). */
  constructor(private readonly arrayArgs: ReadonlySet<string>) {}

  /**
   * Append instruction `id`: `lhs = rhs` (an atomic update when `atomic`) under `ctx`'s inames and
   * predicates. `boundTemps`: per iname, the trip-count temporaries its domain takes as parameters.
   */
  assign(id: string, lhs: Expr, rhs: Expr, ctx: Ctx, atomic: boolean, boundTemps: ReadonlyMap<string, readonly string[]>): void {
    const target = assigneeName(lhs);
    const reads = this.reads;
    reads.clear();
    this.typed = false;
    this.note(lhs, true, lhs, reads, ctx);
    this.note(rhs, false, lhs, reads, ctx);
    for (const p of ctx.preds) this.note(p, false, lhs, reads, ctx);
    if (atomic) reads.add(target);
    if (this.typed) this.typeChecked.add(id);
    // A loop bounded by a trip-count temporary reads it (its domain's parameter).
    for (const i of ctx.within) {
      const ts = boundTemps.get(i);
      if (ts) for (const t of ts) reads.add(t);
    }
    const l = frozenExpr(lhs);
    const r = frozenExpr(rhs);
    const predicates = this.frozen(ctx.preds);
    const insn: Instruction = {
      kind: "assign", id, lhs: l, rhs: r, atomicity: atomic ? "update" : "none",
      withinInames: this.sorted(ctx.within), dependsOn: Object.freeze(this.link(id, reads, [target])), predicates,
      noSyncWith: NONE, priority: 0, tags: RACE_OK, groups: NONE, conflictsWithGroups: NONE,
    };
    // Frozen here when all of it is (the kernel record's deepFreeze then passes it by: no key enumeration per instruction).
    this.insns.push(Object.isFrozen(l) && Object.isFrozen(r) && Object.isFrozen(predicates) ? Object.freeze(insn) : insn);
  }

  /**
   * Lists shared by the instructions of one statement list: the sorted inames of a `within` list
   * and a frozen copy of a predicate list, made once per list (a kernel of thousands of statements
   * under the same loops allocates, and its record freezes, one of each).
   */
  private readonly sortedWithin = new WeakMap<readonly string[], readonly string[]>();
  private readonly frozenPreds = new WeakMap<readonly Expr[], readonly Expr[]>();
  private sorted(within: readonly string[]): readonly string[] {
    let s = this.sortedWithin.get(within);
    if (!s) this.sortedWithin.set(within, (s = Object.freeze([...within].sort())));
    return s;
  }
  private frozen(preds: readonly Expr[]): readonly Expr[] {
    if (preds.length === 0) return NONE as readonly Expr[];
    let s = this.frozenPreds.get(preds);
    if (!s) {
      // The list is frozen only with its predicates (the record's deepFreeze does not enter a frozen list).
      const copy = preds.map(frozenExpr);
      this.frozenPreds.set(preds, (s = copy.every((p) => Object.isFrozen(p)) ? Object.freeze(copy) : copy));
    }
    return s;
  }

  /** The names `e` reads (into `reads`), and its accesses of array arguments with the conditions C evaluates them under. */
  private note(e: Expr, write: boolean, lhs: Expr, reads: Set<string>, ctx: Ctx): void {
    // One walk: the names read, the subscripts, and whether a select, && or || may guard some.
    let selects = false;
    const subs: Expr[] = [];
    eachNode(e, (n) => {
      if (n.kind === "var") reads.add(n.name);
      else if (n.kind === "subscript") {
        if (!(write && n === lhs)) reads.add(n.array);
        if (this.arrayArgs.has(n.array)) subs.push(n);
      } else if (n.kind === "if" || n.kind === "logical") selects = true;
      else if (needsTypeCheck(n)) this.typed = true;
    });
    if (subs.length === 0) return;
    // Each access with the conditions C evaluates it under (the instruction's predicates, and
    // the selects, && and || around it): its footprint is where it runs. Without selects, every
    // access runs under the predicates alone.
    const guarded = selects ? guardedSubscripts(e, ctx.preds) : subs.map((node) => ({ node, guards: ctx.preds }));
    for (const { node: n, guards } of guarded) {
      if (n.kind !== "subscript" || !this.arrayArgs.has(n.array)) continue;
      (write && n === lhs ? this.written : this.read).add(n.array);
      const list = this.accesses.get(n.array) ?? [];
      list.push({ index: n.indices[0]!, within: ctx.within, guards: this.affine(guards) });
      this.accesses.set(n.array, list);
    }
  }

  /** The affine guards of a predicate list, made once per list (the statements of one block share theirs). */
  private readonly affineOf = new WeakMap<readonly Expr[], ReturnType<typeof affineGuards>>();
  private affine(guards: readonly Expr[]): ReturnType<typeof affineGuards> {
    let a = this.affineOf.get(guards);
    if (!a) this.affineOf.set(guards, (a = affineGuards(guards)));
    return a;
  }

  /**
   * Append block `id` running `body` under `ctx`: it reads and writes the whole variables it
   * names, and its subscripts are not affine (its arrays get no footprint shape).
   */
  block(id: string, body: readonly BlockStmt[], ctx: Ctx, boundTemps: ReadonlyMap<string, readonly string[]>): void {
    const { reads: r, writes } = blockAccesses(body);
    const reads = new Set(r);
    for (const p of ctx.preds) walkExpr(p, (n) => void (n.kind === "var" ? reads.add(n.name) : n.kind === "subscript" && reads.add(n.array)));
    for (const i of ctx.within) for (const t of boundTemps.get(i) ?? []) reads.add(t);
    const opaque: Expr = { kind: "call", fn: "(block)", args: [] };
    for (const e of blockExprs(body)) {
      walkExpr(e, (n) => {
        if (n.kind !== "subscript" || !this.arrayArgs.has(n.array)) return;
        const list = this.accesses.get(n.array) ?? [];
        list.push({ index: opaque, within: ctx.within, guards: [] });
        this.accesses.set(n.array, list);
      });
    }
    for (const a of this.arrayArgs) {
      if (writes.has(a)) this.written.add(a);
      if (r.has(a)) this.read.add(a);
    }
    // (Object.assign: a spread of the fresh defaults takes V8 a slow path, ~35 µs; see make-kernel.ts.)
    const insn = Object.assign(insnDefaults(id), {
      kind: "block" as const, body,
      withinInames: [...ctx.within].sort(), dependsOn: this.link(id, reads, [...writes]), predicates: [...ctx.preds], tags: RACE_OK,
    });
    if (insnExprs(insn).some((e) => someNode(e, needsTypeCheck))) this.typeChecked.add(id);
    this.insns.push(insn);
  }

  /**
   * The dependencies of instruction `id`, which reads `reads` and writes `writes`: the last writer
   * of each, the readers since the last write of what it writes, the last barrier; and `id` noted
   * as their last writer, as a reader of the rest, and as run since the last barrier.
   */
  private link(id: string, reads: ReadonlySet<string>, writes: readonly string[]): string[] {
    // Collected with repeats, then sorted and made unique in place (no set, no copy per instruction).
    const deps: string[] = [];
    for (const name of reads) {
      const w = this.lastWriter.get(name);
      if (w) deps.push(w);
    }
    for (const name of writes) {
      const w = this.lastWriter.get(name);
      if (w) deps.push(w);
    }
    for (const name of reads) {
      if (writes.includes(name)) continue;
      const list = this.readersSince.get(name);
      if (list) list.push(id);
      else this.readersSince.set(name, [id]);
    }
    for (const name of writes) {
      const readers = this.readersSince.get(name);
      if (readers) for (const rd of readers) deps.push(rd);
      this.lastWriter.set(name, id);
      this.readersSince.delete(name);
    }
    if (this.lastBarrier) deps.push(this.lastBarrier);
    this.sinceBarrier.push(id);
    return sortedUnique(deps, id);
  }

  /** Append barrier `id`, within `within` (none for a global barrier). */
  barrier(id: string, scope: "local" | "global", within: readonly string[]): void {
    const deps = [...this.sinceBarrier, ...(this.lastBarrier ? [this.lastBarrier] : [])];
    this.insns.push(Object.assign(insnDefaults(id), {
      kind: "barrier" as const, scope,
      withinInames: [...within], dependsOn: [...new Set(deps)].sort(), tags: RACE_OK,
    }));
    this.sinceBarrier = [];
    this.lastBarrier = id;
  }
}

/**
 * `names` sorted (as Array.prototype.sort sorts strings: by UTF-16 code units) with repeats and
 * `drop` left out; short lists (an instruction's few dependencies) in place by insertion.
 */
function sortedUnique(names: string[], drop: string): string[] {
  if (names.length > 32) return [...new Set(names)].filter((n) => n !== drop).sort();
  for (let k = 1; k < names.length; k++) {
    const x = names[k]!;
    let j = k - 1;
    while (j >= 0 && names[j]! > x) {
      names[j + 1] = names[j]!;
      j--;
    }
    names[j + 1] = x;
  }
  let n = 0;
  for (let k = 0; k < names.length; k++) {
    const x = names[k]!;
    if (x !== drop && (n === 0 || names[n - 1] !== x)) names[n++] = x;
  }
  names.length = n;
  return names;
}
