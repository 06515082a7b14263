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
 * Which pairs of accesses conflict, and what memory a barrier orders, is barrier-conflicts.ts.
 */
import { blockAccesses, domainIndexOf, type Instruction, type Kernel } from "../ir/index.js";
import { dimBounds, factorOf } from "../poly/index.js";
import { addByName, canBeSource, DependencyClosure, insnAccesses, type Access, type ByName } from "./barrier-accesses.js";
import {
  barrierPairChecks, findConflict, localIdNames, localRange, memoryOf, memoryToOrder, type Conflict, type Ctx, type UniformLoopNeed,
} from "./barrier-conflicts.js";
import { Pending } from "./barrier-pending.js";
import type { ConstRange } from "./checks.js";
import { componentHas, ownerRanges } from "./row-bounds.js";
import type { BarrierMemory, BarrierNode, ScheduleNode } from "./types.js";

export { barrierPairChecks, type UniformLoopNeed };

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
  // One walk of the domains' dims for the iname sets (plain loops: every variant of a sweep asks).
  const localInames = new Set<string>();
  const invariant = new Set<string>();
  // Indexed loops over the kernel's arrays and the loop nest's bodies (frozen): a for-of over a
  // frozen array takes V8's generic iterator, an object per element; some() and filter() a
  // callback call through a builtin per element.
  const ds = k.domains;
  for (let e = 0; e < ds.length; e++) {
    const dims = ds[e]!.dims;
    for (let x = 0; x < dims.length; x++) {
      const i = dims[x]!;
      const t = k.inameTags[i]?.kind;
      if (t === "l" || t === "l.auto") localInames.add(i);
      if (t === "g" || t === "l" || t === "l.auto") invariant.add(i);
    }
  }
  for (let x = 0; x < k.args.length; x++) if (k.args[x]!.kind === "value") invariant.add(k.args[x]!.name);
  const synced = new Set<string>();
  // Where each synchronized variable lives; the first temporary of a name decides, as `find` would.
  const memory = new Map<string, "local" | "global">();
  for (let x = 0; x < k.temporaries.length; x++) {
    const t = k.temporaries[x]!;
    if (t.addressSpace === "local" || t.addressSpace === "global") synced.add(t.name);
    if (!memory.has(t.name)) memory.set(t.name, t.addressSpace === "local" ? "local" : "global");
  }
  for (let x = 0; x < k.args.length; x++) if (k.args[x]!.kind === "array") synced.add(k.args[x]!.name);
  const accesses = new Map<string, Access[]>();
  const insns = new Map<string, Instruction>();
  const instructions = k.instructions;
  for (let x = 0; x < instructions.length; x++) insns.set(instructions[x]!.id, instructions[x]!);
  const deps = new DependencyClosure(insns);
  // A read of a variable nothing writes conflicts with no access: only variables some instruction
  // writes are tracked (no access made for a fetch's reads of its global input).
  const tracked = plain ? synced : writtenOf(instructions, synced);
  // Loop bounds read synchronized scalars only where a domain parameter is one (rare): else no
  // instruction's bound reads are looked for.
  let boundsRead = false;
  for (let e = 0; e < ds.length; e++) for (let x = 0; x < ds[e]!.params.length; x++) if (tracked.has(ds[e]!.params[x]!)) boundsRead = true;
  for (let x = 0; x < instructions.length; x++) {
    const insn = instructions[x]!;
    accesses.set(insn.id, insnAccesses(insn, tracked, canBeSource(deps, insn), boundsRead ? k : undefined));
  }
  // Each local iname's range asked once (its hardware axis: both questions below ask it).
  const ranges = new Map<string, ConstRange | null>();
  const rangeOf = (i: string): ConstRange | undefined => {
    let r = ranges.get(i);
    if (r === undefined) ranges.set(i, (r = localRange(k, i) ?? null));
    return r ?? undefined;
  };
  // Every access by variable: asked only where a barrier is placed (what it must order, `memoryToOrder`).
  let byName: Map<string, ByName> | undefined;
  const allByName = (): ReadonlyMap<string, ByName> => {
    if (byName === undefined) {
      byName = new Map();
      for (const list of accesses.values()) for (const a of list) addByName(byName, a);
    }
    return byName;
  };
  const ctx: Ctx = {
    k, accesses, allByName, memory, anyPartner: undefined, anyAuthored: undefined, insns, localInames, invariant,
    // A group of one work-item (every local iname of extent 1, as OKL's `t < 1` @inner) has no one to wait for.
    sync: anyWide(localInames, rangeOf),
    deps, lidName: localIdNames(k, localInames, rangeOf), needsUniform: [], plain, boundLids: undefined,
  };
  return { nodes: walkBody(ctx, nodes, new Pending(deps, [], plain), []).nodes, needsUniform: ctx.needsUniform };
}


