/**
 * `npx tsx bench/tune-distributed.ts [--quick] [--json] [--workers 1,2,4] [--backend js]`:
 * the queue executor's throughput and the coordinator's overhead.
 *
 * One 200-variant space (a float32 matrix product: i, j and k split by 1..16, 1..16 and 1..8,
 * with or without g/l tags) is swept exhaustively through one private redis-server by 1, 2 and 4
 * local `loom worker` processes (run from the sources), each sweep on a queue of its own, and
 * once by the local executor for reference. For each: variants per second (wall clock of the
 * sweep, workers already started), the coordinator's CPU time per variant (process.cpuUsage over
 * the sweep: building the variant, its JSON, the queue, the log) and the median framework time of
 * the records (the local executor's CPU time is all the work: it builds, checks and times every
 * variant itself). Workers measure on one machine here, so on few cores more workers compete for the
 * same cores: the figures say what the queue costs, not what a cluster gains.
 *
 * `--quick`: 20 variants (a smoke test of this script). `--json`: one line of JSON at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import * as lp from "../src/index.js";
import { redisStatus, startRedis, startWorker, stopChild, type WorkerProcess } from "../test/tune/distributed-helpers.js";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const json = argv.includes("--json");
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const counts = (option("--workers") ?? "1,2,4").split(",").map(Number);
const backend = (option("--backend") ?? "js") as lp.BackendName;

const kernel = lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
const space = quick ? { ti: [1, 4], tj: [2, 8], tk: [1, 4, 8], gl: ["no"] } : { ti: [1, 2, 4, 8, 16], tj: [1, 2, 4, 8, 16], tk: [1, 2, 4, 8], gl: ["no", "yes"] };
const build = (_k: lp.Kernel, p: lp.TuningPoint) => {
  const gl = p.gl === "yes";
  return lp.pipeline(
    lp.split("i", p.ti as number, gl ? { outerTag: "g.0", innerTag: "l.0" } : {}),
    lp.split("j", p.tj as number, gl ? { outerTag: "g.1", innerTag: "l.1" } : {}),
    lp.split("k", p.tk as number),
  );
};
const variants = Object.values(space).reduce((n, vs) => n * vs.length, 1);
const options = { space, build, params: { n: 32 }, repeats: 3, backend };
const dir = mkdtempSync(join(tmpdir(), "loom-bench-distributed-"));

interface Row {
  readonly executor: string;
  readonly workers: number;
  readonly variants: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** The coordinator's CPU time per variant, in ms. */
  readonly coordinatorCpuMs: number;
  /** Median of the records' frameworkMs. */
  readonly frameworkMs: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function sweep(label: string, workers: number, executor: lp.AutotuneOptions["executor"]): Promise<Row> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await lp.autotune(kernel, { ...options, executor, log: join(dir, `${label}.jsonl`) });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const n = r.records.length;
  return {
    executor: label, workers, variants: n, seconds, perSecond: n / seconds,
    coordinatorCpuMs: (cpu.user + cpu.system) / 1000 / n, frameworkMs: median(r.records.map((x) => x.phases?.frameworkMs ?? NaN)),
  };
}

async function main(): Promise<void> {
  const st = redisStatus();
  if (!st.available) throw new Error(`bench/tune-distributed.ts needs redis-server: ${st.reason}`);
  const load0 = loadavg();
  const rows: Row[] = [];
  const redis = await startRedis();
  // The coordinator's one-time cost (loading BullMQ and ioredis) is not a cost per variant.
  await Promise.all([import("bullmq"), import("ioredis")]);
  try {
    rows.push(await sweep("local", 0, "local"));
    for (const n of counts) {
      const queue = `bench-${n}`;
      const workers: WorkerProcess[] = await Promise.all(Array.from({ length: n }, () => startWorker(["--connection", redis.url, "--queue", queue, "--backend", backend], 300_000)));
      try {
        rows.push(await sweep(`queue-${n}`, n, { queue: { connection: redis.url, name: queue } }));
      } finally {
        // SIGTERM: the clean stop (nothing in flight by now).
        await Promise.all(workers.map((w) => stopChild(w.child, "SIGTERM")));
      }
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const load1 = loadavg();
  if (json) {
    console.log(JSON.stringify({ variants, backend, cores: cpus().length, loadavg: { before: load0, after: load1 }, rows }));
    return;
  }
  console.log(`${variants}-variant matmul sweep on ${backend}, ${cpus().length} cores; load average before ${load0.map((x) => x.toFixed(2)).join(" ")}, after ${load1.map((x) => x.toFixed(2)).join(" ")}`);
  console.log("executor   workers  variants  seconds  variants/s  coordinator CPU ms/variant  framework ms (median)");
  for (const r of rows) {
    console.log(`${r.executor.padEnd(10)} ${String(r.workers).padStart(7)} ${String(r.variants).padStart(9)} ${r.seconds.toFixed(1).padStart(8)} ${r.perSecond.toFixed(1).padStart(11)} ${r.coordinatorCpuMs.toFixed(2).padStart(27)} ${r.frameworkMs.toFixed(2).padStart(22)}`);
  }
}

await main();
