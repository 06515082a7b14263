/**
 * Where a fetch store (transforms/fetch-store.ts) runs in the loop nest of its readers: the inames
 * it runs within, and the loop priorities that keep its readers' other loops inside those.
 *
 * The rule (a proof sketch). The scheduler nests an instruction in the loops of its own sequential
 * inames, ordered by one kernel-wide iname order (domain nesting, then loop priorities), except
 * that a realized reduction's loops come after the instruction's other loops and `ilp` loops come
 * last, innermost around each instruction. Two instructions share one entry of a loop only when
 * their loop paths agree up to it. Let O be the store's sequential outer inames that are loops of a
 * reader R. The store fills the footprint of R's reads over all of R's other inames, once per
 * iteration of O, before R runs in that iteration; so R reads what the store wrote for the same
 * values of O if and only if O is a prefix of R's loop path, i.e. every other loop x of R nests
 * inside every o in O. An `ilp` loop x always does (innermost); a reduction loop x inside a loop o
 * that is not of the reduction always does; a loop x around the reduction whose loop o is in O
 * never does (refused); otherwise a loop priority (o, x) makes it so, unless the kernel already
 * forces x outside o (o's bounds use x, or a priority puts x first), which is refused.
 *
 * Two ways to get there: with `fetchOuterInames` / `precomputeOuterInames` given, the store runs
 * within exactly those (packing: one store of a whole panel per block of the outer loops, the
 * reader's loops inside it); by default, the store also runs within the reader's other non-swept
 * sequential loops (it is then repeated in each of their iterations, which is always possible).
 */
import { TransformError } from "../src/errors.js";
import { isHardwareIname, naturalCompare, reductionInames, type Instruction, type Kernel } from "../src/ir/index.js";
import type { BasicSet } from "../src/poly/index.js";
import { insnById } from "./common.js";

export interface Placement {
  /** The inames the store runs within (its own inames aside). */
  readonly outer: string[];
  /** Loop priorities to add: each `[o, x]` nests x inside o. */
  readonly priorities: [string, string][];
}

export interface PlacementRequest {
  readonly who: string;
  readonly name: string;
  readonly insnId: string;
  readonly readers: readonly string[];
  readonly sweep: readonly string[];
  /** The outer inames chosen so far (given, or those the footprint depends on). */
  readonly outer: readonly string[];
  /** Whether `outer` was given by the user (kept exactly) or is a default (grown to be legal). */
  readonly explicit: boolean;
  /** The option that gives the outer inames, for messages ("fetchOuterInames"). */
  readonly outerOption: string;
}

const isIlp = (k: Kernel, n: string) => k.inameTags[n]?.kind === "ilp" || k.inameTags[n]?.kind === "ilp.seq";

/** The reduction inames of an instruction's right-hand side. */
function rhsReductions(insn: Instruction): Set<string> {
  const reds = new Set<string>();
  if (insn.kind === "assign") reductionInames(insn.rhs, reds);
  return reds;
}

