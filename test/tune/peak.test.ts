/**
 * lp.machinePeak: the FMA and triad microbenchmarks (run once, tiny sizes, sanity only), the cache
 * (read back, corrupt -> measured again with a warning, refresh), bad options; and autotune's use
 * of the peak: read from the cache, and a peak that cannot be measured is a warning.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { machineInfo } from "../../src/tune/log.js";
import { machinePeakFile } from "../../src/tune/peak.js";
import { defaultCompiler } from "../../src/run/native-compile.js";
import { matmul } from "./helpers.js";

const tiny = { fmaSeconds: 0.002, triadBytes: 1 << 16 };
const tempDir = () => mkdtempSync(join(tmpdir(), "loom-peak-"));
const avail = lp.backendAvailability("openmp");

describe("machinePeak", () => {
  it.skipIf(!avail.available)("measures positive, finite rates, caches them, and measures again when the cache is corrupt or refreshed", async () => {
    const cacheDir = tempDir();
    const first = await lp.machinePeak({ cacheDir, ...tiny });
    for (const x of [first.gflops, first.gflops32, first.gbps, first.threads]) {
      expect(Number.isFinite(x)).toBe(true);
      expect(x).toBeGreaterThan(0);
    }
    expect(first.cached).toBe(false);
    expect(first.machine.id).toBe(machineInfo().id);
    expect(first.compiler).toMatch(/\S/);
    expect(first.file.startsWith(cacheDir)).toBe(true);
    expect(first.file).toBe(machinePeakFile({ cacheDir, ...tiny }));
    expect(Number.isNaN(Date.parse(first.measuredAt))).toBe(false);

    const again = await lp.machinePeak({ cacheDir, ...tiny });
    expect(again.cached).toBe(true);
    expect([again.gflops, again.gflops32, again.gbps, again.measuredAt]).toEqual([first.gflops, first.gflops32, first.gbps, first.measuredAt]);

    writeFileSync(first.file, "{ not json");
    const repaired = await lp.machinePeak({ cacheDir, ...tiny });
    expect(repaired.cached).toBe(false);
    expect(repaired.warnings.join()).toMatch(/is unusable .*measured again/);
    expect(JSON.parse(readFileSync(first.file, "utf8")).gflops).toBe(repaired.gflops);

    const refreshed = await lp.machinePeak({ cacheDir, ...tiny, refresh: true });
    expect(refreshed.cached).toBe(false);
    expect(refreshed.warnings).toEqual([]);
  }, 60_000);

  it("refuses bad options with a LoomError naming them", async () => {
    const bad: [unknown, RegExp][] = [
      [42, /options must be an object/],
      [{ refresh: "yes" }, /refresh must be true or false/],
      [{ fmaSeconds: 0 }, /fmaSeconds must be a number of seconds/],
      [{ triadBytes: 10 }, /triadBytes must be an integer from 1024/],
      [{ cacheDir: "" }, /cacheDir must be a non-empty path/],
    ];
    for (const [opts, msg] of bad) {
      const err = await lp.machinePeak(opts as lp.MachinePeakOptions).catch((e: unknown) => e);
      expect(err, msg.source).toBeInstanceOf(lp.LoomError);
      expect(String(err), msg.source).toMatch(msg);
    }
  });
});

describe("autotune and the peak", () => {
  const sweep = (peak: lp.AutotuneOptions["peak"]) => lp.autotune(matmul(), {
    space: { ti: [2, 4] }, params: { n: 8 }, repeats: 1, build: (_k, p) => lp.split("i", p.ti as number), peak,
  });

  it("takes the machine's peak from its cache file: peakFraction is gflops and gbps over it", async () => {
    const saved = process.env.LOOM_CACHE_DIR;
    process.env.LOOM_CACHE_DIR = tempDir();
    try {
      const def = defaultCompiler();
      const cached = { gflops: 40, gflops32: 80, gbps: 12.5, measuredAt: new Date().toISOString(), machine: machineInfo(), compiler: [def.cc, ...def.flags].join(" ") };
      writeFileSync(machinePeakFile(), JSON.stringify(cached));
      const { records, warnings } = await sweep(true);
      expect(warnings).toEqual([]);
      for (const r of records) {
        expect(r.peakFraction!.flops).toBeCloseTo(r.gflops! / 80, 12); // a float32 kernel
        expect(r.peakFraction!.bandwidth).toBeCloseTo(r.gbps! / 12.5, 12);
      }
      const none = await sweep(false);
      expect(none.records.every((r) => r.peakFraction === undefined && r.gflops! > 0)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.LOOM_CACHE_DIR;
      else process.env.LOOM_CACHE_DIR = saved;
    }
  });

  it("gives no peakFraction, with a warning, when the peak cannot be measured", async () => {
    const saved = [process.env.LOOM_CC, process.env.LOOM_CACHE_DIR];
    process.env.LOOM_CC = join(tempDir(), "no-such-cc");
    process.env.LOOM_CACHE_DIR = tempDir();
    try {
      const { records, warnings } = await sweep(true);
      expect(warnings.join()).toMatch(/no peakFraction: the machine peak could not be measured .*no-such-cc/);
      expect(records.every((r) => r.ok && r.peakFraction === undefined)).toBe(true);
    } finally {
      for (const [name, v] of [["LOOM_CC", saved[0]], ["LOOM_CACHE_DIR", saved[1]]] as const) {
        if (v === undefined) delete process.env[name];
        else process.env[name] = v;
      }
    }
  });
});
