/**
 * What device kernels cannot carry, checked once the schedule is split into them (the pipeline's
 * "device kernels" pass):
 *
 * - a private or local value written before a global barrier and read after it (loopy's
 *   MissingDefinitionError): each device kernel starts with fresh private and local memory, so
 *   the reader would see garbage. `lp.saveAndReloadTemporaries(k)` keeps such values in a global
 *   array instead (loopy's `save_and_reload_temporaries`).
 * - an instruction that depends on another through global memory across work-groups within one
 *   device kernel (loopy's MissingBarrierError): groups run in any order and never meet, so the
 *   dependency needs a global barrier between the two. Inside a host loop each launch has one
 *   value of the loop's iname: instances of other iterations are other launches.
 */
import { assertNever, ScheduleError } from "../errors.js";
import {
  exprEquals, findArg, freeVariables, globMatch, insnReads, insnReadsWithBounds, insnStores, insnWrites, assigneeName, WRITE_RACE_OK,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { mayMeetAcross } from "./access-meet.js";
import type { DeviceKernel, Schedule, ScheduleNode } from "./types.js";

/** The ids of the instructions under `nodes`. */
function insnIds(nodes: readonly ScheduleNode[], out: string[] = []): string[] {
  // Indexed loops here and below: the nest's bodies and the instructions' arrays are frozen, and
  // a for-of (an object per element), some() or every() over a frozen array takes V8's slow path.
  for (let x = 0; x < nodes.length; x++) {
    const n = nodes[x]!;
    if (n.kind === "loop") insnIds(n.body, out);
    else if (n.kind === "insn") out.push(n.id);
  }
  return out;
}

/** The global barriers of `k` in schedule order (at the top level of `nodes` or inside host loops). */
function globalBarriers(k: Kernel, nodes: readonly ScheduleNode[]): string[] {
  const ids = new Set(k.instructions.filter((x) => x.kind === "barrier" && x.scope === "global").map((x) => x.id));
  return nodes.flatMap((n) => (n.kind === "loop" ? globalBarriers(k, n.body) : n.kind === "insn" && ids.has(n.id) ? [n.id] : []));
}

/** Whether device kernels `a` and `b` are launched inside one host loop (values may flow back through its next iteration). */
function shareHostLoop(a: DeviceKernel, b: DeviceKernel): boolean {
  const first = a.hostInames?.[0];
  return first !== undefined && first === b.hostInames?.[0];
}

/** Both checks of this module; `nodes` is the linearized kernel the device kernels were cut from. */
export function checkDeviceKernelBoundaries(s: Schedule, nodes: readonly ScheduleNode[]): void {
  if (s.deviceKernels.length > 1) checkValuesAcrossGlobalBarriers(s, nodes);
  checkDependenciesAcrossGroups(s);
}

/**
 * A ScheduleError for the first private or local temporary that a device kernel reads without
 * writing it first while an earlier device kernel wrote it (or a later one in the same host loop,
 * whose value the next iteration would read): its value does not survive the global barrier
 * between them.
 */
function checkValuesAcrossGlobalBarriers(s: Schedule, nodes: readonly ScheduleNode[]): void {
  const k = s.kernel;
  const kernelOf = new Map<string, number>();
  s.deviceKernels.forEach((dk, d) => insnIds(dk.body).forEach((id) => kernelOf.set(id, d)));
  const barriers = globalBarriers(k, nodes);
  // Writers and readers of each name in one walk, in instruction order (a walk per temporary is
  // quadratic in an unrolled kernel with thousands of temporaries).
  const writersOf = new Map<string, Instruction[]>();
  const readersOf = new Map<string, Instruction[]>();
  const note = (m: Map<string, Instruction[]>, name: string, insn: Instruction) => {
    const list = m.get(name);
    if (list === undefined) m.set(name, [insn]);
    else if (list[list.length - 1] !== insn) list.push(insn);
  };
  for (const x of k.instructions) {
    if (!kernelOf.has(x.id)) continue;
    for (const name of insnWrites(x)) note(writersOf, name, x);
    for (const name of insnReadsWithBounds(k, x)) note(readersOf, name, x);
  }
  for (const t of k.temporaries) {
    if (t.addressSpace !== "private" && t.addressSpace !== "local") continue;
    const writers = writersOf.get(t.name) ?? [];
    for (const reader of readersOf.get(t.name) ?? []) {
      const d = kernelOf.get(reader.id)!;
      const writtenHere = writers.some((w) => kernelOf.get(w.id) === d && w.id !== reader.id);
      const earlier = writers.find((w) => {
        const e = kernelOf.get(w.id)!;
        return e < d || (e > d && shareHostLoop(s.deviceKernels[e]!, s.deviceKernels[d]!));
      });
      if (writtenHere || !earlier) continue;
      const from = s.deviceKernels[kernelOf.get(earlier.id)!]!.name;
      const to = s.deviceKernels[d]!.name;
      const between = barriers.length > 0 ? ` across global barrier ${barriers.map((b) => `"${b}"`).join(", ")}` : "";
      const bound = k.domains.find((dom) => dom.params.includes(t.name));
      const asBound = bound && !insnReads(reader).has(t.name) ? ` (as a bound of the loop over ${bound.dims.map((x) => `"${x}"`).join(", ")})` : "";
      throw new ScheduleError(
        `${t.addressSpace} temporary "${t.name}" is written by instruction "${earlier.id}" in device kernel "${from}" and read by instruction "${reader.id}"${asBound} ` +
        `in device kernel "${to}"${between}, but ${t.addressSpace} memory does not survive a global barrier (every device kernel starts afresh, loopy's MissingDefinitionError); ` +
        (bound
          ? `call lp.saveAndReloadTemporaries(k) to save it in a global array and reload it after the barrier (it bounds a loop, so it stays a scalar), ` +
            `or compute it again after the barrier (a second instruction writing "${t.name}", depending on the barrier)`
          : `call lp.saveAndReloadTemporaries(k) to keep it in a global array across the barrier, make "${t.name}" global (lp.setTemporaryAddressSpace), ` +
            `or compute it again after the barrier`));
    }
  }
}

/** The g-tagged inames of `insn`'s loops, added to `out` (each once). */
function addGroupInames(k: Kernel, insn: Instruction, out: string[]): string[] {
  for (let x = 0; x < insn.withinInames.length; x++) {
    const i = insn.withinInames[x]!;
    if (k.inameTags[i]?.kind === "g" && !out.includes(i)) out.push(i);
  }
  return out;
}

/**
 * Whether each variable is global (array arguments, global temporaries): an argument of the name
 * decides, else the first temporary of it (as `findArg`, then `findTemporary`).
 */
function globalVariables(k: Kernel): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (let x = 0; x < k.args.length; x++) if (!out.has(k.args[x]!.name)) out.set(k.args[x]!.name, k.args[x]!.kind === "array");
  for (let x = 0; x < k.temporaries.length; x++) if (!out.has(k.temporaries[x]!.name)) out.set(k.temporaries[x]!.name, k.temporaries[x]!.addressSpace === "global");
  return out;
}

