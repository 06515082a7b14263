/** Kernels and helpers the schedule tests share. */
import { parseInameTag, withKernel, type InameTag, type Instruction, type Kernel } from "../../src/ir/index.js";
import { addDtypes, makeKernel, temporary } from "../../src/parse/index.js";
import { splitIname } from "../../transforms/index.js";
import type { ScheduleNode } from "../../src/schedule/index.js";

/** A schedule as compact text: `i{a j{b}} c`, `|` a barrier. */
export function text(nodes: readonly ScheduleNode[]): string {
  return nodes.map((n) => (n.kind === "insn" ? n.id : n.kind === "barrier" ? "|" : `${n.iname}{${text(n.body)}}`)).join(" ");
}

export function tag(k: Kernel, tags: Record<string, string>): Kernel {
  const t: Record<string, InameTag> = { ...k.inameTags };
  for (const [i, s] of Object.entries(tags)) t[i] = parseInameTag(s) as InameTag;
  return withKernel(k, { inameTags: t });
}

/**
 * Reference for the dependency closure (barrier-accesses.ts): whether `target` depends on `source`,
 * by a breadth-first walk of dependsOn from `target` through known instructions only.
 */
export function reaches(insns: ReadonlyMap<string, Instruction>, target: string, source: string): boolean {
  const seen = new Set<string>();
  const queue = [target];
  while (queue.length > 0) {
    for (const d of insns.get(queue.shift()!)?.dependsOn ?? []) {
      if (!insns.has(d) || seen.has(d)) continue;
      seen.add(d);
      queue.push(d);
    }
  }
  return seen.has(source);
}

/** Two device kernels between global barriers inside a sequential loop: the host function loops around the launches (loopy's host code example). */
export function hostLoops(): Kernel {
  return splitIname(makeKernel("{ [i,k]: 0<=i<n and 0<=k<3 }", `
  for i, k
    ... gbarrier
    c[k,i] = a[k, i + 1]
    ... gbarrier
    out[k,i] = c[k,i]
  end`, ["a: float32[3, n+1]", "c, out: float32[3, n]", "n: int32"], { seqDependencies: true, name: "knl" }), "i", 128, { outerTag: "g.0", innerTag: "l.0" });
}

/** loopy's tiled matmul with a local prefetch of a: i, j split by 16 (g/l), k split by 16. */
export function tiledMatmul(): Kernel {
  const k = makeKernel(
    "{[io,ii,jo,ji,ko,ki]: 0<=ii<16 and 0<=16*io+ii<n and 0<=ji<16 and 0<=16*jo+ji<n and 0<=ki<16 and 0<=16*ko+ki<n}",
    [
      "<float32> acc = 0 {id=init, inames=io:ii:jo:ji}",
      "a_fetch[ii, ji] = a[16*io+ii, 16*ko+ji] {id=fetch, inames=io:ii:jo:ji:ko}",
      "acc = acc + a_fetch[ii, ki]*b[16*ko+ki, 16*jo+ji] {id=compute, dep=init:fetch, inames=io:ii:jo:ji:ko:ki}",
      "c[16*io+ii, 16*jo+ji] = acc {id=store, dep=compute, inames=io:ii:jo:ji}",
    ],
    [temporary("a_fetch", "float32", [16, 16], "local"), "..."],
  );
  return tag(k, { io: "g.0", ii: "l.1", jo: "g.1", ji: "l.0" });
}

/** The same class made with makeKernel and l.0 tags: `m` (a second l.0 iname) and `s`, `e` (crossing a barrier) bound `r`. */
export function privatizedBounds(): Kernel {
  const k = makeKernel(["{[b]: 0<=b<nb}", "{[n]: 0<=n<16}", "{[m]: 0<=m<16}", "[s, e, m] -> {[r]: 0 <= r and s + m + 16*r < e}"], [
    "<int32> s = starts[b] + 16*(n % 2) {id=ls, inames=b:n}",
    "<int32> e = starts[b + 1] - (n % 3) {id=le, inames=b:n}",
    "w[n] = q[n] {id=lw, inames=b:n}",
    "out[[s + m + 16*r]] = out[[s + m + 16*r]] + w[15 - m] {id=u, dep=ls:le:lw, inames=b:m:r, tags=write_race_ok}",
  ], [temporary("w", "float64", [16], "local"), "..."]);
  return tag(addDtypes(k, { starts: "int32", q: "float64", out: "float64" }), { b: "g.0", n: "l.0", m: "l.0" });
}
