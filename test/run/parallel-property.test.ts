/**
 * Law: for every split kernel without local temporaries and every legal assignment of g/l tags
 * to its inames (none is refused), the parallel meaning equals the sequential one.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { tag } from "./parallel-helpers.js";

type Choice = "seq" | "g" | "l";

/** Tags for io, ii, jo, ji: outer inames (size from n, m) may be g; inner ones (constant size) g or l. */
function tagsOf(choices: readonly Choice[]): Record<string, string> {
  const axes = { g: 0, l: 0 };
  const out: Record<string, string> = {};
  ["io", "ii", "jo", "ji"].forEach((iname, x) => {
    const c = choices[x]!;
    if (c !== "seq") out[iname] = `${c}.${axes[c]++}`;
  });
  return out;
}

describe("parallel vs. sequential", () => {
  it("split kernels under random g/l tags compute what the untagged kernel computes", async () => {
    const kernels = new Map<string, ReturnType<typeof makeKernel>>();
    const kernelFor = (si: number, sj: number) => {
      const key = `${si},${sj}`;
      if (!kernels.has(key)) {
        kernels.set(key, makeKernel(
          `{[io,ii,jo,ji,k]: 0<=ii<${si} and 0<=${si}*io+ii<n and 0<=ji<${sj} and 0<=${sj}*jo+ji<m and 0<=k<m}`,
          [
            `<float32> t = 2*a[${si}*io+ii, ${sj}*jo+ji] {id=priv, inames=io:ii:jo:ji}`,
            `out[${si}*io+ii, ${sj}*jo+ji] = t + sum(k, a[${si}*io+ii, k]) {id=st, dep=priv, inames=io:ii:jo:ji}`,
            `rows[${si}*io+ii] = a[${si}*io+ii, 0] {id=row, inames=io:ii, if=m > 0}`,
          ],
          ["a, out: float32[n,m]", "rows: float32[n]", "n, m: int32"],
        ));
      }
      return kernels.get(key)!;
    };
    const choice = (outer: boolean) => fc.constantFrom<Choice>(...(outer ? ["seq", "g"] as const : ["seq", "g", "l"] as const));
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 7 }),
      fc.tuple(choice(true), choice(false), choice(true), choice(false)),
      async (si, sj, n, m, choices) => {
        const k = kernelFor(si, sj);
        const a = Float32Array.from({ length: n * m }, (_, x) => ((x * 7) % 11) - 5);
        const seq = await run(k, { a, n, m });
        // Every tag set is a legal parallel kernel: the scheduler puts barriers only along
        // dependency paths (as loopy does), so none is refused.
        const par = await run(tag(k, tagsOf(choices)), { a, n, m });
        expect([...par.out!]).toEqual([...seq.out!]);
        expect([...par.rows!]).toEqual([...seq.rows!]);
      }), { numRuns: 300 });
  });
});
