/**
 * Which accesses need a barrier between them (the questions of barriers.ts's walk): a pair of
 * accesses of one variable, one a write, conflicts where a dependency or a group joins their
 * instructions (loopy's `get_barrier_needing_dependency`) and they may touch one cell from two
 * work-items of a group; and which memory a barrier must order. The walk that places barriers
 * and the pass's context are in barriers.ts.
 */
import {
  freeVariables, globMatch, exprEquals, substitute,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { mayMeetAcross } from "./access-meet.js";
import { partnersOf, raceOk, type Access, type ByName, type DependencyClosure } from "./barrier-accesses.js";
import type { Pending } from "./barrier-pending.js";
import { ScheduleError } from "../errors.js";
import { constRange, type ConstRange } from "./checks.js";
import { hwAxis } from "./device.js";
import type { BarrierMemory, HwAxis } from "./types.js";

/** What the barrier pass knows of the kernel while it walks it (barriers.ts builds it once). */
export interface Ctx {
  readonly k: Kernel;
  readonly accesses: ReadonlyMap<string, readonly Access[]>;
  /** Every access of the kernel, by variable (built when first asked). */
  readonly allByName: () => ReadonlyMap<string, ByName>;
  /** Where each synchronized variable lives (see `memoryOf`). */
  readonly memory: ReadonlyMap<string, "local" | "global">;
  /** Per access, whether an access anywhere in the kernel conflicts with it (see `memoryToOrder`). */
  anyPartner: Map<Access, boolean> | undefined;
  /** Per WRITE_RACE_OK access of global memory, whether another such access conflicts with it (see `authoredConflict`). */
  anyAuthored: Map<Access, boolean> | undefined;
  readonly insns: ReadonlyMap<string, Instruction>;
  readonly localInames: ReadonlySet<string>;
  /** Names an index may use and still mean the same value in every access: hardware inames, value args. */
  readonly invariant: ReadonlySet<string>;
  readonly sync: boolean;
  /**
   * Per instruction id, the ids it depends on directly or transitively (loopy's
   * `recursive_insn_dep_map`), found for the instructions asked about only (see `dependsOnTransitively`).
   */
  readonly deps: DependencyClosure;
  /** Local inames by the local id they stand for (see `localIdNames`). */
  readonly lidName: ReadonlyMap<string, string>;
  /** Loops found to need a barrier while their bounds depend on local ids (see `BarrierPlacement`). */
  readonly needsUniform: UniformLoopNeed[];
  /** The plain route (see `insertBarriers`). */
  readonly plain: boolean;
  /** Per sequential loop, the local inames its bounds use (barriers.ts's `localIdsInBounds`, asked once per loop). */
  boundLids: Map<string, readonly string[]> | undefined;
}

/** A loop that needs a barrier inside while its bounds depend on a local id. */
export interface UniformLoopNeed {
  readonly loop: string;
  /** Why, for the ScheduleError raised where the loop cannot be given uniform bounds. */
  readonly message: string;
}

function noSync(a: Instruction, b: Instruction): boolean {
  if (a.noSyncWith.length === 0 && b.noSyncWith.length === 0) return false;
  // (A callback per entry: rare, only instructions that list nosync get here.)
  const says = (x: Instruction, y: Instruction) =>
    x.noSyncWith.some((n) => (n.scope === "local" || n.scope === "any") && globMatch(n.id, y.id));
  return says(a, b) || says(b, a);
}

/**
 * Whether two accesses of one variable touch a cell only from one work-item: the same index
 * expressions, using every local iname of both instructions, and otherwise only names whose value
 * is the same at both accesses (`fixed`: the loops enclosing both, at the same iteration).
 */
function sameWorkItem(ctx: Ctx, a0: Access, b0: Access, fixed: readonly string[]): boolean {
  // Local inames of one axis over the same range are the same local id (`red_j` and `j` on l.0).
  const a = canonicalAccess(ctx, a0);
  const b = canonicalAccess(ctx, b0);
  if (!a.indices || !b.indices || a.indices.length !== b.indices.length) return false;
  if (!a.indices.every((e, idx) => exprEquals(e, b.indices![idx]!))) return false;
  const lids = [...new Set([a0.insn, b0.insn].flatMap((insn) => insn.withinInames.filter((i) => ctx.localInames.has(i)).map((i) => ctx.lidName.get(i) ?? i)))];
  if (lids.length === 0) return false;
  // An axis indexed by the bare local iname pins the work-item along it, whatever the other axes.
  if (lids.every((i) => a.indices!.some((e) => e.kind === "var" && e.name === i))) return true;
  const vars = new Set<string>();
  for (const e of a.indices) freeVariables(e, vars);
  for (const i of lids) if (!vars.has(i)) return false;
  for (const x of vars) if (!ctx.invariant.has(x) && !fixed.includes(x)) return false;
  return true;
}

/** `acc` with each local iname that has a canonical local-id name renamed to it. */
function canonicalAccess(ctx: Ctx, acc: Access): { indices: readonly Expr[] | undefined } {
  if (!acc.indices || ctx.lidName.size === 0) return acc;
  let m: Map<string, Expr> | undefined;
  const within = acc.insn.withinInames;
  for (let x = 0; x < within.length; x++) {
    const c = ctx.lidName.get(within[x]!);
    if (c !== undefined) (m ??= new Map()).set(within[x]!, { kind: "var", name: c });
  }
  if (m === undefined) return acc;
  const indices: Expr[] = [];
  for (let x = 0; x < acc.indices.length; x++) indices.push(substitute(acc.indices[x]!, m));
  return { indices };
}

/**
 * The constant range of local iname `i`: its hardware axis where that is constant (the work-items
 * it runs on, `lid(axis) + base`: the answer the device kernels pass asks for again, so one
 * question for both), else its `constRange`.
 */
export function localRange(k: Kernel, i: string): ConstRange | undefined {
  const t = k.inameTags[i];
  if (t?.kind === "l") {
    let ax: HwAxis | undefined;
    try {
      ax = hwAxis(k, i, "l", t.axis);
    } catch (e) {
      // An axis without a size is refused where device kernels are made, with its own message.
      if (!(e instanceof ScheduleError)) throw e;
    }
    if (ax?.base.kind === "const" && ax.size.kind === "const") return { lower: { terms: {}, constant: ax.base.value }, size: ax.size.value };
  }
  return constRange(k, i);
}

/** Per local iname with a constant range, a name its axis and range determine: `@l0:0+64`. */
export function localIdNames(k: Kernel, localInames: ReadonlySet<string>, rangeOf: (i: string) => ConstRange | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const i of localInames) {
    const t = k.inameTags[i];
    if (t?.kind !== "l") continue;
    const r = rangeOf(i);
    if (!r || Object.keys(r.lower.terms).length > 0) continue;
    out.set(i, `@l${t.axis}:${r.lower.constant}+${r.size}`);
  }
  return out;
}

