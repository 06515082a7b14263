/**
 * The kernel cache (issue 16.9, 16.11): a cache directory that cannot be used (under /proc or
 * /sys, a regular file, read-only) gives a warning naming it and a private temporary cache, never
 * a hang or a raw ENOENT/EEXIST/EACCES; a cached library that is corrupt or another kernel's is
 * compiled again; a compiler that never ends is killed.
 */
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CodegenError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { nativeAvailable } from "./native-helpers.js";

const skip = !nativeAvailable("c");
const saved = { dir: process.env.LOOM_CACHE_DIR, timeout: process.env.LOOM_CC_TIMEOUT };
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "loom-cache-test-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const [name, value] of [["LOOM_CACHE_DIR", saved.dir], ["LOOM_CC_TIMEOUT", saved.timeout]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A kernel whose generated code (and so its cache key) depends on `c`. */
const affine = (c: number) => makeKernel("{[i]: 0<=i<n}", `out[i] = ${c}*a[i] + 1`, ["a, out: float32[n]", "n: int32"], { name: "affine" });
const a = Float32Array.of(1, 2, 3);
const expected = (c: number) => Array.from(a, (x) => c * x + 1);

/** Run `affine(c)` on c with the cache in `dir`; a copy of the kernel, so that no library loaded for an earlier run of it is reused. */
async function runIn(dir: string, c: number): Promise<number[]> {
  process.env.LOOM_CACHE_DIR = dir;
  return Array.from((await run({ ...affine(c) }, { a }, { backend: "c", flags: ["-O1"] })).out as Float32Array);
}

describe("a cache directory that cannot be used: a warning naming it, and a private cache", () => {
  const cases: [string, () => string][] = [
    ["under /proc (Node's recursive mkdir loops forever there)", () => "/proc/loom-test/kernels"],
    ["under /proc/self", () => "/proc/self/loom-kernels"],
    ["under /sys", () => "/sys/loom-test"],
    ["a regular file", () => {
      const f = join(scratch, "a-file");
      writeFileSync(f, "");
      return f;
    }],
    ["below a regular file", () => {
      const f = join(scratch, "another-file");
      writeFileSync(f, "");
      return join(f, "kernels");
    }],
  ];
  cases.forEach(([what, dir], x) => {
    it.skipIf(skip)(`${what}`, async () => {
      const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
      const d = dir();
      expect(await runIn(d, 10 + x)).toEqual(expected(10 + x));
      expect(warn).toHaveBeenCalledTimes(1);
      const message = String(warn.mock.calls[0]![0]);
      expect(message).toContain(`the kernel cache directory ${d} cannot be used (`);
      expect(message).toMatch(/kernels are compiled into \S*loom-kernels-\w+ for this process/);
      // Once per directory: the next run uses the private cache without a new warning.
      expect(await runIn(d, 20 + x)).toEqual(expected(20 + x));
      expect(warn).toHaveBeenCalledTimes(1);
    }, 30_000);
  });

  // root writes into read-only directories; only a read-only file system would refuse it.
  it.skipIf(skip || process.getuid?.() === 0)("a read-only directory", async () => {
    const ro = mkdtempSync(join(scratch, "ro-"));
    chmodSync(ro, 0o555);
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      expect(await runIn(ro, 30)).toEqual(expected(30));
      expect(String(warn.mock.calls[0]![0])).toMatch(/EACCES/);
    } finally {
      chmodSync(ro, 0o755);
    }
  }, 30_000);

  it.skipIf(skip)("a directory to create with missing parents works as the cache, without a warning", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const d = join(scratch, "new", "nested", "kernels");
    expect(await runIn(d, 40)).toEqual(expected(40));
    expect(warn).not.toHaveBeenCalled();
    expect(readdirSync(d).some((f) => f.endsWith(".so"))).toBe(true);
  }, 30_000);
});

describe("a cached library that cannot be used is compiled again", () => {
  /** The one .so of a fresh cache directory after running `affine(c)` there. */
  async function compiledIn(c: number): Promise<{ dir: string; so: string }> {
    const dir = mkdtempSync(join(scratch, "cache-"));
    expect(await runIn(dir, c)).toEqual(expected(c));
    const so = readdirSync(dir).filter((f) => f.endsWith(".so"));
    expect(so).toHaveLength(1);
    return { dir, so: so[0]! };
  }

  it.skipIf(skip)("a corrupt (truncated) .so under the key", async () => {
    const { so } = await compiledIn(50);
    const dir = mkdtempSync(join(scratch, "corrupt-"));
    writeFileSync(join(dir, so), "\x7fELF, but truncated");
    expect(await runIn(dir, 50)).toEqual(expected(50));
  }, 30_000);

  it.skipIf(skip)("another kernel's .so under the key: its entry points are missing, so it is never called", async () => {
    const mine = await compiledIn(60);
    const other = await compiledIn(61);
    const dir = mkdtempSync(join(scratch, "foreign-"));
    copyFileSync(join(other.dir, other.so), join(dir, mine.so));
    expect(await runIn(dir, 60)).toEqual(expected(60));
  }, 30_000);
});

describe("a compiler that never ends", () => {
  it.skipIf(skip)("is killed after LOOM_CC_TIMEOUT seconds: a CodegenError saying so", async () => {
    const cc = join(scratch, "slow-cc");
    writeFileSync(cc, '#!/bin/sh\nif [ "$1" = --version ]; then echo "slow cc 1.0"; exit 0; fi\nexec sleep 60\n', { mode: 0o755 });
    process.env.LOOM_CC_TIMEOUT = "1";
    process.env.LOOM_CACHE_DIR = mkdtempSync(join(scratch, "slow-"));
    const e = await run(affine(70), { a }, { backend: "c", cc }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CodegenError);
    expect((e as Error).message).toMatch(/killed by SIGKILL, perhaps after the 1 s of LOOM_CC_TIMEOUT/);
  }, 30_000);
});
