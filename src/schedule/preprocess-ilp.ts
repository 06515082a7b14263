/**
 * loopy's `realize_ilp`: a private temporary written inside an `ilp` loop gets one copy per ILP
 * lane, so the lanes (unrolled or interleaved) do not share it. `<> t = a[i]` inside `ilp` iname
 * `j` of extent 4 becomes `t[j] = a[i]` with `t` of shape `[4]`, and every access follows.
 */
import { ScheduleError } from "../errors.js";
import {
  allInames, arith, assigneeName, c, freeVariables, insnExprs, insnWrites, mapExpr, mapInsnExprs, sub, withKernel,
  type Expr, type Instruction, type Kernel, type Temporary,
} from "../ir/index.js";
import { constRange, offsetFrom } from "./checks.js";

/** Privatize private temporaries (accumulators included), and local ones no work-items share, over the ilp inames their writers run in. */
export function realizeIlp(k: Kernel): Kernel {
  // Most kernels tag no iname ilp or vec: answered from the tags, no list of inames built.
  let tagged = false;
  for (const i in k.inameTags) {
    const t = k.inameTags[i]!.kind;
    if (t === "ilp" || t === "ilp.seq" || t === "vec") tagged = true;
  }
  if (!tagged) return k;
  const ilp = allInames(k).filter((i) => k.inameTags[i]?.kind === "ilp" || k.inameTags[i]?.kind === "ilp.seq" || k.inameTags[i]?.kind === "vec");
  if (ilp.length === 0) return k;
  let out = k;
  for (const t of k.temporaries) {
    if (t.addressSpace !== "private" && t.addressSpace !== "local" && t.addressSpace !== "global") continue;
    // Only lane-local values: a temporary also used outside the loop over x (an accumulator of a
    // reduction over x) carries a value across lanes and stays shared, a sequential reduction.
    const users = out.instructions.filter((insn) => touches(insn, t.name));
    const over = ilp.filter((x) => users.some((insn) => writesOver(insn, t.name, x)) && users.every((insn) => insn.withinInames.includes(x)));
    // A local temporary is one work-item's own (a prefetch into local memory with no local axis)
    // when no instruction using it runs within a local iname: its lanes get copies as a private
    // one would; shared among work-items (or global), it cannot, and lanes that write it different
    // values race.
    const shared = t.addressSpace === "global" ||
      (t.addressSpace === "local" && users.some((insn) => insn.withinInames.some((i) => k.inameTags[i]?.kind === "l" || k.inameTags[i]?.kind === "l.auto")));
    if (shared) {
      checkLaneRace(k, t, users, over);
      continue;
    }
    if (over.length > 0) out = privatize(out, t, over);
  }
  return out;
}

/**
 * A shared (global, or local on work-items) temporary written within ilp lanes `over` at a cell
 * that does not depend on the lane, by a value that does: the lanes are parallel (the writes of
 * all lanes may come before the reads of any, as they do when a reader sits in a reduction loop,
 * which nests outside the lanes), so they race; a ScheduleError (addPrefetch refuses the same
 * at the transform; this catches tags given afterwards).
 */
function checkLaneRace(k: Kernel, t: Temporary, users: readonly Instruction[], over: readonly string[]): void {
  for (const x of over) {
    const w = users.find((insn) => insn.kind === "assign" && writesOver(insn, t.name, x) &&
      [insn.rhs, ...insn.predicates].some((e) => freeVariables(e).has(x)));
    if (w === undefined) continue;
    throw new ScheduleError(`instruction "${w.id}" writes ${t.addressSpace} temporary "${t.name}" within ilp iname "${x}" (tagged ${k.inameTags[x]!.kind}) ` +
      `a value that depends on "${x}" but at a cell that does not: the lanes are parallel and would race on it (one lane's value read by another); ` +
      `index "${t.name}" by "${x}", make it private (one copy per lane), or tag "${x}" unr or leave it a plain loop`);
  }
}

/** Whether `insn` writes `name` inside the loop over `x` without already indexing it by `x`. */
function writesOver(insn: Instruction, name: string, x: string): boolean {
  // A block's stores are not analyzed: writing `name` at all within `x` privatizes it.
  if (insn.kind === "block") return insn.withinInames.includes(x) && insnWrites(insn).includes(name);
  if (insn.kind !== "assign" || assigneeName(insn.lhs) !== name || !insn.withinInames.includes(x)) return false;
  const lhs = insn.lhs;
  const index = lhs.kind === "subscript" ? lhs.indices : lhs.kind === "linear" ? [lhs.index] : [];
  const used = new Set<string>();
  for (const e of index) freeVariables(e, used);
  return !used.has(x);
}

function touches(insn: Instruction, name: string): boolean {
  return insnExprs(insn).some((e) => freeVariables(e).has(name));
}

function privatize(k: Kernel, t: Temporary, over: readonly string[]): Kernel {
  const bound = k.domains.find((d) => d.params.includes(t.name));
  if (bound !== undefined) {
    const x = over[0]!;
    throw new ScheduleError(`temporary "${t.name}" is written inside ilp iname "${x}" (tagged ${k.inameTags[x]!.kind}), whose lanes would each need a copy of it, ` +
      `but it bounds the loop over ${bound.dims.map((d) => `"${d}"`).join(", ")} (a domain parameter), and a loop bound reads one scalar, not one copy per lane; ` +
      `tag "${x}" unr or leave it a plain loop`);
  }
  const ranges = over.map((x) => {
    const r = constRange(k, x);
    if (!r) throw new ScheduleError(`temporary "${t.name}" is written inside ilp iname "${x}", whose extent is not a compile-time constant; split it first`);
    return r;
  });
  const lanes = over.map((x, m) => offsetFrom(x, ranges[m]!.lower));
  const oldSize = t.shape.reduce<Expr>((acc, e) => arith("*", acc, e), c(1));
  const rewrite = (e: Expr): Expr =>
    mapExpr(e, (n) => {
      if (n.kind === "var" && n.name === t.name) return sub(t.name, ...lanes);
      if (n.kind === "subscript" && n.array === t.name) return sub(t.name, ...lanes, ...n.indices.map(rewrite));
      if (n.kind === "linear" && n.array === t.name) {
        // Flat index into the new storage: lanes are the leading (slowest) axes.
        let lane: Expr = c(0);
        lanes.forEach((l, m) => { lane = arith("+", arith("*", lane, c(ranges[m]!.size)), l); });
        return { ...n, index: arith("+", arith("*", lane, oldSize), rewrite(n.index)) };
      }
      return undefined;
    });
  const instructions = k.instructions.map((insn): Instruction => {
    if (!touches(insn, t.name)) return insn;
    return mapInsnExprs(insn, rewrite);
  });
  const temporaries = k.temporaries.map((x) => (x === t ? { ...t, shape: [...ranges.map((r) => c(r.size)), ...t.shape], dimTags: undefined } : x));
  return withKernel(k, { instructions, temporaries });
}
