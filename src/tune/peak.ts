/**
 * `machinePeak`: what this machine can do at best, measured once and cached, so a tuning record
 * can say which fraction of it a variant reaches. Two small generated C microbenchmarks, compiled
 * with the default compiler and flags (`defaultCompiler()`), run on every core through OpenMP:
 *
 * - FMA throughput: each thread runs 12 independent chains `x = x * m + c` on vector registers
 *   (GCC/Clang vector extensions as wide as the target's: AVX-512, AVX or 128-bit), enough
 *   chains to cover the latency of two FMA pipes; once in float64 (`gflops`), once in float32
 *   (`gflops32`). Calibrated to run `fmaSeconds`, best of 5.
 * - Stream triad `a[i] = b[i] + s * c[i]` over arrays of `triadBytes` each (default 4x the
 *   last-level caches, at least 64 MiB), first touched in parallel; best of 5; 24 bytes per
 *   element counted (STREAM's convention: no write-allocate traffic).
 *
 * The result is a JSON file in the kernel cache directory (`usableCacheDir()`), keyed by the
 * machine's id, the compiler and the sizes; a file that cannot be read back is measured again
 * with a warning; `refresh: true` measures again.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join } from "node:path";
import { LoomError } from "../errors.js";
import { defaultCompiler, loadKernels, usableCacheDir } from "../run/native-compile.js";
import { machineInfo } from "./log.js";
import { peakSource } from "./peak-source.js";
import type { MachineInfo } from "./types.js";

export interface MachinePeakOptions {
  /** Measure again even when a cached result exists (and replace it). */
  readonly refresh?: boolean;
  /** Where the result is cached; default the kernel cache directory. */
  readonly cacheDir?: string;
  /** Seconds each timed FMA run lasts; default 0.1. */
  readonly fmaSeconds?: number;
  /** Bytes of each of the triad's three arrays; default 4x the last-level caches, at least 64 MiB. */
  readonly triadBytes?: number;
}

export interface MachinePeak {
  /** float64 FMA throughput of all cores, GFLOP/s (an FMA counts 2). */
  readonly gflops: number;
  /** float32 FMA throughput of all cores, GFLOP/s. */
  readonly gflops32: number;
  /** Stream-triad bandwidth of all cores, GB/s (1e9 bytes). */
  readonly gbps: number;
  /** When it was measured (ISO 8601). */
  readonly measuredAt: string;
  readonly machine: MachineInfo;
  /** The compiler and flags of the microbenchmarks. */
  readonly compiler: string;
  readonly fmaSeconds: number;
  readonly triadBytes: number;
  /** Threads the microbenchmarks ran on (OpenMP's default: every core). */
  readonly threads: number;
  /** Whether this came from the cache file rather than a measurement now. */
  readonly cached: boolean;
  /** The cache file. */
  readonly file: string;
  /** What was forgiven (a corrupt cache file, measured again). */
  readonly warnings: readonly string[];
}

const MIB = 1 << 20;

/** The bytes of the last-level caches of this machine (Linux: /sys; elsewhere 32 MiB is assumed). `lastLevelCacheBytes() >= 1` */
export function lastLevelCacheBytes(): number {
  const base = "/sys/devices/system/cpu";
  try {
    const seen = new Map<string, number>();
    let top = 0;
    for (const cpu of readdirSync(base).filter((d) => /^cpu\d+$/.test(d))) {
      const dir = join(base, cpu, "cache");
      if (!existsSync(dir)) continue;
      for (const idx of readdirSync(dir).filter((d) => d.startsWith("index"))) {
        const read = (f: string) => readFileSync(join(dir, idx, f), "utf8").trim();
        const level = Number(read("level"));
        if (read("type") === "Instruction") continue;
        const m = /^(\d+)([KMG]?)$/.exec(read("size"));
        if (!m) continue;
        const bytes = Number(m[1]) * ({ "": 1, K: 1024, M: MIB, G: 1024 * MIB } as Record<string, number>)[m[2]!]!;
        if (level > top) {
          top = level;
          seen.clear();
        }
        if (level === top) seen.set(read("shared_cpu_list"), bytes);
      }
    }
    const total = [...seen.values()].reduce((a, b) => a + b, 0);
    if (total > 0) return total;
  } catch {
    // not Linux, or /sys unreadable: assume
  }
  return 32 * MIB;
}