/** Where the store runs: see the module comment. */
export function placeStore(k: Kernel, req: PlacementRequest): Placement {
  const { who, name, insnId } = req;
  const loop = (n: string) => !isHardwareIname(k, n) && !isIlp(k, n);
  const swept = new Set(req.sweep);
  // (Arrays built by push and indexed loops, not map() or filter(): see fetch-store.ts's `stored`.)
  const outer: string[] = [];
  for (let i = 0; i < req.outer.length; i++) outer.push(req.outer[i]!);
  const readers: Instruction[] = [];
  // Each reader's right-hand side reductions, asked once.
  const redsOf: Set<string>[] = [];
  for (let i = 0; i < req.readers.length; i++) {
    readers.push(insnById(k, req.readers[i]!)!);
    redsOf.push(rhsReductions(readers[i]!));
  }
  for (let r = 0; r < readers.length; r++) {
    const insn = readers[r]!;
    // (Reductions outside the right-hand side are rare: asked only where a predicate or an index could hold one.)
    if (insn.predicates.length === 0 && (insn.kind !== "assign" || insn.lhs.kind === "var")) continue;
    const predReds = new Set<string>();
    for (const p of insn.predicates) reductionInames(p, predReds);
    if (insn.kind === "assign" && insn.lhs.kind !== "var") reductionInames(insn.lhs, predReds);
    const hosted = outer.filter((o) => predReds.has(o));
    if (hosted.length > 0) {
      throw new TransformError(`${who}: the footprint of ${name} in instruction "${insn.id}" depends on the iname(s) ${hosted.join(", ")} of a reduction ` +
        `outside its right-hand side, which the store "${insnId}" cannot run inside; add ${hosted.join(", ")} to sweepInames`);
    }
  }
  if (!req.explicit) {
    // The default: the store also runs within the reader's other (non-swept) loops, and within
    // the whole reduction when inside part of it. Not within ilp loops, which nest innermost
    // around the reader and so never enclose the store's loops.
    const add = new Set<string>();
    for (let r = 0; r < readers.length; r++) {
      const insn = readers[r]!;
      const reds = redsOf[r]!;
      let inRed = false;
      let inLoop = false;
      for (let i = 0; i < outer.length; i++) {
        const o = outer[i]!;
        if (reds.has(o) && loop(o)) inRed = true;
        if (insn.withinInames.includes(o) && loop(o)) inLoop = true;
      }
      if (!inRed && !inLoop) continue;
      const within = insn.withinInames;
      for (let i = 0; i < within.length; i++) if (!swept.has(within[i]!) && loop(within[i]!)) add.add(within[i]!);
      if (inRed) for (const n of reds) if (!swept.has(n) && loop(n)) add.add(n);
    }
    for (const n of [...add].sort(naturalCompare)) if (!outer.includes(n)) outer.push(n);
  }
  // The kernel's forced nestings, built at the first pair that asks.
  let forced: ((x: string, o: string) => false | "domain" | "priority") | undefined;
  const before = (x: string, o: string) => (forced ??= mustPrecede(k))(x, o);
  const priorities: [string, string][] = [];
  for (let r = 0; r < readers.length; r++) {
    const insn = readers[r]!;
    const reds = redsOf[r]!;
    const seqOuter: string[] = [];
    for (let i = 0; i < outer.length; i++) {
      const o = outer[i]!;
      if (loop(o) && (reds.has(o) || insn.withinInames.includes(o))) seqOuter.push(o);
    }
    if (seqOuter.length === 0) continue;
    const others: string[] = [];
    for (let i = 0; i < insn.withinInames.length; i++) {
      const x = insn.withinInames[i]!;
      if (loop(x) && !outer.includes(x)) others.push(x);
    }
    for (const x of reds) if (loop(x) && !outer.includes(x)) others.push(x);
    for (const o of seqOuter) {
      for (const x of others) {
        if (reds.has(o) && !reds.has(x)) {
          if (swept.has(x)) {
            throw new TransformError(`${who}: the store "${insnId}" must run inside the reduction over ${o} of instruction "${insn.id}" ` +
              `(the footprint of ${name} depends on it, or ${req.outerOption} names it), so it cannot sweep ${x}, a loop around that reduction; ` +
              `add ${o} to sweepInames, or do not sweep ${x} (an ilp-tagged ${x} could be swept: ilp loops nest inside reductions)`);
          }
          throw new TransformError(`${who}: ${req.outerOption} puts the store "${insnId}" inside the reduction over ${o} of instruction "${insn.id}" but outside ${x}, ` +
            `a loop around that reduction, which the reduction's loops always nest inside; add ${x} to ${req.outerOption}, or leave ${o} out of it ` +
            `(to run the store once per block of ${o} outside ${x}, write the reduction as an update, c[i, j] = c[i, j] + sum(${o === "k" ? "k_inner" : "…"}, …), with ${o} a loop around it)`);
        }
        if (!reds.has(o) && reds.has(x)) continue;
        const why = before(x, o);
        if (why !== false) {
          const fix = req.explicit || req.outer.includes(o)
            ? `add ${x} to ${req.outerOption}${swept.has(x) ? " (and do not sweep it)" : ""}, or give the loops a priority that keeps ${x} inside ${o}`
            : `name the loops the store runs within with ${req.outerOption} (as [${req.outer.join(", ")}]: ${o} is added by default because the reader runs within it), or give the loops a priority that keeps ${x} inside ${o}`;
          throw new TransformError(`${who}: the store "${insnId}" runs within ${o} and not within ${x}, so ${x} must be nested inside ${o}, ` +
            `but ${why === "domain" ? `the bounds of ${o} use ${x}` : `the loop priorities put ${x} outside ${o}`}; ${fix}`);
        }
        let known = false;
        for (let i = 0; i < k.loopPriority.length && !known; i++) {
          const p = k.loopPriority[i]!;
          known = p.length === 2 && p[0] === o && p[1] === x;
        }
        if (!known && !priorities.some((p) => p[0] === o && p[1] === x)) priorities.push([o, x]);
      }
    }
  }
  return { outer, priorities };
}

