/**
 * The interpreter's parallel meaning as generated code (ALGORITHMS.md §5): a device kernel is a
 * loop over its groups, in REVERSED order of their flat id (axis 0 fastest), so that a group
 * reading what a lower group writes sees stale data — and the global-memory tracker reports it.
 * Within a group, work-items run in lockstep per schedule node: each instruction (or barrier-free
 * loop) runs for every work-item before the next node; a loop containing a barrier runs once for
 * the group. Private temporaries have one copy per work-item, local ones one per group (both refilled
 * with garbage for each group), global ones one per run; local memory and the global arrays a device kernel
 * writes are shadowed by `CellTracker`s (race-tracker.ts).
 *
 * Several inames may share one hardware axis (a local tree reduction's stage inames beside the
 * reduced iname, loopy's prefetch inames): the axis runs over the largest of their sizes and each
 * iname is bound to its own base plus the axis id; instructions guard their own domains.
 */
import { ExecutionError } from "../errors.js";
import {
  assigneeName, findArg, findTemporary, freeVariables, insnExprs, insnStores,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { dimBounds, type BasicSet } from "../poly/index.js";
import { hwAxis, type DeviceKernel, type HwAxis, type ScheduleNode } from "../schedule/index.js";
import { exactIndexCode, type ExprContext } from "./compile-expr.js";

/** What the parallel code needs of the sequential kernel compiler (interp.ts). */
export interface KernelCode {
  readonly k: Kernel;
  /** Trackers of the device kernel being compiled: array name -> JS variable. */
  trackers: Map<string, string>;
  /** JS variables declared (with `let`) at the top of the kernel function. */
  readonly topVars: string[];
  spaceOf(name: string): "private" | "local" | "global";
  /** Position of an array argument or temporary in the storage `execute` takes. */
  arrayIndexOf(name: string): number;
  inameVar(iname: string): string;
  exprCtx(what: string, scope: readonly string[]): ExprContext;
  nodes(nodes: readonly ScheduleNode[], outer: readonly string[], ind: string): string[];
  loop(iname: string, body: readonly ScheduleNode[], outer: readonly string[], ind: string,
    emitBody: (outer: readonly string[], ind: string) => string[]): string[];
  insnsUnder(nodes: readonly ScheduleNode[]): Instruction[];
  domainOf(inames: readonly string[]): BasicSet;
  expand(e: Expr): Expr;
}

/** One hardware axis of a device kernel and every iname on it. */
interface AxisInames {
  readonly axis: number;
  /** JS variable of the axis size, the first iname's name (for messages), the inames. */
  readonly size: string;
  readonly inames: readonly HwAxis[];
}

/** The inames on each axis of `tag`: those the schedule lists, then used ones it does not. */
function axesOf(k: Kernel, listed: readonly HwAxis[], used: ReadonlySet<string>, tag: "g" | "l", d: number): AxisInames[] {
  const all = [...listed];
  for (const iname of [...used].sort()) {
    const t = k.inameTags[iname];
    if (t?.kind !== tag || all.some((a) => a.iname === iname)) continue;
    // The schedule checked that inames sharing an axis have one range: take a listed one's.
    const same = listed.find((a) => a.axis === t.axis);
    all.push(same ? { ...same, iname } : hwAxis(k, iname, tag, t.axis));
  }
  const numbers = [...new Set(all.map((a) => a.axis))].sort((a, b) => a - b);
  return numbers.map((axis, x) => ({
    axis, size: `${tag === "g" ? "G" : "L"}${d}_${x}`, inames: all.filter((a) => a.axis === axis),
  }));
}

/** Code of device kernels run group by group, work-items in lockstep. */
export class ParallelCode {
  constructor(private readonly c: KernelCode) {}

  /** One device kernel, launched inside the host loops over `host`: the loop over groups around the lockstep body. */
  deviceKernel(dk: DeviceKernel, d: number, host: readonly string[] = [], ind = "  "): string[] {
    const c = this.c;
    const used = new Set(c.insnsUnder(dk.body).flatMap((i) => [...i.withinInames]));
    const groups = axesOf(c.k, dk.groupAxes, used, "g", d);
    const locals = axesOf(c.k, dk.localAxes, used, "l", d);
    const groupInames = [...host, ...groups.flatMap((g) => g.inames.map((a) => a.iname))];
    const localInames = locals.flatMap((l) => l.inames.map((a) => a.iname));
    // Derived from the domain, so computed exactly (not in int32): see exactIndexCode.
    const sizeCode = (a: HwAxis, scope: readonly string[]) =>
      exactIndexCode(a.size, c.exprCtx(`the size of ${a.tag}.${a.axis} (iname ${a.iname}) of kernel ${JSON.stringify(dk.name)}`, [...host, ...scope]));
    const baseCode = (a: HwAxis, scope: readonly string[]) =>
      exactIndexCode(a.base, c.exprCtx(`the first value of ${a.tag}.${a.axis} (iname ${a.iname}) of kernel ${JSON.stringify(dk.name)}`, [...host, ...scope]));
    const axisList = (axes: readonly AxisInames[]) => axes.map((a) => `[${JSON.stringify(a.inames[0]!.iname)}, ${a.size}]`).join(", ");
    const out = [
      `${ind}{ // device kernel ${JSON.stringify(dk.name)}`,
      ...groups.map((g) => `${ind}  const ${g.size} = Math.max(0, ${g.inames.map((a) => sizeCode(a, [])).join(", ")});`),
      ...locals.map((l) => `${ind}  const ${l.size} = Math.max(0, ${l.inames.map((a) => sizeCode(a, [])).join(", ")});`),
      `${ind}  const NG${d} = ${["1", ...groups.map((g) => g.size)].join(" * ")}, NL${d} = ${["1", ...locals.map((l) => l.size)].join(" * ")};`,
      `${ind}  GC.phase++; GC.axes = [${axisList(groups)}];`,
      `${ind}  LC.axes = IC.axes = [${axisList(locals)}];`,
    ];
    // Storage: private copies per work-item, trackers for local memory and written global arrays.
    const names = this.namesUsed(dk.body);
    const temps = (space: string) => c.k.temporaries.filter((t) => names.has(t.name) && c.spaceOf(t.name) === space);
    const privateTemps = temps("private");
    const privates = privateTemps.map((t) => c.arrayIndexOf(t.name));
    for (const a of privates) out.push(`${ind}  const P${d}_${a} = RT.copies(A[${a}], NL${d});`);
    c.trackers = new Map();
    const track = (name: string, what: string, clock: string) => {
      const a = c.arrayIndexOf(name);
      const v = `K${d}_${a}`;
      c.topVars.push(v);
      c.trackers.set(name, v);
      const kind = clock.includes(",") ? "GlobalCellTracker" : "CellTracker";
      out.push(`${ind}  ${v} = new RT.${kind}(${JSON.stringify(name)}, ${JSON.stringify(what)}, A[${a}].length, ${clock});`);
    };
    if (locals.length > 0) for (const t of temps("local")) track(t.name, "local temporary", "LC");
    // Written global memory: across groups, and across the work-items of one group (two shadows).
    if (groups.length > 0 || locals.length > 0) {
      for (const name of this.namesWritten(dk.body)) {
        const t = findTemporary(c.k, name);
        if (t ? c.spaceOf(name) === "global" : findArg(c.k, name)?.kind === "array") track(name, "global array", locals.length > 0 ? "GC, IC" : "GC");
      }
    }
    // Groups in reverse order: an illegal dependency of a group on a lower one shows.
    out.push(`${ind}  for (let gf = NG${d} - 1; gf >= 0; gf--) {`, `${ind}    GC.agent = gf; LC.phase++; IC.phase++;`);
    if (groups.length > 0) out.push(`${ind}    let q = gf;`);
    groups.forEach((g, x) => {
      out.push(`${ind}    const g${x} = q % ${g.size}; q = (q - g${x}) / ${g.size};`);
      for (const a of g.inames) out.push(`${ind}    const ${c.inameVar(a.iname)} = ${baseCode(a, [])} + g${x};`);
    });
    // Local bases may depend on group inames (the stand-in schedule's remainders).
    const localBases = locals.map((l, x) => l.inames.map((a, y) => {
      const v = `B${d}_${x}_${y}`;
      out.push(`${ind}    const ${v} = ${baseCode(a, groupInames)};`);
      return v;
    }));
    for (const t of temps("local")) out.push(`${ind}    RT.fillGarbage(d${c.arrayIndexOf(t.name)}, ${JSON.stringify(t.dtype)});`);
    // Each group's work-items start with fresh private memory, not what the last group's left.
    privates.forEach((a, x) => out.push(`${ind}    if (gf < NG${d} - 1) for (const p of P${d}_${a}) RT.freshPrivate(p, ${JSON.stringify(privateTemps[x]!.dtype)});`));
    // A work-item's private copies, bound for the nodes that can read them: the names their
    // instructions use and their domains' parameters (binding all of them at every node made the
    // code quadratic: 600 instructions with 150 private scalars overflowed the engine).
    const privateOf = new Map(privates.map((a, x) => [privateTemps[x]!.name, a]));
    // The same for the local inames: a phase binds those its instructions run in or read (every
    // local iname at every phase made 400 one-statement phases 160,000 bindings, 6 MB of code
    // that overflowed the engine's stack).
    const bindWorkItem = (ind2: string, node: ScheduleNode): string[] => {
      const lines = [`${ind2}LC.agent = IC.agent = w;`];
      const used = this.namesUsed([node]);
      for (const insn of c.insnsUnder([node])) {
        for (const i of insn.withinInames) used.add(i);
        for (const p of c.domainOf(insn.withinInames).params) used.add(p);
      }
      if (locals.length > 0) lines.push(`${ind2}let q = w;`);
      locals.forEach((l, x) => {
        lines.push(`${ind2}const l${x} = q % ${l.size}; q = (q - l${x}) / ${l.size};`);
        l.inames.forEach((a, y) => {
          if (used.has(a.iname)) lines.push(`${ind2}const ${c.inameVar(a.iname)} = ${localBases[x]![y]!} + l${x};`);
        });
      });
      for (const [name, a] of privateOf) if (used.has(name)) lines.push(`${ind2}d${a} = P${d}_${a}[w];`);
      return lines;
    };
    // In a loop, not a spread: a big kernel's lines pass the engine's limit on arguments.
    for (const line of this.lockstep(d, dk.body, groupInames, localInames, bindWorkItem, `${ind}    `)) out.push(line);
    out.push(`${ind}  }`, `${ind}}`);
    c.trackers = new Map();
    return out;
  }

  /** Nodes run by all work-items of a group together: barriers end phases, barrier loops run once. */
  private lockstep(
    d: number, nodes: readonly ScheduleNode[], outer: readonly string[], localInames: readonly string[],
    bindWorkItem: (ind: string, node: ScheduleNode) => string[], ind: string,
  ): string[] {
    const c = this.c;
    return nodes.flatMap((n) => {
      if (this.isBarrier(n)) {
        // Global memory is ordered between the work-items of a group only by a barrier that fences it.
        const fencesGlobal = this.fencesGlobal(n);
        return [`${ind}LC.phase++;${fencesGlobal ? " IC.phase++;" : ""} // barrier${n.kind === "barrier" ? `: ${n.comment}` : ` ${JSON.stringify(n.kind === "insn" ? n.id : "")}`}`];
      }
      if (n.kind === "loop" && this.hasBarrier(n.body)) {
        this.checkUniformLoop(n.iname, n.body, [...outer, ...localInames], localInames);
        return c.loop(n.iname, n.body, [...outer, ...localInames], ind, (inner, ind2) =>
          this.lockstep(d, n.body, inner.filter((x) => !localInames.includes(x)), localInames, bindWorkItem, ind2));
      }
      // Every work-item runs this node on its own ids and private storage.
      return [
        `${ind}for (let w = 0; w < NL${d}; w++) {`, ...bindWorkItem(`${ind}  `, n),
        ...c.nodes([n], [...outer, ...localInames], `${ind}  `), `${ind}}`,
      ];
    });
  }

  /**
   * A loop with a barrier inside runs once for the whole group: its bounds must not use local ids.
   * The scheduler guarantees it (src/schedule/uniform-bounds.ts gives such loops the hull over
   * the local ids as bounds and keeps the exact domain as predicates); this is the safety net.
   */
  private checkUniformLoop(iname: string, body: readonly ScheduleNode[], outer: readonly string[], localInames: readonly string[]): void {
    for (const insn of this.c.insnsUnder(body)) {
      const s = this.c.domainOf(insn.withinInames);
      if (!s.dims.includes(iname)) continue;
      const b = dimBounds(s, iname, outer.filter((o) => o !== iname && s.dims.includes(o)));
      for (const bound of [...b.lower, ...b.upper]) {
        const bad = localInames.find((l) => (bound.aff.terms[l] ?? 0) !== 0);
        if (bad) {
          throw new ExecutionError(`the loop over "${iname}" contains a barrier but its bounds depend on the local iname "${bad}" (instruction "${insn.id}"): work-items would not all reach the barrier`);
        }
      }
    }
  }

  /** A barrier node's memory (absent: both), an explicit barrier's `mem_kind` (absent: both, as codegen prints it). */
  private fencesGlobal(n: ScheduleNode): boolean {
    if (n.kind === "barrier") return n.memory === undefined || n.memory !== "local";
    const insn = n.kind === "insn" ? this.c.k.instructions.find((i) => i.id === n.id) : undefined;
    return insn?.kind !== "barrier" || insn.memKind !== "local";
  }

  private isBarrier(n: ScheduleNode): boolean {
    if (n.kind === "barrier") return true;
    if (n.kind !== "insn") return false;
    const insn = this.c.k.instructions.find((i) => i.id === n.id);
    if (insn?.kind !== "barrier") return false;
    if (insn.scope === "global") throw new ExecutionError(`global barrier "${insn.id}" inside device kernel: it must split the kernel at the outermost level`);
    return true;
  }

  private hasBarrier(nodes: readonly ScheduleNode[]): boolean {
    return nodes.some((n) => this.isBarrier(n) || (n.kind === "loop" && this.hasBarrier(n.body)));
  }

  /** Variables the instructions under `nodes` read or write. */
  private namesUsed(nodes: readonly ScheduleNode[]): Set<string> {
    const out = new Set<string>();
    for (const insn of this.c.insnsUnder(nodes)) {
      if (insn.kind !== "assign" && insn.kind !== "block") continue;
      for (const e of insnExprs(insn)) freeVariables(this.c.expand(e), out);
    }
    return out;
  }

  private namesWritten(nodes: readonly ScheduleNode[]): Set<string> {
    return new Set(this.c.insnsUnder(nodes).flatMap((i) => insnStores(i).map((lhs) => assigneeName(this.c.expand(lhs)))));
  }
}
