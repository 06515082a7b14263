/**
 * A private scalar `t` that bounds a loop (`[t] -> {[r]: 1<=r<t}`), written before a global barrier
 * inside `for i` with i a host loop, read as the bound after it: unsaved, the scheduler refuses it;
 * after saveAndReloadTemporaries it is the serial meaning on interp and js. Found by the
 * random-pipeline law's paramBarrier family (test/transforms/gen-families.ts, which now draws i
 * sequential too): the reload ran outside the host loop, with the last trip's t, a silent wrong
 * result for a plain loop over r (and a ScheduleError for a sum over r, its accumulator's init
 * landing before the barrier).
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { saveAndReloadTemporaries } from "../../transforms/index.js";

/** `out[i, r] = a[i] + r` (or a sum over r) for 1 <= r < t, t = i % 4 written before the barrier (or none). */
function kernel(reduce: boolean, barrier: boolean): Kernel {
  return makeKernel(["{[i]: 0<=i<n}", "[t] -> {[r]: 1<=r<t}"], [`for i
      <int32> t = i % 4 {id=wt}
      ${barrier ? "... gbarrier {id=gb, dep=wt}" : ""}
      ${reduce ? "s[i] = sum(r, a[i] + r)" : "out[i, r] = a[i] + r"} {id=use, dep=${barrier ? "gb" : "wt"}${reduce ? "" : ", inames=i:r"}}
    end`], ["a, s: float64[n]", "out: float64[n, 4]", "n: int32"]);
}

const args = () => ({ a: Float64Array.from([1, 2, 3, 4, 5, 6]), s: new Float64Array(6), out: new Float64Array(24), n: 6 });

describe("a loop bound saved across a global barrier inside a host loop", () => {
  for (const reduce of [false, true]) {
    it(`${reduce ? "a reduction" : "a plain loop"} over r: saved, the serial meaning on interp and js`, async () => {
      const name = reduce ? "s" : "out";
      const want = [...(await run(kernel(reduce, false), args()))[name]!];
      expect(want.filter((x) => x !== 0).length).toBeGreaterThan(0);
      for (const backend of ["interp", "js"] as const) {
        const got = await run(saveAndReloadTemporaries(kernel(reduce, true)), args(), { backend });
        expect([...got[name]!], backend).toEqual(want);
      }
    });
  }
});
