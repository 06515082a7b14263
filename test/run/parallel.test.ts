/** The interpreter's parallel meaning: groups, work-items in lockstep, barriers, storage, races. */
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import { withKernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { compileSchedule } from "../../src/run/interp.js";
import { fallbackSchedule } from "./fallback-schedule.js";
import { preprocess } from "../../src/schedule/index.js";
import { tag } from "./parallel-helpers.js";

const iota = (n: number) => Float32Array.from({ length: n }, (_, x) => x + 1);
const SPLIT = "{[io,ii]: 0<=ii<4 and 0<=4*io+ii<n}";

describe("groups and work-items", () => {
  it("a split loop tagged io:g.0, ii:l.0 computes what the sequential one does (with a remainder)", async () => {
    const k = makeKernel(SPLIT, "out[4*io+ii] = 2*a[4*io+ii] + 1 {id=w}", ["a, out: float32[n]", "n: int32"]);
    for (const n of [0, 1, 4, 7, 13]) {
      const seq = (await run(k, { a: iota(n), n })).out!;
      const par = (await run(tag(k, { io: "g.0", ii: "l.0" }), { a: iota(n), n })).out!;
      expect([...par]).toEqual([...seq]);
    }
  });

  it("two group axes and two local axes", async () => {
    const k = makeKernel("{[io,ii,jo,ji]: 0<=ii,ji<2 and 0<=2*io+ii<n and 0<=2*jo+ji<m}",
      "out[2*io+ii, 2*jo+ji] = a[2*io+ii, 2*jo+ji] * 3 {id=w}", ["a, out: float32[n,m]", "n, m: int32"]);
    const a = iota(5 * 3);
    const want = (await run(k, { a, n: 5, m: 3 })).out!;
    const par = (await run(tag(k, { io: "g.1", jo: "g.0", ii: "l.0", ji: "l.1" }), { a, n: 5, m: 3 })).out!;
    expect([...par]).toEqual([...want]);
  });

  it("a private accumulator: one copy per work-item", async () => {
    const k = makeKernel("{[io,ii,j]: 0<=ii<4 and 0<=4*io+ii<n and 0<=j<m}", [
      "<float32> acc = 0 {id=init, inames=io:ii}",
      "acc = acc + a[4*io+ii, j] {id=upd, dep=init, inames=io:ii:j}",
      "out[4*io+ii] = acc {id=st, dep=upd, inames=io:ii}",
    ], ["a: float32[n,m]", "out: float32[n]", "n, m: int32"]);
    const a = iota(6 * 3);
    const want = (await run(k, { a, n: 6, m: 3 })).out!;
    const par = (await run(tag(k, { io: "g.0", ii: "l.0" }), { a, n: 6, m: 3 })).out!;
    expect([...par]).toEqual([...want]);
    expect(par[1]).toBe(4 + 5 + 6);
  });

  it("an instruction that uses no local iname runs redundantly in every work-item (no race)", async () => {
    const k = makeKernel(SPLIT, ["out[io] = 7 {id=w, inames=io}", "y[4*io+ii] = 1 {id=v}"], ["out: float32[2]", "y: float32[n]", "n: int32"]);
    const r = await run(tag(k, { io: "g.0", ii: "l.0" }), { n: 8 });
    expect([...r.out!]).toEqual([7, 7]);
  });
});

describe("local memory and barriers", () => {
  const reverse = (insns: string[]) => makeKernel(SPLIT, insns,
    [temporary("t", "float32", [4], "local"), "a, out: float32[n]", "n: int32"]);

  it("a local temporary reversed within each group is correct with an explicit barrier", async () => {
    const k = tag(reverse([
      "t[ii] = a[4*io+ii] {id=fill}",
      "... lbarrier {id=b, dep=fill}",
      "out[4*io+ii] = t[3-ii] {id=use, dep=b}",
    ]), { io: "g.0", ii: "l.0" });
    const out = (await run(k, { a: iota(8), n: 8 })).out!;
    expect([...out]).toEqual([4, 3, 2, 1, 8, 7, 6, 5]);
  });

  it("the scheduler inserts the barrier when the instructions only have a dependency", async () => {
    const k = tag(reverse([
      "t[ii] = a[4*io+ii] {id=fill}",
      "out[4*io+ii] = t[3-ii] {id=use, dep=fill}",
    ]), { io: "g.0", ii: "l.0" });
    expect([...(await run(k, { a: iota(8), n: 8 })).out!]).toEqual([4, 3, 2, 1, 8, 7, 6, 5]);
  });

  it("without a barrier (the stand-in schedule from linearize inserts none) it is a race", () => {
    const k = tag(reverse([
      "t[ii] = a[4*io+ii] {id=fill}",
      "out[4*io+ii] = t[3-ii] {id=use, dep=fill}",
    ]), { io: "g.0", ii: "l.0" });
    const typed = withKernel(k, { args: k.args, temporaries: k.temporaries });
    const c = compileSchedule(fallbackSchedule(typed));
    const a = iota(8), out = new Float32Array(8), t = new Float32Array(4);
    const arrays = c.arrays.map((n) => (n === "a" ? a : n === "out" ? out : t));
    const layout = c.arrays.map((n) => (n === "t" ? [4] : [8]));
    expect(() => c.execute(arrays, layout, layout.map(() => [1]), [8])).toThrow(/race on local temporary "t"/);
  });

  it("without a barrier (nosync) it is a race naming the variable, cell, instructions and work-items", async () => {
    const k = tag(reverse([
      "t[ii] = a[4*io+ii] {id=fill}",
      "out[4*io+ii] = t[3-ii] {id=use, dep=fill, nosync=fill@local}",
    ]), { io: "g.0", ii: "l.0" });
    const p = run(k, { a: iota(8), n: 8 });
    await expect(p).rejects.toThrow(ExecutionError);
    await expect(run(k, { a: iota(8), n: 8 })).rejects.toThrow(/race on local temporary "t" at cell \d: instruction "fill" in work-item \{ii: \d\} wrote it and instruction "use" in work-item \{ii: \d\} read it/);
  });

  it("fresh local memory is garbage (NaN for floats): reading before writing shows", async () => {
    const k = tag(makeKernel(SPLIT, [
      "out[4*io+ii] = t[ii] {id=use}",
    ], [temporary("t", "float32", [4], "local"), "out: float32[n]", "n: int32"]), { io: "g.0", ii: "l.0" });
    const out = (await run(k, { n: 4 })).out!;
    expect([...out].every((x) => Number.isNaN(x))).toBe(true);
  });

  it("a loop with a barrier inside runs once for the group, its body in lockstep", async () => {
    // Each step: every work-item writes its slot, barrier, reads its neighbour's, barrier.
    const k = tag(makeKernel("{[io,ii,s]: 0<=ii<4 and 0<=4*io+ii<n and 0<=s<3}", [
      "<float32> v = a[4*io+ii] {id=init, inames=io:ii}",
      "t[ii] = v {id=put, dep=init, inames=io:ii:s}",
      "... lbarrier {id=b1, dep=put, inames=io:s}",
      "v = v + t[(ii+1) % 4] {id=get, dep=b1, inames=io:ii:s}",
      "... lbarrier {id=b2, dep=get, inames=io:s}",
      "out[4*io+ii] = v {id=st, dep=b2, inames=io:ii}",
    ], [temporary("t", "float32", [4], "local"), "a, out: float32[n]", "n: int32"]), { io: "g.0", ii: "l.0" });
    const a = Float32Array.from([1, 0, 0, 0]);
    let v = [...a];
    for (let s = 0; s < 3; s++) v = v.map((x, i) => x + v[(i + 1) % 4]!);
    const out = (await run(k, { a, n: 4 })).out!;
    expect([...out]).toEqual(v);
  });
});

describe("groups are independent", () => {
  it("a group reading what another group writes in the same device kernel is reported", async () => {
    // Work-item ii of group io reads out[4*(io-1)+ii], which group io-1 writes (and no work-item of
    // its own group): legal only sequentially.
    const k = makeKernel(SPLIT, [
      "out[4*io+ii] = a[4*io+ii] {id=w}",
      "b[4*io+ii] = out[4*io+ii-4] {id=r, dep=w, if=4*io+ii >= 4}",
    ], ["a, out, b: float32[n]", "n: int32"]);
    expect([...(await run(k, { a: iota(8), n: 8 })).b!]).toEqual([0, 0, 0, 0, 1, 2, 3, 4]);
    const par = tag(k, { io: "g.0", ii: "l.0" });
    // Group io reads what group io-1 writes: scheduling refuses the dependency across
    // groups within one device kernel (loopy's MissingBarrierError), on every backend alike.
    for (const backend of ["interp", "js"] as const) {
      await expect(run(par, { a: iota(8), n: 8 }, { backend })).rejects.toThrow(/"r" depends on instruction "w" through global array "out", but they may touch the same cell from different work-groups \(along "io"\)/);
    }
    // What the static check lets through, the interpreter's tracker of global arrays still reports.
    const c = compileSchedule(fallbackSchedule(par));
    const a = iota(8), out = new Float32Array(8), b = new Float32Array(8);
    const arrays = c.arrays.map((n) => (n === "a" ? a : n === "out" ? out : b));
    expect(() => c.execute(arrays, arrays.map(() => [8]), arrays.map(() => [1]), [8])).toThrow(/race on global array "out" at cell 0: instruction "r" in group \{io: 1\} read it and instruction "w" in group \{io: 0\} wrote it/);
  });

  it("work-items of one group touching one global cell with no barrier fencing global memory are reported", async () => {
    // Every work-item adds to out[0] (an update no one marked atomic), in the stand-in schedule
    // with no barrier: OpenCL and CUDA give any interleaving, so the interpreter refuses it.
    const k = tag(makeKernel(SPLIT, [
      "out[4*io+ii] = a[4*io+ii] {id=w}",
      "b[4*io] = b[4*io] + a[4*io+ii] {id=s, dep=w}",
    ], ["a, out, b: float32[n]", "n: int32"]), { io: "g.0", ii: "l.0" });
    const c = compileSchedule(fallbackSchedule(k));
    const a = iota(8), out = new Float32Array(8), b = new Float32Array(8);
    const arrays = c.arrays.map((n) => (n === "a" ? a : n === "out" ? out : b));
    expect(() => c.execute(arrays, arrays.map(() => [8]), arrays.map(() => [1]), [8])).toThrow(/race on global array "b" at cell 4: instruction "s" in work-item \{ii: 0\} wrote it and instruction "s" in work-item \{ii: 1\} read it, in one work-group with no barrier fencing global memory between/);
  });

  it("a global barrier splits the kernel: the dependency across groups becomes legal", async () => {
    const k = tag(makeKernel(SPLIT, [
      "out[4*io+ii] = a[4*io+ii] {id=w}",
      "... gbarrier {id=g, dep=w}",
      "b[4*io+ii] = out[(4*io+ii+4) % n] {id=r, dep=g}",
    ], ["a, out, b: float32[n]", "n: int32"]), { io: "g.0", ii: "l.0" });
    const { b } = await run(k, { a: iota(8), n: 8 });
    expect([...b!]).toEqual([5, 6, 7, 8, 1, 2, 3, 4]);
  });
});

describe("the tiled matmul with a local prefetch (barriers from the scheduler)", () => {
  it("equals the plain matmul (n a multiple of the tile: the fetch has no guard)", async () => {
    const tiled = tag(makeKernel(
      "{[io,ii,jo,ji,ko,ki]: 0<=ii<4 and 0<=4*io+ii<n and 0<=ji<4 and 0<=4*jo+ji<n and 0<=ki<4 and 0<=4*ko+ki<n}",
      [
        "<float32> acc = 0 {id=init, inames=io:ii:jo:ji}",
        "a_fetch[ii, ji] = a[4*io+ii, 4*ko+ji] {id=fetch, inames=io:ii:jo:ji:ko}",
        "acc = acc + a_fetch[ii, ki]*b[4*ko+ki, 4*jo+ji] {id=compute, dep=init:fetch, inames=io:ii:jo:ji:ko:ki}",
        "c[4*io+ii, 4*jo+ji] = acc {id=store, dep=compute, inames=io:ii:jo:ji}",
      ],
      [temporary("a_fetch", "float32", [4, 4], "local"), "a, b, c: float32[n,n]", "n: int32"],
    ), { io: "g.0", ii: "l.1", jo: "g.1", ji: "l.0" });
    const plain = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"]);
    for (const n of [4, 8, 12]) {
      const a = Float32Array.from({ length: n * n }, (_, x) => (x % 7) - 3);
      const b = Float32Array.from({ length: n * n }, (_, x) => (x % 5) - 2);
      expect([...(await run(tiled, { a, b, n })).c!]).toEqual([...(await run(plain, { a, b, n })).c!]);
    }
  });
});

describe("several inames on one hardware axis", () => {
  it("a local tree reduction (stage inames on l.0 beside k) computes the sequential sum and max", async () => {
    for (const size of [16, 12, 5]) {
      const k = makeKernel(`{[i,k]: 0<=i<n and 0<=k<${size}}`, "out[i] = sum(k, a[i,k]) + max(k, a[i,k]) {id=s}",
        [`a: int32[n,${size}]`, "out: int32[n]", "n: int32"]);
      const a = Int32Array.from({ length: 3 * size }, (_, x) => ((x * 7919) % 23) - 11);
      const want = [...(await run(k, { a, n: 3 })).out!];
      const tagged = tag(k, { k: "l.0" });
      // Inline (the interpreter enumerates the reduction) and realized as a tree over l.0.
      expect([...(await run(tagged, { a, n: 3 })).out!]).toEqual(want);
      expect([...(await run(preprocess(tagged), { a, n: 3 })).out!]).toEqual(want);
      // And with the rows over groups.
      const grouped = tag(k, { i: "g.0", k: "l.0" });
      expect([...(await run(preprocess(grouped), { a, n: 3 })).out!]).toEqual(want);
    }
  });

  it("a tree reduction over part of the axis (k < m): the init iname covers the whole axis", async () => {
    const k = makeKernel("{[i,k]: 0<=i<n and 0<=k<8 and k<m}", "out[i] = sum(k, a[i,k]) {id=s}", ["a: int32[n, 8]", "out: int32[n]", "n, m: int32"]);
    const tagged = tag(k, { i: "g.0", k: "l.0" });
    const a = Int32Array.from({ length: 24 }, (_, x) => x * 3 - 7);
    for (const m of [0, 3, 8, 10]) {
      const want = [...(await run(k, { a, n: 3, m })).out!];
      expect([...(await run(tagged, { a, n: 3, m })).out!]).toEqual(want);
      expect([...(await run(preprocess(tagged), { a, n: 3, m })).out!]).toEqual(want);
    }
  });

  it("each iname is its own base plus the axis id; the axis spans the largest range", () => {
    // i (0..3) and j (5..7) both on l.0: the stand-in schedule lists both.
    const k = tag(makeKernel("{[i,j]: 0<=i<4 and 5<=j<8}", ["x[i] = i {id=wx, inames=i}", "y[j-5] = j {id=wy, inames=j}"],
      ["x: int32[4]", "y: int32[3]"]), { i: "l.0", j: "l.0" });
    const s = fallbackSchedule(k);
    expect(s.deviceKernels[0]!.localAxes.map((a) => a.iname)).toEqual(["i", "j"]);
    const c = compileSchedule(s);
    const x = new Int32Array(4), y = new Int32Array(3);
    c.execute(c.arrays.map((n) => (n === "x" ? x : y)), c.arrays.map((n) => (n === "x" ? [4] : [3])), [[1], [1]], []);
    expect([...x]).toEqual([0, 1, 2, 3]);
    expect([...y]).toEqual([5, 6, 7]);
  });
});
