/**
 * KNOWN BUGS, found by the random-pipeline law's paramBarrier family (test/transforms/gen-families.ts)
 * when i stays sequential: a private scalar `t` that bounds a loop (`[t] -> {[r]: 1<=r<t}`), written
 * before a global barrier inside `for i` (i a host loop) and read as the bound after it. Unsaved,
 * the scheduler refuses it (right). After saveAndReloadTemporaries:
 *
 * - a plain loop over r: the reload `t_reload` has no `i` among its inames, so the reader runs in a
 *   device kernel of its own after the whole host loop, with the last work-item's t: a SILENT WRONG
 *   RESULT on interp and js (all cells left as they were, where the serial meaning writes out[2,1],
 *   out[3,1] and out[3,2]);
 * - a reduction over r: the realized `acc_r` init lands before the barrier and its update after it:
 *   a ScheduleError ("acc_r" across global barrier "gb") for a kernel that means something.
 *
 * Per work-item (i on g.0 or l.0) both are right (the law draws those). `it.fails` passes while the
 * bug is there: once saveAndReloadTemporaries is fixed, make these `it`, and let the law's family
 * draw i sequential too.
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

describe("KNOWN BUG: a loop bound saved across a global barrier inside a host loop", () => {
  for (const reduce of [false, true]) {
    it.fails(`${reduce ? "a reduction" : "a plain loop"} over r: saved, the serial meaning on interp and js`, async () => {
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
