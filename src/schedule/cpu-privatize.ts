/**
 * Private temporaries that live across a barrier on CPU targets (src/schedule/cpu.ts): which they
 * are, which local axes their instructions need a loop over the whole work-group for, and their
 * rewriting to one slot per work-item (OCCA's `@exclusive`).
 */
import { ScheduleError } from "../errors.js";
import {
  assigneeName, insnWrites, mapExpr, mapInsnExprs, sub, substitute, walkExpr, withKernel, type Expr, type Instruction, type Kernel, type Temporary,
} from "../ir/index.js";
import { domainParamsOf, workItemIndex } from "./cpu-params.js";
import { assignedBeforeRead, touchedNames, touches, within } from "./cpu-phase-runs.js";
import type { DeviceKernel, HwAxis, ScheduleNode } from "./types.js";

export { touchedNames, touches } from "./cpu-phase-runs.js";

/**
 * Give private temporary `t` one slot per work-item: its shape extended by the local sizes
 * (highest axis first), every access indexed by the local inames; the instructions that touch it
 * run within those inames.
 */
export function privatize(k: Kernel, t: Temporary, axes: readonly HwAxis[]): Kernel {
  return privatizeAll(k, [t], axes);
}

/**
 * `privatize` of each of `temps` in turn, in one pass over the instructions (one per temporary
 * was quadratic in kernels with thousands of instructions touching them); the same errors, in
 * the same order: a temporary with axis tags or a flat access is refused before the next is looked at.
 */
export function privatizeAll(k: Kernel, temps: readonly Temporary[], axes: readonly HwAxis[]): Kernel {
  if (temps.length === 0) return k;
  return withKernel(k, privatizedFields(k, temps, axes));
}

/** The instructions and temporaries of a kernel: what privatizing changes. */
export type PrivatizedFields = Pick<Kernel, "instructions" | "temporaries">;

/**
 * `privatizeAll`'s new instructions and temporaries, without making a kernel of them: the CPU
 * lowering makes one kernel of its axis sharing and privatizing (each new kernel freezes every
 * rewritten instruction, and in a big kernel both rewrite nearly all).
 */
export function privatizedFields(k: PrivatizedFields, temps: readonly Temporary[], axes: readonly HwAxis[]): PrivatizedFields {
  if (temps.length === 0) return k;
  const names = new Set(temps.map((t) => t.name));
  // A name twice would be extended twice: one at a time, as written.
  if (names.size !== temps.length) return temps.reduce((acc, t) => privatizedFields(acc, [acc.temporaries.find((x) => x.name === t.name)!], axes), k);
  const ordered = [...axes].sort((a, b) => b.axis - a.axis);
  const idx = workItemIndex(axes);
  // One pass: the rewrite notes the flat accesses it meets (refused below, before anything is
  // returned), and an instruction it leaves the same object touches none of `names` otherwise.
  const flat = new Set<string>();
  const rewrite = (e: Expr): Expr => mapExpr(e, (n) => {
    if (n.kind === "var" && names.has(n.name)) return sub(n.name, ...idx);
    if (n.kind === "subscript" && names.has(n.array)) return sub(n.array, ...n.indices.map(rewrite), ...idx);
    if (n.kind === "linear" && names.has(n.array)) flat.add(n.array);
    return undefined;
  });
  const lnames = ordered.map((ax) => ax.iname);
  // One list of inames per list before (instructions share a few).
  const withins = new Map<string, readonly string[]>();
  const withinOf = (inames: readonly string[]): readonly string[] => {
    const key = inames.join(" ");
    let w = withins.get(key);
    if (w === undefined) withins.set(key, (w = [...new Set([...inames, ...lnames])].sort()));
    return w;
  };
  const instructions = k.instructions.map((insn): Instruction => {
    const mapped = mapInsnExprs(insn, rewrite);
    if (mapped === insn) return insn;
    return { ...mapped, withinInames: withinOf(insn.withinInames) };
  });
  for (const t of temps) {
    if (t.dimTags !== undefined) throw new ScheduleError(`lowerForCpu: private temporary "${t.name}" lives across a barrier and has explicit axis tags; cannot give it one slot per work-item`);
    if (flat.has(t.name)) {
      throw new ScheduleError(`lowerForCpu: private temporary "${t.name}" lives across a barrier and is accessed by a flat index; cannot give it one slot per work-item`);
    }
  }
  const temporaries = k.temporaries.map((x) =>
    names.has(x.name) ? { ...x, addressSpace: "private" as const, shape: [...x.shape, ...ordered.map((ax) => ax.size)] } : x);
  return { instructions, temporaries };
}

