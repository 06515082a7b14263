/**
 * What the distributed-sweep tests share: a private redis-server on a free port (skipped with the
 * reason when the binary is absent, a failure when LOOM_REQUIRE_NATIVE names redis), and
 * `loom worker` processes run from the sources, their job lines collected.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { TuningRecord } from "../../src/index.js";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const REDIS_BIN = process.env.REDIS_SERVER ?? "redis-server";

/** Whether redis-server runs here, and if not why. */
export function redisStatus(): { available: boolean; reason?: string } {
  const r = spawnSync(REDIS_BIN, ["--version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) return { available: false, reason: `${REDIS_BIN} cannot be run (${r.error?.message ?? r.stderr.trim()}): apt-get install redis-server` };
  return { available: true };
}

/** Whether CI demands Redis (LOOM_REQUIRE_NATIVE contains "redis"): then a missing binary fails. */
export const redisRequired = (process.env.LOOM_REQUIRE_NATIVE ?? "").split(",").map((s) => s.trim()).includes("redis");

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/** Wait until `output()` matches `pattern` or the child exits; rejects after `ms` with what it printed. */
export function waitFor(child: ChildProcess, output: () => string, pattern: RegExp, ms: number): Promise<void> {
  return new Promise((res, rej) => {
    const timer = setInterval(() => {
      if (pattern.test(output())) done(res);
    }, 20);
    const limit = setTimeout(() => done(() => rej(new Error(`no ${pattern} within ${ms} ms; output:\n${output()}`))), ms);
    const exit = () => done(() => (pattern.test(output()) ? res() : rej(new Error(`exited before ${pattern}; output:\n${output()}`))));
    child.once("exit", exit);
    function done(f: () => void) {
      clearInterval(timer);
      clearTimeout(limit);
      child.off("exit", exit);
      f();
    }
  });
}

export interface Redis {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** A redis-server on a free port, without persistence, ready. */
export async function startRedis(): Promise<Redis> {
  const port = await freePort();
  const child = spawn(REDIS_BIN, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  await waitFor(child, () => out, /Ready to accept connections/, 20_000);
  return { url: `redis://127.0.0.1:${port}`, child, stop: () => stopChild(child, "SIGTERM") };
}

export function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    child.once("exit", () => res());
    child.kill(signal);
  });
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** What it printed on stdout (one line per job) and stderr. */
  out(): string;
  err(): string;
  /** Ids of the jobs it started and of those it finished. */
  started(): string[];
  finished(): string[];
}

/** `loom worker ARGS` from the sources; resolves once it serves its queue. */
export async function startWorker(args: readonly string[], readyMs: number): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "test/cli-run.ts"), "worker", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const ids = (kind: string) => out.split("\n").filter((l) => l.startsWith(`${kind} `)).map((l) => l.split(" ")[1]!);
  await waitFor(child, () => err, /serving queue/, readyMs);
  return { child, out: () => out, err: () => err, started: () => ids("start"), finished: () => ids("done") };
}

/** The records of a tuning log (JSON lines). */
export const logLines = (p: string): TuningRecord[] => readFileSync(p, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as TuningRecord);
/** A record's point as a key. */
export const keyOf = (r: TuningRecord): string => JSON.stringify(r.point);
/** The points of a log with their statuses, sorted. */
export const pointsOf = (rs: readonly TuningRecord[]): string[] => rs.map((r) => `${keyOf(r)} ${r.status}`).sort();
