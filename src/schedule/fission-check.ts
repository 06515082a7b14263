/**
 * A loop the linearization enters more than once within one iteration of the loops around it
 * (after `tile(k, ["t", "j"], …)`: `for t_inner { bump }` then `for j_outer { for t_inner { use } }`)
 * runs every iteration of its first part before any of the next. That keeps the kernel's meaning
 * only where no value flows between the parts through a cell both reuse on every iteration: a
 * private scalar that one part writes and another reads or writes is carried from iteration to
 * iteration (the second part would see the first part's last value only). Such a schedule is
 * refused with a ScheduleError, on every target and on the interpreter alike: the transformation
 * that split the loop (tile, prioritize, split with a reordering) changed what the kernel computes.
 * Hardware inames (each work-item keeps its own private copy) and ilp/vec lanes (one copy per
 * lane) are not loops here.
 */
import { ScheduleError } from "../errors.js";
import { insnReads, insnWrites, type Kernel } from "../ir/index.js";
import type { ScheduleNode } from "./types.js";

const LANES: ReadonlySet<string> = new Set(["g", "l", "l.auto", "ilp", "ilp.seq", "vec"]);

/** Throws where `nodes` split a sequential loop between a private scalar's writer and another of its accessors. */
export function checkLoopFission(k: Kernel, nodes: readonly ScheduleNode[]): void {
  // First whether any sequential iname has two loop nodes at all (the common case: none, and
  // nothing is built), then the loop node of each iname around each instruction.
  const seen = new Map<string, ScheduleNode>();
  const splitIn = (ns: readonly ScheduleNode[]): boolean => ns.some((n) => {
    if (n.kind !== "loop") return false;
    const had = seen.get(n.iname);
    seen.set(n.iname, n);
    return (had !== undefined && had !== n && !LANES.has(k.inameTags[n.iname]?.kind ?? "for")) || splitIn(n.body);
  });
  if (!splitIn(nodes)) return;
  const around = new Map<string, ReadonlyMap<string, ScheduleNode>>();
  const walk = (ns: readonly ScheduleNode[], outer: ReadonlyMap<string, ScheduleNode>): void => {
    for (const n of ns) {
      if (n.kind === "insn") around.set(n.id, outer);
      else if (n.kind === "loop") walk(n.body, new Map(outer).set(n.iname, n));
    }
  };
  walk(nodes, new Map());
  const scalars = new Set(k.temporaries.filter((t) => t.shape.length === 0 && t.addressSpace !== "local" && t.addressSpace !== "global").map((t) => t.name));
  if (scalars.size === 0) return;
  const writers = new Map<string, string[]>();
  const accessors = new Map<string, string[]>();
  for (const insn of k.instructions) {
    const w = insnWrites(insn).filter((n) => scalars.has(n));
    for (const n of w) writers.set(n, [...(writers.get(n) ?? []), insn.id]);
    for (const n of new Set([...w, ...[...insnReads(insn)].filter((x) => scalars.has(x))])) accessors.set(n, [...(accessors.get(n) ?? []), insn.id]);
  }
  const within = new Map(k.instructions.map((i) => [i.id, i.withinInames]));
  for (const [name, ws] of writers) {
    for (const w of ws) {
      for (const x of accessors.get(name) ?? []) {
        if (x === w) continue;
        const [lw, lx] = [around.get(w), around.get(x)];
        if (lw === undefined || lx === undefined) continue;
        for (const iname of within.get(w)!) {
          if (LANES.has(k.inameTags[iname]?.kind ?? "for") || !within.get(x)!.includes(iname)) continue;
          const [a, b] = [lw.get(iname), lx.get(iname)];
          if (a !== undefined && b !== undefined && a !== b) {
            throw new ScheduleError(`kernel "${k.name}": loop "${iname}" runs as two loops, one holding instruction "${w}" and another "${x}" (the loop order puts other loops between them), ` +
              `and the private scalar "${name}" that "${w}" writes carries its value between their iterations: all of the first loop's iterations would run before the second's, which changes what the kernel computes. ` +
              `Keep both in one nest of "${iname}" (an order, prioritize or tile that does not put a loop of one between "${iname}" and the other), or make "${name}" an array indexed by "${iname}"`);
          }
        }
      }
    }
  }
}
