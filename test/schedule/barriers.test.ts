/** Local barrier insertion: where loopy puts barriers, and only there. */
import { describe, expect, it } from "vitest";
import { ScheduleError } from "../../src/errors.js";
import { domainIndexOf, exprToString, withKernel, type Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { schedule, showSchedule, type BarrierNode, type ScheduleNode } from "../../src/schedule/index.js";
import { tag, text, tiledMatmul } from "./schedule-kernels.js";

function barriers(nodes: readonly ScheduleNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    if (n.kind === "barrier") out.push((n as BarrierNode).comment);
    else if (n.kind === "loop") barriers(n.body, out);
  }
  return out;
}

const fetchKernel = (reads: string, extra = "") =>
  tag(makeKernel("{[i,k]: 0<=i<16 and 0<=k<16}", [
    "a_fetch[i] = a[i] {id=fetch, inames=i}",
    `out[i] = ${reads} {id=use, dep=fetch, inames=i${extra}}`,
  ], [temporary("a_fetch", "float32", [16], "local"), "..."]), { i: "l.0" });

describe("barriers for local memory", () => {
  it("a local temporary written at [lid] and read across work-items gets one barrier with loopy's comment", () => {
    const body = schedule(fetchKernel("a_fetch[15 - i]")).deviceKernels[0]!.body;
    expect(text(body)).toBe("fetch | use");
    expect(barriers(body)).toEqual(["for a_fetch (use depends on fetch)"]);
  });

  it("read at the same cell by the same work-item: no barrier", () => {
    expect(barriers(schedule(fetchKernel("2*a_fetch[i]")).deviceKernels[0]!.body)).toEqual([]);
  });

  it("one barrier serves every pending dependency", () => {
    const k = tag(makeKernel("{[i]: 0<=i<16}", [
      "x[i] = a[i] {id=w1}", "y[i] = a[i] {id=w2}", "out[i] = x[15-i] + y[15-i] {id=r, dep=w1:w2}",
    ], [temporary("x", "float32", [16], "local"), temporary("y", "float32", [16], "local"), "..."]), { i: "l.0" });
    expect(barriers(schedule(k).deviceKernels[0]!.body)).toHaveLength(1);
  });

  it("noSyncWith (@local or @any) suppresses the barrier", () => {
    expect(barriers(schedule(fetchKernel("a_fetch[15 - i]", ", nosync=fetch@local")).deviceKernels[0]!.body)).toEqual([]);
    expect(barriers(schedule(fetchKernel("a_fetch[15 - i]", ", nosync=fetch")).deviceKernels[0]!.body)).toEqual([]);
    expect(barriers(schedule(fetchKernel("a_fetch[15 - i]", ", nosync=fetch@global")).deviceKernels[0]!.body)).toHaveLength(1);
  });

  it("without local axes no barrier is inserted", () => {
    const k = makeKernel("{[i]: 0<=i<16}", ["t[i] = a[i] {id=w}", "out[i] = t[15-i] {id=r, dep=w}"], [temporary("t", "float32", [16], "local"), "..."]);
    expect(barriers(schedule(k).deviceKernels[0]!.body)).toEqual([]);
  });

  it("an explicit lbarrier becomes a barrier node", () => {
    const k = makeKernel("{[i]: 0<=i<16}", ["x[i] = 1 {id=w}", "... lbarrier {id=lb, dep=w}", "y[i] = 2 {id=r, dep=lb}"]);
    expect(text(schedule(k).deviceKernels[0]!.body)).toBe("i{w} | i{r}");
  });

  it("global arrays written and read by different work-items of a group also get a barrier", () => {
    const k = tag(makeKernel("{[i]: 0<=i<16}", ["t[i] = a[i] {id=w}", "out[i] = t[15-i] {id=r, dep=w}"]), { i: "l.0" });
    expect(barriers(schedule(k).deviceKernels[0]!.body)).toEqual(["for t (r depends on w)"]);
  });
});

