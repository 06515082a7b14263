/**
 * The schedule the interpreter runs: `schedule(k, {realizeReductions: false})` (reductions stay
 * inline: the interpreter enumerates them), or, while the scheduler is not built, the same
 * structure made from `linearize(k)` with hardware inames lifted out of the loop nest.
 */
import { ExecutionError, ScheduleError } from "../errors.js";
import {
  assigneeName, freeVariables, insnStores, insnWrites, iterationDomain, walkExpr,
  type Expr, type Instruction, type Kernel, type Temporary,
} from "../ir/index.js";
import { dimBounds, type Aff, type Bound } from "../poly/index.js";
import {
  linearize, schedule, type DeviceKernel, type HwAxis, type Schedule, type ScheduleNode,
} from "../schedule/index.js";

/** The schedule of `k` for the interpreter. */
export function scheduleForRun(k: Kernel): Schedule {
  try {
    return schedule(k, { realizeReductions: !reductionsInline(k) });
  } catch (e) {
    if (e instanceof ScheduleError && /not built yet/.test(e.message)) return fallbackSchedule(k);
    throw e;
  }
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
    const axes = [...hw].filter(([iname]) => used.has(iname)).map(([iname, t]) => hwAxis(k, iname, t.tag, t.axis, [...hw.keys()]));
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

/** The range of a hardware iname over the parameters (and group inames, for a local one). */
export function hwAxis(k: Kernel, iname: string, tag: "g" | "l", axis: number, hwInames: readonly string[]): HwAxis {
  const s = iterationDomain(k, [iname]);
  const outer = tag === "l" ? hwInames.filter((n) => n !== iname && k.inameTags[n]?.kind === "g" && s.dims.includes(n)) : [];
  const b = dimBounds(s, iname, outer);
  if (b.lower.length === 0 || b.upper.length === 0) throw new ExecutionError(`hardware iname "${iname}" (${tag}.${axis}) has no ${b.lower.length === 0 ? "lower" : "upper"} bound`);
  const lo = extreme(b.lower, "max", true);
  const hi = extreme(b.upper, "min", false);
  const size: Expr = { kind: "call", fn: "max", args: [{ kind: "const", value: 0, isFloat: false }, add(sub(hi, lo), 1)] };
  return { iname, tag, axis, base: lo, size };
}

const cst = (value: number): Expr => ({ kind: "const", value, isFloat: false });
const add = (a: Expr, n: number): Expr => ({ kind: "arith", op: "+", left: a, right: cst(n) });
const sub = (a: Expr, b: Expr): Expr => ({ kind: "arith", op: "-", left: a, right: b });

function affExpr(a: Aff): Expr {
  let e: Expr = cst(a.constant);
  for (const [name, coef] of Object.entries(a.terms)) {
    e = { kind: "arith", op: "+", left: e, right: { kind: "arith", op: "*", left: cst(coef), right: { kind: "var", name } } };
  }
  return e;
}

/** `ceil(aff/d)` for a lower bound (as `-((-aff) // d)`), `floor(aff/d)` for an upper one. */
function boundExpr(b: Bound, lower: boolean): Expr {
  if (b.denom === 1) return affExpr(b.aff);
  if (!lower) return { kind: "arith", op: "//", left: affExpr(b.aff), right: cst(b.denom) };
  const neg: Aff = { terms: Object.fromEntries(Object.entries(b.aff.terms).map(([n, c]) => [n, -c])), constant: -b.aff.constant };
  return { kind: "neg", operand: { kind: "arith", op: "//", left: affExpr(neg), right: cst(b.denom) } };
}

function extreme(bs: readonly Bound[], fn: "max" | "min", lower: boolean): Expr {
  const es = bs.map((b) => boundExpr(b, lower));
  return es.length === 1 ? es[0]! : { kind: "call", fn, args: es };
}
