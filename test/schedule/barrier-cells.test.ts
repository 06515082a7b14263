/**
 * Barrier placement asks whether two accesses can meet from different work-items of one group
 * (src/schedule/access-meet.ts): different cells of each work-item's own need no barrier, cells
 * another work-item touches do; a group of one work-item needs none; OKL's global memory is
 * ordered by the author's @barrier alone.
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { schedule, showSchedule } from "../../src/schedule/index.js";
import { splitIname } from "../../transforms/index.js";
import { parityBackends } from "../transforms/every-backend.js";
import { run } from "../../src/run/index.js";

const barriers = (text: string) => (text.match(/lbarrier/g) ?? []).length;
const split = (insns: string[], outerTag?: "g.0") => splitIname(makeKernel("{[i]: 0<=i<n}", insns, ["a: float32[2*n]", "out: float32[2*n]", "n: int32"]), "i", 4, { ...(outerTag ? { outerTag } : {}), innerTag: "l.0" });

describe("barriers between different cells", () => {
  it("a work-item's own cells (out[2*i], out[2*i + 1]) need no barrier; a neighbour's cell does", async () => {
    const own = split(["out[2*i] = a[2*i] {id=w}", "out[2*i + 1] = out[2*i] + 1 {id=r, dep=w}"], "g.0");
    expect(barriers(showSchedule(schedule(own)))).toBe(0);
    const neighbour = split(["out[2*i] = a[2*i] {id=w}", "out[2*i + 1] = out[2*i + 2] + 1 {id=r, dep=w, if=i < n - 1}"]);
    expect(barriers(showSchedule(schedule(neighbour)))).toBeGreaterThan(0);
    const a = Float32Array.from({ length: 16 }, (_, x) => x);
    for (const backend of parityBackends() as ("interp" | "js" | "c" | "openmp" | "opencl")[]) {
      const r = (await run(own, { a, n: 8 }, { backend })).out!;
      expect([...r].filter((_, x) => x % 2 === 1), backend).toEqual([...a].filter((_, x) => x % 2 === 0).map((x) => x + 1));
    }
  });

  it("flat indices are compared as flat indices", () => {
    const k = split(["out[[2*i]] = a[2*i] {id=w}", "out[[2*i + 1]] = out[[2*i]] + 1 {id=r, dep=w}"], "g.0");
    expect(barriers(showSchedule(schedule(k)))).toBe(0);
  });

  it("a group of one work-item needs none", () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", ["out[i] = a[i] {id=w}", "out[i + 1] = out[i] {id=r, dep=w, if=i < n - 1}"], ["a, out: float32[n + 1]", "n: int32"]), "i", 1, { innerTag: "l.0" });
    expect(barriers(showSchedule(schedule(k)))).toBe(0);
  });
});
