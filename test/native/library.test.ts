/**
 * NativeLibrary: dlopen a shared object compiled here with `cc`, and call `void f(void **args)`
 * with arrays passed by pointer and scalars converted to their exact C types.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLibrary, nativeStatus, type NativeLibrary } from "../../native/index.js";

const SOURCE = String.raw`
#include <stdint.h>
#include <string.h>

void loom_vadd(void **args) {
  const float *a = args[0], *b = args[1];
  float *c = args[2];
  int32_t n = *(int32_t *)args[3];
  for (int32_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void loom_sum_i64(void **args) {
  const int64_t *x = args[0];
  int64_t n = *(int64_t *)args[1];
  int64_t *out = args[2];
  int64_t s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i];
  *out = s;
}

/* Echo one scalar of every kind back, widened, so the test sees the exact C values. */
void loom_echo(void **args) {
  int64_t *ints = args[0];
  uint64_t *u64 = args[1];
  double *floats = args[2];
  uint8_t *aligned = args[3];
  ints[0] = *(int8_t *)args[4];
  ints[1] = *(uint8_t *)args[5];
  ints[2] = *(int16_t *)args[6];
  ints[3] = *(uint16_t *)args[7];
  ints[4] = *(int32_t *)args[8];
  ints[5] = *(uint32_t *)args[9];
  ints[6] = *(int64_t *)args[10];
  u64[0] = *(uint64_t *)args[11];
  floats[0] = *(float *)args[12];
  floats[1] = *(double *)args[13];
  for (int i = 4; i < 14; ++i) aligned[i - 4] = ((uintptr_t)args[i] % 8) == 0;
}

void loom_noop(void **args) { (void)args; }

