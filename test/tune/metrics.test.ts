/**
 * Measurement decisions without a clock: re-measuring while the spread is large (an injected
 * timing function), and the rates of a record (gflops, gbps, the fraction of the peak), including
 * a kernel whose cost cannot be counted (a warning, no rates).
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import * as lp from "../../src/index.js";
import { measureRounds, median, spreadOf } from "../../src/tune/measure.js";
import { effectivePeakGflops, recordMetrics, sweepCost } from "../../src/tune/metrics.js";
import { matmul } from "./helpers.js";

vi.mock("../../src/analysis/index.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/analysis/index.js")>();
  return {
    ...real,
    kernelCost: (k: lp.Kernel, params: Readonly<Record<string, number>>) => {
      if (k.name === "uncountable") throw new lp.LoomError("a construct the counter does not know");
      return real.kernelCost(k, params);
    },
  };
});

/** A timing function that hands out `times` in order. */
function script(times: readonly number[]) {
  let i = 0;
  const once = async () => {
    if (i >= times.length) throw new Error("asked for more runs than scripted");
    return times[i++]!;
  };
  return { once, used: () => i };
}

const positive = fc.double({ min: 0.01, max: 1000, noNaN: true });

describe("measureRounds", () => {
  it("measures one round when it is calm, and keeps it", async () => {
    const s = script([10, 10.5, 10.2, 99]);
    const r = await measureRounds(s.once, 3, { spread: 0.15, rounds: 3 });
    expect(r).toEqual({ times: [10, 10.5, 10.2], spread: spreadOf([10, 10.5, 10.2]), remeasured: 0 });
    expect(s.used()).toBe(3);
  });

  it("measures again while the spread is large, and keeps the calm round", async () => {
    const s = script([10, 20, 10, /* round 2 */ 10, 10.1, 10.2]);
    const r = await measureRounds(s.once, 3, { spread: 0.15, rounds: 3 });
    expect(r.times).toEqual([10, 10.1, 10.2]);
    expect(r.remeasured).toBe(1);
  });

  it("stops after the last allowed round and keeps the calmest of them", async () => {
    const s = script([10, 30, 10, /* 2 */ 10, 15, 10, /* 3 */ 10, 40, 10, /* never */ 1, 1, 1]);
    const r = await measureRounds(s.once, 3, { spread: 0.15, rounds: 3 });
    expect(r.times).toEqual([10, 15, 10]);
    expect(r.remeasured).toBe(2);
    expect(s.used()).toBe(9);
  });

  it("without a policy, or with one repeat, measures one round", async () => {
    expect((await measureRounds(script([1, 5, 9]).once, 3)).remeasured).toBe(0);
    expect((await measureRounds(script([1, 100]).once, 1, { spread: 0, rounds: 5 })).times).toEqual([1]);
  });

  it("property: times has repeats entries from one measured round; rounds end at the first calm one or at the bound", async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(positive, { minLength: 40, maxLength: 40 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 4 }),
      fc.double({ min: 0, max: 2, noNaN: true }),
      async (stream, repeats, rounds, spread) => {
        const s = script(stream);
        const r = await measureRounds(s.once, repeats, { spread, rounds });
        const measured = Array.from({ length: r.remeasured + 1 }, (_, n) => stream.slice(n * repeats, (n + 1) * repeats));
        expect(s.used()).toBe(measured.length * repeats);
        expect(r.remeasured).toBeLessThan(rounds);
        expect(measured).toContainEqual(r.times);
        expect(r.spread).toBe(spreadOf(r.times));
        expect(r.spread).toBe(Math.min(...measured.map(spreadOf)));
        // Every round before the last was noisy; the last is calm unless the bound stopped it.
        measured.slice(0, -1).forEach((t) => expect(spreadOf(t)).toBeGreaterThan(spread));
        if (r.remeasured < rounds - 1) expect(spreadOf(measured.at(-1)!)).toBeLessThanOrEqual(spread);
      },
    ));
  });

  it("spreadOf is (max - min) / median", () => {
    expect(spreadOf([2, 4, 3])).toBe((4 - 2) / 3);
    expect(spreadOf([5])).toBe(0);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe("record rates", () => {
  const cost = { flops: 2e9, flops32: 0, bytes: 4e9 };

  it("gflops and gbps are the useful work per median time; peakFraction divides by the peak", () => {
    const m = recordMetrics({ ok: true, medianMs: 1000 }, cost, { gflops: 8, gbps: 16 });
    expect(m).toEqual({ gflops: 2, gbps: 4, peakFraction: { flops: 0.25, bandwidth: 0.25 } });
    expect(recordMetrics({ ok: true, medianMs: 1000 }, cost, undefined)).toEqual({ gflops: 2, gbps: 4 });
    expect(recordMetrics({ ok: false, medianMs: NaN }, cost, { gflops: 8, gbps: 16 })).toEqual({});
    expect(recordMetrics({ ok: true, medianMs: 1 }, undefined, { gflops: 8, gbps: 16 })).toEqual({});
  });

  it("property: the effective FLOP peak lies between the float64 and float32 peaks and weighs them by time", () => {
    fc.assert(fc.property(positive, positive, positive, fc.double({ min: 0, max: 1, noNaN: true }), (flops, p64, extra, share) => {
      const peak = { gflops: p64, gflops32: p64 + extra, gbps: 1 };
      const c = { flops, flops32: flops * share, bytes: 0 };
      const eff = effectivePeakGflops(c, peak);
      expect(eff).toBeGreaterThanOrEqual(p64 * (1 - 1e-12));
      expect(eff).toBeLessThanOrEqual((p64 + extra) * (1 + 1e-12));
      // The time at the effective peak is the sum of each part's time at its own peak.
      expect(flops / eff).toBeCloseTo((flops - c.flops32) / p64 + c.flops32 / (p64 + extra), 9);
    }));
  });

  it("counts the untransformed kernel once: FLOPs, and of them float32", () => {
    const { cost: c, warning } = sweepCost(matmul(), { n: 10 });
    expect(warning).toBeUndefined();
    expect(c!.flops).toBe(lp.kernelCost(matmul(), { n: 10 }).flops);
    expect(c!.flops32).toBe(c!.flops); // every operation of the matmul is float32
  });

  it("a kernel whose cost cannot be counted is timed without rates, and the sweep says why", async () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "c[i] = 2*a[i]", ["a, c: float32[n]", "n: int32"], { name: "uncountable" });
    const { records, warnings } = await lp.autotune(k, {
      space: { t: [2, 4] }, params: { n: 64 }, repeats: 1, build: (kk, p) => lp.splitIname(kk, "i", p.t as number),
    });
    expect(records.every((r) => r.ok && r.gflops === undefined && r.gbps === undefined && r.peakFraction === undefined)).toBe(true);
    expect(warnings.join()).toMatch(/no gflops or gbps: the cost of kernel "uncountable" cannot be counted \(a construct the counter does not know\)/);
  });
});
