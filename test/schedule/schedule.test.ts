/** schedule(): hardware axes, device kernels, the listing, memoization. */
import { describe, expect, it } from "vitest";
import { exprToString } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { schedule, showSchedule } from "../../src/schedule/index.js";
import { tag, text, tiledMatmul } from "./schedule-kernels.js";

describe("hardware axes", () => {
  it("g and l inames are not loops; their axes have a base and a size", () => {
    const k = tag(makeKernel("{[io,ii]: 0<=ii<16 and 0<=16*io+ii<n}", "out[16*io+ii] = 2*a[16*io+ii] {id=w}"), { io: "g.0", ii: "l.0" });
    const s = schedule(k);
    expect(s.deviceKernels).toHaveLength(1);
    const dk = s.deviceKernels[0]!;
    expect(dk.name).toBe(k.name);
    expect(text(dk.body)).toBe("w");
    expect(dk.groupAxes.map((a) => [a.iname, a.axis, exprToString(a.base), exprToString(a.size)])).toEqual([["io", 0, "0", "(n + 15)//16"]]);
    expect(dk.localAxes.map((a) => [a.iname, a.axis, exprToString(a.base), exprToString(a.size)])).toEqual([["ii", 0, "0", "16"]]);
    expect(dk.args).toEqual(["a", "out", "n"].filter((x) => k.args.some((a) => a.name === x)).sort((x, y) => k.args.findIndex((a) => a.name === x) - k.args.findIndex((a) => a.name === y)));
  });

  it("a local axis whose size is affine in the parameters is sized at launch", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {id=w}"), { i: "l.0" });
    const ax = schedule(k).deviceKernels[0]!.localAxes[0]!;
    expect([ax.iname, exprToString(ax.base), exprToString(ax.size)]).toEqual(["i", "0", "n"]);
  });

  it("a local axis whose bounds use another iname spans the maximum over it (issue 15.12)", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<i}", "out[i, j] = 1 {id=w}"), { j: "l.0" });
    expect(schedule(k).deviceKernels[0]!.localAxes.map((ax) => exprToString(ax.size))).toEqual(["n - 1"]);
  });

  it("two inames on one local axis with different sizes share it: the widest range, each guarded", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<16 and 0<=j<8}", ["x[i] = 1 {id=a}", "y[j] = 2 {id=b}"]), { i: "l.0", j: "l.0" });
    const ax = schedule(k).deviceKernels[0]!.localAxes;
    expect(ax.map((a) => [a.iname, exprToString(a.size)])).toEqual([["i", "16"]]);
  });

  it("sibling local inames of parametric sizes: the covering range, else the max at launch", () => {
    const k = tag(makeKernel("{[i,j,m]: 0<=i<n and 0<=4*j<n and 0<=m<4}", ["x[i] = 1 {id=a}", "y[j] = 2 {id=b}", "z[m] = 3 {id=c}"]), { i: "l.0", j: "l.0", m: "l.0" });
    const ax = schedule(k).deviceKernels[0]!.localAxes;
    expect(ax.map((a) => exprToString(a.size))).toEqual(["max(n, 4)"]);
    const k2 = tag(makeKernel("{[i,j]: 0<=i<n and 0<=4*j<n}", ["x[i] = 1 {id=a}", "y[j] = 2 {id=b}"]), { i: "l.0", j: "l.0" });
    expect(schedule(k2).deviceKernels[0]!.localAxes.map((a) => [a.iname, exprToString(a.size)])).toEqual([["i", "n"]]);
  });

  it("two inames on one local axis with different lower bounds is a ScheduleError", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<n and 1<=j<n}", ["x[i] = 1 {id=a}", "y[j] = 2 {id=b}"]), { i: "l.0", j: "l.0" });
    expect(() => schedule(k)).toThrow(/"i" and "j" are both tagged l.0 but have different ranges .*not in their lower bound/);
  });

  it("the tiled matmul: loops k_outer, k_inner only; g/l axes", () => {
    const s = schedule(tiledMatmul());
    const dk = s.deviceKernels[0]!;
    expect(text(dk.body)).toBe("init ko{fetch | ki{compute} |} store");
    expect(dk.localAxes.map((a) => a.iname)).toEqual(["ji", "ii"]);
    expect(dk.groupAxes.map((a) => a.iname)).toEqual(["io", "jo"]);
  });

  it("ilp inames are the innermost loops", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", "out[i,j] = 1 {id=a}"), { i: "ilp" });
    expect(text(schedule(k).deviceKernels[0]!.body)).toBe("j{i{a}}");
  });
});

describe("device kernels", () => {
  it("a global barrier splits the kernel into k, k_0", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["t[i] = a[i] {id=w}", "... gbarrier {id=gb, dep=w}", "out[i] = t[n-1-i] {id=r, dep=gb}"], undefined, { name: "k" });
    const s = schedule(k);
    expect(s.deviceKernels.map((d) => d.name)).toEqual(["k", "k_0"]);
    expect(s.deviceKernels.map((d) => text(d.body))).toEqual(["i{w}", "i{r}"]);
    expect(s.deviceKernels[0]!.args).not.toContain("out");
    expect(s.deviceKernels[1]!.args).not.toContain("a");
  });

  it("a global barrier inside a sequential loop makes it a host loop launching the device kernels (test/schedule/host-*.test.ts)", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["t[i] = a[i] {id=w}", "... gbarrier {id=gb, dep=w, inames=i}", "out[i] = t[i] {id=r, dep=gb}"], undefined, { name: "k" });
    const s = schedule(k);
    expect(s.deviceKernels.map((d) => [d.name, text(d.body), d.hostInames])).toEqual([["k", "w", ["i"]], ["k_0", "r", ["i"]]]);
    expect(s.hostProgram?.map((n) => n.kind)).toEqual(["loop"]);
  });
});

describe("showSchedule", () => {
  it("prints loopy's numbered listing", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["t[i] = a[i] {id=w}", "... gbarrier {id=gb, dep=w}", "out[i] = t[i] {id=r, dep=gb}"], undefined, { name: "k" });
    expect(showSchedule(schedule(k))).toBe([
      "   0: CALL KERNEL k",
      "   1:     for i",
      "   2:         t[i] = a[i]  {id=w}",
      "   3:     end i",
      "   4: RETURN FROM KERNEL k",
      "   5: ... gbarrier",
      "   6: CALL KERNEL k_0",
      "   7:     for i",
      "   8:         out[i] = t[i]  {id=r}",
      "   9:     end i",
      "  10: RETURN FROM KERNEL k_0",
    ].join("\n"));
  });

  it("prints barriers with their comment", () => {
    const listing = showSchedule(schedule(tiledMatmul()));
    expect(listing).toContain("... lbarrier  /* for a_fetch (compute depends on fetch) */");
    expect(listing.split("\n")[0]).toMatch(/^ {3}0: CALL KERNEL /);
  });
});

describe("schedule is deterministic and memoized", () => {
  it("the same kernel gives the same object; an equal kernel an equal schedule", () => {
    const k = tiledMatmul();
    expect(schedule(k)).toBe(schedule(k));
    expect(showSchedule(schedule(tiledMatmul()))).toBe(showSchedule(schedule(k)));
    expect(schedule(k, { cpu: true })).not.toBe(schedule(k));
    expect(schedule(k, { cpu: true })).toBe(schedule(k, { cpu: true }));
  });

});
