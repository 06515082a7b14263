/**
 * The loop nest and the order of instructions (ALGORITHMS.md §3, steps 1–2). Hardware-tagged
 * inames (g.N, l.N) are not loops; ilp inames are the innermost loops. A graph sort, no search.
 */
import { ScheduleError } from "../errors.js";
import { allInames, insnWrites, isHardwareIname, type Instruction, type Kernel } from "../ir/index.js";
import { inamesIn } from "./insn-inames.js";
import { contentMemo } from "../poly/index.js";
import { hasStructure, structureKey, structureOf, type Structure } from "./structure.js";

import type { ScheduleNode } from "./types.js";
import { checkLoopFission } from "./fission-check.js";
export type { ScheduleNode, LoopNode, InsnNode } from "./types.js";
export { structureKey } from "./structure.js";

/** Domain indices each domain nests in: those defining the inames its parameters name. */
function parentDomains(k: Kernel): number[][] {
  const owner = new Map<string, number>();
  k.domains.forEach((d, idx) => d.dims.forEach((name) => owner.set(name, idx)));
  // Loops, not flatMap: Node 20's flatMap costs microseconds per call even on three parameters.
  return k.domains.map((d) => {
    const out: number[] = [];
    for (const p of d.params) {
      const at = owner.get(p);
      if (at !== undefined) out.push(at);
    }
    return out;
  });
}

/**
 * The global nesting order of inames, outer first: an iname a domain uses as a parameter encloses
 * the domain's inames; then loop priorities (`k.loopPriority`) where consistent with that; then
 * the default, parent domains first and each domain's dims in order.
 * For domains `{[i]: …}` and `[i] -> {[j]: …}` with priority `[["j", "i"]]` the order is `["i", "j"]`.
 */
export function inameOrder(k: Kernel): string[] {
  const names = allInames(k);
  const parents = parentDomains(k);
  // Default rank: domains in an order with parents first (ties by position), dims as listed.
  const domainOrder: number[] = [];
  const placed = new Set<number>();
  const place = (d: number, stack: Set<number>): void => {
    if (placed.has(d) || stack.has(d)) return;
    stack.add(d);
    for (const p of parents[d]!) place(p, stack);
    placed.add(d);
    domainOrder.push(d);
  };
  k.domains.forEach((_, d) => place(d, new Set()));
  const rank = new Map<string, number>();
  for (const d of domainOrder) for (const name of k.domains[d]!.dims) rank.set(name, rank.size);

  const succ = new Map<string, Set<string>>(names.map((n) => [n, new Set()]));
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const x = stack.pop()!;
      if (x === to) return true;
      if (seen.has(x)) continue;
      seen.add(x);
      stack.push(...succ.get(x)!);
    }
    return false;
  };
  k.domains.forEach((d) => {
    for (const p of d.params) if (succ.has(p)) for (const x of d.dims) succ.get(p)!.add(x);
  });
  for (const prio of k.loopPriority) {
    for (let a = 0; a < prio.length; a++) {
      for (let b = a + 1; b < prio.length; b++) {
        const [x, y] = [prio[a]!, prio[b]!];
        if (succ.has(x) && succ.has(y) && !reaches(y, x)) succ.get(x)!.add(y);
      }
    }
  }
  // Kahn's algorithm, the lowest default rank first among the ready.
  const indeg = new Map<string, number>(names.map((n) => [n, 0]));
  for (const s of succ.values()) for (const y of s) indeg.set(y, indeg.get(y)! + 1);
  const order: string[] = [];
  const ready = names.filter((n) => indeg.get(n) === 0);
  while (ready.length > 0) {
    ready.sort((a, b) => rank.get(a)! - rank.get(b)!);
    const x = ready.shift()!;
    order.push(x);
    for (const y of succ.get(x)!) {
      indeg.set(y, indeg.get(y)! - 1);
      if (indeg.get(y) === 0) ready.push(y);
    }
  }
  return order;
}

