/**
 * Local barrier insertion (ALGORITHMS.md §3, step 3), after linearization: loopy's two-pass
 * DependencyTracker. Walk each loop body in order keeping the accesses since the last barrier;
 * an access that another work-item's pending access may conflict with (RAW, WAR, WAW on local
 * memory, or global memory within a group) gets one barrier before it, which serves every pending
 * dependency. A loop body is walked again for the dependencies carried to the next iteration; those
 * get a barrier at the end of the body. Explicit `lbarrier` instructions become BarrierNodes.
 *
 * As loopy's `get_barrier_needing_dependency`: a conflicting pair of accesses needs a barrier only
 * where the later instruction depends on the earlier one through the dependency graph (transitively),
 * or, for the loop-carried pass, the same dependency read backwards ("fetch rev-depends on
 * compute"), or where their groups conflict. An instruction is never paired with itself: one that
 * writes a cell from several work-items is a write race, refused before scheduling (write-races.ts). A
 * race between instructions with no dependency is the user's to declare (the interpreter reports it).
 */
import {
  domainIndexOf, freeVariables, globMatch, isHardwareIname, exprEquals, allInames, substitute,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { dimBounds, factorOf } from "../poly/index.js";
import { mayMeetAcross } from "./access-meet.js";
import { addByName, canBeSource, DependencyClosure, insnAccesses, partnersOf, raceOk, type Access, type ByName } from "./barrier-accesses.js";
import { Pending } from "./barrier-pending.js";
import { ScheduleError } from "../errors.js";
import { constRange, type ConstRange } from "./checks.js";
import { hwAxis } from "./device.js";
import { componentHas, ownerRanges } from "./row-bounds.js";
import type { BarrierMemory, BarrierNode, HwAxis, ScheduleNode } from "./types.js";


interface Ctx {
  readonly k: Kernel;
  readonly accesses: ReadonlyMap<string, readonly Access[]>;
  /** Every access of the kernel, by variable. */
  readonly byName: ReadonlyMap<string, ByName>;
  /** Where each synchronized variable lives (see `memoryOf`). */
  readonly memory: ReadonlyMap<string, "local" | "global">;
  /** Per access, whether an access anywhere in the kernel conflicts with it (see `memoryToOrder`). */
  readonly anyPartner: Map<Access, boolean>;
  /** Per WRITE_RACE_OK access of global memory, whether another such access conflicts with it (see `authoredConflict`). */
  readonly anyAuthored: Map<Access, boolean>;
  readonly insns: ReadonlyMap<string, Instruction>;
  readonly localInames: ReadonlySet<string>;
  /** Names an index may use and still mean the same value in every access: hardware inames, value args. */
  readonly invariant: ReadonlySet<string>;
  readonly allInames: ReadonlySet<string>;
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
}

/** A loop that needs a barrier inside while its bounds depend on a local id. */
export interface UniformLoopNeed {
  readonly loop: string;
  /** Why, for the ScheduleError raised where the loop cannot be given uniform bounds. */
  readonly message: string;
}

/** Barriers placed in a linearized kernel, and the loops that need uniform bounds for them to be right. */
export interface BarrierPlacement {
  readonly nodes: ScheduleNode[];
  /** Empty when every barrier is reached by all work-items of a group. */
  readonly needsUniform: readonly UniformLoopNeed[];
}

/**
 * `nodes` with local barriers where work-items of a group must meet. Data-dependent barriers are
 * inserted only when the kernel has local axes. A barrier needed inside a loop whose bounds
 * depend on a local id is reported in `needsUniform` (not all work-items would reach it), which
 * the barrier pass (`placeBarriers`) answers by giving the loop uniform bounds. `plain`: the
 * route the fast paths are checked against (tests): every pending access of a variable looked
 * at (no index), reads of variables nothing writes kept, every loop body walked twice.
 */
export function insertBarriers(k: Kernel, nodes: readonly ScheduleNode[], opts: { readonly plain?: boolean } = {}): BarrierPlacement {
  const plain = opts.plain === true;
  const inames = allInames(k);
  const localInames = new Set(inames.filter((i) => k.inameTags[i]?.kind === "l" || k.inameTags[i]?.kind === "l.auto"));
  const invariant = new Set<string>(inames.filter((i) => isHardwareIname(k, i)));
  for (const a of k.args) if (a.kind === "value") invariant.add(a.name);
  const synced = new Set<string>();
  for (const t of k.temporaries) if (t.addressSpace === "local" || t.addressSpace === "global") synced.add(t.name);
  for (const a of k.args) if (a.kind === "array") synced.add(a.name);
  const accesses = new Map<string, Access[]>();
  const insns = new Map<string, Instruction>();
  for (const insn of k.instructions) insns.set(insn.id, insn);
  const deps = new DependencyClosure(insns);
  const written = new Set<string>();
  // Loop bounds read synchronized scalars only where a domain parameter is one (rare): else no
  // instruction's bound reads are looked for.
  const boundsRead = k.domains.some((d) => d.params.some((p) => synced.has(p)));
  for (const insn of k.instructions) {
    const list = insnAccesses(insn, synced, canBeSource(deps, insn), boundsRead ? k : undefined);
    for (const a of list) if (a.write) written.add(a.name);
    accesses.set(insn.id, list);
  }
  // A read of a variable nothing writes conflicts with no access: left out, it is never paired.
  if (!plain) for (const [id, list] of accesses) if (list.some((a) => !a.write && !written.has(a.name))) accesses.set(id, list.filter((a) => a.write || written.has(a.name)));
  const byName = new Map<string, ByName>();
  for (const list of accesses.values()) for (const a of list) addByName(byName, a);
  // Each local iname's range asked once (its hardware axis: both questions below ask it).
  const ranges = new Map<string, ConstRange | undefined>();
  const rangeOf = (i: string): ConstRange | undefined => {
    if (!ranges.has(i)) ranges.set(i, localRange(k, i));
    return ranges.get(i);
  };
  const memory = new Map<string, "local" | "global">();
  // The first temporary of a name decides, as `find` would.
  for (const t of [...k.temporaries].reverse()) memory.set(t.name, t.addressSpace === "local" ? "local" : "global");
  const ctx: Ctx = {
    k, accesses, byName, memory, anyPartner: new Map(), anyAuthored: new Map(), insns, localInames, invariant, allInames: new Set(inames),
    // A group of one work-item (every local iname of extent 1, as OKL's `t < 1` @inner) has no one to wait for.
    sync: [...localInames].some((i) => (rangeOf(i)?.size ?? 2) > 1),
    deps, lidName: localIdNames(k, localInames, rangeOf), needsUniform: [], plain,
  };
  return { nodes: walkBody(ctx, nodes, new Pending(deps, [], plain), new Set()).nodes, needsUniform: ctx.needsUniform };
}

function noSync(a: Instruction, b: Instruction): boolean {
  if (a.noSyncWith.length === 0 && b.noSyncWith.length === 0) return false;
  const says = (x: Instruction, y: Instruction) =>
    x.noSyncWith.some((n) => (n.scope === "local" || n.scope === "any") && globMatch(n.id, y.id));
  return says(a, b) || says(b, a);
}

/**
 * Whether two accesses of one variable touch a cell only from one work-item: the same index
 * expressions, using every local iname of both instructions, and otherwise only names whose value
 * is the same at both accesses (`fixed`: the loops enclosing both, at the same iteration).
 */
function sameWorkItem(ctx: Ctx, a0: Access, b0: Access, fixed: ReadonlySet<string>): boolean {
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
  for (const x of vars) if (!ctx.invariant.has(x) && !fixed.has(x)) return false;
  return true;
}

/** `acc` with each local iname that has a canonical local-id name renamed to it. */
function canonicalAccess(ctx: Ctx, acc: Access): { indices: readonly Expr[] | undefined } {
  if (!acc.indices || ctx.lidName.size === 0) return acc;
  const m = new Map<string, Expr>();
  for (const i of acc.insn.withinInames) {
    const c = ctx.lidName.get(i);
    if (c !== undefined) m.set(i, { kind: "var", name: c });
  }
  return m.size === 0 ? acc : { indices: acc.indices.map((e) => substitute(e, m)) };
}

/**
 * The constant range of local iname `i`: its hardware axis where that is constant (the work-items
 * it runs on, `lid(axis) + base`: the answer the device kernels pass asks for again, so one
 * question for both), else its `constRange`.
 */
function localRange(k: Kernel, i: string): ConstRange | undefined {
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
function localIdNames(k: Kernel, localInames: ReadonlySet<string>, rangeOf: (i: string) => ConstRange | undefined): Map<string, string> {
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

interface Conflict {
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
function pairConflict(ctx: Ctx, earlier: Access, later: Access, fixed: ReadonlySet<string>, reverse: boolean, authored = false): string | undefined {
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
  const locals = a.withinInames.filter((i) => ctx.localInames.has(i));
  if (locals.length === 0 || locals.some((i) => !b.withinInames.includes(i)) || b.withinInames.some((i) => ctx.localInames.has(i) && !locals.includes(i))) return false;
  const groups = a.withinInames.filter((i) => ctx.k.inameTags[i]?.kind === "g" && b.withinInames.includes(i));
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
function findConflict(
  ctx: Ctx, pending: Pending, next: readonly Access[], fixed: ReadonlySet<string>, reverse = false,
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
function memoryOf(ctx: Ctx, name: string): "local" | "global" {
  return ctx.memory.get(name) ?? "global";
}

/**
 * The memory a barrier clearing `pending` must order. A barrier serves every pending access, not
 * only the one that asked for it: each variable of a pending access that an access anywhere in
 * the kernel conflicts with (in either order, at any iteration) counts, as does `also` (the
 * variable that asked, an explicit barrier's mem_kind). A local fence alone does not order global
 * memory: loopy's weird2 with `c` an argument needs CLK_GLOBAL_MEM_FENCE.
 */
function memoryToOrder(ctx: Ctx, pending: Pending, also: readonly ("local" | "global")[], authors = false): BarrierMemory {
  const spaces = new Set(also);
  // Without local axes a group is one work-item: nothing to order between work-items.
  for (const a of ctx.sync ? pending.list : []) {
    const m = memoryOf(ctx, a.name);
    if (spaces.has(m)) continue;
    if (conflictsAnywhere(ctx, a) || (authors && m === "global" && raceOk(a) && authoredConflict(ctx, a))) spaces.add(m);
  }
  return spaces.has("global") ? (spaces.has("local") ? "local+global" : "global") : "local";
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Whether a WRITE_RACE_OK access of global memory conflicts with another such access, across work-items,
 * anywhere in the kernel. An author's barrier (OKL's @barrier, an lbarrier without mem_kind) after
 * it orders global memory, as CUDA's __syncthreads does: no pair of those accesses asks for a
 * barrier (the author places them), so the fence comes from the author's barrier, and the
 * interpreter orders global memory at it too.
 */
function authoredConflict(ctx: Ctx, a: Access): boolean {
  // Once per access, as conflictsAnywhere: a kernel of many @barriers asks again at each.
  let hit = ctx.anyAuthored.get(a);
  if (hit === undefined) {
    hit = partnersOf(ctx.byName, a, false).some((b) => raceOk(b) && (pairConflict(ctx, a, b, NONE, false, true) !== undefined || pairConflict(ctx, b, a, NONE, false, true) !== undefined));
    ctx.anyAuthored.set(a, hit);
  }
  return hit;
}

/** Whether an access anywhere in the kernel conflicts with `a`, in either order (once per access: the answer depends on it alone). */
function conflictsAnywhere(ctx: Ctx, a: Access): boolean {
  let hit = ctx.anyPartner.get(a);
  if (hit === undefined) {
    hit = partnersOf(ctx.byName, a, memoryOf(ctx, a.name) === "global").some((b) => pairConflict(ctx, a, b, NONE, false) !== undefined || pairConflict(ctx, b, a, NONE, false) !== undefined);
    ctx.anyPartner.set(a, hit);
  }
  return hit;
}

const barrier = (comment: string, memory: BarrierMemory): BarrierNode => ({ kind: "barrier", scope: "local", comment, memory });

/** The barrier that `c` asks for, before `pending` is cleared. */
function dataBarrier(ctx: Ctx, c: Conflict, name: string, pending: Pending): BarrierNode {
  return barrier(`for ${name} (${c.why})`, memoryToOrder(ctx, pending, [memoryOf(ctx, c.earlier.name)]));
}

/** The accesses a body makes before its first barrier (nested loops count whole). */
function entryAccesses(ctx: Ctx, nodes: readonly ScheduleNode[], out: Access[] = [], whole = false): Access[] {
  for (const n of nodes) {
    if (n.kind === "barrier") {
      if (!whole) return out;
    } else if (n.kind === "insn") out.push(...ctx.accesses.get(n.id)!);
    else entryAccesses(ctx, n.body, out, true);
  }
  return out;
}

function loopInames(nodes: readonly ScheduleNode[], out: Set<string>): Set<string> {
  for (const n of nodes) {
    if (n.kind === "loop") {
      out.add(n.iname);
      loopInames(n.body, out);
    }
  }
  return out;
}

function barrierComments(nodes: readonly ScheduleNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    if (n.kind === "barrier") out.push(n.comment);
    else if (n.kind === "loop") barrierComments(n.body, out);
  }
  return out;
}

/** The local inames the bounds of sequential loop `iname` use, if any. */
function localIdsInBounds(ctx: Ctx, iname: string): string[] {
  const d = ctx.k.domains[domainIndexOf(ctx.k, iname)];
  if (!d) return [];
  // Only the iname's own factor has rows with it (and repeats across a sweep of tile sizes). Its
  // bounds are affine in the factor's other dims and parameters: where no local iname is among
  // those (a tiled `k_outer`'s factor is `(k_outer, k_inner)`), none can appear, and no bound is
  // computed.
  // Asked of the rows first, without building the factor (a new set per variant of a sweep).
  if (ownerRanges.on && !d.params.some((x) => ctx.localInames.has(x)) && !componentHas(d, iname, (x) => x !== iname && ctx.localInames.has(x))) return [];
  const f = factorOf(d, iname);
  if (!f.dims.some((x) => x !== iname && ctx.localInames.has(x)) && !f.params.some((x) => ctx.localInames.has(x))) return [];
  const b = dimBounds(f, iname, f.dims.filter((x) => x !== iname));
  const used = new Set<string>();
  for (const bound of [...b.lower, ...b.upper]) for (const v of Object.keys(bound.aff.terms)) if (ctx.localInames.has(v)) used.add(v);
  return [...used];
}

function walkBody(
  ctx: Ctx, nodes: readonly ScheduleNode[], incoming: Pending, fixed: ReadonlySet<string>,
): { nodes: ScheduleNode[]; pending: Pending } {
  const out: ScheduleNode[] = [];
  let pending = incoming.copy();
  for (const n of nodes) {
    if (n.kind === "barrier") {
      out.push(n);
      pending = pending.empty();
    } else if (n.kind === "insn") {
      const insn = ctx.insns.get(n.id)!;
      if (insn.kind === "barrier") {
        if (insn.scope === "local") out.push(barrier(`explicit lbarrier ${insn.id}`, memoryToOrder(ctx, pending, [insn.memKind ?? "local"], insn.memKind === undefined)));
        else out.push(n);
        pending = pending.empty();
        continue;
      }
      const acc = ctx.accesses.get(n.id)!;
      const c = findConflict(ctx, pending, acc, fixed);
      if (c) {
        out.push(dataBarrier(ctx, c, c.later.name, pending));
        pending = pending.empty();
      }
      out.push(n);
      pending.add(acc);
    } else {
      const inner = new Set(fixed).add(n.iname);
      // The loop's first accesses against what is pending before it: a barrier before the loop.
      // With nothing pending (or one work-item per group) nothing can conflict: the first walk of
      // the body would be the second one, and is not needed.
      const entry = ctx.plain || (ctx.sync && pending.list.length > 0) ? entryAccesses(ctx, walkBody(ctx, n.body, pending.empty(), inner).nodes) : [];
      const c = findConflict(ctx, pending, entry, fixed);
      if (c) {
        out.push(dataBarrier(ctx, c, c.later.name, pending));
        pending = pending.empty();
      }
      const r = walkBody(ctx, n.body, pending, inner);
      // Dependencies carried to the next iteration: a barrier at the end of the body.
      const varying = loopInames(n.body, new Set([n.iname]));
      const fixedAcross = new Set([...fixed].filter((x) => !varying.has(x)));
      const carried = findConflict(ctx, r.pending, entryAccesses(ctx, r.nodes), fixedAcross, true);
      const body = carried
        ? [...r.nodes, dataBarrier(ctx, carried, carried.earlier.name, r.pending)]
        : r.nodes;
      const comments = barrierComments(body);
      const lids = comments.length > 0 ? localIdsInBounds(ctx, n.iname) : [];
      if (lids.length > 0) {
        ctx.needsUniform.push({
          loop: n.iname,
          message: `kernel "${ctx.k.name}": a barrier is needed inside loop "${n.iname}", whose bounds depend on local id ${lids.join(", ")}, ` +
            `so not all work-items would reach it: ${comments.join("; ")}; make the loop bounds independent of local ids or add nosync`,
        });
      }
      out.push({ kind: "loop", iname: n.iname, body });
      // The loop may run no iteration: what was pending before it stays pending.
      pending = carried ? pending.copy() : pending.copy().add(r.pending.list);
    }
  }
  return { nodes: out, pending };
}