/** The variables of `synced` some instruction writes (the writes `insnAccesses` finds). */
function writtenOf(instructions: readonly Instruction[], synced: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (let x = 0; x < instructions.length; x++) {
    const insn = instructions[x]!;
    if (insn.kind === "assign") {
      const lhs = insn.lhs;
      const name = lhs.kind === "var" ? lhs.name : lhs.kind === "subscript" || lhs.kind === "linear" ? lhs.array : undefined;
      if (name !== undefined && synced.has(name)) out.add(name);
    } else if (insn.kind === "block") {
      for (const name of blockAccesses(insn.body).writes) if (synced.has(name)) out.add(name);
    }
  }
  return out;
}

/** Whether a local iname of `localInames` has a range of more than one work-item (or an unknown one). */
function anyWide(localInames: ReadonlySet<string>, rangeOf: (i: string) => ConstRange | undefined): boolean {
  for (const i of localInames) if ((rangeOf(i)?.size ?? 2) > 1) return true;
  return false;
}

const barrier = (comment: string, memory: BarrierMemory): BarrierNode => ({ kind: "barrier", scope: "local", comment, memory });

/** The barrier that `c` asks for, before `pending` is cleared. */
function dataBarrier(ctx: Ctx, c: Conflict, name: string, pending: Pending): BarrierNode {
  return barrier(`for ${name} (${c.why})`, memoryToOrder(ctx, pending, [memoryOf(ctx, c.earlier.name)]));
}

/** The accesses a body makes before its first barrier (nested loops count whole). */
function entryAccesses(ctx: Ctx, nodes: readonly ScheduleNode[], out: Access[] = [], whole = false): Access[] {
  for (let x = 0; x < nodes.length; x++) {
    const n = nodes[x]!;
    if (n.kind === "barrier") {
      if (!whole) return out;
    } else if (n.kind === "insn") {
      const list = ctx.accesses.get(n.id)!;
      for (let a = 0; a < list.length; a++) out.push(list[a]!);
    }
    else entryAccesses(ctx, n.body, out, true);
  }
  return out;
}

function loopInames(nodes: readonly ScheduleNode[], out: string[]): string[] {
  for (let x = 0; x < nodes.length; x++) {
    const n = nodes[x]!;
    if (n.kind === "loop") {
      if (!out.includes(n.iname)) out.push(n.iname);
      loopInames(n.body, out);
    }
  }
  return out;
}

function hasBarrier(nodes: readonly ScheduleNode[]): boolean {
  for (let x = 0; x < nodes.length; x++) {
    const n = nodes[x]!;
    if (n.kind === "barrier" || (n.kind === "loop" && hasBarrier(n.body))) return true;
  }
  return false;
}

function barrierComments(nodes: readonly ScheduleNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    if (n.kind === "barrier") out.push(n.comment);
    else if (n.kind === "loop") barrierComments(n.body, out);
  }
  return out;
}

/** The local inames the bounds of sequential loop `iname` use, if any (once per loop: a body may be walked twice). */
function localIdsInBounds(ctx: Ctx, iname: string): readonly string[] {
  let lids = ctx.boundLids?.get(iname);
  if (lids === undefined) (ctx.boundLids ??= new Map()).set(iname, (lids = boundLocalIds(ctx, iname)));
  return lids;
}

