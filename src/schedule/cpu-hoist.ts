/**
 * Work-group-uniform values on CPU targets (src/schedule/cpu.ts). A private scalar that a barrier
 * separates from its readers gets one slot per work-item there, and a loop that holds a barrier runs
 * outside the loops over the work-items, so its bounds cannot read such a slot. hipBone's gather-scatter
 * assigns its block's range in an `@inner` loop (`blockStart = blockStarts[b]; blockEnd =
 * blockStarts[b+1];`) and bounds a loop the schedule puts a barrier in by it: the value is the same for
 * every work-item (it reads no local index) and at every point after the assignment (it reads only group
 * indices, value arguments and arrays the kernel never writes), so CPU targets compute it once per
 * work-group, before the phases, into one scalar that every phase reads.
 */
import {
  domainIndexOf, insnWrites, MATH_FUNCTIONS, walkExpr, withKernel,
  type Expr, type Instruction, type Kernel, type Temporary,
} from "../ir/index.js";
import { isEmpty } from "../poly/index.js";
import { domainParamsOf } from "./cpu-params.js";
import { touchedNames } from "./cpu-privatize.js";
import { quoted } from "./source-places.js";
import type { DeviceKernel, ScheduleNode } from "./types.js";

/** What hoisting changes: the kernel (the hoisted assignments within the group inames only) and the device kernel's body without them. */
export interface Hoisted {
  readonly kernel: Kernel;
  readonly body: readonly ScheduleNode[];
  /** The hoisted assignments, in schedule order: they run first in each work-group. */
  readonly first: readonly string[];
  /** The temporaries they assign: one scalar per work-group, not privatized. */
  readonly names: ReadonlySet<string>;
}

/** How many values deep a hoisted value's definition is followed (a chain of thousands is not walked). */
const MAX_CHAIN = 64;

/**
 * The private scalars among `crossing` that can be computed once per work-group, and those they read
 * (computed the same way), hoisted out of the phases of device kernel `dk` (`ids`: its instructions);
 * `why` says, for each crossing temporary that cannot, the first reason found. A temporary `t` is hoisted
 * when its one writer in the kernel, `D: t = e` (no atomicity), stands in `dk`'s body outside every
 * sequential loop, runs over every work-item of each group (its local inames range over a constant,
 * non-empty box), and `e` and D's predicates read only constants, value arguments, D's group inames,
 * math functions, temporaries hoisted before it and elements of array arguments that no instruction of
 * the kernel writes (arguments do not alias), indexed the same way; and every instruction that touches
 * `t`, or runs in a loop bounded by it, belongs to `dk`.
 *
 * Why one scalar is right: `e` has the same value at every instance of D in a group (it reads nothing
 * that depends on the work-item or changes during the kernel), so every instance writes the value it
 * has at the start of the group, and nothing else writes `t`; a read of `t` after an instance of D
 * sees that value. Before any (a read the kernel does not order after D) it read an unassigned value.
 */
