/**
 * `getSyncMap` (loopy's `get_synchronization_map`): synchronization read off the schedule, so that
 * the barriers the scheduler inserts are counted with the explicit ones.
 * - "barrier_local": each local barrier of a device kernel, once per point of the sequential loops
 *   (and host loops) around it: the number of barriers one work-item passes, as loopy counts.
 * - "barrier_global": each explicit global barrier instruction, once per point of its loops (Loom
 *   inserts no global barrier of its own: it refuses a kernel that needs one).
 * - "kernel_launch": each device-kernel launch of the host program, once per point of the host
 *   loops around it.
 */
import { CountMap, domainCounter, type Count, type Sync } from "../analysis/index.js";
import type { Kernel } from "../ir/index.js";
import { hostProgramOf } from "./device.js";
import { schedule } from "./pipeline.js";
import type { HostNode, ScheduleNode } from "./types.js";

export function getSyncMap(k: Kernel): CountMap {
  const s = schedule(k);
  const points = domainCounter(s.kernel, {});
  const entries: [Sync, Count][] = [];
  const local = (nodes: readonly ScheduleNode[], loops: readonly string[]): void => {
    for (const n of nodes) {
      if (n.kind === "barrier") entries.push([{ kind: "barrier_local" }, points(loops)]);
      else if (n.kind === "loop") local(n.body, [...loops, n.iname]);
    }
  };
  const host = (nodes: readonly HostNode[], loops: readonly string[]): void => {
    for (const n of nodes) {
      if (n.kind === "loop") host(n.body, [...loops, n.iname]);
      else {
        entries.push([{ kind: "kernel_launch" }, points(loops)]);
        local(s.deviceKernels[n.kernel]!.body, loops);
      }
    }
  };
  host(hostProgramOf(s), []);
  for (const insn of s.kernel.instructions) {
    if (insn.kind === "barrier" && insn.scope === "global") entries.push([{ kind: "barrier_global" }, points(insn.withinInames)]);
  }
  return new CountMap(entries);
}
