/** Instructions (loopy's "statements"): assignments, opaque statement blocks, barriers and no-ops. */
import { assertNever } from "../errors.js";
import { blockAccesses, blockExprs, blockStores, mapBlockExprs, type BlockStmt } from "./block.js";
import { assigneeName, freeVariables, reductionInames, type Expr } from "./expr.js";

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

/**
 * The instruction tag that says its stores across parallel inames are meant (loopy's silenced
 * `write_race(id)` warning): the static write-race check leaves it alone. OKL import puts it on
 * every instruction it makes, as OCCA checks no races; instructions added later are checked.
 */
export const WRITE_RACE_OK = "write_race_ok";

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

/**
 * Code integer domains cannot express (while loops, break/continue, early exits), run once per
 * point of its loops like an assignment. It reads and writes whole variables: dependencies,
 * barriers and races treat every name it touches as touched everywhere (see block.ts).
 */
export interface BlockInsn extends InsnBase {
  readonly kind: "block";
  readonly body: readonly BlockStmt[];
}

export type Instruction = Assignment | BlockInsn | BarrierInsn | NoOpInsn;

/**
 * Every expression of `insn`: predicates, then both sides of an assignment or every expression
 * of a block. `insnExprs(insn).some((e) => freeVariables(e).has("n"))` asks whether it uses `n`.
 */
export function insnExprs(insn: Instruction): Expr[] {
  switch (insn.kind) {
    case "assign": return [...insn.predicates, insn.lhs, insn.rhs];
    case "block": return [...insn.predicates, ...blockExprs(insn.body)];
    case "barrier": case "nop": return [...insn.predicates];
    default: return assertNever(insn, "instruction");
  }
}

/**
 * `insn` with `f` applied to every expression (predicates, left-hand sides whole, right-hand
 * sides, every expression of a block): the one place transforms reach into instructions.
 *   mapInsnExprs(insn, (e) => renameVars(e, names))
 */
export function mapInsnExprs(insn: Instruction, f: (e: Expr) => Expr): Instruction {
  // Unchanged instructions are returned as the same objects, as `mapBlockExprs` returns
  // statements: memos kept per instruction (its inames) stay valid across transforms.
  // (Indexed: V8 takes a slow generic path for map() and every() over frozen arrays.)
  const mapped: Expr[] = [];
  let same = true;
  for (let j = 0; j < insn.predicates.length; j++) {
    const p = f(insn.predicates[j]!);
    mapped.push(p);
    if (p !== insn.predicates[j]) same = false;
  }
  const predicates = same ? insn.predicates : mapped;
  switch (insn.kind) {
    case "assign": {
      const lhs = f(insn.lhs);
      const rhs = f(insn.rhs);
      return predicates === insn.predicates && lhs === insn.lhs && rhs === insn.rhs ? insn : { ...insn, predicates, lhs, rhs };
    }
    case "block": {
      const body = mapBlockExprs(insn.body, f);
      return predicates === insn.predicates && body === insn.body ? insn : { ...insn, predicates, body };
    }
    case "barrier": case "nop": return predicates === insn.predicates ? insn : { ...insn, predicates };
    default: return assertNever(insn, "instruction");
  }
}

/** The targets `insn` stores into: an assignment's left-hand side, a block's non-local targets. */
export function insnStores(insn: Instruction): Expr[] {
  switch (insn.kind) {
    case "assign": return [insn.lhs];
    case "block": return blockStores(insn.body);
    case "barrier": case "nop": return [];
    default: return assertNever(insn, "instruction");
  }
}

/** The variables `insn` writes: an assignment's target, everything a block assigns outside itself. */
export function insnWrites(insn: Instruction): string[] {
  switch (insn.kind) {
    case "assign": return [assigneeName(insn.lhs)];
    case "block": return [...blockAccesses(insn.body).writes];
    case "barrier": case "nop": return [];
    default: return assertNever(insn, "instruction");
  }
}

/** Every variable `insn` reads (right-hand side, left-hand side indices, predicates, a block's reads), added to `out`. */
export function insnReads(insn: Instruction, out: Set<string> = new Set()): Set<string> {
  for (const p of insn.predicates) freeVariables(p, out);
  if (insn.kind === "block") for (const n of blockAccesses(insn.body).reads) out.add(n);
  if (insn.kind !== "assign") return out;
  freeVariables(insn.rhs, out);
  if (insn.lhs.kind === "subscript") for (const i of insn.lhs.indices) freeVariables(i, out);
  if (insn.lhs.kind === "linear") freeVariables(insn.lhs.index, out);
  return out;
}

