/**
 * A barrier inside a loop whose bounds depend on a local id (a split whose factor does not divide
 * the size, with a local prefetch): the scheduler gives the loop work-group-uniform bounds (the
 * hull over the local ids) and keeps the exact domain as predicates on the instructions, as loopy
 * does. Law: for all such kernels k' of a reference k, autoTestVsRef(k, k') is ok on interp and js.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { domainIndexOf, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { schedule, showSchedule, type ScheduleNode } from "../../src/schedule/index.js";
import { addPrefetch, splitIname } from "../../transforms/index.js";
import { applyPipeline, type PipelineJSON } from "../../transforms/pipeline.js";

const matvec = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j] * b[j])",
  ["a: float64[n,m]", "b: float64[m]", "out: float64[n]", "n, m: int32"]);

/** matvec with i split by fi (g.0/l.0), j by fj (inner l.1), b prefetched into local memory over j_inner. */
function splitPrefetched(fi: number, fj: number): Kernel {
  let k = splitIname(matvec(), "i", fi, { outerTag: "g.0", innerTag: "l.0" });
  k = splitIname(k, "j", fj, { innerTag: "l.1" });
  return addPrefetch(k, "b", { sweepInames: ["j_inner"], temporaryAddressSpace: "local" });
}

function loopWithBarrier(nodes: readonly ScheduleNode[]): string | undefined {
  for (const n of nodes) {
    if (n.kind !== "loop") continue;
    if (n.body.some((x) => x.kind === "barrier")) return n.iname;
    const inner = loopWithBarrier(n.body);
    if (inner) return inner;
  }
  return undefined;
}

describe("a barrier in a loop whose bounds depend on a local id", () => {
  it("schedules: j_outer gets bounds over the parameters only, the barriers stay inside it", () => {
    const s = schedule(splitPrefetched(4, 3));
    expect(loopWithBarrier(s.deviceKernels[0]!.body)).toBe("j_outer");
    const d = s.kernel.domains[domainIndexOf(s.kernel, "j_outer")]!;
    expect([...d.params, ...d.dims]).not.toContain("j_inner");
    expect(showSchedule(s)).toMatch(/for j_outer[\s\S]*lbarrier[\s\S]*end j_outer/);
  });

  it("the OpenCL loop header uses no local id; the remainder is a guard inside", () => {
    const code = generateCode(splitPrefetched(4, 3), "opencl").deviceCode;
    const header = code.split("\n").find((l) => l.includes("for (int j_outer"))!;
    expect(header).toBeDefined();
    expect(header).not.toContain("lid(");
    expect(code).toMatch(/if \(.*lid\(1\).*\)\n\s*acc_j_outer = acc_j_outer \+/);
  });

  it("computes what the reference computes, on interp and js", async () => {
    const k = splitPrefetched(4, 3);
    for (const [n, m] of [[5, 7], [8, 9], [3, 1], [4, 0], [1, 3]]) {
      for (const backend of ["interp", "js"] as const) {
        const r = await autoTestVsRef(matvec(), k, { params: { n, m }, backend });
        expect(r.mismatches).toEqual([]);
      }
    }
  });

  it("the random pipeline's matmul with a local prefetch over a split i_inner", async () => {
    const ref = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<m and 0<=k<p}", "c[i,j] = sum(k, a[i,k]*b[k,j])",
      ["a: float64[n,p]", "b: float64[p,m]", "c: float64[n,m]", "n, m, p: int32"]);
    const json = [
      { op: "prioritizeLoops", args: ["j,i"] },
      { op: "tile", args: [["i", "j"], [7, 1], { innerTags: ["l.1", "l.0"] }] },
      { op: "addPrefetch", args: ["b", { sweepInames: ["i_inner"], temporaryAddressSpace: "local" }] },
    ] as PipelineJSON;
    const k = applyPipeline(ref, json);
    // The barriers are in k, inside i_outer, whose remainder bound 7*i_outer + i_inner < n used a local id.
    expect(loopWithBarrier(schedule(k).deviceKernels[0]!.body)).toBe("k");
    const header = generateCode(k, "opencl").deviceCode.split("\n").find((l) => l.includes("for (int i_outer"))!;
    expect(header).not.toContain("lid(");
    for (const params of [{ n: 8, m: 3, p: 5 }, { n: 13, m: 1, p: 2 }, { n: 0, m: 2, p: 2 }]) {
      for (const backend of ["interp", "js"] as const) {
        expect((await autoTestVsRef(ref, k, { params, backend })).mismatches).toEqual([]);
      }
    }
  });

  it("property: for all split factors and sizes, the split, prefetched matvec equals the reference", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 5 }), fc.integer({ min: 2, max: 5 }), fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 13 }),
      fc.constantFrom("interp", "js") as fc.Arbitrary<"interp" | "js">,
      async (fi, fj, n, m, backend) => {
        const r = await autoTestVsRef(matvec(), splitPrefetched(fi, fj), { params: { n, m }, backend });
        return r.ok;
      }), { numRuns: 60 });
  }, 60_000);
});