/** How an access names its cell: per-axis subscripts, a flat index (`a[[…]]`), or unknown (a block's). */
type Cells = { readonly indices: readonly Expr[] } | { readonly flat: Expr } | undefined;

/** The cells of `n` if it is an access of `name`, else null. */
function cellsOf(n: Expr, name: string): Cells | null {
  return n.kind === "subscript" && n.array === name ? { indices: n.indices }
    : n.kind === "linear" && n.array === name ? { flat: n.index }
      : n.kind === "var" && n.name === name ? { indices: [] } : null;
}

/** The accesses of `name` in `e`, pre-order (walkExpr's), added to `out`: a plain recursion, no closure per question. */
function cellsIn(e: Expr, name: string, out: Cells[]): void {
  const c = cellsOf(e, name);
  if (c !== null) out.push(c);
  switch (e.kind) {
    case "var": case "const": return;
    case "arith": case "compare": case "logical": cellsIn(e.left, name, out); cellsIn(e.right, name, out); return;
    case "neg": case "bitnot": case "not": cellsIn(e.operand, name, out); return;
    case "if": cellsIn(e.cond, name, out); cellsIn(e.then, name, out); cellsIn(e.else, name, out); return;
    case "call": for (let x = 0; x < e.args.length; x++) cellsIn(e.args[x]!, name, out); return;
    case "subscript": for (let x = 0; x < e.indices.length; x++) cellsIn(e.indices[x]!, name, out); return;
    case "linear": cellsIn(e.index, name, out); return;
    case "reduce": cellsIn(e.body, name, out); return;
    case "cast": cellsIn(e.value, name, out); return;
    default: return assertNever(e, "expression");
  }
}

/** The cells with which `insn` reads (`write` false) or stores (`write` true) `name`. */
function accessesOf(insn: Instruction, name: string, write: boolean): Cells[] {
  if (insn.kind === "block") return [undefined];
  const out: Cells[] = [];
  if (write) {
    for (const lhs of insnStores(insn)) if (assigneeName(lhs) === name) out.push(cellsOf(lhs, name) ?? undefined);
  } else if (insn.kind === "assign") {
    cellsIn(insn.rhs, name, out);
    for (let x = 0; x < insn.predicates.length; x++) cellsIn(insn.predicates[x]!, name, out);
    // The store's own subscripts read too.
    for (const lhs of insnStores(insn)) {
      if (lhs.kind === "subscript") for (let x = 0; x < lhs.indices.length; x++) cellsIn(lhs.indices[x]!, name, out);
      else if (lhs.kind === "linear") cellsIn(lhs.index, name, out);
    }
  }
  return out;
}

/** Two accesses' cells as comparable subscript lists (flat with flat, per-axis with per-axis), or undefined. */
function comparable(a: Cells, b: Cells): [readonly Expr[], readonly Expr[]] | [undefined, undefined] {
  if (a && b && "indices" in a && "indices" in b) return [a.indices, b.indices];
  if (a && b && "flat" in a && "flat" in b) return [[a.flat], [b.flat]];
  return [undefined, undefined];
}