/**
 * `before(x, o)`: why iname x is forced outside iname o in every loop nest ("domain": o's domain
 * uses x, transitively; "priority": a loop priority chain puts x first), or false.
 */
function mustPrecede(k: Kernel): (x: string, o: string) => false | "domain" | "priority" {
  const edges = new Map<string, { to: string; why: "domain" | "priority" }[]>();
  const add = (a: string, b: string, why: "domain" | "priority") => {
    const list = edges.get(a) ?? [];
    list.push({ to: b, why });
    edges.set(a, list);
  };
  for (let i = 0; i < k.domains.length; i++) {
    const d = k.domains[i]!;
    for (let j = 0; j < d.params.length; j++) for (let l = 0; l < d.dims.length; l++) add(d.params[j]!, d.dims[l]!, "domain");
  }
  for (let i = 0; i < k.loopPriority.length; i++) {
    const prio = k.loopPriority[i]!;
    for (let a = 0; a + 1 < prio.length; a++) add(prio[a]!, prio[a + 1]!, "priority");
  }
  return (x, o) => {
    // Depth-first from x; the path's reason is "domain" only if every edge on it is.
    const seen = new Map<string, boolean>();
    const stack: [string, boolean][] = [[x, true]];
    let found: false | "domain" | "priority" = false;
    while (stack.length > 0) {
      const [n, allDomain] = stack.pop()!;
      if (n === o && n !== x) {
        if (allDomain) return "domain";
        found = "priority";
        continue;
      }
      if (seen.get(n) === true || (seen.has(n) && !allDomain)) continue;
      seen.set(n, allDomain || seen.get(n) === true);
      for (const e of edges.get(n) ?? []) stack.push([e.to, allDomain && e.why === "domain"]);
    }
    return found;
  };
}

/**
 * An `ilp` loop nests innermost around every instruction (src/schedule/linearize.ts), so a store
 * with loops of its own cannot run inside one that its domain names (the footprint of `name`
 * depends on an ilp iname that is not swept; the scheduler's rule, checkInameTags): refused here,
 * naming the iname, rather than by the scheduler. (A store whose own loops do not depend on the ilp iname runs inside it, one copy per
 * lane, as realizeIlp gives a private temporary.)
 */
export function checkIlpOuter(k: Kernel, dom: BasicSet, dimNames: readonly string[], req: { who: string; name: string; insnId: string; tempName: string; outer?: readonly string[] | undefined; outerOption?: string }): void {
  if (dimNames.length === 0) return;
  const ilp: string[] = [];
  for (let i = 0; i < dom.params.length; i++) if (isIlp(k, dom.params[i]!)) ilp.push(dom.params[i]!);
  if (ilp.length === 0) return;
  const them = ilp.length > 1 ? "them" : "it";
  throw new TransformError(`${req.who}: the store "${req.insnId}" into ${req.tempName} would run inside ${ilp.join(", ")}, tagged ilp, with its own loops (${dimNames.join(", ")}) bounded by ${them}; ` +
    `an ilp loop is innermost around every instruction, so no loop can nest inside ${them}: add ${ilp.join(", ")} to sweepInames (the store then fills the footprint of every lane)` +
    `${req.outer?.some((o) => ilp.includes(o)) ? ` and leave ${them} out of ${req.outerOption ?? "the outer inames"}` : ""}, or tag ${them} unr instead`);
}