/**
 * The private temporaries (not yet privatized) whose value may flow from one work-item's run of a
 * phase (`phaseOf`, by instruction id) to a later run of another work-item: those that instructions
 * of more than one phase touch, and those touched in a phase that a loop holding a barrier runs again
 * (`repeated`: nekRS's `if (v == 0) wght = w[id]; s[t] = wght*x[…]` in the one `@inner` loop of a
 * loop over `v` with barriers, where one scalar for all work-items hands the last work-item's `wght`
 * to every work-item's next trip); except those that every run of every phase of the device
 * kernel's `body` writes before it reads them (`assignedBeforeRead`, cpu-phase-runs.ts: OCCA's
 * iso3dfd sums `value` from `value = 0.0f` in each trip), which one slot serves, and that no loop
 * bound reads (an array: each cell it reads, by the same index expressions).
 */
export function barrierCrossing(
  k: Kernel, phaseOf: ReadonlyMap<string, ReadonlySet<number>>, privatized: ReadonlySet<string>, repeated: ReadonlySet<number>,
  body: readonly ScheduleNode[],
): Temporary[] {
  const byId = new Map(k.instructions.map((x) => [x.id, x]));
  // One walk per instruction: the phases in which each variable is touched.
  const phasesOf = new Map<string, Set<number>>();
  const note = (name: string, ps: ReadonlySet<number>): void => {
    const set = phasesOf.get(name);
    if (set === undefined) phasesOf.set(name, new Set(ps));
    else for (const p of ps) set.add(p);
  };
  for (const [id, ps] of phaseOf) {
    const insn = byId.get(id);
    if (!insn) continue;
    for (const name of touchedNames(insn)) note(name, ps);
    // A loop's bounds read its domain's parameters where the instruction runs (`r < e`).
    for (const name of domainParamsOf(k, insn)) note(name, ps);
  }
  const many = k.temporaries.filter((t) => {
    if (t.addressSpace === "local" || t.addressSpace === "global" || privatized.has(t.name)) return false;
    const ps = phasesOf.get(t.name);
    return ps !== undefined && (ps.size > 1 || [...ps].some((p) => repeated.has(p)));
  });
  if (many.length === 0) return many;
  const bounds = new Set(k.domains.flatMap((d) => d.params));
  const oneSlot = assignedBeforeRead(k, body, new Set(many.filter((t) => !bounds.has(t.name)).map((t) => t.name)), byId);
  return many.filter((t) => !oneSlot.has(t.name));
}

/**
 * The local axes (`l.0`…) on which an instruction touching one of `temps` runs outside every
 * iname of the axis: it runs on every work-item, so once privatized it must run within a loop
 * over the whole box of the axis, not within an iname whose own domain is narrower (a fetch's
 * `3*i_outer + a_dim_0 < n` would guard it off the work-items of a partial group).
 */
export function axesToBox(k: Kernel, dk: DeviceKernel, ids: ReadonlySet<string>, temps: readonly Temporary[]): Set<string> {
  const out = new Set<string>();
  for (const insn of k.instructions) {
    if (!ids.has(insn.id) || !temps.some((t) => touches(insn, t.name))) continue;
    for (const ax of dk.localAxes) {
      const on = insn.withinInames.some((i) => { const tag = k.inameTags[i]; return tag?.kind === "l" && tag.axis === ax.axis; });
      if (!on) out.add(`l.${ax.axis}`);
    }
  }
  return out;
}

/** Calls an inlined definition may make: pure functions of their operands. */
const PURE_CALLS: ReadonlySet<string> = new Set(["min", "max", "abs"]);
/** Inlined definitions larger than this (expression nodes) are privatized instead. */
const MAX_INLINED_NODES = 200;

/**
 * `crossing` with the temporaries whose value needs no slot per work-item inlined where it is read:
 * a private scalar `t` with one writer in the kernel, `D: t = e` (no atomicity), where `e` and D's
 * predicates read only constants, value arguments, D's inames and temporaries inlined the same way
 * (written before D, by a dependency or an earlier phase), and every instruction of another phase
 * that reads `t` is an assignment of a later phase, within all of D's inames and under all of D's
 * predicates. Those readers read `(dtype) e` instead of `t`, so `t` stays within D's phase.
 *
 * Why this is the same value: at an instance of such a reader R, D ran at the same values of D's
 * inames (R is within them, and under D's predicates) and before R (an earlier phase of the same
 * iterations of every loop around D, as phases are numbered in schedule order); D's next instance
 * is in a later iteration of a loop around both, so after R, and nothing else writes `t`. So R read
 * `e` at D's instance, and `e`, reading only those inames, value arguments and (by induction)
 * values of the same kind, is the same at R's instance. The work-item is among those inames, so the
 * value was R's own: what OCCA's `int offset = …;` declared again in each `@inner` loop computes,
 * split by a barrier the schedule needed for `@shared` memory.
 */