/** Instruction indices each instruction must follow: its `dependsOn`, plus the writers of scalars its loop bounds read. */
function predecessors(k: Kernel): number[][] {
  const index = new Map(k.instructions.map((insn, idx) => [insn.id, idx]));
  const writers = new Map<string, number[]>();
  k.instructions.forEach((insn, idx) => {
    for (const name of insnWrites(insn)) {
      const list = writers.get(name);
      if (list) list.push(idx);
      else writers.set(name, [idx]);
    }
  });
  const domainOf = new Map<string, number>();
  k.domains.forEach((d, idx) => d.dims.forEach((n) => domainOf.set(n, idx)));
  return k.instructions.map((insn, idx) => {
    const preds = new Set<number>();
    for (const dep of insn.dependsOn) {
      const p = index.get(dep);
      if (p === undefined) {
        throw new ScheduleError(`instruction "${insn.id}" depends on "${dep}", which is not an instruction of kernel "${k.name}"; ids are ${[...index.keys()].join(", ")}`);
      }
      if (p !== idx) preds.add(p);
    }
    // Data-dependent loop bounds: the scalar must be written before the loop starts.
    for (const iname of inamesIn(k.instructions, insn)) {
      const d = domainOf.get(iname);
      if (d === undefined) continue;
      for (const p of k.domains[d]!.params) for (const w of writers.get(p) ?? []) if (w !== idx) preds.add(w);
    }
    return [...preds];
  });
}

function isIlp(k: Kernel, iname: string): boolean {
  const t = k.inameTags[iname]?.kind;
  return t === "ilp" || t === "ilp.seq" || t === "vec";
}

/**
 * The sequential loops around an instruction, outer first: hardware inames dropped; then the
 * kernel-wide order, except that the instruction's `innerInames` (a realized reduction's loops)
 * come after its other loops, and ilp loops come last.
 */
function loopPath(k: Kernel, insn: Instruction, pos: ReadonlyMap<string, number>): string[] {
  const n = pos.size;
  const inner = insn.innerInames ?? [];
  const rank = (i: string) => {
    if (isIlp(k, i)) return 3 * n + pos.get(i)!;
    const at = inner.indexOf(i);
    return at >= 0 ? 2 * n + at : pos.get(i)!;
  };
  return insn.withinInames.filter((i) => !isHardwareIname(k, i)).sort((a, b) => rank(a) - rank(b));
}

/**
 * The sequential schedule of `k`: each instruction nested in the loops of its `withinInames`
 * (ordered by `inameOrder`), instructions in dependency order. Instructions that share a loop run
 * inside one entry of it as far as dependencies allow, interleaved per iteration; a loop is
 * entered again only when a dependency on something outside it requires.
 * `linearize(makeKernel("{[i]: 0<=i<n}", ["<> t = a[i]", "b[i] = t"]))` is
 * `[{kind: "loop", iname: "i", body: [{kind: "insn", id: …}, {kind: "insn", id: …}]}]`.
 */
export function linearize(k: Kernel): ScheduleNode[] {
  // The loop nest depends on the kernel's structure only (names, tags, dependencies), not on the
  // domains' constraints: the variants of a tile-size sweep share one (a few: a prefetch splits
  // its axis by some tile sizes only). The recent nests' structures are compared first, field by
  // field, before a key is printed.
  let recent = recentNests.get(RECENT);
  if (recent === undefined) recentNests.set(RECENT, (recent = []));
  let hit: Nest | undefined;
  for (let x = 0; x < recent.length; x++) {
    if (hasStructure(k, recent[x]!.structure)) {
      hit = recent[x]!;
      // The most recent first: a sweep that alternates structures finds each in a compare or two.
      if (x > 0) (recent.splice(x, 1), recent.unshift(hit));
      break;
    }
  }
  if (hit === undefined) {
    const key = structureKey(k);
    hit = linearized.get(key);
    if (hit === undefined) {
      const nodes = freezeNodes(linearizeFresh(k));
      hit = { structure: structureOf(k), nodes, fission: mayBeSplit(k, nodes) };
      if (linearized.size >= MEMO_LIMIT) linearized.clear();
      linearized.set(key, hit);
    }
    recent.unshift(hit);
    if (recent.length > RECENT_LIMIT) recent.pop();
  }
  // Whether a loop is entered twice is a fact of the nest and the tags (its structure): where
  // none is, no fission can be refused.
  if (hit.fission) checkLoopFission(k, hit.nodes);
  // A copy by index: slice() of a frozen array takes V8's slow path (a hundred times a plain one's).
  const out: ScheduleNode[] = [];
  for (let x = 0; x < hit.nodes.length; x++) out.push(hit.nodes[x]!);
  return out;
}

