/**
 * lp.autotune on the js backend: a tiled-matmul sweep finds an ok best; wrong, invalid and failed
 * variants are recorded and never best; restrictions, budget, abort, progress and bad options.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { counting, matmul, tiled, TILE_SPACE } from "./helpers.js";

const params = { n: 16 };

describe("autotune (js backend)", () => {
  it("sweeps the tiled-matmul space exhaustively and reports the fastest ok variant", async () => {
    const progress: [number, number][] = [];
    const { best, records } = await lp.autotune(matmul(), {
      space: TILE_SPACE, build: (_k, p) => tiled(p), params, backend: "js", repeats: 3,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(records).toHaveLength(32);
    expect(records.every((r) => r.status === "ok" && r.ok)).toBe(true);
    for (const r of records) {
      expect(r.times).toHaveLength(3);
      expect(r.medianMs).toBe([...r.times].sort((a, b) => a - b)[1]);
      expect(r.minMs).toBe(Math.min(...r.times));
    }
    expect(best.medianMs).toBe(Math.min(...records.map((r) => r.medianMs)));
    expect(records).toContain(best);
    expect(lp.applyPipeline(matmul(), best.pipeline)).toEqual(tiled(best.point)(matmul()));
    expect(progress).toEqual(records.map((_, i) => [i + 1, 32]));
    expect(best.backend).toBe("js");
    expect(best.machine?.cpu).toBeTypeOf("string");
    expect(best.machine?.id).toMatch(/^[0-9a-f]{16}$/);
    expect(best.loomVersion).toMatch(/^\d+\.\d+\.\d+/);
    // Useful work of the untransformed kernel per median time; no peak on js unless asked.
    const cost = lp.kernelCost(matmul(), params);
    for (const r of records) {
      expect(r.gflops).toBeCloseTo(cost.flops / (r.medianMs * 1e6), 9);
      expect(r.gbps).toBeCloseTo(cost.bytes / (r.medianMs * 1e6), 9);
      expect(r.peakFraction).toBeUndefined();
      expect(r.remeasured).toBeGreaterThanOrEqual(0);
      expect(r.remeasured).toBeLessThanOrEqual(2);
      // Where the time went: every phase measured, the benchmark at least the timed runs themselves.
      const ph = r.phases!;
      for (const v of [ph.buildMs, ph.checkMs, ph.benchmarkMs, ph.frameworkMs]) expect(v).toBeGreaterThanOrEqual(0);
      expect(ph.checkMs).toBeGreaterThan(0);
      expect(ph.benchmarkMs).toBeGreaterThanOrEqual(r.times.reduce((a, b) => a + b, 0) * 0.999 - 0.01);
    }
  });

  it("records a variant that changes the meaning as wrong, with its mismatches, and never reports it as best", async () => {
    const other = lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j]) + 1",
      ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
    // The wrong kernel is also the fastest (no work besides), so it must be excluded by the check, not by timing.
    const { best, records } = await lp.autotune(matmul(), {
      space: { v: ["right", "wrong"] }, params, repeats: 1,
      build: (k, p) => (p.v === "wrong" ? other : k),
    });
    const wrong = records.find((r) => r.point.v === "wrong")!;
    expect(wrong.status).toBe("wrong");
    expect(wrong.ok).toBe(false);
    expect(wrong.times).toEqual([]);
    expect(wrong.mismatches!.length).toBeGreaterThan(0);
    expect(wrong.error).toMatch(/differs from the untransformed kernel/);
    expect(best.point.v).toBe("right");
  });

  it("records a refused pipeline as invalid and a non-Loom failure as failed, and goes on", async () => {
    const { best, records } = await lp.autotune(matmul(), {
      space: { t: ["good", "refused", "throws", "junk"] }, params, repeats: 1,
      build: (k, p) => {
        if (p.t === "refused") return lp.split("nosuch", 2);
        if (p.t === "throws") throw new TypeError("a bug in build");
        if (p.t === "junk") return 42 as never;
        return lp.split("i", 4);
      },
    });
    const by = Object.fromEntries(records.map((r) => [r.point.t, r]));
    expect(by.refused!.status).toBe("invalid");
    expect(by.refused!.error).toMatch(/nosuch/);
    expect(by.refused!.pipeline).toEqual([{ op: "splitIname", args: ["nosuch", 2] }]);
    expect(by.throws!.status).toBe("failed");
    expect(by.throws!.error).toMatch(/a bug in build/);
    expect(by.junk!.status).toBe("failed");
    expect(by.junk!.error).toMatch(/must return a kernel or a step/);
    expect(best.point.t).toBe("good");
  });

  it("rejects with a LoomError holding every record when no variant is ok", async () => {
    const err = await lp.autotune(matmul(), { space: { t: [1, 2] }, params, build: () => lp.split("nosuch", 2) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(lp.LoomError);
    expect((err as lp.TuningError).records.map((r) => r.status)).toEqual(["invalid", "invalid"]);
    expect(String(err)).toMatch(/2 invalid/);
  });

  it("gives no record to a point the restrictions exclude", async () => {
    const { calls, build } = counting((_k, p) => tiled(p));
    const { records } = await lp.autotune(matmul(), {
      space: TILE_SPACE, params, build, repeats: 1,
      restrictions: [(p) => p.gl === "yes", (p) => (p.ti as number) * (p.tj as number) <= 8],
    });
    const expected = [1, 2, 4, 8].flatMap((ti) => [1, 2, 4, 8].filter((tj) => ti * tj <= 8)).length;
    expect(records).toHaveLength(expected);
    expect(calls).toHaveLength(expected);
    expect(records.every((r) => r.point.gl === "yes" && (r.point.ti as number) * (r.point.tj as number) <= 8)).toBe(true);
  });

  it("stops at budget.variants, with total announced after the budget", async () => {
    for (const strategy of ["exhaustive", "random", "genetic"]) {
      const totals = new Set<number>();
      const { records } = await lp.autotune(matmul(), {
        space: TILE_SPACE, params, build: (_k, p) => tiled(p), repeats: 1, strategy, seed: 3,
        budget: { variants: 5 }, onProgress: (_d, total) => totals.add(total),
      });
      expect(records, strategy).toHaveLength(5);
      expect(new Set(records.map((r) => JSON.stringify(r.point))).size, strategy).toBe(5);
      expect([...totals], strategy).toEqual([5]);
    }
  });

  it("stops after the variant in flight when the signal aborts, resolving with what it has", async () => {
    const ctl = new AbortController();
    const { records, best } = await lp.autotune(matmul(), {
      space: TILE_SPACE, params, build: (_k, p) => tiled(p), repeats: 1, signal: ctl.signal,
      onProgress: (done) => { if (done === 3) ctl.abort(); },
    });
    expect(records).toHaveLength(3);
    expect(records).toContain(best);
    const before = new AbortController();
    before.abort();
    await expect(lp.autotune(matmul(), { space: TILE_SPACE, params, build: (_k, p) => tiled(p), signal: before.signal }))
      .rejects.toThrow(/stopped before any variant/);
  });

  it("refuses bad options with a LoomError naming them", async () => {
    const k = matmul();
    const build = (_k: lp.Kernel, p: lp.TuningPoint) => tiled(p);
    const bad: [object, RegExp][] = [
      [{ space: {}, build, params }, /space is empty/],
      [{ space: { ti: 4 }, build, params }, /"ti" must be an array/],
      [{ space: { ti: [] }, build, params }, /"ti" has no values/],
      [{ space: { ti: [{}] }, build, params }, /finite numbers or strings/],
      [{ space: { ti: [1] }, build, params, strategy: "annealing" }, /unknown strategy "annealing"; strategies are exhaustive, random, genetic/],
      [{ space: { ti: [1] }, build, params, backend: "fortran" }, /unknown backend "fortran"/],
      [{ space: { ti: [1] }, build: 3, params }, /build must be a function/],
      [{ space: { ti: [1] }, build, params: { n: "big" } }, /params must be an object of numbers/],
      [{ space: { ti: [1] }, build, params, repeats: 0 }, /repeats must be a positive integer/],
      [{ space: { ti: [1] }, build, params, budget: { variants: -1 } }, /budget.variants/],
      [{ space: { ti: [1] }, build, params, restrictions: [1] }, /restrictions must be an array of functions/],
      [{ space: { ti: [1] }, build, params, executor: { queue: { connection: "http://127.0.0.1:6379" } } }, /executor\.queue\.connection must be a Redis URL/],
      [{ space: { ti: [1] }, build, params, restrictions: [() => false] }, /restrictions exclude every point/],
      [{ space: { ti: [1] }, build, params, compileJobs: -1 }, /compileJobs must be a non-negative integer/],
      [{ space: { ti: [1] }, build, params, compileJobs: 1.5 }, /compileJobs must be a non-negative integer/],
      [{ space: { ti: [1] }, build, params, remeasure: true }, /remeasure must be false or an object/],
      [{ space: { ti: [1] }, build, params, remeasure: { spread: -1 } }, /remeasure.spread must be a non-negative number/],
      [{ space: { ti: [1] }, build, params, remeasure: { rounds: 0 } }, /remeasure.rounds must be a positive integer/],
      [{ space: { ti: [1] }, build, params, peak: { gflops: 0, gbps: 1 } }, /peak must be true, false or \{ gflops, gbps, gflops32\? \}/],
      [{ space: { ti: [1] }, build, params, peak: "yes" }, /peak must be true, false/],
      // 10^12 points: before, every strategy listed them first, for ever (even with budget.variants 3).
      [{ space: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`a${i}`, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])), build, params, strategy: "random", budget: { variants: 3 } },
        /the space has 1,000,000,000,000 points \(a0: 10 × a1: 10 × .* × a11: 10\), more than the 1,000,000 a sweep lists before restrictions/],
    ];
    for (const [opts, msg] of bad) {
      const err = await lp.autotune(k, opts as lp.AutotuneOptions).catch((e: unknown) => e);
      expect(err, msg.source).toBeInstanceOf(lp.LoomError);
      expect(String(err), msg.source).toMatch(msg);
    }
  });
});

describe("the correctness check's parameters", () => {
  it("respect the kernel's assumptions: a kernel for n mod 16 = 0 is checked at n = 16, not at 13", async () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"],
      { name: "scale", assumptions: "n mod 16 = 0 and n >= 16" });
    // Without guards (the assumption makes them redundant), each variant is correct only where n mod 16 = 0.
    const { records } = await lp.autotune(k, {
      space: { t: [4, 8, 16] }, params: { n: 256 }, backend: "js", repeats: 1, peak: false,
      build: (_k, p) => lp.split("i", p.t as number, { outerTag: "g.0", innerTag: "l.0" }),
    });
    expect(records.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
  });

  it("take the smallest allowed value at or above min(value, 13), parameter by parameter", async () => {
    const { testParams } = await import("../../src/tune/space.js");
    const assumptions = lp.isl.parseSet("[n, m] -> { : n mod 16 = 0 and n >= 16 and m >= n + 3 }");
    expect(testParams({ n: 1024, m: 4096 }, undefined, assumptions)).toEqual({ n: 16, m: 19 });
    expect(testParams({ n: 1024, m: 4096 })).toEqual({ n: 13, m: 13 });
    expect(testParams({ n: 8, m: 4096 }, undefined, assumptions)).toEqual({ n: 8, m: 19 }); // n = 8 is not allowed at all: kept, and m is chosen as for some allowed n (>= 16)
    expect(testParams({ n: 1024 }, { n: 5 }, assumptions)).toEqual({ n: 5 });
  });
});