function checkOptions(o: unknown): MachinePeakOptions {
  if (o === undefined) return {};
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw new LoomError(`machinePeak: options must be an object { refresh?, cacheDir?, fmaSeconds?, triadBytes? }; got ${String(o)}`);
  const x = o as MachinePeakOptions;
  if (x.refresh !== undefined && typeof x.refresh !== "boolean") throw new LoomError(`machinePeak: refresh must be true or false; got ${String(x.refresh)}`);
  if (x.cacheDir !== undefined && (typeof x.cacheDir !== "string" || x.cacheDir === "")) throw new LoomError("machinePeak: cacheDir must be a non-empty path");
  if (x.fmaSeconds !== undefined && !(typeof x.fmaSeconds === "number" && x.fmaSeconds > 0 && x.fmaSeconds <= 60)) {
    throw new LoomError(`machinePeak: fmaSeconds must be a number of seconds in (0, 60], such as 0.1; got ${String(x.fmaSeconds)}`);
  }
  if (x.triadBytes !== undefined && !(Number.isInteger(x.triadBytes) && x.triadBytes >= 1024 && x.triadBytes <= totalmem() / 4)) {
    throw new LoomError(`machinePeak: triadBytes must be an integer from 1024 to a quarter of the memory (${Math.floor(totalmem() / 4)}); got ${String(x.triadBytes)}`);
  }
  return x;
}

/** What a measurement with `o` is keyed by, and its cache file. */
function peakSetup(o: MachinePeakOptions) {
  const machine = machineInfo();
  const def = defaultCompiler();
  const compiler = [def.cc, ...def.flags].join(" ");
  const fmaSeconds = o.fmaSeconds ?? 0.1;
  const triadBytes = o.triadBytes ?? Math.min(Math.max(4 * lastLevelCacheBytes(), 64 * MIB), Math.floor(totalmem() / 16));
  const key = createHash("sha256").update(JSON.stringify([machine.id, compiler, fmaSeconds, triadBytes])).digest("hex").slice(0, 16);
  return { machine, compiler, fmaSeconds, triadBytes, file: join(o.cacheDir ?? usableCacheDir(), `peak-${key}.json`) };
}

/**
 * The file `machinePeak(opts)` caches its result in (delete it, or pass `refresh: true`, to
 * measure again). `machinePeakFile({ cacheDir: "/tmp/c" })` is `/tmp/c/peak-<hash>.json`
 */
export function machinePeakFile(opts?: MachinePeakOptions): string {
  return peakSetup(checkOptions(opts)).file;
}

const pending = new Map<string, Promise<MachinePeak>>();

/**
 * This machine's FMA throughput (GFLOP/s, float64 and float32) and stream-triad bandwidth (GB/s),
 * from the cache or measured now (a second or two, once per machine and compiler).
 *
 *   const { gflops, gbps } = await lp.machinePeak();   // lp.machinePeak({ refresh: true }) measures again
 */