/** A remembered nest: the structure it is the nest of, and whether a sequential loop in it is entered twice. */
interface Nest {
  readonly structure: Structure;
  readonly nodes: readonly ScheduleNode[];
  readonly fission: boolean;
}

/** Loop nests by `structureKey`, and the few found last (both emptied with the poly memos, so a cold sweep computes each once). */
const linearized = contentMemo<Nest>();
const recentNests = contentMemo<Nest[]>();
const RECENT = "recent";
const RECENT_LIMIT = 8;
const MEMO_LIMIT = 10_000;

/** Whether a sequential iname has two loop nodes in `nodes` (`checkLoopFission`'s first question). */
function mayBeSplit(k: Kernel, nodes: readonly ScheduleNode[]): boolean {
  const seen = new Set<string>();
  const walk = (ns: readonly ScheduleNode[]): boolean => {
    for (const n of ns) {
      if (n.kind !== "loop") continue;
      if (seen.has(n.iname) && !isHardwareIname(k, n.iname) && !isIlp(k, n.iname)) return true;
      seen.add(n.iname);
      if (walk(n.body)) return true;
    }
    return false;
  };
  return walk(nodes);
}

function freezeNodes(nodes: ScheduleNode[]): readonly ScheduleNode[] {
  for (const n of nodes) {
    if (n.kind === "loop") freezeNodes(n.body as ScheduleNode[]);
    Object.freeze(n);
  }
  return Object.freeze(nodes);
}