export interface Conflict {
  readonly earlier: Access;
  readonly later: Access;
  /** Why, as loopy says it: `use depends on fetch`, `fetch rev-depends on compute`, `a conflicts with b (via 'g')`. */
  readonly why: string;
}

/**
 * loopy's `get_barrier_needing_dependency` without the memory test: why `later` (run after
 * `earlier` in the schedule) must be ordered after it, or undefined. Forward: `later` depends on
 * `earlier`. Reverse (loop-carried: `earlier` ran in the previous iteration): swap source and
 * target, so `earlier` depends on `later` — "{src} rev-depends on {tgt}". Conflicting groups
 * either way.
 */
function barrierNeedingDependency(ctx: Ctx, earlier: Instruction, later: Instruction, reverse: boolean): string | undefined {
  if (earlier === later) return undefined;
  let source = earlier;
  let target = later;
  if (reverse) [source, target] = [target, source];
  let why: string | undefined;
  if (ctx.deps.dependsOn(target.id, source.id)) {
    why = reverse ? `${source.id} rev-depends on ${target.id}` : `${target.id} depends on ${source.id}`;
  }
  // (Most instructions have no groups: no arrays built for them.)
  let grps = source.groups.length > 0 && target.conflictsWithGroups.length > 0 ? source.groups.filter((g) => target.conflictsWithGroups.includes(g)) : [];
  if (grps.length === 0 && target.groups.length > 0 && source.conflictsWithGroups.length > 0) grps = target.groups.filter((g) => source.conflictsWithGroups.includes(g));
  if (grps.length > 0) why = `${source.id} conflicts with ${target.id} (via '${grps.join(", ")}')`;
  return why;
}

/** How many pairs of accesses barrier placement has looked at since the process started (for tests of its scale). */
export const barrierPairChecks = { count: 0 };

/** Why `later` must wait for `earlier` at a barrier (see `barrierNeedingDependency`), or undefined. */
function pairConflict(ctx: Ctx, earlier: Access, later: Access, fixed: readonly string[], reverse: boolean, authored = false): string | undefined {
  barrierPairChecks.count++;
  if (earlier.name !== later.name || (!earlier.write && !later.write)) return undefined;
  if (noSync(earlier.insn, later.insn)) return undefined;
  // OKL's meaning (OCCA inserts no barrier): global memory between work-items of imported code is
  // ordered by the author's @barrier only (`authored`: the question such a barrier asks).
  // Local memory still gets the barriers it needs.
  if (!authored && raceOk(earlier) && raceOk(later) && memoryOf(ctx, earlier.name) === "global") return undefined;
  const why = barrierNeedingDependency(ctx, earlier.insn, later.insn, reverse);
  if (why === undefined || sameWorkItem(ctx, earlier, later, fixed) || neverAcrossWorkItems(ctx, earlier, later)) return undefined;
  return why;
}

/**
 * Whether the two accesses provably never touch one cell from two work-items of one group: both
 * run inside the same local inames, and pairs of their points in one group (equal g inames) with
 * equal subscripts and different local ids do not exist (`out[[3*i]]` and `out[[3*i + 1]]` of a
 * vector's components). Only then no barrier is needed between different cells.
 */