/** Domains as the bound helpers below read them (a `Kernel`'s `domains`). */
type DomainsOf = { readonly domains: readonly { readonly dims: readonly string[]; readonly params: readonly string[] }[] };

/**
 * The domain parameters of the loops `insn` runs in (its own and its reductions'), added to `out`:
 * a scalar `t` of `[t] -> {[r]: 0 <= r < t}` is read, as a bound, by every instruction inside `r`.
 */
export function insnBoundReads(k: DomainsOf, insn: Instruction, out: Set<string> = new Set()): Set<string> {
  if (!k.domains.some((d) => d.params.length > 0)) return out;
  const loops = new Set(insn.withinInames);
  if (insn.kind === "assign") reductionInames(insn.rhs, loops);
  for (const d of k.domains) if (d.params.length > 0 && d.dims.some((x) => loops.has(x))) for (const p of d.params) out.add(p);
  return out;
}

/**
 * `insnReads` plus `insnBoundReads`. Checks of values that must reach their readers (across a
 * global barrier) ask this, not `insnReads`, so that a scalar bounding a loop counts as used there.
 */
export function insnReadsWithBounds(k: DomainsOf, insn: Instruction, out: Set<string> = new Set()): Set<string> {
  return insnBoundReads(k, insn, insnReads(insn, out));
}

/** Default values for the common fields of an instruction. */
export function insnDefaults(id: string): Omit<InsnBase, never> {
  return {
    id, withinInames: [], dependsOn: [], predicates: [], noSyncWith: [], priority: 0,
    tags: [], groups: [], conflictsWithGroups: [],
  };
}

/**
 * Glob match as Python's fnmatch, which loopy uses for ids: `*`, `?`, sets `[ab]`, ranges `[a-c]`,
 * negated sets `[!1]`; a `[` without its closing `]` is a plain character (never an error).
 *
 *   globMatch("s[!1]", "s2")  // true
 */
export function globMatch(pattern: string, name: string): boolean {
  if (!/[*?[]/.test(pattern)) return pattern === name;
  return fnmatchRegExp(pattern).test(name);
}

const fnmatchMemo = new Map<string, RegExp>();

/** Python's fnmatch.translate: a set's `]` right after `[` or `[!` is a member, `\\` is literal inside a set. */
function fnmatchRegExp(pattern: string): RegExp {
  const hit = fnmatchMemo.get(pattern);
  if (hit !== undefined) return hit;
  const escape = (ch: string) => ch.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "*") re += ".*";
    else if (ch === "?") re += ".";
    else if (ch === "[") {
      let j = i + 1;
      if (pattern[j] === "!") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        re += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, j);
      const negated = body.startsWith("!");
      if (negated) body = body.slice(1);
      // Members one by one; `a-c` stays a range (its ends escaped).
      let set = "";
      for (let m = 0; m < body.length; m++) {
        if (body[m + 1] === "-" && m + 2 < body.length) {
          // A reversed range (`b-a`) is empty, as in Python's fnmatch (never a RegExp error).
          if (body[m]! <= body[m + 2]!) set += `${escape(body[m]!)}-${escape(body[m + 2]!)}`;
          m += 2;
        } else set += escape(body[m]!);
      }
      re += set === "" ? (negated ? "." : "(?!)") : `[${negated ? "^" : ""}${set}]`;
      i = j;
    } else re += escape(ch);
  }
  const out = new RegExp(`^${re}$`, "s");
  if (fnmatchMemo.size > 1000) fnmatchMemo.clear();
  fnmatchMemo.set(pattern, out);
  return out;
}

const inamesMemo = new WeakMap<Instruction, readonly string[]>();

