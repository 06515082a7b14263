/**
 * getMemAccessMap against what the interpreter does. Law: for random kernels and pipelines (the
 * pipeline law's generator: 0-d outputs, duplicated inames, prefetches, tiles onto g/l axes, global
 * barriers), the global loads and stores of each argument array, counted with countRedundantWork
 * (every work-item of the grid runs an instruction, as the interpreter runs it), equal the element
 * reads and writes the interpreter makes on that array, at the case's parameters; or the count is
 * refused with a LoomError. Predicated instructions and conditional expressions are left out (a
 * count ignores predicates by definition, as loopy's does). Then one example per class it found.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import * as lp from "../../src/index.js";
import { applyPipeline } from "../../transforms/pipeline.js";
import { genCase, type Case } from "../transforms/gen-kernels.js";
import { CellTracker } from "../../src/run/race-tracker.js";

/** Element reads and writes per "array load" / "array store" of each run of a compiled kernel. */
const runs: Map<string, number>[] = [];
/** Inside the race tracker's own reads of a cell (its check of a store), which the kernel does not make. */
let inTracker = 0;

vi.mock("../../src/run/interp.js", async (importOriginal) => {
  const orig = await importOriginal<typeof import("../../src/run/interp.js")>();
  const counted = (c: ReturnType<typeof orig.compileKernel>): ReturnType<typeof orig.compileKernel> => {
    const args = new Set(c.kernel.args.filter((a) => a.kind === "array").map((a) => a.name));
    const execute: typeof c.execute = (A, E, S, V) => {
      const seen = new Map<string, number>();
      runs.push(seen);
      const bump = (key: string) => { if (inTracker === 0) seen.set(key, (seen.get(key) ?? 0) + 1); };
      const views = A.map((data, x) => {
        const name = c.arrays[x]!;
        if (!args.has(name)) return data;
        return new Proxy(data, {
          get(t, p) {
            if (typeof p === "string" && /^\d+$/.test(p)) bump(`${name} load`);
            const v: unknown = Reflect.get(t, p, t);
            return typeof v === "function" ? v.bind(t) : v;
          },
          set(t, p, v) {
            if (typeof p === "string" && /^\d+$/.test(p)) bump(`${name} store`);
            return Reflect.set(t, p, v, t);
          },
        });
      });
      return c.execute(views, E, S, V);
    };
    return { ...c, execute };
  };
  return { ...orig, compileKernel: (k: lp.Kernel) => counted(orig.compileKernel(k)) };
});

for (const m of ["checkWrite", "checkAtomicWrite"] as const) {
  const f = CellTracker.prototype[m] as (...a: unknown[]) => void;
  CellTracker.prototype[m] = function (this: CellTracker, ...a: unknown[]) {
    inTracker++;
    try { f.apply(this, a); } finally { inTracker--; }
  } as never;
}

const CONDITIONAL = /\bif\b|\band\b|\bor\b/;
const counts = { checked: 0, refused: 0 };

async function countsAgree(c: Case): Promise<void> {
  for (const k of [c.ref, c.transformed]) {
    if (k.instructions.some((i) => i.predicates.length > 0) || c.source.instructions.some((s) => CONDITIONAL.test(s))) return;
    let want: (name: string, dir: "load" | "store") => number;
    try {
      const mem = lp.getMemAccessMap(k, { countRedundantWork: true });
      const p = Object.fromEntries(Object.entries(c.params).map(([a, b]) => [a, Number(b)]));
      want = (name, direction) => mem.filterBy({ mtype: "global", variable: name, direction }).evalAndSum(p);
      k.args.forEach((a) => a.kind === "array" && want(a.name, "load"));
    } catch (e) {
      if (!(e instanceof lp.LoomError)) throw e;
      counts.refused++;
      continue;
    }
    runs.length = 0;
    // A kernel the interpreter does not run to the end (autoTestVsRef not ok) has nothing to count.
    if (!(await lp.autoTestVsRef(k, k, { params: c.params, seed: 3 })).ok) {
      counts.refused++;
      continue;
    }
    for (const a of k.args) {
      if (a.kind !== "array") continue;
      for (const dir of ["load", "store"] as const) {
        expect(runs[0]!.get(`${a.name} ${dir}`) ?? 0, `${a.name} ${dir}s\n  kernel ${JSON.stringify(c.source)}\n  params ${JSON.stringify(c.params)}\n  pipeline ${JSON.stringify(c.json)}`).toBe(want(a.name, dir));
      }
    }
    counts.checked++;
  }
}