export function machinePeak(opts?: MachinePeakOptions): Promise<MachinePeak> {
  let o: MachinePeakOptions;
  try {
    o = checkOptions(opts);
  } catch (e) {
    return Promise.reject(e);
  }
  const { machine, compiler, fmaSeconds, triadBytes, file } = peakSetup(o);
  const warnings: string[] = [];
  if (!o.refresh) {
    const cached = readCached(file, machine, compiler, warnings);
    if (cached) return Promise.resolve({ ...cached, cached: true, file, warnings });
  }
  let p = pending.get(file);
  if (!p) {
    p = measure(machine, compiler, fmaSeconds, triadBytes).then((m) => {
      const result = { ...m, measuredAt: new Date().toISOString(), machine, compiler, fmaSeconds, triadBytes };
      const tmp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}`;
      try {
        writeFileSync(tmp, `${JSON.stringify(result, null, 2)}\n`);
        renameSync(tmp, file);
      } catch (e) {
        rmSync(tmp, { force: true });
        warnings.push(`the peak could not be cached in ${file}: ${(e as Error).message}`);
      }
      return { ...result, cached: false, file, warnings };
    }).finally(() => pending.delete(file));
    pending.set(file, p);
  }
  return p;
}

/** The cached result in `file`, or undefined (missing, or unusable: with a warning). */
function readCached(file: string, machine: MachineInfo, compiler: string, warnings: string[]) {
  if (!existsSync(file)) return undefined;
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const positive = (x: unknown) => typeof x === "number" && Number.isFinite(x) && x > 0;
    const m = v.machine as MachineInfo | undefined;
    if (!positive(v.gflops) || !positive(v.gflops32) || !positive(v.gbps) || typeof v.measuredAt !== "string" || m?.id !== machine.id || v.compiler !== compiler) {
      throw new Error("it lacks a positive gflops, gflops32 or gbps, or was measured on another machine or compiler");
    }
    return v as unknown as Omit<MachinePeak, "cached" | "file" | "warnings">;
  } catch (e) {
    warnings.push(`the cached machine peak ${file} is unusable (${(e as Error).message}); measured again`);
    return undefined;
  }
}

const FMA = "loom_peak_fma";
const TRIAD = "loom_peak_triad";

async function measure(machine: MachineInfo, compiler: string, fmaSeconds: number, triadBytes: number) {
  const lib = await loadKernels(peakSource(FMA, TRIAD), {}, `machine-peak microbenchmark (${compiler})`, [`${FMA}64`, `${FMA}32`, TRIAD]);
  const out = new Float64Array(3);
  const fma = (precision: 32 | 64, iters: number) => {
    const ns = lib.call(`${FMA}${precision}`, [out, BigInt(iters)], ["ptr", "int64"]);
    return { ns: Math.max(ns, 1), flops: out[0]!, threads: out[2]! };
  };
  // The fastest of three calls: one call of a loaded machine's descheduled thread must not set the size.
  const fastest = (precision: 32 | 64, iters: number) => [0, 1, 2].map(() => fma(precision, iters)).reduce((a, b) => (b.ns < a.ns ? b : a));
  const fmaPeak = (precision: 32 | 64) => {
    let iters = 1 << 12;
    fma(precision, iters); // starts OpenMP's threads: not timed
    let r = fastest(precision, iters);
    while (r.ns < fmaSeconds * 1e9 / 8 && iters < 2 ** 40) r = fastest(precision, (iters *= 4));
    iters = Math.max(1, Math.round(iters * (fmaSeconds * 1e9) / r.ns));
    let best = 0;
    for (let rep = 0; rep < 5; rep++) {
      r = fma(precision, iters);
      best = Math.max(best, r.flops / r.ns);
    }
    return { gflops: best, threads: r.threads };
  };
  const f64 = fmaPeak(64);
  const f32 = fmaPeak(32);
  const n = Math.max(1, Math.floor(triadBytes / 8));
  lib.call(TRIAD, [out, BigInt(n), 5], ["ptr", "int64", "int32"]);
  if (!(out[0]! > 0)) throw new LoomError(`machinePeak: the triad could not allocate 3 arrays of ${triadBytes} bytes; give a smaller triadBytes`);
  const gbps = (24 * n) / (out[0]! * 1e9);
  for (const [what, x] of [["float64 FMA", f64.gflops], ["float32 FMA", f32.gflops], ["triad", gbps]] as const) {
    if (!(Number.isFinite(x) && x > 0)) throw new LoomError(`machinePeak: the ${what} microbenchmark measured ${x} on ${machine.cpu} with ${compiler}; nothing usable`);
  }
  return { gflops: f64.gflops, gflops32: f32.gflops, gbps, threads: f64.threads };
}
