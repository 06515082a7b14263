/**
 * simulateTuning: a strategy replayed on a log's measurements evaluates each point of the log at
 * most once, within the budget, and reports the best-so-far trace; on the log of a sweep it
 * retraces that sweep's choices; logs it cannot replay are LoomErrors that say why.
 */
import fc from "fast-check";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { pointKey } from "../../src/tune/space.js";
import { matmul, tiled } from "./helpers.js";

const freshLog = () => join(mkdtempSync(join(tmpdir(), "loom-sim-")), "tune.jsonl");

function ok(point: lp.TuningPoint, ms: number, extra: Partial<lp.TuningRecord> = {}): lp.TuningRecord {
  return { point, ok: true, status: "ok", times: [ms], medianMs: ms, ...extra };
}
function invalid(point: lp.TuningPoint): lp.TuningRecord {
  return { point, ok: false, status: "invalid", times: [], medianMs: NaN, error: "refused" };
}

/** A log over a grid a × b: some points invalid, the others with costs from the given list. */
const logs = fc.tuple(
  fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 5 }),
  fc.uniqueArray(fc.constantFrom("x", "y", "z", "w"), { minLength: 1, maxLength: 4 }),
  fc.array(fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined, freq: 4 }), { minLength: 20, maxLength: 20 }),
).map(([as, bs, costs]) => as.flatMap((a, i) => bs.map((b, j) => {
  const c = costs[(i * bs.length + j) % costs.length];
  return c === undefined ? invalid({ a, b }) : ok({ a, b }, c / 10);
})));