/** Whether `e` has a reduction: a plain walk, indexed loops over the (frozen) children (V8's `some()` on a frozen array is a slow path). */
export function hasReduce(e: Expr): boolean {
  switch (e.kind) {
    case "var": case "const": return false;
    case "reduce": return true;
    case "arith": case "compare": case "logical": return hasReduce(e.left) || hasReduce(e.right);
    case "neg": case "bitnot": case "not": return hasReduce(e.operand);
    case "if": return hasReduce(e.cond) || hasReduce(e.then) || hasReduce(e.else);
    case "call":
      for (let x = 0; x < e.args.length; x++) if (hasReduce(e.args[x]!)) return true;
      return false;
    case "subscript":
      for (let x = 0; x < e.indices.length; x++) if (hasReduce(e.indices[x]!)) return true;
      return false;
    case "linear": return hasReduce(e.index);
    case "cast": return hasReduce(e.value);
    default: return assertNever(e, "expression");
  }
}

/** Whether a name occurs twice in `xs`. */
export function hasDuplicate(xs: readonly string[]): boolean {
  for (let i = 1; i < xs.length; i++) for (let j = 0; j < i; j++) if (xs[i] === xs[j]) return true;
  return false;
}

/**
 * Every iname `insn` uses: its loops (`withinInames`, in order), then the reduction inames of its
 * right-hand side, left-hand side and predicates. Remembered per (frozen) instruction: scheduling,
 * checks and footprints all ask, for every instruction, many times per kernel.
 */
export function insnInames(insn: Instruction): readonly string[] {
  let hit = inamesMemo.get(insn);
  if (hit !== undefined) return hit;
  // Most instructions have no reduction: their loops, as they are (no set, and no memo entry per
  // expression, which reductionInames would add: a cost, in kernels of thousands of instructions).
  let reduces = false;
  for (let i = 0; i < insn.predicates.length && !reduces; i++) reduces = hasReduce(insn.predicates[i]!);
  if (!reduces && (insn.kind !== "assign" || (!hasReduce(insn.rhs) && !hasReduce(insn.lhs))) && !hasDuplicate(insn.withinInames)) {
    hit = Object.isFrozen(insn.withinInames) ? insn.withinInames : Object.freeze([...insn.withinInames]);
    if (Object.isFrozen(insn)) inamesMemo.set(insn, hit);
    return hit;
  }
  // (Indexed adds: a Set built from a frozen array takes V8's slow iteration path.)
  const out = new Set<string>();
  for (let i = 0; i < insn.withinInames.length; i++) out.add(insn.withinInames[i]!);
  if (insn.kind === "assign") {
    reductionInames(insn.rhs, out);
    reductionInames(insn.lhs, out);
  }
  for (let i = 0; i < insn.predicates.length; i++) reductionInames(insn.predicates[i]!, out);
  hit = Object.freeze([...out]);
  if (Object.isFrozen(insn)) inamesMemo.set(insn, hit);
  return hit;
}

/**
 * Record that the frozen instruction `to` has the inames of `from` (insnInames' answer, the same
 * frozen array), where the caller made `to` from `from` without changing its loops or reductions:
 * a fetch's reader with its reads redirected to the temporary, whose next fetch asks them again.
 * Not recorded where `to` is not frozen.
 */
export function sameInsnInames(to: Instruction, from: Instruction): void {
  if (Object.isFrozen(to) && !inamesMemo.has(to)) inamesMemo.set(to, insnInames(from));
}

const depMemo = new WeakMap<readonly Instruction[], ReadonlyMap<string, ReadonlySet<string>>>();

/**
 * The transitive closure of `dependsOn` (loopy's `recursive_insn_dep_map`): per instruction id,
 * every id it depends on directly or through others. Memoized per instruction list (frozen).
 */
export function dependencyClosure(instructions: readonly Instruction[]): ReadonlyMap<string, ReadonlySet<string>> {
  const hit = depMemo.get(instructions);
  if (hit) return hit;
  const byId = new Map(instructions.map((x) => [x.id, x]));
  const out = new Map<string, Set<string>>();
  const visit = (id: string, onPath: Set<string>): Set<string> => {
    const done = out.get(id);
    if (done) return done;
    const acc = new Set<string>();
    if (onPath.has(id)) return acc; // a cycle: linearization reports it
    onPath.add(id);
    for (const d of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(d)) continue;
      acc.add(d);
      for (const x of visit(d, onPath)) acc.add(x);
    }
    onPath.delete(id);
    out.set(id, acc);
    return acc;
  };
  for (const insn of instructions) visit(insn.id, new Set());
  depMemo.set(instructions, out);
  return out;
}
