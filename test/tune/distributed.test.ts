/**
 * The queue executor end to end, on a private redis-server: a sweep served by two `loom worker`
 * processes logs the same points and statuses as a local sweep; one worker SIGKILLed mid-job
 * costs a retry by the other, and every point is logged exactly once; a coordinator restarted on
 * its log measures nothing twice; Redis stopped is a TuningError naming the URL, and a local
 * sweep runs on. Skipped, with the reason, where redis-server is absent (a failure
 * when LOOM_REQUIRE_NATIVE contains "redis", as in CI).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { matmul, tiled } from "./helpers.js";
import { redisRequired, redisStatus, startRedis, startWorker, stopChild, type Redis, type WorkerProcess, keyOf, logLines, pointsOf } from "./distributed-helpers.js";

const status = redisStatus();
if (!status.available) console.warn(`distributed tuning tests skipped: ${status.reason}`);

const dir = mkdtempSync(join(tmpdir(), "loom-distributed-"));
const lines = logLines;

// Each worker loads the library from its sources through tsx: seconds, more on a loaded machine.
const READY_MS = 120_000;
// Workers measure on a thread of their own, so their locks are renewed whatever a job does; a
// killed worker's lock expires, and its job is retried, within seconds. The lock outlives a starved
// event loop on a loaded machine: BullMQ renews it at half its duration, and with 2 s a CI run on 2
// busy cores once missed a renewal, so a stalled job ran again on the other worker (BullMQ delivers
// at least once; the coordinator logged each point once, and the "measured once" checks failed).
const WORKER_ARGS = ["--lock-duration", "8000", "--stalled-interval", "1000"];

describe.skipIf(!status.available)("the queue executor with two loom worker processes", { timeout: 240_000 }, () => {
  let redis: Redis;
  let workers: WorkerProcess[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    workers = await Promise.all([0, 1].map(() => startWorker(["--connection", redis.url, "--queue", "q", ...WORKER_ARGS], READY_MS)));
  }, READY_MS * 2);
  afterAll(async () => {
    await Promise.all(workers.map((w) => stopChild(w.child, "SIGKILL")));
    await redis?.stop();
  });

  it("logs the points and statuses of a local sweep, each once, with the workers' machine", async () => {
    // A variant that differs from the kernel ("wrong") and one whose build throws ("invalid") travel too.
    const space = { ti: [1, 2, 4], tj: [2, 4], gl: ["no", "yes"], bad: ["none", "wrong", "throw"] };
    const off = lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j]) + 1", ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
    const build = (_k: lp.Kernel, p: lp.TuningPoint): lp.Kernel | lp.Step => {
      if (p.bad === "throw" && p.ti === 4) throw new lp.LoomError("no such variant");
      // A kernel, not a step: the job carries the variant's kernel JSON.
      return p.bad === "wrong" ? tiled(p)(off) : tiled(p);
    };
    const opts = { space, build, params: { n: 12 }, repeats: 2, restrictions: [(p: lp.TuningPoint) => p.bad !== "wrong" || p.ti === 1] };
    const queueLog = join(dir, "queue.jsonl");
    const local = await lp.autotune(matmul(), { ...opts, log: join(dir, "local.jsonl") });
    const remote = await lp.autotune(matmul(), { ...opts, log: queueLog, executor: { queue: { connection: redis.url, name: "q" } } });
    const logged = lines(queueLog);
    expect(pointsOf(logged)).toEqual(pointsOf(local.records));
    expect(pointsOf(remote.records)).toEqual(pointsOf(local.records));
    expect(new Set(logged.map(keyOf)).size).toBe(logged.length);
    expect(new Set(logged.map((r) => r.status))).toEqual(new Set(["ok", "wrong", "invalid"]));
    for (const r of logged.filter((x) => x.ok)) {
      expect(r.machine?.id).toMatch(/^[0-9a-f]{16}$/);
      expect(r.times).toHaveLength(2);
      expect(r.pipeline).toEqual(lp.toJSON(tiled(r.point)));
    }
    // Every job was measured by a worker, once (the throwing builds never left the coordinator).
    const jobs = workers.flatMap((w) => w.finished());
    expect(new Set(jobs).size).toBe(jobs.length);
    expect(jobs.length).toBe(logged.filter((r) => !(r.status === "invalid" && r.point.bad === "throw")).length);

    // Restarted on its log: every point is taken from it, no job is measured again.
    const again = await lp.autotune(matmul(), { ...opts, log: queueLog, executor: { queue: { connection: redis.url, name: "q" } } });
    expect(pointsOf(again.records)).toEqual(pointsOf(local.records));
    expect(lines(queueLog)).toHaveLength(logged.length);
    expect(workers.flatMap((w) => w.finished())).toHaveLength(jobs.length);
  });

  it("an adaptive strategy (genetic) under a budget: that many distinct points, each logged once", async () => {
    const log = join(dir, "genetic.jsonl");
    const r = await lp.autotune(matmul(), {
      space: { ti: [1, 2, 4, 8], tj: [1, 2, 4, 8], gl: ["no", "yes"] }, build: (_k, p) => tiled(p), params: { n: 8 }, repeats: 1,
      strategy: "genetic", budget: { variants: 6 }, log, executor: { queue: { connection: redis.url, name: "q" } },
    });
    expect(r.records).toHaveLength(6);
    expect(new Set(lines(log).map(keyOf)).size).toBe(6);
  });

  it("a coordinator stopped mid-sweep and restarted on its log: jobs finished meanwhile are collected, none is measured twice", async () => {
    const log = join(dir, "restarted.jsonl");
    const opts = {
      space: { ti: [1, 2, 4], tj: [1, 2, 4, 8] }, build: (_k: lp.Kernel, p: lp.TuningPoint) => tiled({ ...p, gl: "no" }), params: { n: 24 }, repeats: 2, log,
      executor: { queue: { connection: redis.url, name: "q" } },
    };
    const before = new Set(workers.flatMap((w) => w.finished()));
    const controller = new AbortController();
    const first = await lp.autotune(matmul(), { ...opts, signal: controller.signal, onProgress: () => controller.abort() });
    expect(first.records).toHaveLength(1);
    const second = await lp.autotune(matmul(), opts);
    expect(second.records).toHaveLength(12);
    expect(new Set(lines(log).map(keyOf)).size).toBe(12);
    expect(lines(log)).toHaveLength(12);
    const measured = workers.flatMap((w) => w.finished()).filter((id) => !before.has(id));
    expect(new Set(measured).size).toBe(measured.length);
    expect(measured).toHaveLength(12);
  });

  it("a worker SIGKILLed mid-job: the other measures that job; every point logged exactly once", async () => {
    const space = { ti: [1, 2, 4, 8], tj: [1, 2, 4] };
    const log = join(dir, "killed.jsonl");
    const [victim, survivor] = workers as [WorkerProcess, WorkerProcess];
    // Killed as soon as it says it started a job: jobs take long enough (hundreds of ms on js) for the kill to land inside one.
    const killed = new Promise<void>((res) => {
      const onData = () => {
        if (!/^start /m.test(victim.out())) return;
        victim.child.kill("SIGKILL");
        victim.child.stdout!.off("data", onData);
        res();
      };
      victim.child.stdout!.on("data", onData);
    });
    const sweep = lp.autotune(matmul(), {
      space, build: (_k, p) => tiled({ ...p, gl: "no" }), params: { n: 96 }, repeats: 10, log,
      executor: { queue: { connection: redis.url, name: "q" } },
    });
    await killed;
    const result = await sweep;
    const logged = lines(log);
    const expected = Object.values(space.ti).flatMap((ti) => space.tj.map((tj) => JSON.stringify({ ti, tj })));
    expect(logged.map(keyOf).sort()).toEqual([...expected].sort());
    expect(result.records).toHaveLength(expected.length);
    expect(logged.every((r) => r.ok)).toBe(true);
    // The job the victim died in was measured by the survivor.
    const lost = victim.started().filter((id) => !victim.finished().includes(id));
    expect(lost).toHaveLength(1);
    expect(survivor.finished()).toContain(lost[0]);
    // SIGTERM: a clean stop, exit 0.
    const exited = new Promise<number | null>((res) => survivor.child.once("exit", (code) => res(code)));
    survivor.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(survivor.err()).toContain("SIGTERM: finishing the job in flight");
  });

  it("no worker on the queue: the sweep waits out its time budget, says nothing was measured and leaves no job waiting", async () => {
    const err = await lp.autotune(matmul(), {
      space: { ti: [1, 2, 4] }, build: (_k, p) => lp.split("i", p.ti as number), params: { n: 8 }, budget: { seconds: 1 },
      executor: { queue: { connection: redis.url, name: "nobody" } },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(lp.TuningError);
    expect((err as Error).message).toContain("the sweep stopped before any variant was measured");
    const { Queue } = await import("bullmq");
    const { Redis: IORedis } = await import("ioredis");
    const connection = new IORedis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue("nobody", { connection });
    try {
      expect(await queue.getJobCounts("waiting", "active", "completed")).toEqual({ waiting: 0, active: 0, completed: 0 });
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it("Redis stopped: a TuningError naming the URL, for the sweep and for a worker; a local sweep runs on", async () => {
    await redis.stop();
    const opts = { space: { ti: [1, 2] }, build: (_k: lp.Kernel, p: lp.TuningPoint) => lp.split("i", p.ti as number), params: { n: 8 }, repeats: 1 };
    const err = await lp.autotune(matmul(), { ...opts, executor: { queue: { connection: redis.url } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(lp.TuningError);
    expect((err as Error).message).toContain(`cannot reach Redis at ${redis.url}`);
    await expect(lp.startTuningWorker({ connection: redis.url })).rejects.toThrow(`cannot reach Redis at ${redis.url}`);
    expect((await lp.autotune(matmul(), opts)).records).toHaveLength(2);
  });
});

describe("the queue executor's options and its import", () => {
  it.skipIf(!redisRequired)("redis-server runs here (CI: LOOM_REQUIRE_NATIVE contains redis)", () => {
    expect(status).toEqual({ available: true });
  });

  it("refuses a malformed executor with what it accepts", async () => {
    const opts = { space: { ti: [1] }, build: (_k: lp.Kernel, p: lp.TuningPoint) => lp.split("i", p.ti as number), params: { n: 8 } };
    for (const [executor, message] of [
      [{ queue: { connection: "http://x" } }, /must be a Redis URL such as "redis:\/\/127\.0\.0\.1:6379"/],
      [{ queue: { connection: "redis://127.0.0.1:1", name: "a:b" } }, /executor\.queue\.name must be/],
      [{ queue: { connection: "redis://127.0.0.1:1", port: 1 } }, /unknown field "port"/],
      ["remote", /executor must be "local" or \{ queue/],
    ] as const) {
      await expect(lp.autotune(matmul(), { ...opts, executor: executor as never })).rejects.toThrow(message);
    }
  });
});
