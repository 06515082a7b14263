/**
 * The CPU lowering of a schedule (ALGORITHMS.md §4): group axes become the outermost loops; the
 * body is split into phases at barriers, each phase wrapped in loops over all work-items; values
 * of private temporaries that live across a phase boundary get one slot per work-item (OCCA's
 * `@exclusive`). Each hardware axis gets one loop, also where several inames share it (the stages
 * of a local tree reduction): those are rewritten onto the loop's iname, guarded by their own domain.
 * The result has no hardware axes and no barriers: its sequential execution is the parallel meaning.
 */
import { ScheduleError } from "../errors.js";
import { exprToString, withKernel, type Kernel, type InameTag, type Temporary } from "../ir/index.js";
import { dropDeadStores } from "./cpu-dead-stores.js";
import { hoistUniform } from "./cpu-hoist.js";
import { checkScalarBounds, hasBarrier, loadDomainParams } from "./cpu-params.js";
import { axesToBox, barrierCrossing, inlineCrossing, privatizedFields } from "./cpu-privatize.js";
import { shareAxes, type SharedFields } from "./cpu-axes.js";
import { quoted } from "./source-places.js";
import type { DeviceKernel, HwAxis, Schedule, ScheduleNode } from "./types.js";

function insnIdsOf(nodes: readonly ScheduleNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    if (n.kind === "insn") out.push(n.id);
    else if (n.kind === "loop") insnIdsOf(n.body, out);
  }
  return out;
}

/** `body` inside loops over `axes`, the highest axis outermost (axis 0 innermost, for unit stride). */
function nestIn(axes: readonly HwAxis[], body: readonly ScheduleNode[]): ScheduleNode[] {
  let out = [...body];
  for (const ax of [...axes].sort((a, b) => a.axis - b.axis)) out = [{ kind: "loop", iname: ax.iname, body: out, hw: ax.tag === "g" ? "group" : "local" }];
  return out;
}

/**
 * The phases of a device kernel's body, each inside the work-item loops; `phaseOf` records each
 * instruction's phase, and `repeated` the phases inside a loop that holds a barrier: each runs once
 * per trip of that loop, every work-item's run after the others' runs of the trip before.
 */
function splitPhases(
  nodes: readonly ScheduleNode[], axes: readonly HwAxis[], phaseOf: Map<string, Set<number>>, counter: { n: number },
  repeated?: Set<number>, inLoop = false,
): ScheduleNode[] {
  const out: ScheduleNode[] = [];
  let cur: ScheduleNode[] = [];
  const flush = () => {
    if (cur.length === 0) return;
    const phase = counter.n++;
    if (inLoop) repeated?.add(phase);
    const mark = (ns: readonly ScheduleNode[]): void => {
      for (const n of ns) {
        if (n.kind === "insn") phaseOf.set(n.id, (phaseOf.get(n.id) ?? new Set()).add(phase));
        else if (n.kind === "loop") mark(n.body);
      }
    };
    mark(cur);
    out.push(...nestIn(axes, cur));
    cur = [];
  };
  for (const n of nodes) {
    if (n.kind === "barrier") flush();
    else if (n.kind === "loop" && hasBarrier(n.body)) {
      flush();
      out.push({ kind: "loop", iname: n.iname, body: splitPhases(n.body, axes, phaseOf, counter, repeated, true) });
    } else cur.push(n);
  }
  flush();
  return out;
}

