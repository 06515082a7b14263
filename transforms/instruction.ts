/**
 * Instruction transformations (loopy/transform/instruction.py, add_barrier.py): dependencies,
 * barriers, removal, priorities. Each is a pure function Kernel -> Kernel; instructions are
 * chosen with the match language (`"id:a* or writes:out"`) or a list of ids.
 */
import { TransformError } from "../src/errors.js";
import {
  insnDefaults, uniqueName, withKernel, type BarrierInsn, type Instruction, type Kernel,
} from "../src/ir/index.js";
import { selectInstructions, type InstructionMatch } from "./match.js";
import { checkKernel, checkOptions } from "./common.js";

/** A dependency cycle through `ids` (each depending on the next), or undefined. */
function findCycle(insns: readonly Instruction[]): string[] | undefined {
  const deps = new Map(insns.map((i) => [i.id, i.dependsOn]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done" || !deps.has(id)) return undefined;
    if (state.get(id) === "open") return [...path.slice(path.indexOf(id)), id];
    state.set(id, "open");
    path.push(id);
    for (const d of deps.get(id)!) {
      const c = visit(d);
      if (c) return c;
    }
    path.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const i of insns) {
    const c = visit(i.id);
    if (c) return c;
  }
  return undefined;
}

/** `insns` with `extra` added to the dependencies of the instructions in `targets` (no self-dependencies). */
function withDependencies(insns: readonly Instruction[], targets: ReadonlySet<string>, extra: readonly string[], who: string): Instruction[] {
  const out = insns.map((insn) => {
    if (!targets.has(insn.id)) return insn;
    const added = extra.filter((d) => d !== insn.id && !insn.dependsOn.includes(d));
    return added.length === 0 ? insn : { ...insn, dependsOn: [...insn.dependsOn, ...added] };
  });
  const cycle = findCycle(out);
  if (cycle) throw new TransformError(`${who}: the new dependencies make a cycle ${cycle.join(" -> ")}; an instruction cannot (transitively) depend on itself`);
  return out;
}

/**
 * Make the instructions `insnMatch` selects depend on those `dependsOn` selects (loopy's
 * add_dependency). An instruction never depends on itself; a cycle is a TransformError.
 *
 *   addDependency(k, "id:store", "writes:acc")   // store now waits for every write of acc
 */
export function addDependency(k: Kernel, insnMatch: InstructionMatch, dependsOn: InstructionMatch): Kernel {
  const who = "addDependency";
  checkKernel(k, who);
  const targets = new Set(selectInstructions(k, insnMatch, who, "insnMatch"));
  const deps = selectInstructions(k, dependsOn, who, "dependsOn");
  return withKernel(k, { instructions: withDependencies(k.instructions, targets, deps, who) });
}

export interface BarrierOptions {
  /** The barrier's id (default loopy's `l_barrier`/`g_barrier`, made unique as `l_barrier_0`, …). */
  readonly id?: string;
  /** The loops around the barrier; default: the sequential loops that all `before` and `after` instructions share. */
  readonly withinInames?: readonly string[];
}

export const BARRIER_OPTIONS: Readonly<Record<keyof BarrierOptions, true>> = { id: true, withinInames: true };

/**
 * Insert a barrier between two groups of instructions (loopy's add_barrier): the barrier
 * depends on every `before` instruction and every `after` instruction depends on the barrier.
 * `scope` "local" synchronizes the work-items of a group, "global" the whole grid.
 *
 *   addBarrier(k, "writes:t", "reads:t", "local")   // ... lbarrier {id=l_barrier, dep=fill}
 */
export function addBarrier(
  k: Kernel, before: InstructionMatch, after: InstructionMatch, scope: "local" | "global", opts: BarrierOptions = {},
): Kernel {
  const who = "addBarrier";
  checkKernel(k, who);
  opts = checkOptions(opts, who, BARRIER_OPTIONS);
  if (scope !== "local" && scope !== "global") throw new TransformError(`${who}: scope must be "local" or "global"; got ${JSON.stringify(scope)}`);
  const beforeIds = selectInstructions(k, before, who, "before");
  const afterIds = selectInstructions(k, after, who, "after");
  const both = beforeIds.filter((id) => afterIds.includes(id));
  if (both.length > 0) throw new TransformError(`${who}: instruction(s) ${both.join(", ")} are selected both before and after the barrier`);

  const taken = new Set(k.instructions.map((i) => i.id));
  let id: string;
  if (opts.id === undefined) {
    id = uniqueName(scope === "local" ? "l_barrier" : "g_barrier", taken); // loopy's names
  } else {
    if (typeof opts.id !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.id)) throw new TransformError(`${who}: id must be an identifier; got ${JSON.stringify(opts.id)}`);
    if (taken.has(opts.id)) throw new TransformError(`${who}: id "${opts.id}" is already an instruction of kernel "${k.name}"; choose another`);
    id = opts.id;
  }

  const byId = new Map(k.instructions.map((i) => [i.id, i]));
  let withinInames: readonly string[];
  if (opts.withinInames === undefined) {
    const hardware = (i: string) => { const t = k.inameTags[i]; return t !== undefined && (t.kind === "g" || t.kind === "l" || t.kind === "l.auto"); };
    const groups = [...beforeIds, ...afterIds].map((x) => byId.get(x)!.withinInames);
    withinInames = groups[0]!.filter((i) => !hardware(i) && groups.every((g) => g.includes(i)));
  } else {
    const inames = new Set(k.domains.flatMap((d) => d.dims));
    const bad = Array.isArray(opts.withinInames) ? opts.withinInames.filter((i) => !inames.has(i)) : [String(opts.withinInames)];
    if (bad.length > 0) throw new TransformError(`${who}: withinInames ${bad.map((b) => `"${b}"`).join(", ")} are not inames of kernel "${k.name}"; inames are ${[...inames].join(", ") || "(none)"}`);
    withinInames = [...opts.withinInames].sort();
  }

  const barrier: BarrierInsn = Object.assign(insnDefaults(id), { kind: "barrier" as const, scope, withinInames, dependsOn: beforeIds });
  // The barrier goes right after the last `before` instruction, so the kernel still reads in order.
  const lastBefore = Math.max(...beforeIds.map((b) => k.instructions.findIndex((i) => i.id === b)));
  const instructions = [...k.instructions.slice(0, lastBefore + 1), barrier, ...k.instructions.slice(lastBefore + 1)];
  return withKernel(k, { instructions: withDependencies(instructions, new Set(afterIds), [id], who) });
}

