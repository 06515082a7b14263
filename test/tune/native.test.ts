/**
 * The tiled-matmul sweep on the native backends (openmp, opencl on PoCL): every variant is checked
 * against the interpreter, an ok best is found, a sweep resumes from a half-written log (a torn
 * last line included), and the best pipeline replays from the log to the same kernel.
 * Skipped, with the reason, where the backend is not available.
 */
import { appendFileSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { openclStatus } from "../../native/index.js";
import { prepareVariant, timeVariant } from "../../src/tune/measure.js";
import { matmul, tiled, TILE_SPACE } from "./helpers.js";

describe.each(["openmp", "opencl"] as const)("autotune on %s", (backend) => {
  const avail = lp.backendAvailability(backend);
  it.skipIf(!avail.available)(`finds an ok best variant of the tiled matmul${avail.available ? "" : ` (skipped: ${avail.reason})`}`, async () => {
    const peak = { gflops: 50, gflops32: 100, gbps: 20 };
    const log = join(mkdtempSync(join(tmpdir(), "loom-tune-native-")), "matmul.jsonl");
    const sweep = (variants: number) => lp.autotune(matmul(), {
      space: TILE_SPACE, build: (_k, p) => tiled(p), params: { n: 24 }, backend, repeats: 2,
      strategy: "random", seed: 1, budget: { variants }, peak, log,
    });
    // Half a sweep, killed while writing its next record (a torn last line), then the whole sweep.
    const half = await sweep(3);
    appendFileSync(log, '{"point":{"ti":8,"tj":');
    const { best, records, warnings } = await sweep(6);
    expect(warnings.join("\n")).toMatch(/torn/);
    expect(records.slice(0, 3)).toEqual(half.records);   // resumed: the first three reused, not measured again
    expect(lp.readTuningLog(log)).toHaveLength(6);
    expect(lp.replay(log, matmul())).toEqual(tiled(best.point)(matmul()));
    expect(records).toHaveLength(6);
    expect(records.every((r) => r.ok), JSON.stringify(records.filter((r) => !r.ok).map((r) => r.error))).toBe(true);
    expect(best.backend).toBe(backend);
    expect(best.medianMs).toBe(Math.min(...records.map((r) => r.medianMs)));
    if (backend === "openmp") expect(best.compiler).toMatch(/fopenmp|cc|gcc/);
    // The device a record was measured on: OpenCL's (PoCL's CPU here) by its runtime's name; none on openmp.
    const d = openclStatus().devices[0];
    if (backend === "opencl") expect(best.device).toBe(`${d?.name} (${d?.platform}, ${d?.version})`);
    else expect(best.device).toBeUndefined();
    expect(lp.applyPipeline(matmul(), best.pipeline)).toEqual(tiled(best.point)(matmul()));
    // float32 FLOPs only: compared with the float32 FMA peak.
    for (const r of records) {
      expect(r.peakFraction!.flops).toBeCloseTo(r.gflops! / peak.gflops32, 9);
      expect(r.peakFraction!.bandwidth).toBeCloseTo(r.gbps! / peak.gbps, 9);
    }
  }, 120_000);

  it.skipIf(avail.available)("refuses the sweep with a LoomError where the backend is not available", async () => {
    await expect(lp.autotune(matmul(), { space: TILE_SPACE, build: (_k, p) => tiled(p), params: { n: 8 }, backend }))
      .rejects.toThrow(lp.LoomError);
  });
});

/** A record without what timing decides (times, rates, re-measurement, phase times): what compiling ahead must not change. */
function verdict(r: lp.TuningRecord) {
  const { times: _t, medianMs: _m, minMs: _n, spread: _s, remeasured: _r, gflops: _g, gbps: _b, peakFraction: _p, phases: _ph, ...rest } = r;
  return { ...rest, timed: r.times.length };
}

describe("compiling ahead (openmp)", () => {
  const avail = lp.backendAvailability("openmp");
  it.skipIf(!avail.available)("gives the same records, in the same order, as preparing each variant when it is measured", async () => {
    const other = lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j]) + 1",
      ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
    const space = { ti: [1, 2, 4], v: ["tiled", "wrong", "refused", "throws"] };
    const calls: string[][] = [[], []];
    const sweep = (compileJobs: number, log: string[]) => lp.autotune(matmul(), {
      space, params: { n: 20 }, backend: "openmp", repeats: 1, peak: false, compileJobs, strategy: "random", seed: 4,
      budget: { variants: 10 },
      build: (k, p) => {
        log.push(JSON.stringify(p));
        if (p.v === "wrong") return other;
        if (p.v === "refused") return lp.split("nosuch", p.ti as number);
        if (p.v === "throws") throw new TypeError("a bug in build");
        return lp.split("i", p.ti as number, { outerTag: "g.0", innerTag: "l.0" });
      },
    });
    const plain = await sweep(0, calls[0]!);
    const ahead = await sweep(3, calls[1]!);
    expect(plain.compiledAhead).toBe(0);
    expect(ahead.compiledAhead).toBeGreaterThan(0);
    expect(ahead.records.map(verdict)).toEqual(plain.records.map(verdict));
    expect(new Set(ahead.records.map((r) => r.status))).toEqual(new Set(["ok", "wrong", "invalid", "failed"]));
    // Ahead, build runs once per measured point, and never beyond the budget.
    expect(calls[0]).toHaveLength(10);
    expect(calls[1]).toHaveLength(10);
    expect(new Set(calls[1])).toEqual(new Set(calls[0]));
  }, 120_000);
});

describe.each(["c", "openmp"] as const)("the check and the timing on %s", (backend) => {
  const avail = lp.backendAvailability(backend);
  it.skipIf(!avail.available)("share one compiled library: once checked, timing a variant compiles nothing", async () => {
    const saved = process.env.LOOM_CACHE_DIR;
    const dir = mkdtempSync(join(tmpdir(), "loom-tune-cache-"));
    process.env.LOOM_CACHE_DIR = dir;
    try {
      const libraries = () => readdirSync(dir).filter((f) => f.endsWith(".so")).sort();
      const ctx = { ref: matmul(), build: (_k: lp.Kernel, p: lp.TuningPoint) => tiled(p), backend, params: { n: 40 }, testParams: { n: 13 }, repeats: 2 };
      const v = await prepareVariant(ctx, { ti: 4, tj: 2, gl: "yes" });
      expect(v.verdict).toBeUndefined();
      const afterCheck = libraries();
      expect(afterCheck).toHaveLength(1);
      const timed = await timeVariant(ctx, v as { pipeline: unknown; kernel: lp.Kernel });
      expect(timed.status).toBe("ok");
      expect(libraries()).toEqual(afterCheck);
    } finally {
      if (saved === undefined) delete process.env.LOOM_CACHE_DIR;
      else process.env.LOOM_CACHE_DIR = saved;
    }
  }, 60_000);
});
