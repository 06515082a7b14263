/**
 * A stand-in schedule for tests: `linearize(k)` with hardware inames lifted out of the loop nest
 * and no barriers inserted, to show what races. Address spaces are decided by the scheduler's one
 * rule (`resolveAddressSpaces`); reductions are not realized (kernels here have none).
 */
import type { Instruction, Kernel } from "../../src/ir/index.js";
import {
  hwAxis, linearize, resolveAddressSpaces, type DeviceKernel, type Schedule, type ScheduleNode,
} from "../../src/schedule/index.js";



/**
 * The schedule made from `linearize(k)`: hardware loops dissolved, explicit barriers as barrier
 * nodes, device kernels split at top-level global barriers. No barriers are inserted.
 */
export function fallbackSchedule(k0: Kernel): Schedule {
  const k = resolveAddressSpaces(k0);
  const hw = new Map<string, { tag: "g" | "l"; axis: number }>();
  for (const [iname, tag] of Object.entries(k.inameTags)) if (tag.kind === "g" || tag.kind === "l") hw.set(iname, { tag: tag.kind, axis: tag.axis });
  const byId = new Map(k.instructions.map((i) => [i.id, i]));
  // Hardware inames are not loops: their loops dissolve into the enclosing sequence.
  const strip = (nodes: readonly ScheduleNode[]): ScheduleNode[] =>
    nodes.flatMap((n): ScheduleNode[] => {
      if (n.kind === "loop") return hw.has(n.iname) ? strip(n.body) : [{ ...n, body: strip(n.body) }];
      if (n.kind === "insn" && byId.get(n.id)?.kind === "barrier") {
        const b = byId.get(n.id) as Instruction & { kind: "barrier" };
        return [b.scope === "global" ? { kind: "insn", id: n.id } : { kind: "barrier", scope: "local", comment: `explicit barrier ${n.id}` }];
      }
      return [n];
    });
  // Split at top-level global barriers into device kernels.
  const bodies: ScheduleNode[][] = [[]];
  for (const n of strip(linearize(k))) {
    if (n.kind === "insn" && byId.get(n.id)?.kind === "barrier") bodies.push([]);
    else bodies[bodies.length - 1]!.push(n);
  }
  const deviceKernels = bodies.map((body, d): DeviceKernel => {
    const used = new Set<string>();
    const walk = (ns: readonly ScheduleNode[]): void => ns.forEach((n) => {
      if (n.kind === "loop") walk(n.body);
      else if (n.kind === "insn") for (const i of byId.get(n.id)!.withinInames) used.add(i);
    });
    walk(body);
    const axes = [...hw].filter(([iname]) => used.has(iname)).map(([iname, t]) => hwAxis(k, iname, t.tag, t.axis));
    // Several inames may share an axis: each is bound to its own base plus the axis id.
    const pick = (tag: "g" | "l") => axes.filter((a) => a.tag === tag).sort((a, b) => a.axis - b.axis);
    return {
      name: bodies.length === 1 ? k.name : d === 0 ? k.name : `${k.name}_${d - 1}`,
      body, groupAxes: pick("g"), localAxes: pick("l"),
      args: k.args.map((a) => a.name),
    };
  });
  return { kernel: k, deviceKernels };
}
