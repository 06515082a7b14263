/**
 * A scalar temporary that bounds a loop (`t` of `[t] -> {[r]: 0<=r<t}`) is read by every
 * instruction inside that loop. Written before a global barrier and read as a bound after it, it
 * is refused like any private value read across a global barrier (it read an undeclared `t` in
 * OpenCL and C, threw a ReferenceError in js, and the interpreter SILENTLY counted 2 per item);
 * computed again after the barrier, or saved and reloaded by saveAndReloadTemporaries (it stays a
 * scalar: a bound reads one), it runs with its serial meaning on every backend. The same
 * read counts for local barriers: a local scalar one work-item writes and all read as a bound
 * needs a barrier between (none was placed: the interpreter reported the race, OpenCL raced).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScheduleError } from "../../src/errors.js";
import { generateCode } from "../../codegen/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { saveAndReloadTemporaries, tagInames } from "../../transforms/index.js";
import { parityBackends } from "../transforms/every-backend.js";

/**
 * The kernel: `t = cnt[item] + off`, a global barrier, `out[item] = sum(r, 1)` over
 * `lo <= r < t` (`off`, `lo` value arguments: one compile per shape); `again` writes `t` again after the barrier.
 */
function kernel(local: number, again: boolean, extra = 0): Kernel {
  const item = `${local}*b+n`;
  const k = makeKernel([`{[b,n]: 0<=b<nb and 0<=n<${local}}`, "[t, lo] -> {[r]: lo<=r<t}"], [
    `<int32> t = cnt[${item}] + off {id=wt, inames=b:n}`,
    "... gbarrier {id=gb, dep=wt}",
    ...(again ? [`t = cnt[${item}] + off + ${extra} {id=wt2, dep=gb, inames=b:n}`] : []),
    `out[${item}] = sum(r, 1) {id=use, dep=${again ? "wt2" : "gb"}, inames=b:n}`,
  ], [`cnt, out: int32[${local}*nb]`, "off, lo: int32", "..."]);
  return tagInames(k, { b: "g.0", n: "l.0" });
}

/** The serial meaning: each item counts `lower <= r < cnt + off`. */
const serial = (cnt: Int32Array, off: number, lower: number) => [...cnt].map((x) => Math.max(0, x + off - lower));

const BACKENDS = parityBackends() as ("interp" | "js" | "c" | "openmp" | "opencl")[];

describe("a domain parameter written before a global barrier and read as a bound after it", () => {
  it("is refused on every backend, naming the temporary, the loop and the barrier (the issue's kernel)", async () => {
    const cnt = Int32Array.from({ length: 16 }, (_, i) => i % 5);
    for (const backend of BACKENDS) {
      const p = run(kernel(8, false), { cnt, nb: 2, off: 0, lo: 0 }, { backend });
      await expect(p, backend).rejects.toBeInstanceOf(ScheduleError);
      await expect(run(kernel(8, false), { cnt, nb: 2, off: 0, lo: 0 }, { backend }), backend).rejects.toThrow(
        /private temporary "t" is written by instruction "wt" .* read by instruction "\w+" \(as a bound of the loop over "r"\) .*across global barrier "gb".*saveAndReloadTemporaries.*reload it after the barrier.*or compute it again after the barrier/);
    }
  });

  it("runs after saveAndReloadTemporaries: t saved in a global slot per work-item and reloaded after the barrier", async () => {
    const k = saveAndReloadTemporaries(kernel(8, false));
    expect(k.temporaries.find((t) => t.name === "t_save")).toMatchObject({ addressSpace: "global", shape: [expect.anything(), expect.anything()] });
    expect(k.temporaries.find((t) => t.name === "t")!.shape).toEqual([]);
    const cnt = Int32Array.from({ length: 16 }, (_, i) => i % 5);
    // Written again after the barrier (a larger value): the reload comes first, the newer value wins.
    const again = saveAndReloadTemporaries(kernel(8, true, 2));
    for (const backend of BACKENDS) {
      expect([...(await run(k, { cnt, nb: 2, off: 1, lo: 0 }, { backend })).out!], backend).toEqual(serial(cnt, 1, 0));
      expect([...(await run(again, { cnt, nb: 2, off: 1, lo: 0 }, { backend })).out!], backend).toEqual(serial(cnt, 3, 0));
    }
  });

  it("refuses every variant on every backend; computed again after the barrier, or saved and reloaded, each gives its serial meaning", async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(4, 8), fc.integer({ min: -1, max: 2 }), fc.integer({ min: -1, max: 2 }), fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: 1000 }),
      async (local, off, lower, nb, seed) => {
        const args = (cnt: Int32Array) => ({ cnt, nb, off, lo: lower });
        const cnt = Int32Array.from({ length: local * nb }, (_, i) => (i * 7 + seed) % 6);
        for (const backend of BACKENDS) {
          await expect(run(kernel(local, false), args(cnt), { backend }), backend).rejects.toBeInstanceOf(ScheduleError);
          const out = (await run(kernel(local, true), args(cnt), { backend })).out!;
          expect([...out], `${backend} local=${local} off=${off} lower=${lower}`).toEqual(serial(cnt, off, lower));
          const saved = (await run(saveAndReloadTemporaries(kernel(local, false)), args(cnt), { backend })).out!;
          expect([...saved], `saved: ${backend} local=${local} off=${off} lower=${lower}`).toEqual(serial(cnt, off, lower));
        }
      }), { numRuns: 6 });
  });
});

/** `t` local, written by work-item 0 of each group, bounds every work-item's loop over `r`. */
const localBound = (): Kernel => tagInames(makeKernel(["{[b,n]: 0<=b<nb and 0<=n<8}", "[t] -> {[r]: 0<=r<t}"], [
  "t = cnt[b] + off {id=wt, inames=b:n, if=n == 0}",
  "out[8*b+n] = sum(r, n + 0*r) {id=use, dep=wt, inames=b:n}",
], [temporary("t", "int32", [], "local"), "cnt: int32[nb]", "out: int32[8*nb]", "off: int32", "..."]), { b: "g.0", n: "l.0" });

describe("a local scalar bounding a loop, written by one work-item", () => {
  it("gets a local barrier between the write and the loop, and its serial meaning on every backend", async () => {
    const code = generateCode(localBound(), "opencl").deviceCode;
    const write = code.indexOf(" t = ");
    const barrier = code.indexOf("barrier(CLK_LOCAL_MEM_FENCE)");
    const loop = code.indexOf("for (int r = 0; r <= t - 1;");
    expect(write >= 0 && barrier > write && loop > barrier, code).toBe(true);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: -1, max: 2 }), fc.integer({ min: 0, max: 1000 }), async (nb, off, seed) => {
      const cnt = Int32Array.from({ length: nb }, (_, b) => (b * 5 + seed) % 4);
      const want = Array.from({ length: 8 * nb }, (_, x) => Math.max(0, cnt[Math.floor(x / 8)]! + off) * (x % 8));
      // checkBounds: false as in cpu-domain-params.test.ts: the native bounds proof cannot bound `r`
      // by a temporary (on CPU, acc_r gets a slot per work-item across the barrier, indexed inside `r`).
      for (const backend of BACKENDS) {
        expect([...(await run(localBound(), { cnt, nb, off }, { backend, checkBounds: false })).out!], backend).toEqual(want);
      }
    }), { numRuns: 4 });
  });
});