function linearizeFresh(k: Kernel): ScheduleNode[] {
  const order = inameOrder(k);
  const pos = new Map(order.map((n, p) => [n, p]));
  const paths = k.instructions.map((insn) => {
    for (const i of insn.withinInames) {
      if (!pos.has(i)) {
        throw new ScheduleError(`instruction "${insn.id}" runs within iname "${i}", which no domain of kernel "${k.name}" defines; inames are ${order.join(", ") || "(none)"}`);
      }
    }
    return loopPath(k, insn, pos);
  });
  const preds = predecessors(k);
  const better = (a: number, b: number) =>
    k.instructions[a]!.priority !== k.instructions[b]!.priority ? k.instructions[a]!.priority > k.instructions[b]!.priority : a < b;

  const succs: number[][] = k.instructions.map(() => []);
  preds.forEach((ps, m) => { for (const p of ps) succs[p]!.push(m); });

  const build = (members: readonly number[], depth: number): ScheduleNode[] => {
    const inSet = new Set(members);
    const done = new Set<number>();
    // Per member, its predecessors in the set not yet done; the ready ones (none left) in a heap,
    // best first: the pick is a heap's top, not a search of every member.
    const waiting = new Map<number, number>();
    const ready = new Heap(better);
    for (const m of members) {
      let n = 0;
      for (const p of preds[m]!) if (inSet.has(p)) n++;
      waiting.set(m, n);
      if (n === 0) ready.push(m);
    }
    const finish = (m: number): void => {
      done.add(m);
      for (const x of succs[m]!) {
        if (!inSet.has(x)) continue;
        const n = waiting.get(x)! - 1;
        waiting.set(x, n);
        if (n === 0 && !done.has(x)) ready.push(x);
      }
    };
    const satisfied = (m: number, extra?: ReadonlySet<number>) =>
      extra === undefined ? waiting.get(m) === 0 : preds[m]!.every((p) => !inSet.has(p) || done.has(p) || extra.has(p));
    /**
     * Loopy enters each loop once: before entering the loop `best` would open, run what is ready
     * outside it and what that loop's instructions wait on (`acc = 0` before `for k_outer { fetch;
     * acc = acc + … }`), so that the fetch and the update share one entry of the loop.
     */
    const beforeLoop = (best: number): number => {
      const iname = paths[best]![depth];
      if (iname === undefined) return best;
      const inLoop = (m: number) => paths[m]![depth] === iname;
      const waitedOn = new Set<number>();
      const stack = members.filter((m) => !done.has(m) && inLoop(m));
      while (stack.length > 0) {
        for (const p of preds[stack.pop()!]!) {
          if (inSet.has(p) && !done.has(p) && !waitedOn.has(p)) {
            waitedOn.add(p);
            stack.push(p);
          }
        }
      }
      let pick = -1;
      for (const m of waitedOn) if (!inLoop(m) && satisfied(m) && (pick < 0 || better(m, pick))) pick = m;
      return pick < 0 ? best : pick;
    };
    const out: ScheduleNode[] = [];
    while (done.size < members.length) {
      while (ready.size > 0 && done.has(ready.top())) ready.pop();
      if (ready.size === 0) throw cycleError(k, members.filter((m) => !done.has(m)), preds);
      let best = ready.top();
      best = beforeLoop(best);
      const path = paths[best]!;
      if (path.length === depth) {
        out.push({ kind: "insn", id: k.instructions[best]!.id });
        finish(best);
        continue;
      }
      // Enter the loop once for everything that can run inside it now.
      const iname = path[depth]!;
      const group = new Set<number>([best]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const m of members) {
          if (!done.has(m) && !group.has(m) && paths[m]![depth] === iname && satisfied(m, group)) {
            group.add(m);
            grew = true;
          }
        }
      }
      out.push({ kind: "loop", iname, body: build(members.filter((m) => group.has(m)), depth + 1) });
      for (const m of group) finish(m);
    }
    return out;
  };
  return build(k.instructions.map((_, idx) => idx), 0);
}

/** A ScheduleError naming the instructions on one dependency cycle among `stuck`. */
function cycleError(k: Kernel, stuck: readonly number[], preds: readonly number[][]): ScheduleError {
  const inStuck = new Set(stuck);
  // Every stuck instruction waits on another stuck one; following the waits must close a cycle.
  const path: number[] = [];
  let x = stuck[0]!;
  while (!path.includes(x)) {
    path.push(x);
    x = preds[x]!.find((p) => inStuck.has(p))!;
  }
  const cycle = path.slice(path.indexOf(x)).reverse().map((m) => `"${k.instructions[m]!.id}"`);
  return new ScheduleError(`kernel "${k.name}": the dependencies of instructions ${cycle.join(" -> ")} form a cycle; no order can satisfy them`);
}

/** A binary heap of instruction indices, `first(a, b)` when `a` comes out before `b`. */
class Heap {
  private readonly items: number[] = [];
  constructor(private readonly first: (a: number, b: number) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  top(): number {
    return this.items[0]!;
  }

  push(x: number): void {
    const a = this.items;
    a.push(x);
    for (let i = a.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (!this.first(a[i]!, a[up]!)) break;
      [a[i], a[up]] = [a[up]!, a[i]!];
      i = up;
    }
  }

  pop(): void {
    const a = this.items;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.first(a[l]!, a[m]!)) m = l;
      if (r < a.length && this.first(a[r]!, a[m]!)) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }
}