function neverAcrossWorkItems(ctx: Ctx, earlier: Access, later: Access): boolean {
  const a = earlier.insn;
  const b = later.insn;
  // Indexed loops over the instructions' (frozen) arrays, where filter() and some() take V8's slow path.
  const locals: string[] = [];
  for (let x = 0; x < a.withinInames.length; x++) {
    const i = a.withinInames[x]!;
    if (!ctx.localInames.has(i)) continue;
    if (!b.withinInames.includes(i)) return false;
    locals.push(i);
  }
  if (locals.length === 0) return false;
  for (let x = 0; x < b.withinInames.length; x++) if (ctx.localInames.has(b.withinInames[x]!) && !locals.includes(b.withinInames[x]!)) return false;
  const groups: string[] = [];
  for (let x = 0; x < a.withinInames.length; x++) {
    const i = a.withinInames[x]!;
    if (ctx.k.inameTags[i]?.kind === "g" && b.withinInames.includes(i)) groups.push(i);
  }
  // Flat indices compare with flat indices only (one layout); per-axis subscripts with subscripts.
  const flat = earlier.linear !== undefined && later.linear !== undefined;
  return !mayMeetAcross(ctx.k, a, flat ? [earlier.linear!] : earlier.indices, b, flat ? [later.linear!] : later.indices, locals, groups);
}

/**
 * The first pair (`next` in order, then `pending` in order) that needs a barrier. Only accesses of
 * the same variable, one of them a write, can conflict, and only where a dependency or a group
 * joins their instructions (`barrierNeedingDependency`): those are the pairs looked at, found
 * from the pending list's index (`Pending.candidates`), not by looking at every pending access.
 */
export function findConflict(
  ctx: Ctx, pending: Pending, next: readonly Access[], fixed: readonly string[], reverse = false,
): Conflict | undefined {
  if (!ctx.sync) return undefined;
  for (const later of next) {
    if (reverse && !later.source) continue;
    for (const earlier of pending.candidates(later, memoryOf(ctx, later.name) === "global", reverse)) {
      const why = pairConflict(ctx, earlier, later, fixed, reverse);
      if (why !== undefined) return { earlier, later, why };
    }
  }
  return undefined;
}

/** Where variable `name` lives: local temporaries in local memory, arrays and global temporaries in global. */
export function memoryOf(ctx: Ctx, name: string): "local" | "global" {
  return ctx.memory.get(name) ?? "global";
}

/**
 * The memory a barrier clearing `pending` must order. A barrier serves every pending access, not
 * only the one that asked for it: each variable of a pending access that an access anywhere in
 * the kernel conflicts with (in either order, at any iteration) counts, as does `also` (the
 * variable that asked, an explicit barrier's mem_kind). A local fence alone does not order global
 * memory: loopy's weird2 with `c` an argument needs CLK_GLOBAL_MEM_FENCE.
 */
export function memoryToOrder(ctx: Ctx, pending: Pending, also: readonly ("local" | "global")[], authors = false): BarrierMemory {
  const spaces = new Set(also);
  // Without local axes a group is one work-item: nothing to order between work-items.
  for (const a of ctx.sync ? pending.list : []) {
    const m = memoryOf(ctx, a.name);
    if (spaces.has(m)) continue;
    if (conflictsAnywhere(ctx, a) || (authors && m === "global" && raceOk(a) && authoredConflict(ctx, a))) spaces.add(m);
  }
  return spaces.has("global") ? (spaces.has("local") ? "local+global" : "global") : "local";
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * Whether a WRITE_RACE_OK access of global memory conflicts with another such access, across work-items,
 * anywhere in the kernel. An author's barrier (OKL's @barrier, an lbarrier without mem_kind) after
 * it orders global memory, as CUDA's __syncthreads does: no pair of those accesses asks for a
 * barrier (the author places them), so the fence comes from the author's barrier, and the
 * interpreter orders global memory at it too.
 */
function authoredConflict(ctx: Ctx, a: Access): boolean {
  // Once per access, as conflictsAnywhere: a kernel of many @barriers asks again at each.
  let hit = ctx.anyAuthored?.get(a);
  if (hit === undefined) {
    hit = partnersOf(ctx.allByName(), a, false).some((b) => raceOk(b) && (pairConflict(ctx, a, b, NONE, false, true) !== undefined || pairConflict(ctx, b, a, NONE, false, true) !== undefined));
    (ctx.anyAuthored ??= new Map()).set(a, hit);
  }
  return hit;
}

/** Whether an access anywhere in the kernel conflicts with `a`, in either order (once per access: the answer depends on it alone). */
function conflictsAnywhere(ctx: Ctx, a: Access): boolean {
  let hit = ctx.anyPartner?.get(a);
  if (hit === undefined) {
    hit = partnersOf(ctx.allByName(), a, memoryOf(ctx, a.name) === "global").some((b) => pairConflict(ctx, a, b, NONE, false) !== undefined || pairConflict(ctx, b, a, NONE, false) !== undefined);
    (ctx.anyPartner ??= new Map()).set(a, hit);
  }
  return hit;
}
