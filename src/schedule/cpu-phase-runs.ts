/**
 * Definite assignment over the runs of a phase (cpu-privatize.ts's `barrierCrossing`): on CPU targets a
 * phase (the code between two barriers) runs whole for one work-item before the next, so a private
 * value that every work-item writes in each run before it reads it there carries nothing from one
 * run to another, and one slot serves the whole work-group (OCCA's iso3dfd: `float value = 0.0f;
 * value += …; for (ir …) value += …; out = … value …` in an `@inner` loop that a loop with barriers
 * runs again). What a phase may leave unwritten is not a write: one under a condition the read does
 * not share, one in a loop (it may run no trip), another cell of an array.
 */
import { exprEquals, freeVariables, insnExprs, insnWrites, walkExpr, type Expr, type Instruction, type Kernel } from "../ir/index.js";
import { domainParamsOf, hasBarrier } from "./cpu-params.js";
import type { ScheduleNode } from "./types.js";

/** A write of this run: `writer` ran (at the reader's values of its inames) while the variables its guard reads held `seen`. */
interface Fact {
  readonly writer: Instruction;
  /** The cell written (`t[e]`), for an array; absent for a scalar. */
  readonly cell?: Expr;
  readonly seen: readonly (readonly [string, number])[];
}

/**
 * Those of `names` (private temporaries touched in device-kernel `body`) that every run of every
 * phase writes before it reads them: at each read of `t` (of cell `t[e]`, for an array), an
 * assignment of `t` (of `t[e]`, the same index expressions) ran earlier in the same run, outside any
 * loop the read is not in, within inames the read runs within and under predicates it is under,
 * and no variable that assignment's predicates, indices or loop bounds read has been written since
 * (a loop's body counts as written before its first trip, as later trips follow earlier ones).
 * Reads: predicates, right-hand sides, indices, an atomic update's target, a block touching `t`
 * (where `t` is an array, a block, a bare `t` or a flat index makes it fail).
 *
 *   for fld { t { w = x[t]; s[t] = w } barrier; … }   // w: rewritten in each run, in the result
 *   for fld { t { if (fld == 0) w = x[t]; s[t] = w } … } // w: carried, not in it
 */
export function assignedBeforeRead(k: Kernel, body: readonly ScheduleNode[], names: ReadonlySet<string>, byId: ReadonlyMap<string, Instruction>): Set<string> {
  const failed = new Set<string>();
  const writes = new Map<string, number>();
  const bump = (x: string): void => { writes.set(x, (writes.get(x) ?? 0) + 1); };
  let facts = new Map<string, Fact[]>();
  const valid = (f: Fact): boolean => f.seen.every(([x, n]) => (writes.get(x) ?? 0) === n);
  const covered = (t: string, r: Instruction, cell?: Expr): boolean =>
    (facts.get(t) ?? []).some((f) => valid(f) && within(f.writer, r) && (cell === undefined ? f.cell === undefined : f.cell !== undefined && exprEquals(f.cell, cell)));
  const guardReads = (w: Instruction, cell?: Expr): readonly (readonly [string, number])[] => {
    const vars = new Set<string>(domainParamsOf(k, w));
    for (const p of w.predicates) freeVariables(p, vars);
    if (cell?.kind === "subscript") for (const e of cell.indices) freeVariables(e, vars);
    return [...vars].map((x) => [x, writes.get(x) ?? 0] as const);
  };
  const visitInsn = (r: Instruction): void => {
    const mine = [...touchedNames(r)].filter((t) => names.has(t) && !failed.has(t));
    const added: [string, Fact][] = [];
    for (const t of mine) {
      if (!readsCovered(r, t, (cell) => covered(t, r, cell))) {
        failed.add(t);
        continue;
      }
      // A write of what a fact already covers adds nothing (that fact's guard reads are among its
      // own): an accumulation of thousands of updates keeps one fact.
      if (r.kind !== "assign" || covered(t, r, r.lhs.kind === "var" ? undefined : r.lhs)) continue;
      if (r.lhs.kind === "var" && r.lhs.name === t) added.push([t, { writer: r, seen: guardReads(r) }]);
      else if (r.lhs.kind === "subscript" && r.lhs.array === t) added.push([t, { writer: r, cell: r.lhs, seen: guardReads(r, r.lhs) }]);
    }
    for (const [t, f] of added) facts.set(t, [...(facts.get(t) ?? []), f]);
    for (const x of insnWrites(r)) bump(x);
  };
  const walk = (nodes: readonly ScheduleNode[]): void => {
    for (const n of nodes) {
      if (n.kind === "barrier") facts = new Map();
      else if (n.kind === "insn") {
        const r = byId.get(n.id);
        if (r !== undefined) visitInsn(r);
      } else if (hasBarrier(n.body)) {
        // Each trip's phases are runs of their own: nothing of the run before carries into the body or out of it.
        facts = new Map();
        for (const x of writtenIn(n.body, byId)) bump(x);
        walk(n.body);
        facts = new Map();
      } else {
        // The loop may run no trip: what its body writes is forgotten after it; and a later trip
        // follows what the body wrote in the trip before, so those writes count before the first.
        for (const x of writtenIn(n.body, byId)) bump(x);
        const before = facts;
        // (A fact's list is replaced, never changed in place: a copy of the map keeps `before` as it was.)
        facts = new Map(before);
        walk(n.body);
        facts = before;
      }
    }
  };
  walk(body);
  return new Set([...names].filter((t) => !failed.has(t)));
}

