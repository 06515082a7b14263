/**
 * `loom worker --concurrency 2`, end to end on a private redis-server: one worker measuring two
 * jobs at once (each on a measuring thread of its own) finishes a sweep on the js backend with
 * the points and statuses of a local sweep, every point logged once and every job finished
 * once, never more than two jobs in flight and two at some moment; SIGTERM then exits 0.
 * Skipped, with the reason, where redis-server is absent (a failure when LOOM_REQUIRE_NATIVE
 * contains "redis", as in CI: see distributed.test.ts).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { matmul, tiled } from "./helpers.js";
import { redisStatus, startRedis, startWorker, stopChild, type Redis, type WorkerProcess, keyOf, logLines, pointsOf } from "./distributed-helpers.js";

const status = redisStatus();
if (!status.available) console.warn(`worker concurrency test skipped: ${status.reason}`);

const dir = mkdtempSync(join(tmpdir(), "loom-concurrency-"));
const lines = logLines;

/** The most jobs in flight at once, from the worker's `start ID` / `done ID` lines in their order. */
function mostInFlight(out: string): number {
  const open = new Set<string>();
  let most = 0;
  for (const [kind, id] of out.split("\n").map((l) => l.split(" "))) {
    if (kind === "start") open.add(id!);
    else if (kind === "done" || kind === "refused") open.delete(id!);
    most = Math.max(most, open.size);
  }
  return most;
}

// The worker and its two measuring threads load the library from the sources through tsx: seconds, more on a loaded machine.
const READY_MS = 120_000;

describe.skipIf(!status.available)("one loom worker with --concurrency 2", { timeout: 240_000 }, () => {
  let redis: Redis;
  let worker: WorkerProcess;
  beforeAll(async () => {
    redis = await startRedis();
    worker = await startWorker(["--connection", redis.url, "--queue", "c2", "--concurrency", "2"], READY_MS);
  }, READY_MS + 30_000);
  afterAll(async () => {
    if (worker) await stopChild(worker.child, "SIGKILL");
    await redis?.stop();
  });

  it("measures two jobs at once and logs the points and statuses of a local sweep, each once", async () => {
    // Six variants that match, one that differs from the kernel ("wrong") and one whose pipeline
    // fails on the worker ("invalid": a split by 0 travels as data, refused when applied there).
    const space = { ti: [1, 2, 4], tj: [2, 4], bad: ["none", "wrong", "zero"] };
    const off = lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j]) + 1", ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
    const build = (_k: lp.Kernel, p: lp.TuningPoint): lp.Kernel | lp.Step =>
      p.bad === "wrong" ? tiled({ ...p, gl: "yes" })(off) : p.bad === "zero" ? lp.split("i", 0) : tiled({ ...p, gl: "yes" });
    const opts = {
      space, build, params: { n: 24 }, repeats: 3, backend: "js" as const,
      restrictions: [(p: lp.TuningPoint) => p.bad === "none" || (p.ti === 1 && p.tj === 2)],
    };
    const local = await lp.autotune(matmul(), { ...opts, log: join(dir, "local.jsonl") });
    const log = join(dir, "queue.jsonl");
    const remote = await lp.autotune(matmul(), { ...opts, log, executor: { queue: { connection: redis.url, name: "c2" } } });

    const logged = lines(log);
    expect(logged).toHaveLength(8);
    expect(pointsOf(logged)).toEqual(pointsOf(local.records));
    expect(pointsOf(remote.records)).toEqual(pointsOf(local.records));
    expect(new Set(logged.map(keyOf)).size).toBe(logged.length);
    expect(new Set(logged.map((r) => r.status))).toEqual(new Set(["ok", "wrong", "invalid"]));
    // Every job the worker started it finished, once; two at once at some moment, never more.
    expect(worker.finished()).toHaveLength(logged.length);
    expect(new Set(worker.finished()).size).toBe(logged.length);
    expect([...worker.started()].sort()).toEqual([...worker.finished()].sort());
    expect(mostInFlight(worker.out())).toBe(2);

    // SIGTERM: nothing in flight, a clean stop.
    const exited = new Promise<number | null>((res) => worker.child.once("exit", (code) => res(code)));
    worker.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