describe("barriers in loops", () => {
  it("the tiled matmul: fetch | compute | inside k_outer, the second for the next iteration", () => {
    const body = schedule(tiledMatmul()).deviceKernels[0]!.body;
    expect(text(body)).toBe("init ko{fetch | ki{compute} |} store");
    expect(barriers(body)).toEqual(["for a_fetch (compute depends on fetch)", "for a_fetch (fetch rev-depends on compute)"]);
  });

  it("a dependency between something before a loop and the loop gets the barrier outside the loop", () => {
    const k = tag(makeKernel("{[i,k]: 0<=i<16 and 0<=k<n}", [
      "t[i] = a[i] {id=w, inames=i}",
      "out[i, k] = t[15-i] {id=r, dep=w, inames=i:k}",
    ], [temporary("t", "float32", [16], "local"), "..."]), { i: "l.0" });
    expect(text(schedule(k).deviceKernels[0]!.body)).toBe("w | k{r}");
  });

  it("a barrier needed inside a loop whose bounds depend on a local id: the loop gets uniform bounds, the exact ones become predicates", () => {
    const k = tag(makeKernel(["{[i]: 0<=i<16}", "{[k]: 0<=k<i}"], [
      "t[i] = a[i] {id=w, inames=i:k}",
      "out[i] = t[15-i] {id=r, dep=w, inames=i:k}",
    ], [temporary("t", "float32", [16], "local"), "..."]), { i: "l.0" });
    const s = schedule(k);
    expect(text(s.deviceKernels[0]!.body)).toBe("k{w | r |}");
    const d = s.kernel.domains[domainIndexOf(s.kernel, "k")]!;
    expect(d.params).not.toContain("i");
    for (const id of ["w", "r"]) expect(s.kernel.instructions.find((x) => x.id === id)!.predicates.map(exprToString)).toEqual(["i - k - 1 >= 0"]);
  });

  it("where the exact domain cannot be kept as predicates (an existential ties k to the local id) it is a ScheduleError naming the instructions", () => {
    const k = tag(makeKernel(["{[i]: 0<=i<16}", "{[k,j]: 0<=j<=3 and 0<=k<i and 3k = 2j + i}"], [
      "t[i] = a[i] {id=w, inames=i:k}",
      "out[i] = t[15-i] {id=r, dep=w, inames=i:k}",
    ], [temporary("t", "float32", [16], "local"), "..."]), { i: "l.0" });
    expect(() => schedule(k)).toThrow(ScheduleError);
    expect(() => schedule(k)).toThrow(/loop "k", whose bounds depend on local id i.*r depends on w/);
  });

  it("the listing shows the barriers inside the loop", () => {
    const lines = showSchedule(schedule(tiledMatmul())).split("\n").map((l) => l.slice(6).trimEnd());
    expect(lines.filter((l) => /for ko|lbarrier|end ko/.test(l))).toEqual([
      "    for ko",
      "        ... lbarrier  /* for a_fetch (compute depends on fetch) */",
      "        ... lbarrier  /* for a_fetch (fetch rev-depends on compute) */",
      "    end ko",
    ]);
  });
});

/** `k` with instruction `id`'s dependencies dropped. */
const withoutDeps = (k: Kernel, id: string): Kernel =>
  withKernel(k, { instructions: k.instructions.map((x) => (x.id === id ? { ...x, dependsOn: [] } : x)) });