export function hoistUniform(k: Kernel, dk: DeviceKernel, ids: ReadonlySet<string>, crossing: readonly Temporary[], why: Map<string, string>): Hoisted | undefined {
  if (crossing.length === 0) return undefined;
  const written = new Map<string, Instruction[]>();
  for (const insn of k.instructions) {
    for (const w of insnWrites(insn)) {
      const ws = written.get(w);
      if (ws) ws.push(insn);
      else written.set(w, [insn]);
    }
  }
  const arrays = new Set(k.args.filter((a) => a.kind === "array").map((a) => a.name));
  const values = new Set(k.args.filter((a) => a.kind === "value").map((a) => a.name));
  const temps = new Map(k.temporaries.map((t) => [t.name, t]));
  const tagOf = (i: string) => k.inameTags[i]?.kind;
  // The assignments at the top of the body (outside every sequential loop), by schedule order.
  const top = dk.body.filter((n) => n.kind === "insn").map((n) => n.id);
  const pos = new Map(top.map((id, at) => [id, at]));
  const readOnly = (a: string): string | undefined => {
    if (!arrays.has(a)) return temps.has(a) ? `temporary array "${a}" (only arguments that the kernel never writes are read once per work-group)` : `"${a}"`;
    const w = written.get(a);
    return w ? `array "${a}", which instruction ${quoted(k, w[0]!.id)} of the kernel writes` : undefined;
  };
  /** Per temporary looked at: why it cannot be hoisted, or its writer and the hoistable temporaries it reads. */
  const verdicts = new Map<string, string | { readonly insn: Instruction; readonly reads: readonly string[] }>();
  const verdict = (name: string, depth: number): string | { readonly insn: Instruction; readonly reads: readonly string[] } => {
    const hit = verdicts.get(name);
    if (hit !== undefined) return hit;
    const t = temps.get(name);
    const ws = written.get(name) ?? [];
    const d = ws[0];
    let why: string | undefined;
    if (!t || t.shape.length > 0 || t.dimTags !== undefined || t.addressSpace !== "private" || t.dtype === undefined) why = `it is not a private scalar`;
    else if (d === undefined || ws.length > 1) why = `${ws.length} instructions assign it`;
    else if (d.kind !== "assign" || d.atomicity !== "none" || d.lhs.kind !== "var") why = `instruction ${quoted(k, d.id)} updates it atomically or in an opaque block`;
    else if (!ids.has(d.id)) why = `instruction ${quoted(k, d.id)} of another device kernel assigns it`;
    else if (depth > MAX_CHAIN) why = `it is computed from a chain of more than ${MAX_CHAIN} values`;
    if (why !== undefined) {
      verdicts.set(name, why);
      return why;
    }
    // A cycle has no value assigned first: refused while it is looked at.
    verdicts.set(name, `its value reads itself`);
    const r = examine(d!, depth);
    verdicts.set(name, r);
    return r;
  };
  const examine = (d: Instruction, depth: number): string | { readonly insn: Instruction; readonly reads: readonly string[] } => {
    const seq = d.withinInames.find((i) => tagOf(i) !== "g" && tagOf(i) !== "l");
    if (seq !== undefined) return `its assignment ${quoted(k, d.id)} runs inside loop ${quoted(k, seq)}`;
    if (d.kind !== "assign" || !pos.has(d.id)) return `its assignment ${quoted(k, d.id)} does not stand outside every loop of device kernel "${dk.name}"`;
    for (const l of d.withinInames.filter((i) => tagOf(i) === "l")) {
      const dom = k.domains[domainIndexOf(k, l)];
      if (!dom || dom.params.length > 0 || dom.exists.length > 0 || dom.dims.length !== 1 || isEmpty(dom)) {
        return `its assignment ${quoted(k, d.id)} runs over a range of work-items ${quoted(k, l)} that is not a fixed box, so it may not run in every work-group`;
      }
    }
    const reads = new Set<string>();
    let bad: string | undefined;
    const look = (e: Expr): void => walkExpr(e, (n) => {
      if (bad !== undefined) return false;
      if (n.kind === "subscript" || n.kind === "linear") bad = readOnly(n.array);
      else if (n.kind === "reduce") bad = `a reduction`;
      else if (n.kind === "call" && !Object.hasOwn(MATH_FUNCTIONS, n.fn)) bad = `a call of "${n.fn}"`;
      else if (n.kind === "var" && !values.has(n.name)) {
        if (d.withinInames.includes(n.name)) {
          if (tagOf(n.name) === "l") bad = `the work-item index "${n.name}"`;
        } else if (!temps.has(n.name)) bad = `"${n.name}"`;
        else {
          const r = verdict(n.name, depth + 1);
          if (typeof r === "string") bad = `private temporary ${quoted(k, n.name)} (${r})`;
          else if (pos.get(r.insn.id)! > pos.get(d.id)!) bad = `private temporary ${quoted(k, n.name)}, assigned after it`;
          else reads.add(n.name);
        }
      }
      return bad === undefined;
    });
    for (const e of [d.rhs, ...d.predicates]) look(e);
    return bad !== undefined ? `its assignment ${quoted(k, d.id)} reads ${bad}` : { insn: d, reads: [...reads] };
  };
  // Hoist what the crossing temporaries need, and only that.
  const need = new Set<string>();
  const closure = (n: string, out: Set<string>): Set<string> => {
    const r = verdicts.get(n);
    if (!out.has(n) && r !== undefined && typeof r !== "string") {
      out.add(n);
      for (const x of r.reads) closure(x, out);
    }
    return out;
  };
  const wanted = new Map<string, Set<string>>();
  for (const t of crossing) {
    const r = verdict(t.name, 0);
    if (typeof r === "string") why.set(t.name, r);
    else wanted.set(t.name, closure(t.name, new Set()));
  }
  if (wanted.size === 0) return undefined;
  // Every use in this device kernel: another one would read a value computed in this one's groups.
  const candidates = new Set([...wanted.values()].flatMap((x) => [...x]));
  const foreign = new Map<string, string>();
  for (const insn of k.instructions) {
    // A barrier reads and writes nothing (and an explicit one is a barrier node of the body, not an id in `ids`).
    if (ids.has(insn.id) || insn.kind === "barrier") continue;
    for (const n of touchedNames(insn)) if (candidates.has(n) && !foreign.has(n)) foreign.set(n, insn.id);
    for (const n of domainParamsOf(k, insn)) if (candidates.has(n) && !foreign.has(n)) foreign.set(n, insn.id);
  }
  for (const [name, all] of wanted) {
    const used = [...all].find((n) => foreign.has(n));
    if (used !== undefined) why.set(name, used === name ? `instruction ${quoted(k, foreign.get(used)!)} of another device kernel uses it` : `it reads ${quoted(k, used)}, which instruction ${quoted(k, foreign.get(used)!)} of another device kernel uses`);
    else for (const n of all) need.add(n);
  }
  if (need.size === 0) return undefined;
  const hoisted = [...need].map((n) => (verdicts.get(n) as { readonly insn: Instruction }).insn.id).sort((a, b) => pos.get(a)! - pos.get(b)!);
  const moved = new Set(hoisted);
  const instructions = k.instructions.map((insn) =>
    moved.has(insn.id) ? { ...insn, withinInames: insn.withinInames.filter((i) => tagOf(i) === "g") } : insn);
  return {
    kernel: withKernel(k, { instructions }),
    body: dk.body.filter((n) => n.kind !== "insn" || !moved.has(n.id)),
    first: hoisted,
    names: need,
  };
}