/**
 * Remove the selected instructions (loopy's remove_instructions). Whoever depended on a removed
 * instruction now depends on what it depended on, transitively through removed ones, so the
 * order of the instructions that remain is kept; `nosync` entries naming them are dropped.
 *
 *   removeInstructions(k, "id:gather")   // a {dep=gather}, gather {dep=b}  ->  a {dep=b}
 */
export function removeInstructions(k: Kernel, match: InstructionMatch): Kernel {
  const who = "removeInstructions";
  checkKernel(k, who);
  const removed = new Set(selectInstructions(k, match, who));
  const byId = new Map(k.instructions.map((i) => [i.id, i]));
  // The surviving dependencies a removed instruction stands for.
  const through = new Map<string, string[]>();
  const resolve = (id: string): string[] => {
    const known = through.get(id);
    if (known) return known;
    through.set(id, []);
    const out = new Set<string>();
    for (const d of byId.get(id)?.dependsOn ?? []) {
      if (removed.has(d)) for (const x of resolve(d)) out.add(x);
      else out.add(d);
    }
    const list = [...out];
    through.set(id, list);
    return list;
  };
  const instructions = k.instructions.filter((i) => !removed.has(i.id)).map((insn): Instruction => {
    const touches = insn.dependsOn.some((d) => removed.has(d)) || insn.noSyncWith.some((n) => removed.has(n.id));
    if (!touches) return insn;
    const deps: string[] = [];
    for (const d of insn.dependsOn) {
      for (const x of removed.has(d) ? resolve(d) : [d]) if (x !== insn.id && !deps.includes(x)) deps.push(x);
    }
    return { ...insn, dependsOn: deps, noSyncWith: insn.noSyncWith.filter((n) => !removed.has(n.id)) };
  });
  return withKernel(k, { instructions });
}

/**
 * Set the scheduling priority of the selected instructions (loopy's set_instruction_priority):
 * among instructions ready to run, a higher priority runs sooner.
 *
 *   setInstructionPriority(k, "id:prefetch_*", 10)
 */
export function setInstructionPriority(k: Kernel, match: InstructionMatch, priority: number): Kernel {
  const who = "setInstructionPriority";
  checkKernel(k, who);
  if (typeof priority !== "number" || !Number.isSafeInteger(priority)) {
    throw new TransformError(`${who}: priority must be an integer; got ${JSON.stringify(priority) ?? String(priority)}`);
  }
  const ids = new Set(selectInstructions(k, match, who));
  const instructions = k.instructions.map((insn) => (ids.has(insn.id) ? { ...insn, priority } : insn));
  return withKernel(k, { instructions });
}