describe("barriers only where the dependency graph orders the accesses (loopy's get_barrier_needing_dependency)", () => {
  it("an instruction is never paired with itself: a store in a loop whose bounds depend on a local id schedules", () => {
    // jo's upper bound (m - 1 - ji)//2 uses the local id ji; st writes and reads out in every iteration.
    const k = tag(makeKernel("{[io,jo,ji]: 0<=io<n and 0<=ji<2 and 0<=2*jo+ji<m}",
      "out[io, 2*jo+ji] = 2*out[io, 2*jo+ji] + a[io, 2*jo+ji] {id=st}"), { io: "g.0", ji: "l.0" });
    const body = schedule(k).deviceKernels[0]!.body;
    expect(text(body)).toBe("jo{st}");
    expect(barriers(body)).toEqual([]);
  });

  it("the same loop with a barrier that a dependency needs runs over uniform bounds", () => {
    const k = tag(makeKernel("{[io,jo,ji]: 0<=io<n and 0<=ji<2 and 0<=2*jo+ji<m}", [
      "t[io, 2*jo+ji] = a[io, 2*jo+ji] {id=w}",
      "out[io, 2*jo+ji] = t[io, 2*jo+1-ji] {id=r, dep=w}",
    ]), { io: "g.0", ji: "l.0" });
    const s = schedule(k);
    expect(text(s.deviceKernels[0]!.body)).toBe("jo{w | r |}");
    expect(barriers(s.deviceKernels[0]!.body)[0]).toMatch(/r depends on w/);
  });

  it("a read after a write with no dependency between them gets no barrier", () => {
    const k = withoutDeps(fetchKernel("a_fetch[15 - i]"), "use");
    const body = schedule(k).deviceKernels[0]!.body;
    expect(body.filter((n) => n.kind === "insn")).toHaveLength(2);
    expect(barriers(body)).toEqual([]);
  });

  it("a transitive dependency counts: use depends on mid, mid on fetch", () => {
    const k = tag(makeKernel("{[i]: 0<=i<16}", [
      "a_fetch[i] = a[i] {id=fetch}",
      "<float32> s = 2 {id=mid, dep=fetch}",
      "out[i] = a_fetch[15 - i] + s {id=use, dep=*mid}",
    ], [temporary("a_fetch", "float32", [16], "local"), "..."]), { i: "l.0" });
    expect(k.instructions.find((x) => x.id === "use")!.dependsOn).toEqual(["mid"]);
    expect(barriers(schedule(k).deviceKernels[0]!.body)).toEqual(["for a_fetch (use depends on fetch)"]);
  });

  it("a write after read carried to the next iteration gets the end-of-body barrier when the read depends on the write", () => {
    const k = tag(makeKernel("{[i,k]: 0<=i<16 and 0<=k<n}", [
      "t[i] = a[k, i] {id=w, inames=i:k}",
      "out[k, i] = t[15-i] {id=r, dep=w, inames=i:k}",
    ], [temporary("t", "float32", [16], "local"), "..."]), { i: "l.0" });
    const body = schedule(k).deviceKernels[0]!.body;
    expect(text(body)).toBe("k{w | r |}");
    expect(barriers(body)).toEqual(["for t (r depends on w)", "for t (w rev-depends on r)"]);
  });

  it("without the dependency neither barrier is inserted", () => {
    const k = withoutDeps(tag(makeKernel("{[i,k]: 0<=i<16 and 0<=k<n}", [
      "t[i] = a[k, i] {id=w, inames=i:k}",
      "out[k, i] = t[15-i] {id=r, dep=w, inames=i:k}",
    ], [temporary("t", "float32", [16], "local"), "..."]), { i: "l.0" }), "r");
    expect(barriers(schedule(k).deviceKernels[0]!.body)).toEqual([]);
  });

  it("conflicting groups need a barrier without a dependency", () => {
    const k = withKernel(withoutDeps(fetchKernel("a_fetch[15 - i]"), "use"), {});
    const grouped = withKernel(k, {
      instructions: k.instructions.map((x) =>
        x.id === "fetch" ? { ...x, groups: ["g1"] } : x.id === "use" ? { ...x, conflictsWithGroups: ["g1"] } : x),
    });
    const comments = barriers(schedule(grouped).deviceKernels[0]!.body);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatch(/conflicts with .* \(via 'g1'\)/);
  });
});