describe("simulateTuning", () => {
  it("evaluates allowed points of the log, each once, within the budget; the trace is the best so far", async () => {
    await fc.assert(fc.asyncProperty(logs, fc.constantFrom(...lp.STRATEGY_NAMES), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 25 }), async (records, strategy, seed, variants) => {
      const { best, evaluated, trace } = await lp.simulateTuning(records, strategy, { seed, budget: { variants } });
      const keys = evaluated.map((r) => pointKey(r.point));
      expect(new Set(keys).size).toBe(keys.length);
      const logged = new Map(records.map((r) => [pointKey(r.point), r]));
      evaluated.forEach((r) => expect(r).toBe(logged.get(pointKey(r.point))));
      if (strategy !== "genetic") expect(evaluated).toHaveLength(Math.min(variants, records.length));
      expect(evaluated.length).toBeLessThanOrEqual(variants);
      expect(trace).toHaveLength(evaluated.length);
      evaluated.forEach((_, i) => {
        const oks = evaluated.slice(0, i + 1).filter((r) => r.ok).map((r) => r.medianMs);
        expect(trace[i]).toBe(oks.length ? Math.min(...oks) : Infinity);
      });
      const oks = evaluated.filter((r) => r.ok);
      if (oks.length === 0) expect(best).toBeUndefined();
      else expect(best!.medianMs).toBe(Math.min(...oks.map((r) => r.medianMs)));
      // The same seed gives the same sequence.
      expect((await lp.simulateTuning(records, strategy, { seed, budget: { variants } })).evaluated).toEqual(evaluated);
    }), { numRuns: 40 });
  });

  it("walks the records' own space: numbers ascending, strings in order of appearance, restrictions applied", async () => {
    const records = [ok({ t: 8, m: "b" }, 3), ok({ t: 2, m: "b" }, 2), ok({ t: 8, m: "a" }, 1), invalid({ t: 2, m: "a" }), ok({ t: 4, m: "a" }, 5)];
    const all = await lp.simulateTuning(records, "exhaustive");
    expect(all.evaluated.map((r) => r.point)).toEqual([{ t: 2, m: "b" }, { t: 2, m: "a" }, { t: 4, m: "a" }, { t: 8, m: "b" }, { t: 8, m: "a" }]);
    expect(all.trace).toEqual([2, 2, 2, 2, 1]);
    expect(all.best!.point).toEqual({ t: 8, m: "a" });
    const some = await lp.simulateTuning(records, "exhaustive", { restrictions: [(p) => p.m === "b"] });
    expect(some.evaluated.map((r) => r.point)).toEqual([{ t: 2, m: "b" }, { t: 8, m: "b" }]);
    // A sparse log of a huge product (10^12 combinations): only the logged points are walked.
    const sparse = Array.from({ length: 30 }, (_, i) => ok(Object.fromEntries(Array.from({ length: 12 }, (_, j) => [`p${j}`, j === 0 ? 29 - i : (i * (j + 3)) % 10])), 1 + i));
    for (const strategy of lp.STRATEGY_NAMES) {
      const r = await lp.simulateTuning(sparse, strategy, { seed: 1 });
      expect(new Set(r.evaluated).size).toBe(r.evaluated.length);
      if (strategy !== "genetic") expect(r.evaluated).toHaveLength(30);
      if (strategy === "exhaustive") expect(r.evaluated.map((x) => x.point.p0)).toEqual([...r.evaluated.map((x) => x.point.p0)].sort((a, b) => (a as number) - (b as number)));
    }
  });

  it("refuses a space point missing from the log, naming it, or counts it as not ok with missing: \"invalid\"", async () => {
    const records = [ok({ t: 1 }, 3), ok({ t: 2 }, 2)];
    await expect(lp.simulateTuning(records, "random", { space: { t: [1, 2, 4] } })).rejects.toThrow(/1 of the 3 points of the space is not in the log, such as \{"t":4\}/);
    await expect(lp.simulateTuning(records, "random", { space: { t: [1, 2, 4] } })).rejects.toThrow(lp.LoomError);
    const r = await lp.simulateTuning(records, "exhaustive", { space: { t: [1, 2, 4] }, missing: "invalid" });
    expect(r.evaluated.map((x) => [x.point.t, x.status])).toEqual([[1, "ok"], [2, "ok"], [4, "invalid"]]);
    expect(r.trace).toEqual([3, 2, 2]);
    // A space smaller than the log's is fine: the other records are not looked at.
    expect((await lp.simulateTuning(records, "exhaustive", { space: { t: [2] } })).evaluated).toEqual([records[1]]);
  });

  it("refuses what it cannot replay, saying what and why", async () => {
    const records = [ok({ t: 1 }, 3), ok({ t: 2 }, 2)];
    const refuses = async (p: Promise<unknown>, why: RegExp) => {
      await expect(p).rejects.toThrow(lp.LoomError);
      await expect(p).rejects.toThrow(why);
    };
    await refuses(lp.simulateTuning(records, "anneal"), /unknown strategy "anneal"; strategies are exhaustive, random, genetic, bayes, greedy_ils, simulated_annealing/);
    await refuses(lp.simulateTuning([], "random"), /holds no records/);
    await refuses(lp.simulateTuning(join(tmpdir(), "loom-no-such-sim-log.jsonl"), "random"), /holds no records/);
    await refuses(lp.simulateTuning(42 as never, "random"), /a path to a tuning log or an array/);
    await refuses(lp.simulateTuning([{ point: 1 }] as never, "random"), /record 0 is not a tuning record/);
    await refuses(lp.simulateTuning([{ point: { t: 1 }, ok: true, medianMs: null }] as never, "random"), /record 0 is ok but its medianMs is null/);
    const k = (hash: string) => ({ kernel: { name: "mm", hash } });
    await refuses(lp.simulateTuning([ok({ t: 1 }, 1, k("aa")), ok({ t: 2 }, 1, k("bb"))], "random"), /mixes records of several kernels: "mm" \(hash aa\), "mm" \(hash bb\)/);
    await refuses(lp.simulateTuning([ok({ t: 1 }, 1, { params: { n: 16 } }), ok({ t: 2 }, 1, { params: { n: 32 } })], "random"), /several parameter values/);
    await refuses(lp.simulateTuning([ok({ t: 1 }, 1, { backend: "js" }), ok({ t: 2 }, 1, { backend: "c" })], "random"), /several backends/);
    await refuses(lp.simulateTuning([ok({ t: 1 }, 1), ok({ u: 2 }, 1)], "random"), /record 1 has parameters u, record 0 has t/);
    await refuses(lp.simulateTuning([ok({ t: [1] as never }, 1)], "random"), /parameter "t" has the value \[1\]/);
    await refuses(lp.simulateTuning(records, "random", { budget: { variants: 0 } }), /budget.variants must be a positive integer; got 0/);
    await refuses(lp.simulateTuning(records, "random", { seed: NaN }), /seed must be a number/);
    await refuses(lp.simulateTuning(records, "random", { missing: "skip" as never }), /missing must be "error" or "invalid"; got "skip"/);
    await refuses(lp.simulateTuning(records, "random", { space: { t: [] } }), /^simulateTuning: space parameter "t" has no values/);
    await refuses(lp.simulateTuning(records, "random", { restrictions: [() => false] }), /the restrictions exclude every point/);
    await refuses(lp.simulateTuning(records, "random", { restrictions: [() => { throw new Error("boom"); }] }), /^simulateTuning: restriction 0 threw on point .*boom/);
    const damaged = freshLog();
    writeFileSync(damaged, "not json\n{}\n");
    await refuses(lp.simulateTuning(damaged, "random"), /line 1 is not valid JSON/);
  });

  it("retraces a sweep from its log: the same strategy, seed and budget choose the same points", async () => {
    const space = { ti: [1, 2, 4, 8], tj: [1, 2, 4, 8] };
    // simulated_annealing paces its cooling by the budget, which autotune passes to strategies as simulateTuning does.
    for (const [strategy, variants] of [["bayes", 7], ["greedy_ils", 7], ["simulated_annealing", 7], ["genetic", undefined]] as const) {
      const log = freshLog();
      const budget = variants === undefined ? {} : { variants };
      const run = await lp.autotune(matmul(), { space, params: { n: 16 }, build: (_k, p) => tiled(p), repeats: 1, log, strategy, seed: 3, budget });
      const sim = await lp.simulateTuning(log, strategy, { space, seed: 3, budget, missing: "invalid" });
      expect(sim.evaluated.map((r) => r.point)).toEqual(run.records.map((r) => r.point));
      expect(sim.best!.point).toEqual(run.best.point);
      expect(sim.trace.at(-1)).toBe(run.best.medianMs);
    }
  });

  it("runs the examples of docs/tuning-strategies.md as written, on a log of a whole 6 × 6 tile space", async () => {
    const doc = readFileSync(new URL("../../docs/tuning-strategies.md", import.meta.url), "utf8");
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(2);
    const log = freshLog();
    const tiles = [1, 2, 4, 8, 16, 32];
    const records = tiles.flatMap((ti) => tiles.map((tj) => ok({ ti, tj }, 1 + Math.abs(Math.log2(ti) - 3) + Math.abs(Math.log2(tj) - 2))));
    writeFileSync(log, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...a: string[]) => (...v: unknown[]) => Promise<unknown>;
    const run = (code: string, tail: string) => new AsyncFunction("lp", "out", code.replaceAll('"matmul.jsonl"', JSON.stringify(log)).replace(/ as number/g, "")
      .replace(/([\])])!(?!=)/g, "$1").replace(/: number\[\]/g, "").replace(/console\.log\(/g, "out(") + tail);
    const sim = (await run(blocks[0]!, "\nreturn sim;")(lp, () => {})) as lp.SimulationResult;
    expect(sim.evaluated).toHaveLength(30);
    expect(sim.evaluated.every((r) => (r.point.ti as number) * (r.point.tj as number) <= 256)).toBe(true);
    const printed: unknown[][] = [];
    await run(blocks[1]!, "")(lp, (...a: unknown[]) => printed.push(a));
    expect(printed).toHaveLength(2 * lp.STRATEGY_NAMES.length);
    for (const [strategy, variants, ms] of printed) {
      expect(lp.STRATEGY_NAMES).toContain(strategy);
      expect([20, 50]).toContain(variants);
      expect(Number(ms)).toBeGreaterThanOrEqual(1);
      if (variants === 50 && strategy !== "genetic") expect(Number(ms)).toBe(1); // the whole space: its optimum
    }
  });
});
