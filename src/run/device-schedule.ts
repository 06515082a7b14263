/**
 * The schedule the interpreter runs: `schedule(k, {realizeReductions: false})` (reductions stay
 * inline: the interpreter enumerates them). For tests, a stand-in made from `linearize(k)` with
 * hardware inames lifted out of the loop nest and no barriers inserted, to show what races.
 */
import {
  assigneeName, freeVariables, insnStores, insnWrites, walkExpr,
  type Expr, type Instruction, type Kernel, type Temporary,
} from "../ir/index.js";
import {
  hwAxis, linearize, schedule, type DeviceKernel, type Schedule, type ScheduleNode,
} from "../schedule/index.js";

/** The schedule of `k` for the interpreter. */
export function scheduleForRun(k: Kernel): Schedule {
  return schedule(k, { realizeReductions: !reductionsInline(k) });
}

/**
 * Whether the interpreter may enumerate `k`'s reductions inline. Not when a reduction's body reads
 * a variable written by an instruction that runs within one of the reduction's inames (loopy's
 * prefetch inside `k_outer`: the update must run in that loop, after the fetch, as realized
 * accumulators do). Merely sharing an iname with another instruction's loop is no reason: in
 * `x[i] = sum(j, a[i,j])`, `z[j] = sum(i, a[i,j])` realized accumulators would need opposite loop
 * orders, while inline enumeration is exact.
 */
function reductionsInline(k: Kernel): boolean {
  const writerInames = new Map<string, Set<string>>();
  for (const insn of k.instructions) {
    for (const name of insnWrites(insn)) {
      const set = writerInames.get(name) ?? new Set<string>();
      for (const i of insn.withinInames) set.add(i);
      writerInames.set(name, set);
    }
  }
  let inline = true;
  const visit = (e: Expr): void =>
    walkExpr(e, (n) => {
      if (n.kind !== "reduce") return;
      for (const v of freeVariables(n.body)) {
        const within = writerInames.get(v);
        if (within && n.inames.some((i) => within.has(i))) inline = false;
      }
    });
  for (const insn of k.instructions) {
    if (insn.kind !== "assign") continue;
    visit(insn.rhs);
    for (const p of insn.predicates) visit(p);
  }
  return inline;
}

/** Whether `k` has any g or l tag: otherwise it runs as one group of one work-item. */
export function isParallel(k: Kernel): boolean {
  return Object.values(k.inameTags).some((t) => t.kind === "g" || t.kind === "l");
}

/**
 * The address space a temporary has in the run: "auto" (left by a kernel not preprocessed) is
 * local when some instruction writes it with a local iname in a subscript, else private.
 */
export function addressSpaceOf(k: Kernel, t: Temporary): "private" | "local" | "global" {
  if (t.addressSpace !== "auto") return t.addressSpace;
  const local = new Set(Object.entries(k.inameTags).filter(([, tag]) => tag.kind === "l").map(([n]) => n));
  for (const insn of k.instructions) {
    for (const lhs of insnStores(insn)) {
      if (assigneeName(lhs) !== t.name) continue;
      const indices = lhs.kind === "subscript" ? lhs.indices : lhs.kind === "linear" ? [lhs.index] : [];
      for (const ix of indices) for (const v of freeVariables(ix)) if (local.has(v)) return "local";
    }
  }
  return "private";
}

// ---- the stand-in for `schedule` --------------------------------------------------------------

/**
 * The schedule made from `linearize(k)`: hardware loops dissolved, explicit barriers as barrier
 * nodes, device kernels split at top-level global barriers. No barriers are inserted.
 */
export function fallbackSchedule(k: Kernel): Schedule {
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