void loom_fill_bytes(void **args) {
  uint8_t *p = args[0];
  int32_t n = *(int32_t *)args[1];
  memset(p, 7, (size_t)n);
}
`;

const status = nativeStatus();
let dir = "";
let so = "";
let compileError = "";

beforeAll(() => {
  if (!status.loaded) return;
  dir = mkdtempSync(join(tmpdir(), "loom-native-"));
  const c = join(dir, "kernels.c");
  so = join(dir, "kernels.so");
  writeFileSync(c, SOURCE);
  const r = spawnSync("cc", ["-O2", "-shared", "-fPIC", "-o", so, c], { encoding: "utf8" });
  if (r.status !== 0) compileError = r.error ? String(r.error) : r.stderr;
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `body` with a freshly loaded library, or skips (with a warning) where that cannot be. */
function withLibrary(body: (lib: NativeLibrary) => void): () => void {
  return () => {
    if (!status.loaded) return void console.warn(`skipped: ${status.reason}`);
    if (compileError) return void console.warn(`skipped: cc failed: ${compileError}`);
    const lib = loadLibrary(so);
    try {
      body(lib);
    } finally {
      lib.close();
    }
  };
}

describe("nativeStatus", () => {
  it("reports whether the addon loaded, with a path or a reason", () => {
    expect(typeof status.loaded).toBe("boolean");
    if (status.loaded) expect(status.path).toMatch(/loom_native\.node$/);
    else expect(status.reason).toMatch(/npm run build:native/);
  });
});

describe("loadLibrary", () => {
  it("throws dlerror's text for a missing file", () => {
    if (!status.loaded) return void console.warn(`skipped: ${status.reason}`);
    expect(() => loadLibrary(join(tmpdir(), "loom-no-such-library.so"))).toThrow(/loadLibrary: .*No such file/);
  });

  it("exposes the path and which symbols exist", withLibrary((lib) => {
    expect(lib.path).toBe(so);
    expect(lib.has("loom_vadd")).toBe(true);
    expect(lib.has("loom_missing")).toBe(false);
  }));
});

describe("NativeLibrary.call: arrays by pointer", () => {
  it("adds float32 arrays in place, without copying", withLibrary((lib) => {
    const n = 1000;
    const a = Float32Array.from({ length: n }, (_, i) => i * 0.5);
    const b = Float32Array.from({ length: n }, (_, i) => 1 - i);
    const c = new Float32Array(n);
    const ns = lib.call("loom_vadd", [a, b, c, n], ["ptr", "ptr", "ptr", "int32"]);
    expect(ns).toBeGreaterThanOrEqual(0);
    expect(Array.from(c)).toEqual(Array.from(a, (x, i) => Math.fround(x + b[i]!)));
  }));

  it("sums an int64 array with an int64 count", withLibrary((lib) => {
    const x = BigInt64Array.from([1n, -2n, 2n ** 40n, 5n]);
    const out = new BigInt64Array(1);
    lib.call("loom_sum_i64", [x, 4n, out], ["ptr", "int64", "ptr"]);
    expect(out[0]).toBe(2n ** 40n + 4n);
    lib.call("loom_sum_i64", [x, 2, out], ["ptr", "int64", "ptr"]);
    expect(out[0]).toBe(-1n);
  }));

  it("respects byteOffset of typed arrays and DataViews", withLibrary((lib) => {
    const backing = new ArrayBuffer(64);
    const whole = new Uint8Array(backing);
    lib.call("loom_fill_bytes", [new Uint8Array(backing, 8, 4), 4], ["ptr", "int32"]);
    lib.call("loom_fill_bytes", [new DataView(backing, 40, 2), 2], ["ptr", "int32"]);
    const expected = new Uint8Array(64);
    expected.fill(7, 8, 12);
    expected.fill(7, 40, 42);
    expect(Array.from(whole)).toEqual(Array.from(expected));
  }));
});

describe("NativeLibrary.call: scalars arrive as exact C values", () => {
  it("converts numbers and bigints of every kind, in 8-byte-aligned slots", withLibrary((lib) => {
    const ints = new BigInt64Array(7);
    const u64 = new BigUint64Array(1);
    const floats = new Float64Array(2);
    const aligned = new Uint8Array(10);
    lib.call(
      "loom_echo",
      [ints, u64, floats, aligned, -128, 255, -32768, 65535, -2147483648, 4294967295, -(2n ** 63n), 2n ** 64n - 1n, 0.1, 0.1],
      ["ptr", "ptr", "ptr", "ptr", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"],
    );
    expect(Array.from(ints)).toEqual([-128n, 255n, -32768n, 65535n, -2147483648n, 4294967295n, -(2n ** 63n)]);
    expect(u64[0]).toBe(2n ** 64n - 1n);
    expect(floats[0]).toBe(Math.fround(0.1));
    expect(floats[1]).toBe(0.1);
    expect(Array.from(aligned)).toEqual(new Array(10).fill(1));
  }));

  it("accepts bigints for narrow kinds and numbers for 64-bit kinds", withLibrary((lib) => {
    const ints = new BigInt64Array(7);
    const u64 = new BigUint64Array(1);
    lib.call(
      "loom_echo",
      [ints, u64, new Float64Array(2), new Uint8Array(10), 1n, 2n, 3n, 4n, 5n, 6n, 2 ** 53, 2 ** 60, 1, 2],
      ["ptr", "ptr", "ptr", "ptr", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"],
    );
    expect(Array.from(ints)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 2n ** 53n]);
    expect(u64[0]).toBe(2n ** 60n);
  }));
});

describe("NativeLibrary.call: errors", () => {
  it("throws on a missing symbol", withLibrary((lib) => {
    expect(() => lib.call("loom_missing", [], [])).toThrow(/no symbol "loom_missing"/);
  }));

  it("throws when args and kinds differ in length", withLibrary((lib) => {
    expect(() => lib.call("loom_noop", [1, 2], ["int32"])).toThrow(/2 args but 1 kinds/);
  }));

  it("throws on a kind that does not fit its value", withLibrary((lib) => {
    const f = new Float32Array(4);
    expect(() => lib.call("loom_noop", [f], ["int32"])).toThrow(/argument 0 is a Float32Array but has the scalar kind int32/);
    expect(() => lib.call("loom_noop", [3], ["ptr"])).toThrow(/argument 0 has kind "ptr" but is the number 3/);
    expect(() => lib.call("loom_noop", [1.5], ["int32"])).toThrow(/1.5 is not an integer/);
    expect(() => lib.call("loom_noop", [300], ["int8"])).toThrow(/300 is out of range/);
    expect(() => lib.call("loom_noop", [-1], ["uint32"])).toThrow(/out of range/);
    expect(() => lib.call("loom_noop", [2n ** 64n], ["uint64"])).toThrow(/out of range/);
    expect(() => lib.call("loom_noop", [1n], ["float64"])).toThrow(/bigint cannot be a float64/);
    expect(() => lib.call("loom_noop", ["1" as unknown as number], ["int32"])).toThrow(/a string is not a number or bigint/);
    expect(() => lib.call("loom_noop", [1], ["int128" as "int32"])).toThrow(/has kind a string/);
  }));

  it("throws after close, and close twice is harmless", withLibrary((lib) => {
    lib.close();
    lib.close();
    expect(() => lib.call("loom_noop", [], [])).toThrow(/is closed/);
    expect(() => lib.has("loom_noop")).toThrow(/is closed/);
  }));
});

describe("NativeLibrary.call: overhead", () => {
  it("adds microseconds at most to a trivial call (median of 10k)", withLibrary((lib) => {
    const a = new Float32Array(4);
    const args = [a, a, a, 4];
    const kinds = ["ptr", "ptr", "ptr", "int32"] as const;
    for (let i = 0; i < 1000; ++i) lib.call("loom_noop", args, kinds);
    const times: number[] = [];
    for (let i = 0; i < 10_000; ++i) {
      const t = process.hrtime.bigint();
      lib.call("loom_noop", args, kinds);
      times.push(Number(process.hrtime.bigint() - t));
    }
    times.sort((x, y) => x - y);
    const median = times[times.length >> 1]!;
    console.log(`NativeLibrary.call overhead: median ${(median / 1000).toFixed(2)} µs over 10k calls (4 args)`);
    expect(median).toBeLessThan(20_000);
  }));
});