function lowerDevice(kIn: Kernel, dk0: DeviceKernel, privatized: Set<string>): { kernel: Kernel; dk: DeviceKernel } {
  const ids = new Set(insnIdsOf(dk0.body));
  // Which private temporaries get one slot per work-item decides which local axes need a loop
  // over the whole work-group (`boxed` in shareAxes), so it comes first.
  const phaseOf = new Map<string, Set<number>>();
  const repeated = new Set<number>();
  splitPhases(dk0.body, [], phaseOf, { n: 0 }, repeated);
  const crossing0 = dk0.localAxes.length > 0 ? barrierCrossing(kIn, phaseOf, privatized, repeated, dk0.body) : [];
  // A value a barrier separates from its readers, recomputed where they read it when it can be (cpu-privatize.ts).
  const kInlined = inlineCrossing(kIn, phaseOf, crossing0);
  const crossing1 = kInlined === kIn ? crossing0 : barrierCrossing(kInlined, phaseOf, privatized, repeated, dk0.body);
  // A value one for the whole work-group, computed once per group before the phases (cpu-hoist.ts).
  const notUniform = new Map<string, string>();
  const hoisted = dk0.localAxes.length > 0 ? hoistUniform(kInlined, dk0, ids, crossing1, notUniform) : undefined;
  const k0 = hoisted?.kernel ?? kInlined;
  const crossing = hoisted ? crossing1.filter((t) => !hoisted.names.has(t.name)) : crossing1;
  const dk1: DeviceKernel = hoisted ? { ...dk0, body: hoisted.body } : dk0;
  const shared = shareAxes(k0, dk1, ids, axesToBox(k0, dk1, ids, crossing));
  // Sharing axes and privatizing make one kernel: each new kernel freezes what it rewrote, and
  // in a big kernel both rewrite nearly every instruction.
  let changes: Partial<SharedFields> | undefined = shared.changes;
  const dk: DeviceKernel = { ...dk1, groupAxes: shared.groupAxes, localAxes: shared.localAxes };
  const insnNode = (id: string): ScheduleNode => ({ kind: "insn", id });
  const withGroupLoops = (nodes: readonly ScheduleNode[], first: readonly string[] = []): ScheduleNode[] => [
    ...shared.groupSizeInsns.map(insnNode),
    ...nestIn(dk.groupAxes, [
      ...shared.sizeInsns.map(insnNode), ...(hoisted?.first ?? []).map(insnNode), ...first.map(insnNode),
      ...splitPhases(nodes, dk.localAxes, new Map(), { n: 0 }),
    ]),
  ];
  let body = withGroupLoops(dk.body);
  if (dk.localAxes.length > 0 && crossing.length > 0) {
    // Every crossing temporary in one pass (the first is the one any error names, as one at a time).
    for (const t of crossing.slice(0, 1)) {
      const sized = dk.localAxes.find((ax) => ax.size.kind !== "const");
      if (sized) {
        throw new ScheduleError(
          `lowerForCpu: private temporary ${quoted(k0, t.name)} of device kernel "${dk.name}" lives across a barrier, so CPU targets give it one slot per work-item, ` +
          `but the work-group size along l.${sized.axis} (iname ${quoted(k0, sized.iname)}) is ${exprToString(sized.size)}, not a compile-time constant; ` +
          `split "${sized.iname}" by a constant and tag the inner part, or keep the value in a local (@shared) array`);
      }
    }
    const fields = { instructions: changes?.instructions ?? k0.instructions, temporaries: changes?.temporaries ?? k0.temporaries };
    const byName = new Map<string, Temporary>();
    for (const t of fields.temporaries) if (!byName.has(t.name)) byName.set(t.name, t);
    changes = { ...changes, ...privatizedFields(fields, crossing.map((t) => byName.get(t.name)!), dk.localAxes) };
    for (const t of crossing) privatized.add(t.name);
    // Bounds of inner loops that read those temporaries read a per-work-item copy (cpu-params.ts).
    const loads = loadDomainParams(
      k0, { instructions: changes.instructions!, temporaries: changes.temporaries!, domains: changes.domains ?? k0.domains },
      crossing.map((t) => t.name), ids, dk.body, dk.groupAxes, dk.localAxes, dk.name, notUniform);
    if (loads) {
      changes = { ...changes, instructions: loads.instructions, temporaries: loads.temporaries, domains: loads.domains };
      body = withGroupLoops(loads.body, loads.inits);
    }
  }
  if (changes) checkScalarBounds(k0, { domains: changes.domains ?? k0.domains, temporaries: changes.temporaries ?? k0.temporaries });
  const kernel = changes ? withKernel(k0, changes) : k0;
  return { kernel, dk: { ...dk, body, groupAxes: [], localAxes: [] } };
}

/**
 * `s` with group and local axes turned into loops, phases split at barriers and barrier-crossing
 * private values privatized; the rewritten kernel (hardware tags dropped) is `Schedule.kernel`.
 * For `for k_outer { fetch; barrier; compute; barrier }` over l.0 = `li` the body becomes
 * `for k_outer { for li { fetch } for li { compute } }`.
 */
export function lowerForCpu(s: Schedule): Schedule {
  let kernel = s.kernel;
  const privatized = new Set<string>();
  const deviceKernels = s.deviceKernels.map((dk) => {
    const r = lowerDevice(kernel, dk, privatized);
    kernel = r.kernel;
    return r.dk;
  });
  const inameTags: Record<string, InameTag> = {};
  for (const [i, t] of Object.entries(kernel.inameTags)) if (t.kind !== "g" && t.kind !== "l" && t.kind !== "l.auto") inameTags[i] = t;
  // Values set and never read (gcc -Wall: set but not used) go (cpu-dead-stores.ts).
  const live = dropDeadStores(withKernel(kernel, { inameTags }), deviceKernels);
  return { ...s, kernel: live.kernel, deviceKernels: live.deviceKernels };
}