/** Whether `x` lists `y` in `nosync=` for global (or any) scope, by id or glob. */
function noSyncBetween(x: Instruction, y: Instruction): boolean {
  for (let e = 0; e < x.noSyncWith.length; e++) if (x.noSyncWith[e]!.scope !== "local" && globMatch(x.noSyncWith[e]!.id, y.id)) return true;
  return false;
}

/**
 * loopy's rule for accesses out of the affine model: the same subscripts at both ends, naming
 * every shared group iname, are taken to mean the same group's cell (a chunked `t[i]` written and
 * read at the same point). What this lets through, the interpreter's tracker still reports.
 */
function sameCellSameGroup(ia: readonly Expr[] | undefined, ib: readonly Expr[] | undefined, axes: readonly string[]): boolean {
  if (!ia || !ib || ia.length !== ib.length || ia.length === 0) return false;
  if (!ia.every((e, x) => exprEquals(e, ib[x]!))) return false;
  const used = new Set<string>();
  for (const e of ia) freeVariables(e, used);
  return axes.every((g) => used.has(g));
}

/**
 * A ScheduleError for the first dependency, within one device kernel, between instructions that
 * run across the same `g` inames and touch one global cell from different work-groups
 * (`arr[(i+1) % n] = tmp` after `tmp = arr[i]` with `i` split over g.0). Instructions tagged
 * `write_race_ok` (OKL import: OCCA checks nothing), and pairs marked `nosync` for global or any
 * scope (loopy's promise that no synchronization is needed), are exempt.
 */
function checkDependenciesAcrossGroups(s: Schedule): void {
  const k = s.kernel;
  let groups = false;
  for (const i in k.inameTags) if (k.inameTags[i]!.kind === "g") groups = true;
  if (!groups) return;
  // The global variables each instruction writes, found once, in one walk: a pair where neither
  // writes one (most: reads of local fetches, private accumulators) has nothing to check, and a
  // kernel where no instruction writes one (or the only writers are exempt) has no pair to check.
  const global = globalVariables(k);
  const globalWrites = new Map<string, string[]>();
  const instructions = k.instructions;
  for (let x = 0; x < instructions.length; x++) {
    const insn = instructions[x]!;
    if (insn.tags.includes(WRITE_RACE_OK)) continue;
    let ws: string[] | undefined;
    if (insn.kind === "assign") {
      const name = assigneeName(insn.lhs);
      if (global.get(name) === true) ws = [name];
    } else for (const name of insnWrites(insn)) if (global.get(name) === true) (ws ??= []).push(name);
    if (ws !== undefined) globalWrites.set(insn.id, ws);
  }
  if (globalWrites.size === 0) return;
  const byId = new Map<string, Instruction>();
  for (let x = 0; x < instructions.length; x++) byId.set(instructions[x]!.id, instructions[x]!);
  const NO_WRITES: readonly string[] = [];
  const globalWritesOf = (insn: Instruction): readonly string[] => globalWrites.get(insn.id) ?? NO_WRITES;
  for (const dk of s.deviceKernels) {
    const ids = insnIds(dk.body);
    const here = new Set(ids);
    for (const id of ids) {
      const b = byId.get(id)!;
      if (b.tags.includes(WRITE_RACE_OK)) continue;
      for (let d = 0; d < b.dependsOn.length; d++) {
        const depId = b.dependsOn[d]!;
        const a = byId.get(depId);
        if (!a || !here.has(depId) || a.tags.includes(WRITE_RACE_OK)) continue;
        if (!globalWrites.has(a.id) && !globalWrites.has(b.id)) continue;
        // loopy's nosync: the author says no synchronization (of global scope) is needed between them.
        if (noSyncBetween(b, a) || noSyncBetween(a, b)) continue;
        // The g inames either runs in: one outside a g iname runs in every group along it.
        const axes = addGroupInames(k, b, addGroupInames(k, a, []));
        if (axes.length === 0) continue;
        for (const [writer, other] of [[a, b], [b, a]] as const) {
          for (const name of globalWritesOf(writer)) {
            const otherAccesses = accessesOf(other, name, false);
            for (const c of accessesOf(other, name, true)) otherAccesses.push(c);
            if (otherAccesses.length === 0) continue;
            for (const iw of accessesOf(writer, name, true)) {
              for (const io of otherAccesses) {
                const [cw, co] = comparable(iw, io);
                if (sameCellSameGroup(cw, co, axes) || !mayMeetAcross(k, writer, cw, other, co, axes, dk.hostInames ?? [])) continue;
                throw new ScheduleError(
                  `instruction "${b.id}" depends on instruction "${a.id}" through global ${findArg(k, name) ? "array" : "temporary"} "${name}", ` +
                  `but they may touch the same cell from different work-groups (along ${axes.map((g) => `"${g}"`).join(", ")}) within device kernel "${dk.name}": ` +
                  `work-groups run in any order and never wait for each other (loopy's MissingBarrierError); ` +
                  `put a global barrier between them (... gbarrier), or index so that each group touches only its own cells`);
              }
            }
          }
        }
      }
    }
  }
}