export function inlineCrossing(k: Kernel, phaseOf: ReadonlyMap<string, ReadonlySet<number>>, crossing: readonly Temporary[]): Kernel {
  if (crossing.length === 0) return k;
  const writers = new Map<string, Instruction[]>();
  const wrote = (w: string, insn: Instruction): void => {
    const ws = writers.get(w);
    if (ws) ws.push(insn);
    else writers.set(w, [insn]);
  };
  for (const insn of k.instructions) {
    if (insn.kind === "assign") wrote(insn.lhs.kind === "var" ? insn.lhs.name : assigneeName(insn.lhs), insn);
    else if (insn.kind === "block") for (const w of insnWrites(insn)) wrote(w, insn);
  }
  const params = new Set(k.domains.flatMap((d) => d.params));
  const values = new Set(k.args.filter((a) => a.kind === "value").map((a) => a.name));
  const temps = new Map(k.temporaries.map((t) => [t.name, t]));
  const phase = (insn: Instruction): number | undefined => { const ps = phaseOf.get(insn.id); return ps?.size === 1 ? [...ps][0] : undefined; };
  type Def = { readonly insn: Instruction; readonly expr: Expr; readonly size: number };
  const defs = new Map<string, Def | null>();
  // The definition of `name` as an expression of at most `budget` nodes (those it reads inlined), or
  // null where it has none of the kind above. The budget bounds the recursion (each level spends at
  // least one node), so a chain of thousands of temporaries costs a few hundred steps, not a deep walk;
  // null is kept (also while `name` is being looked at: a cycle has no definition), so it may refuse
  // what a larger budget would take: the temporary is then privatized, as before.
  const defOf = (name: string, budget: number): Def | null => {
    const hit = defs.get(name);
    if (hit !== undefined) return hit !== null && hit.size <= budget ? hit : null;
    const t = temps.get(name);
    const ws = writers.get(name);
    const d = ws?.length === 1 ? ws[0]! : undefined;
    defs.set(name, null);
    if (budget <= 0 || !t || t.dtype === undefined || t.shape.length > 0 || t.addressSpace !== "private" || params.has(name) ||
        d?.kind !== "assign" || d.atomicity !== "none" || d.lhs.kind !== "var" || phase(d) === undefined) return null;
    const inner = new Map<string, Expr>();
    let pure = true;
    let size = 1;
    for (const e of [d.rhs, ...d.predicates]) {
      walkExpr(e, (n) => {
        if (!pure) return;
        size++;
        if (n.kind === "subscript" || n.kind === "linear" || n.kind === "reduce" || (n.kind === "call" && !PURE_CALLS.has(n.fn))) pure = false;
        else if (n.kind === "var" && !d.withinInames.includes(n.name) && !values.has(n.name) && !inner.has(n.name)) {
          const sub = defOf(n.name, budget - size);
          if (sub === null || !(d.dependsOn.includes(sub.insn.id) || phase(sub.insn)! < phase(d)!) || !within(sub.insn, d)) pure = false;
          else {
            inner.set(n.name, sub.expr);
            size += sub.size;
          }
        }
      });
    }
    if (!pure || size > budget) return null;
    const out: Def = { insn: d, expr: { kind: "cast", dtype: t.dtype, value: substitute(d.rhs, inner) }, size };
    defs.set(name, out);
    return out;
  };
  const inline = new Map<string, Expr>();
  const readersOf = new Map<string, Instruction[]>();
  // Most crossing values of big kernels are accumulators (many writers): done before any walk.
  const defined = crossing.filter((t) => defOf(t.name, MAX_INLINED_NODES) !== null);
  if (defined.length === 0) return k;
  // One walk: the instructions of this device kernel touching each crossing temporary with a definition.
  const touching = new Map<string, Instruction[]>(defined.map((t) => [t.name, []]));
  for (const r of k.instructions) {
    if (!phaseOf.has(r.id)) continue;
    for (const n of touchedNames(r)) touching.get(n)?.push(r);
  }
  for (const t of defined) {
    const def = defOf(t.name, MAX_INLINED_NODES)!;
    const p = phase(def.insn)!;
    const readers = touching.get(t.name)!.filter((r) => r !== def.insn && [...phaseOf.get(r.id)!].some((q) => q !== p));
    // Crossing within its one phase (a loop holding a barrier runs it again): nothing to inline.
    if (readers.length === 0) continue;
    const ok = readers.every((r) => r.kind === "assign" && [...phaseOf.get(r.id)!].every((q) => q > p) && within(def.insn, r));
    if (!ok) continue;
    inline.set(t.name, def.expr);
    readersOf.set(t.name, readers);
  }
  if (inline.size === 0) return k;
  const rewrite = new Map<Instruction, Map<string, Expr>>();
  for (const [name, rs] of readersOf) for (const r of rs) (rewrite.get(r) ?? rewrite.set(r, new Map()).get(r)!).set(name, inline.get(name)!);
  const instructions = k.instructions.map((insn) => {
    const m = rewrite.get(insn);
    return m ? mapInsnExprs(insn, (e) => substitute(e, m)) : insn;
  });
  return withKernel(k, { instructions });
}
