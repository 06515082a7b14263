/**
 * Private temporaries that the kernel sets and never reads (a field of a class object that its
 * constructor sets for nobody: `p_count = group;`), dropped from the CPU lowering's result with
 * the assignments to them, so that C compilers see no variable set but not used (gcc -Wall's
 * -Wunused-but-set-variable). Nothing reads them, so no value the kernel computes changes; an
 * assignment whose value only such a temporary read becomes dead in turn (to a fixpoint). Opaque
 * blocks and atomic updates are kept whole (a block may write other variables too).
 *
 *   dropDeadStores(k, dks)   // without `t = …` where no instruction, predicate or domain reads t
 */
import { assigneeName, insnReads, insnWrites, withKernel, type Kernel } from "../ir/index.js";
import type { DeviceKernel, ScheduleNode } from "./types.js";

/** `k` and the device kernels' bodies without the assignments to private temporaries nothing reads, nor those temporaries. */
export function dropDeadStores(k: Kernel, dks: readonly DeviceKernel[]): { kernel: Kernel; deviceKernels: DeviceKernel[] } {
  const privates = new Set(k.temporaries.filter((t) => t.addressSpace === "private").map((t) => t.name));
  let instructions = k.instructions;
  const dropped = new Set<string>();
  for (;;) {
    const read = new Set<string>();
    for (const insn of instructions) insnReads(insn, read);
    for (const d of k.domains) for (const p of d.params) read.add(p);
    const dead = instructions.filter((i) => i.kind === "assign" && i.atomicity === "none" && privates.has(assigneeName(i.lhs)) && !read.has(assigneeName(i.lhs)));
    if (dead.length === 0) break;
    for (const i of dead) dropped.add(i.id);
    instructions = instructions.filter((i) => !dropped.has(i.id));
  }
  if (dropped.size === 0) return { kernel: k, deviceKernels: [...dks] };
  const used = new Set<string>();
  for (const insn of instructions) {
    insnReads(insn, used);
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