describe("getMemAccessMap counts what the interpreter reads and writes", () => {
  it("law: random kernels and pipelines, global loads and stores per array (countRedundantWork)", async () => {
    await fc.assert(fc.asyncProperty(genCase, countsAgree), { numRuns: 80 });
    expect(counts.checked).toBeGreaterThan(60);
  }, 120_000);

  const matmul = () => lp.makeKernel("{[i,j,k]: 0<=i<n and 0<=j<m and 0<=k<p}", "c[i,j] = sum(k, a[i,k]*b[k,j])",
    ["a: float64[n,p]", "b: float64[p,m]", "c: float64[n,m]", "n, m, p: int32"]);

  it("a 0-d array named bare is one element: out = sum(i, a[i] - s) loads s per point and stores out once", () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out = sum(i, a[i] - s)", ["a: float64[n]", "out, s: float64[]", "n: int32"]);
    const mem = lp.getMemAccessMap(k);
    expect(mem.filterBy({ variable: "s", direction: "load" }).evalAndSum({ n: 7 })).toBe(7);
    expect(mem.filterBy({ variable: "out", direction: "store" }).evalAndSum({ n: 7 })).toBe(1);
    const traffic = lp.globalTraffic(k).map((t) => [t.variable, t.direction, t.elements.eval({ n: 7 })]);
    expect(traffic).toEqual([["a", "load", 7], ["out", "store", 1], ["s", "load", 1]]);
    const bare = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a + 1", ["a, out: float64[n]", "n: int32"]);
    expect(() => lp.getMemAccessMap(bare)).toThrow(/uses array "a" without a subscript; it has 1 axes/);
  });

  it("countRedundantWork: a tagged iname no instruction uses is on no grid", () => {
    const k = lp.tagInames(lp.duplicateInames(matmul(), "i", "id:insn", "i_d0"), { i: "g.1", i_d0: "g.0" });
    expect(lp.getMemAccessMap(k, { countRedundantWork: true }).filterBy({ variable: "c" }).evalAndSum({ n: 5, m: 3, p: 2 })).toBe(15);
  });

  it("countRedundantWork: an unused axis tied to the instruction's inames multiplies (the grid is every group)", () => {
    const k = applyPipeline(matmul(), [{ op: "tile", args: [["i", "j"], [2, 5], { outerTags: ["g.1", "g.0"] }] },
      { op: "addPrefetch", args: ["b", { temporaryAddressSpace: "private" }] }, { op: "splitIname", args: ["i_inner", 1] }]);
    // The fetch of b runs at i_inner_outer = 0, 1 (while < n) in each of the ceil(n/2) groups along g.1.
    expect(lp.getMemAccessMap(k, { countRedundantWork: true }).filterBy({ variable: "b" }).evalAndSum({ n: 5, m: 1, p: 1 })).toBe(6);
  });

  it("countRedundantWork: an axis's extent is its iname's constant box after projection (the grid's 2 groups of i_inner_outer_outer)", () => {
    const k = applyPipeline(lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", ["<> t[j] = 2*x[j] + 1 {id=w}", "out[i] = sum(j, t[j]*a[i,j]) {id=r, dep=w}"],
      ["a: float64[n,4]", "x: float64[4]", "out: float64[n]", "n: int32"]), [
      { op: "splitIname", args: ["i", 5, { outerTag: "g.0" }] }, { op: "splitIname", args: ["i_inner", 3] },
      { op: "splitIname", args: ["i_inner_outer", 1, { outerTag: "g.1" }] }]);
    // w runs in every one of the ceil(n/5) x 2 groups; 0 <= i_inner_outer_outer <= 1 is no row of the domain.
    const x = lp.getMemAccessMap(k, { countRedundantWork: true }).filterBy({ variable: "x" });
    expect([1, 6].map((n) => x.evalAndSum({ n }))).toEqual([8, 16]);
  });

  it("countRedundantWork and per sub-group counts refuse a kernel that global barriers split into device kernels", () => {
    const k = lp.tagInames(lp.makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=w}", "... gbarrier {id=gb, dep=w}", "out[i] = t[0] {id=r, dep=gb}"],
      ["a, t, out: float64[n]", "n: int32"]), { i: "l.0" });
    expect(() => lp.getMemAccessMap(k, { countRedundantWork: true })).toThrow(/global barriers \("gb"\).*own grid/);
    expect(() => lp.getOpMap(k, { countGranularity: "subgroup" })).toThrow(/per sub-group: kernel .* global barriers/);
    expect(lp.getMemAccessMap(k).filterBy({ variable: "a" }).evalAndSum({ n: 4 })).toBe(4);
  });
});
