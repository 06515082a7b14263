/**
 * The tuning log: one JSON record per line, appended whole; a sweep given an existing log resumes
 * without measuring a point twice; a torn last line is skipped, reported, and followed by a new line.
 */
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { counting, matmul, tiled } from "./helpers.js";

const params = { n: 16 };
const space = { ti: [1, 2, 4, 8], tj: [2, 4] };
const freshLog = () => join(mkdtempSync(join(tmpdir(), "loom-tune-")), "tune.jsonl");

describe("the tuning log", () => {
  it("holds one JSON record per variant that readTuningLog reads back", async () => {
    const log = freshLog();
    const { records } = await lp.autotune(matmul(), { space, params, build: (_k, p) => tiled(p), repeats: 2, log });
    const lines = readFileSync(log, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((l) => JSON.parse(l).point)).toEqual(records.map((r) => r.point));
    const back = lp.readTuningLog(log);
    expect(back).toEqual(JSON.parse(JSON.stringify(records)));
    expect(back[0]!.kernel!.name).toBe("matmul");
    expect(back[0]!.pipeline).toEqual(lp.toJSON(tiled(back[0]!.point)));
  });

  it("resumes from a half-written log with a torn last line: no point is measured twice", async () => {
    const log = freshLog();
    const first = counting((_k, p) => tiled(p));
    const ctl = new AbortController();
    await lp.autotune(matmul(), {
      space, params, build: first.build, repeats: 1, log, signal: ctl.signal,
      onProgress: (done) => { if (done === 3) ctl.abort(); },
    });
    expect(first.calls).toHaveLength(3);
    appendFileSync(log, '{"point":{"ti":4,"tj":4},"stat'); // a sweep killed mid-write
    expect(lp.readTuningLog(log)).toHaveLength(3);
    expect(lp.readTuningLog(log).torn).toMatch(/line 4 is torn/);

    const second = counting((_k, p) => tiled(p));
    const { records, warnings } = await lp.autotune(matmul(), { space, params, build: second.build, repeats: 1, log });
    expect(warnings.join()).toMatch(/line 4 is torn/);
    expect(records).toHaveLength(8);
    expect(second.calls).toHaveLength(5);
    expect(new Set([...first.calls, ...second.calls]).size).toBe(8);
    // The next record started on a new line: every line but the torn one parses.
    const lines = readFileSync(log, "utf8").split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(9);
    expect(lines.filter((l) => { try { JSON.parse(l); return true; } catch { return false; } })).toHaveLength(8);
    expect(lp.readTuningLog(log)).toHaveLength(8);
    expect(lp.readTuningLog(log).torn).toMatch(/line 4 is torn/);
    // A third run measures nothing.
    const third = counting((_k, p) => tiled(p));
    const again = await lp.autotune(matmul(), { space, params, build: third.build, repeats: 1, log });
    expect(third.calls).toHaveLength(0);
    expect(again.records).toHaveLength(8);
  });

  it("does not reuse records measured with other parameters or on another backend", async () => {
    const log = freshLog();
    await lp.autotune(matmul(), { space: { ti: [2, 4] }, params, build: (_k, p) => lp.split("i", p.ti as number), repeats: 1, log });
    const other = counting((_k, p) => lp.split("i", p.ti as number));
    await lp.autotune(matmul(), { space: { ti: [2, 4] }, params: { n: 12 }, build: other.build, repeats: 1, log });
    expect(other.calls).toHaveLength(2);
  });

  it("keeps the measurement fields (spread, remeasured, gflops, gbps, peakFraction) and still reads logs written before them", async () => {
    const log = freshLog();
    const peak = { gflops: 10, gbps: 5 };
    const { records } = await lp.autotune(matmul(), { space: { ti: [2, 4] }, params, build: (_k, p) => lp.split("i", p.ti as number), repeats: 2, log, peak });
    const back = lp.readTuningLog(log);
    for (const r of back) {
      expect(r.remeasured).toBeTypeOf("number");
      expect(r.spread).toBeTypeOf("number");
      expect(r.gflops).toBeGreaterThan(0);
      expect(r.peakFraction!.bandwidth).toBeCloseTo(r.gbps! / peak.gbps, 12);
    }
    expect(back).toEqual(JSON.parse(JSON.stringify(records)));
    // A record of an older Loom: none of these fields; it loads, and a sweep resumes from it.
    const old = freshLog();
    const { spread: _s, remeasured: _r, gflops: _g, gbps: _b, peakFraction: _p, ...bare } = JSON.parse(JSON.stringify(records[0]));
    writeFileSync(old, `${JSON.stringify(bare)}\n`);
    expect(lp.readTuningLog(old)).toEqual([{ ...bare, medianMs: bare.medianMs }]);
    const resumed = counting((_k, p) => lp.split("i", p.ti as number));
    const again = await lp.autotune(matmul(), { space: { ti: [2, 4] }, params, build: resumed.build, repeats: 2, log: old, peak });
    expect(resumed.calls).toEqual([JSON.stringify({ ti: records[1]!.point.ti })]);
    expect(again.records.find((r) => r.point.ti === records[0]!.point.ti)!.gflops).toBeUndefined();
  });

  it("refuses a log of another kernel, and a log damaged before its last line", async () => {
    const log = freshLog();
    await lp.autotune(matmul(), { space: { ti: [2] }, params, build: (_k, p) => lp.split("i", p.ti as number), repeats: 1, log });
    const copy = lp.makeKernel("{[i]: 0<=i<n}", "c[i] = 2*a[i]", ["a, c: float32[n]", "n: int32"], { name: "scale" });
    await expect(lp.autotune(copy, { space: { ti: [2] }, params, build: (_k, p) => lp.split("i", p.ti as number), log }))
      .rejects.toThrow(/another kernel \("matmul"/);
    const damaged = freshLog();
    writeFileSync(damaged, `not json\n${readFileSync(log, "utf8")}`);
    expect(() => lp.readTuningLog(damaged)).toThrow(lp.LoomError);
    expect(() => lp.readTuningLog(damaged)).toThrow(/line 1 is not valid JSON and is not a torn record/);
    const notRecord = freshLog();
    writeFileSync(notRecord, "[1, 2]\n");
    expect(() => lp.readTuningLog(notRecord)).toThrow(/line 1 is not a record/);
    expect(lp.readTuningLog(join(tmpdir(), "loom-no-such-log.jsonl"))).toEqual([]);
  });
});

describe("replay", () => {
  it("rebuilds the best kernel from a log or records, and refuses when nothing is ok", async () => {
    const log = freshLog();
    const { best, records } = await lp.autotune(matmul(), { space, params, build: (_k, p) => tiled(p), repeats: 1, log });
    const want = tiled(best.point)(matmul());
    expect(lp.replay(log, matmul())).toEqual(want);
    expect(lp.replay(records, matmul())).toEqual(want);
    const noPipeline = records.map((r) => ({ ...r, pipeline: undefined }));
    expect(() => lp.replay(noPipeline, matmul())).toThrow(/pass build/);
    expect(lp.replay(noPipeline, matmul(), (_k, p) => tiled(p))).toEqual(want);
    expect(() => lp.replay(records.map((r) => ({ ...r, ok: false })), matmul())).toThrow(lp.LoomError);
  });
});