/**
 * Whether every read of `t` by `r` is `covered` (a scalar: `covered()`; a cell `t[e]`: `covered(t[e])`).
 * A write of the whole scalar, or of a cell with indices that do not read `t`, is not a read.
 */
function readsCovered(r: Instruction, t: string, covered: (cell?: Expr) => boolean): boolean {
  if (r.kind === "block") return covered();
  let ok = true;
  const read = (e: Expr): void => {
    walkExpr(e, (n) => {
      if (!ok) return false;
      if (n.kind === "var" && n.name === t) ok = covered();
      else if (n.kind === "linear" && n.array === t) ok = false;
      else if (n.kind === "subscript" && n.array === t) {
        ok = covered(n);
        // Its indices are read too (`t[t[0]]`).
        if (ok) n.indices.forEach(read);
        return false;
      }
      return ok;
    });
  };
  if (r.kind !== "assign") {
    insnExprs(r).forEach(read);
    return ok;
  }
  r.predicates.forEach(read);
  read(r.rhs);
  const lhs = r.lhs;
  if (lhs.kind === "var" && lhs.name === t) return ok && (r.atomicity === "none" || covered());
  if (lhs.kind === "subscript" && lhs.array === t) {
    lhs.indices.forEach(read);
    return ok && (r.atomicity === "none" || covered(lhs));
  }
  read(lhs);
  return ok;
}

/** Every variable the instructions of `nodes` write. */
function writtenIn(nodes: readonly ScheduleNode[], byId: ReadonlyMap<string, Instruction>, out: Set<string> = new Set()): Set<string> {
  for (const n of nodes) {
    if (n.kind === "loop") writtenIn(n.body, byId, out);
    else if (n.kind === "insn") {
      const r = byId.get(n.id);
      if (r !== undefined) for (const x of insnWrites(r)) out.add(x);
    }
  }
  return out;
}

/** Per instruction (kernels are immutable): the variables its expressions name (bare names, arrays of subscripts and flat indices). */
const touchedMemo = new WeakMap<Instruction, ReadonlySet<string>>();

/** The variables an instruction reads or writes (bare names, arrays of subscripts and flat indices). */
export function touchedNames(insn: Instruction): ReadonlySet<string> {
  const hit = touchedMemo.get(insn);
  if (hit) return hit;
  const out = new Set<string>();
  for (const e of insnExprs(insn)) {
    walkExpr(e, (n) => {
      if (n.kind === "var") out.add(n.name);
      else if (n.kind === "subscript" || n.kind === "linear") out.add(n.array);
    });
  }
  touchedMemo.set(insn, out);
  return out;
}

/** Whether an instruction reads or writes variable `name`. */
export function touches(insn: Instruction, name: string): boolean {
  return touchedNames(insn).has(name);
}

/** Whether `r` runs within every iname of `d` and under every predicate of `d` (so wherever `r` runs, `d` ran at the same values of its inames). */
export function within(d: Instruction, r: Instruction): boolean {
  return d.withinInames.every((i) => r.withinInames.includes(i)) && d.predicates.every((p) => r.predicates.some((q) => exprEquals(p, q)));
}
