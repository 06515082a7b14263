/**
 * Private temporaries that the kernel sets and never reads (a field of a class object that its
 * constructor sets for nobody: `p_count = group;`), dropped from the CPU lowering's result with
 * the assignments to them, so that C compilers see no variable set but not used (gcc -Wall's
 * -Wunused-but-set-variable). Nothing reads them, so no value the kernel computes changes; an
 * assignment whose value only such a temporary read becomes dead in turn (a worklist over reader
 * counts: linear in the kernel). Opaque blocks and atomic updates are kept whole (a block may write
 * other variables too).
 *
 *   dropDeadStores(k, dks)   // without `t = …` where no instruction, predicate or domain reads t
 */
import { addFreeVariables, assigneeName, insnReads, insnWrites, withKernel, type Instruction, type Kernel } from "../ir/index.js";
import type { DeviceKernel, ScheduleNode } from "./types.js";

/** `k` and the device kernels' bodies without the assignments to private temporaries nothing reads, nor those temporaries. */
export function dropDeadStores(k: Kernel, dks: readonly DeviceKernel[]): { kernel: Kernel; deviceKernels: DeviceKernel[] } {
  const privates = new Set(k.temporaries.filter((t) => t.addressSpace === "private").map((t) => t.name));
  // How many instructions (and domains) read each name, and the plain assignments to each private temporary.
  const readers = new Map<string, number>();
  const readsOf = new Map<string, Set<string>>();
  const writers = new Map<string, string[]>();
  for (const insn of k.instructions) {
    const r = assignReads(insn);
    readsOf.set(insn.id, r);
    for (const n of r) readers.set(n, (readers.get(n) ?? 0) + 1);
    if (insn.kind === "assign" && insn.atomicity === "none" && privates.has(assigneeName(insn.lhs))) {
      const t = assigneeName(insn.lhs);
      const ws = writers.get(t);
      if (ws) ws.push(insn.id);
      else writers.set(t, [insn.id]);
    }
  }
  for (const d of k.domains) for (const p of d.params) readers.set(p, (readers.get(p) ?? 0) + 1);
  // A worklist: a temporary nothing reads loses its assignments, which may leave others unread.
  const dropped = new Set<string>();
  const unread = [...writers.keys()].filter((t) => !readers.get(t));
  while (unread.length > 0) {
    const t = unread.pop()!;
    for (const id of writers.get(t) ?? []) {
      if (dropped.has(id)) continue;
      dropped.add(id);
      for (const n of readsOf.get(id)!) {
        const left = readers.get(n)! - 1;
        readers.set(n, left);
        if (left === 0 && writers.has(n)) unread.push(n);
      }
    }
  }
  if (dropped.size === 0) return { kernel: k, deviceKernels: [...dks] };
  const instructions = k.instructions.filter((i) => !dropped.has(i.id));
  const used = new Set<string>();
  for (const insn of instructions) {
    assignReads(insn, used);
    for (const n of insnWrites(insn)) used.add(n);
  }
  for (const d of k.domains) for (const p of d.params) used.add(p);
  const temporaries = k.temporaries.filter((t) => t.addressSpace !== "private" || used.has(t.name));
  const kept = instructions.map((i) => (i.dependsOn.some((d) => dropped.has(d)) ? { ...i, dependsOn: i.dependsOn.filter((d) => !dropped.has(d)) } : i));
  const prune = (nodes: readonly ScheduleNode[]): ScheduleNode[] => nodes.flatMap((n): ScheduleNode[] => {
    if (n.kind === "insn") return dropped.has(n.id) ? [] : [n];
    if (n.kind !== "loop") return [n];
    const body = prune(n.body);
    return body.length === 0 && n.body.length > 0 ? [] : [{ ...n, body }];
  });
  return { kernel: withKernel(k, { instructions: kept, temporaries }), deviceKernels: dks.map((dk) => ({ ...dk, body: prune(dk.body) })) };
}

/**
 * `insnReads(insn, out)`, an assignment's expressions walked, not remembered (addFreeVariables):
 * this pass asks once per expression, of expressions the CPU lowering has just rewritten.
 */
function assignReads(insn: Instruction, out: Set<string> = new Set()): Set<string> {
  if (insn.kind !== "assign") return insnReads(insn, out);
  for (const p of insn.predicates) addFreeVariables(p, out);
  addFreeVariables(insn.rhs, out);
  const lhs = insn.lhs;
  if (lhs.kind === "subscript") for (const i of lhs.indices) addFreeVariables(i, out);
  if (lhs.kind === "linear") addFreeVariables(lhs.index, out);
  return out;
}
