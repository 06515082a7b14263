/**
 * A stopped queue sweep takes back only the jobs no worker has: a job a worker finished, or holds,
 * stays in Redis for a restarted sweep to collect, even when the coordinator read the job as
 * waiting just before the worker took it (a removal after a stale state read measured a job twice
 * in CI: the finished job was removed, and the restarted sweep queued it again). Skipped, with the
 * reason, where redis-server is absent (a failure when LOOM_REQUIRE_NATIVE contains "redis").
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Queue, Worker } from "bullmq";
import { Redis as IORedis } from "ioredis";
import { openQueue } from "../../src/tune/executor/queue.js";
import { kernelHash } from "../../src/tune/executor/job.js";
import { TuningError } from "../../src/tune/autotune.js";
import { matmul, tiled } from "./helpers.js";
import { redisStatus, startRedis, type Redis } from "./distributed-helpers.js";

const status = redisStatus();
if (!status.available) console.warn(`queue close tests skipped: ${status.reason}`);

describe.skipIf(!status.available)("QueueExecutor.close", { timeout: 60_000 }, () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    await redis?.stop();
  });

  it("removes the waiting jobs and keeps those a worker finished or holds, whatever state it read before", async () => {
    const name = "close";
    const ref = matmul();
    const exec = await openQueue({ connection: redis.url, name }, {
      ref, kernelHash: kernelHash(ref), build: (_k, p) => tiled(p),
      job: { backend: "js", params: { n: 8 }, testParams: { n: 8 }, repeats: 1 },
      remaining: () => 100, skip: () => false,
    }, (m) => new TuningError(m, []));
    exec.upcoming([1, 2, 4].map((ti) => ({ ti, tj: 1, gl: "no" })));
    const conn = new IORedis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue(name, { connection: conn });
    await vi.waitFor(async () => expect((await queue.getJobCounts("waiting")).waiting).toBe(3), { timeout: 20_000 });

    // A worker takes two jobs: it finishes the first and still holds the second.
    const worker = new Worker(name, null, { connection: conn.duplicate(), autorun: false, lockDuration: 30_000 });
    const finished = await worker.getNextJob("token-1");
    await finished!.moveToCompleted({ stale: true }, "token-1", false);
    const held = await worker.getNextJob("token-2");
    expect(held).toBeDefined();
    // The state a coordinator may have read before the worker took them: every job "waiting".
    vi.spyOn(Queue.prototype, "getJobState").mockResolvedValue("waiting");

    await exec.close();
    vi.restoreAllMocks();
    const counts = await queue.getJobCounts("waiting", "active", "completed");
    expect(counts).toEqual({ waiting: 0, active: 1, completed: 1 });
    expect(await queue.getJobState(finished!.id!)).toBe("completed");
    expect(await queue.getJobState(held!.id!)).toBe("active");
    await worker.close();
    await queue.close();
    conn.disconnect();
  });
});
