/**
 * Compiling ahead (Ahead): batches of at most `jobs` announced points, nothing started while the
 * sweep times (quiet), nothing beyond the budget or for points already measured, held variants
 * let go when the strategy changes its mind, and every preparation finished when the sweep ends.
 * A fake `prepare` whose promises the test resolves stands for building and compiling.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Ahead, type AheadOptions } from "../../src/tune/precompile.js";
import type { Prepared } from "../../src/tune/measure.js";
import { pointKey } from "../../src/tune/space.js";
import type { TuningPoint } from "../../src/tune/types.js";

const pts = (n: number): TuningPoint[] => Array.from({ length: n }, (_, i) => ({ i }));

/** A prepare that records its calls and resolves each when told (or at once with `auto`). */
function fakePrepare(auto = false) {
  const calls: number[] = [];
  const resolvers = new Map<number, () => void>();
  const prepare = (p: TuningPoint) => {
    calls.push(p.i as number);
    const result: Prepared = { verdict: { ok: false, status: "invalid", times: [], medianMs: NaN, error: `point ${p.i}` } };
    return auto ? Promise.resolve(result) : new Promise<Prepared>((res) => resolvers.set(p.i as number, () => res(result)));
  };
  const finish = (i: number) => resolvers.get(i)!();
  return { calls, prepare, finish, finishAll: () => [...resolvers.values()].forEach((r) => r()) };
}

function ahead(prepare: AheadOptions["prepare"], over: Partial<AheadOptions> = {}) {
  return new Ahead({ prepare, jobs: 3, skip: () => false, remaining: () => Infinity, ...over });
}

const tick = () => new Promise((r) => setImmediate(r));

describe("Ahead", () => {
  it("starts a batch of `jobs` announced points, and the next batch only when none is left", async () => {
    const f = fakePrepare();
    const a = ahead(f.prepare);
    a.upcoming(pts(8));
    expect(f.calls).toEqual([0, 1, 2]);
    f.finishAll();
    await a.take({ i: 0 });
    await a.take({ i: 1 });
    expect(f.calls).toEqual([0, 1, 2]);
    await a.take({ i: 2 });
    expect(f.calls).toEqual([0, 1, 2, 3, 4, 5]);
    expect(a.stats).toEqual({ started: 6, taken: 3 });
    f.finishAll();
    await a.close();
  });

  it("takes an unannounced point by preparing it now, with the rest of a batch", async () => {
    const f = fakePrepare(true);
    const a = ahead(f.prepare);
    const v = await a.take({ i: 7 });
    expect(v.verdict?.error).toBe("point 7");
    expect(f.calls).toEqual([7]);
    a.upcoming(pts(5));
    expect(f.calls).toEqual([7, 0, 1, 2]);
    await a.close();
  });

  it("starts nothing while quiet, waits for what runs, and resumes", async () => {
    const f = fakePrepare();
    const a = ahead(f.prepare);
    a.upcoming(pts(6));
    let quiet = false;
    const q = a.quiet().then(() => (quiet = true));
    await tick();
    expect(quiet).toBe(false);
    f.finish(0);
    f.finish(1);
    await tick();
    expect(quiet).toBe(false);
    f.finish(2);
    await q;
    expect(quiet).toBe(true);
    await a.take({ i: 0 });
    await a.take({ i: 1 });
    await a.take({ i: 2 });
    expect(f.calls).toEqual([0, 1, 2]); // paused: no new batch
    a.resume();
    expect(f.calls).toEqual([0, 1, 2, 3, 4, 5]);
    f.finishAll();
    await a.close();
  });

  it("prepares nothing the sweep will not measure: skipped points, beyond the budget, after the signal", async () => {
    const f = fakePrepare(true);
    let remaining = 2;
    const a = ahead(f.prepare, { skip: (key) => key === pointKey({ i: 1 }), remaining: () => remaining });
    a.upcoming(pts(6));
    expect(f.calls).toEqual([0, 2]);
    remaining = 0;
    await a.close();
    let stopped = false;
    const g = fakePrepare(true);
    const b = ahead(g.prepare, { stopped: () => stopped });
    stopped = true;
    b.upcoming(pts(4));
    expect(g.calls).toEqual([]);
    await b.close();
  });

  it("lets go of held variants the strategy no longer announces", async () => {
    const f = fakePrepare(true);
    const a = ahead(f.prepare);
    a.upcoming(pts(3));
    await tick();
    a.upcoming([{ i: 5 }, { i: 6 }]); // the held 0, 1, 2 are dropped: a new batch starts
    expect(f.calls).toEqual([0, 1, 2, 5, 6]);
    await a.take({ i: 0 }); // prepared again
    expect(f.calls.filter((i) => i === 0)).toHaveLength(2);
    await a.close();
  });

  it("close waits for every preparation and then starts nothing", async () => {
    const f = fakePrepare();
    const a = ahead(f.prepare);
    a.upcoming(pts(3));
    let closed = false;
    const c = a.close().then(() => (closed = true));
    await tick();
    expect(closed).toBe(false);
    f.finishAll();
    await c;
    a.upcoming(pts(3));
    expect(f.calls).toEqual([0, 1, 2]);
  });

  it("property: whatever is announced, each take gives that point's preparation, at most `jobs` are held, and the budget holds", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 12 }),
      fc.array(fc.record({ announce: fc.option(fc.array(fc.nat(11), { maxLength: 8 })), take: fc.nat(11) }), { maxLength: 15 }),
      async (jobs, budget, steps) => {
        const f = fakePrepare(true);
        const taken = new Set<number>();
        const a = ahead(f.prepare, { jobs, skip: (key) => taken.has(JSON.parse(key)[0][1]), remaining: () => budget - taken.size });
        for (const s of steps) {
          if (s.announce) a.upcoming(s.announce.map((i) => ({ i })));
          if (taken.has(s.take) || taken.size >= budget) continue;
          taken.add(s.take); // as the sweep counts the point in flight
          const v = await a.take({ i: s.take });
          expect(v.verdict?.error).toBe(`point ${s.take}`);
          expect(a.holding).toBeLessThanOrEqual(jobs);
          expect(a.holding).toBeLessThanOrEqual(budget - taken.size);
          await a.quiet();
          a.resume();
        }
        await a.close();
        expect(a.holding).toBe(0);
        // Every preparation is of a point announced or taken, and none was started twice while held.
        const announced = new Set(steps.flatMap((s) => s.announce ?? []));
        expect(f.calls.every((i) => announced.has(i) || taken.has(i))).toBe(true);
      },
    ));
  });
});
