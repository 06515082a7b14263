/**
 * The queue executor's settings and its connection to Redis, shared by the coordinator (autotune)
 * and `loom worker`. BullMQ is imported here lazily, on the first connection: a sweep on the
 * local executor, and `import "loom-kernels"`, never load it.
 */
import { LoomError } from "../../errors.js";

/** The queue both sides use when none is named. */
export const DEFAULT_QUEUE = "loom-tune";

/** How long a connection may take before Redis counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5000;

export interface QueueConfig {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  readonly connection: string;
  readonly name: string;
}

/** The URL with its password hidden, for messages. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * Check a queue's settings: a redis:// or rediss:// URL and a queue name BullMQ accepts (no ":").
 * `fail` receives what is wrong.
 */
export function checkQueueConfig(q: unknown, fail: (what: string) => never): QueueConfig {
  if (q === null || typeof q !== "object" || Array.isArray(q)) return fail(`executor.queue must be { connection: "redis://127.0.0.1:6379", name? }; got ${JSON.stringify(q)}`);
  const { connection, name, ...rest } = q as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) fail(`executor.queue has an unknown field "${extra}"; its fields are connection and name`);
  let url: URL | undefined;
  try {
    url = typeof connection === "string" ? new URL(connection) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "redis:" && url.protocol !== "rediss:") || url.hostname === "") {
    fail(`executor.queue.connection must be a Redis URL such as "redis://127.0.0.1:6379" (rediss:// for TLS); got ${JSON.stringify(connection)}`);
  }
  const queue = name ?? DEFAULT_QUEUE;
  if (typeof queue !== "string" || !/^[A-Za-z0-9_.-]{1,100}$/.test(queue)) {
    fail(`executor.queue.name must be 1 to 100 letters, digits, "_", "." or "-" (such as "${DEFAULT_QUEUE}", the default); got ${JSON.stringify(name)}`);
  }
  return { connection: connection as string, name: queue as string };
}

export interface Engine {
  readonly bull: typeof import("bullmq");
  /** A new connection to `url` (ioredis), reconnecting with a capped back-off; `connected` bounds the first. */
  client(url: string): import("ioredis").Redis;
}

let engine: Promise<Engine> | undefined;

/** BullMQ and its Redis client, imported on first use; a LoomError saying how to install them when missing. */
export function loadEngine(): Promise<Engine> {
  engine ??= Promise.all([import("bullmq"), import("ioredis")]).then(([bull, io]) => {
    const Redis = io.Redis;
    return {
      bull,
      client: (url: string) => new Redis(url, {
        connectTimeout: CONNECT_TIMEOUT_MS,
        // BullMQ's workers and event listeners block on Redis: commands must never give up.
        maxRetriesPerRequest: null,
        retryStrategy: (times: number) => Math.min(times * 200, 2000),
      }),
    };
  }, (e: unknown) => {
    engine = undefined;
    throw new LoomError(`the queue executor needs the npm packages bullmq and ioredis (npm install bullmq ioredis): ${(e as Error).message}`);
  });
  return engine;
}

/**
 * A promise that rejects with the first error `client` reports (a refused connection: an answer,
 * no need to wait out the time limit); it never counts as unhandled.
 */
export function firstError(client: { once(event: "error", f: (e: Error) => void): unknown }): Promise<never> {
  const p = new Promise<never>((_, reject) => client.once("error", reject));
  p.catch(() => undefined);
  return p;
}

/**
 * Wait until every one of `ready` resolves, within CONNECT_TIMEOUT_MS and unless `failed` rejects first; otherwise throw
 * `error(message)` naming the URL and what went wrong, after `cleanup` (which must not hang).
 */
export async function connected(url: string, ready: readonly Promise<unknown>[], failed: Promise<never>, cleanup: () => Promise<void>, error: (message: string) => Error, lastError?: () => Error | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
  });
  try {
    await Promise.race([Promise.all(ready), failed, timeout]);
  } catch (e) {
    await cleanup().catch(() => undefined);
    const last = lastError?.() === e ? undefined : lastError?.();
    throw error(`cannot reach Redis at ${shownUrl(url)}: ${(e as Error).message || String(e)}${last ? ` (${last.message})` : ""}; start it (redis-server --port 6379) or give the URL of a running one`);
  } finally {
    clearTimeout(timer);
  }
}