function boundLocalIds(ctx: Ctx, iname: string): string[] {
  const d = ctx.k.domains[domainIndexOf(ctx.k, iname)];
  if (!d) return [];
  // Only the iname's own factor has rows with it (and repeats across a sweep of tile sizes). Its
  // bounds are affine in the factor's other dims and parameters: where no local iname is among
  // those (a tiled `k_outer`'s factor is `(k_outer, k_inner)`), none can appear, and no bound is
  // computed.
  // Asked of the rows first, without building the factor (a new set per variant of a sweep).
  if (ownerRanges.on && !anyIn(d.params, ctx.localInames) && !componentHas(d, iname, (x) => x !== iname && ctx.localInames.has(x))) return [];
  const f = factorOf(d, iname);
  if (!f.dims.some((x) => x !== iname && ctx.localInames.has(x)) && !f.params.some((x) => ctx.localInames.has(x))) return [];
  const b = dimBounds(f, iname, f.dims.filter((x) => x !== iname));
  const used = new Set<string>();
  for (const bound of [...b.lower, ...b.upper]) for (const v of Object.keys(bound.aff.terms)) if (ctx.localInames.has(v)) used.add(v);
  return [...used];
}

/** Whether a name of `xs` is in `set` (indexed: some() over a frozen array takes V8's slow path). */
function anyIn(xs: readonly string[], set: ReadonlySet<string>): boolean {
  for (let x = 0; x < xs.length; x++) if (set.has(xs[x]!)) return true;
  return false;
}

function walkBody(
  ctx: Ctx, nodes: readonly ScheduleNode[], incoming: Pending, fixed: readonly string[],
): { nodes: ScheduleNode[]; pending: Pending } {
  const out: ScheduleNode[] = [];
  let pending = incoming.copy();
  for (let x = 0; x < nodes.length; x++) {
    const n = nodes[x]!;
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
      // (The loops around, a short plain list: no Set per loop entered.)
      const inner = fixed.concat(n.iname);
      // The loop's first accesses against what is pending before it: a barrier before the loop.
      // With nothing pending (or one work-item per group) nothing can conflict: the first walk of
      // the body would be the second one, and is not needed.
      const first = ctx.plain || (ctx.sync && pending.list.length > 0) ? walkBody(ctx, n.body, pending.empty(), inner) : undefined;
      const c = first !== undefined ? findConflict(ctx, pending, entryAccesses(ctx, first.nodes), fixed) : undefined;
      if (c) {
        out.push(dataBarrier(ctx, c, c.later.name, pending));
        pending = pending.empty();
      }
      // After a barrier the body is walked from nothing pending: the first walk's answer.
      const r = c && first !== undefined && !ctx.plain ? first : walkBody(ctx, n.body, pending, inner);
      // Dependencies carried to the next iteration: a barrier at the end of the body.
      const varying = loopInames(n.body, [n.iname]);
      const fixedAcross: string[] = [];
      for (let x = 0; x < fixed.length; x++) if (!varying.includes(fixed[x]!)) fixedAcross.push(fixed[x]!);
      const carried = findConflict(ctx, r.pending, entryAccesses(ctx, r.nodes), fixedAcross, true);
      const body = carried
        ? [...r.nodes, dataBarrier(ctx, carried, carried.earlier.name, r.pending)]
        : r.nodes;
      const lids = hasBarrier(body) ? localIdsInBounds(ctx, n.iname) : [];
      if (lids.length > 0) {
        ctx.needsUniform.push({
          loop: n.iname,
          message: `kernel "${ctx.k.name}": a barrier is needed inside loop "${n.iname}", whose bounds depend on local id ${lids.join(", ")}, ` +
            `so not all work-items would reach it: ${barrierComments(body).join("; ")}; make the loop bounds independent of local ids or add nosync`,
        });
      }
      out.push({ kind: "loop", iname: n.iname, body });
      // The loop may run no iteration: what was pending before it stays pending.
      pending = carried ? pending.copy() : pending.copy().add(r.pending.list);
    }
  }
  return { nodes: out, pending };
}
