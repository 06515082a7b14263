/**
 * A kernel library's symbols are its own (issue 16.2): a kernel named like a function of the host
 * process (libc's `main`, `system`, `malloc`; libuv's `uv_run`; N-API's `napi_create_object`)
 * runs the kernel, never the host's function, and a lookup never returns a symbol the library
 * does not define.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLibrary, nativeStatus } from "../../native/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { run } from "../../src/run/index.js";
import { compileShared } from "../../src/run/native-compile.js";
import type { Kernel } from "../../src/ir/index.js";
import { nativeAvailable, type NativeBackend } from "../run/native-helpers.js";

const HOST_NAMES = {
  libc: ["main", "system", "printf", "exit", "malloc"],
  libuv: ["uv_run", "uv_loop_init"],
  "N-API": ["napi_create_object", "napi_module_register"],
} as const;
const ALL_NAMES = Object.values(HOST_NAMES).flat();

let cache: string;
let saved: string | undefined;
beforeAll(() => {
  saved = process.env.LOOM_CACHE_DIR;
  cache = mkdtempSync(join(tmpdir(), "loom-symbols-"));
  process.env.LOOM_CACHE_DIR = cache;
});
afterAll(() => {
  if (saved === undefined) delete process.env.LOOM_CACHE_DIR;
  else process.env.LOOM_CACHE_DIR = saved;
  rmSync(cache, { recursive: true, force: true });
});

describe("the compiled library binds its calls to its own functions", () => {
  const skip = !nativeAvailable("c");

  // Plain C, no headers: each function is defined under the host's name and called from an entry.
  const source = ALL_NAMES.filter((n) => n !== "printf").map((n, x) =>
    `void ${n}(int *out) { out[${x}] = ${x + 1}; }\n` +
    `__attribute__((visibility("default"))) void call_${n}(void **a) { ${n}((int *)a[0]); }\n`).join("");

  it.skipIf(skip)("an entry calling `main`, `exit`, `uv_run`, `napi_create_object` reaches the library's function", async () => {
    const lib = loadLibrary(await compileShared(source, { flags: ["-O0"] }, "test code"));
    const names = ALL_NAMES.filter((n) => n !== "printf");
    const out = new Int32Array(names.length);
    for (const n of names) lib.call(`call_${n}`, [out], ["ptr"]);
    expect(Array.from(out)).toEqual(names.map((_, x) => x + 1));
  });

  it.skipIf(skip)("only the entries are exported: the kernel functions are not symbols of the library", async () => {
    const lib = loadLibrary(await compileShared(source, { flags: ["-O0"] }, "test code"));
    expect(lib.has("call_main")).toBe(true);
    expect(lib.has("main")).toBe(false);
    expect(lib.has("uv_run")).toBe(false);
  });
});

describe("a lookup finds only what the library itself defines", () => {
  const skip = !nativeStatus().loaded || !nativeAvailable("c");

  it.skipIf(skip)("symbols of libc, libuv and N-API are not the library's: has() is false and call() throws", async () => {
    const lib = loadLibrary(await compileShared(`#include <stdlib.h>\nvoid *keep(void **a) { return malloc(1); }\n` +
      `__attribute__((visibility("default"))) void entry(void **a) { free(keep(a)); }\n`, { flags: ["-O0"] }, "test code"));
    expect(lib.has("entry")).toBe(true);
    for (const n of [...ALL_NAMES, "free", "napi_get_value_double"]) {
      expect(lib.has(n), n).toBe(false);
      expect(() => lib.call(n, [], []), n).toThrow(/defines no symbol/);
    }
  });
});

/** `out[i] = 2*a[i] + 1` named `name`. */
const scaled = (name: string): Kernel =>
  makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + 1", ["a, out: float32[n]", "n: int32"], { name });

describe.each(["c", "openmp", "opencl"] as NativeBackend[])("kernels named like host functions on %s", (backend) => {
  const skip = !nativeAvailable(backend);
  const a = Float32Array.from({ length: 37 }, (_, i) => i - 5);

  for (const [lib, names] of Object.entries(HOST_NAMES)) {
    it.skipIf(skip)(`${lib} names (${names.join(", ")}) give the interpreter's result`, async () => {
      for (const name of names) {
        const k = scaled(name);
        const want = await run(k, { a });
        const got = await run(k, { a }, { backend });
        expect(Array.from(got.out as Float32Array), name).toEqual(Array.from(want.out as Float32Array));
      }
    });
  }

  it.skipIf(skip)("OKL `@kernel void main(...)` gives the interpreter's result", async () => {
    const [k] = parseOkl(`@kernel void main(const int n, const float *a, float *out) {
  for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {
    out[i] = 3 * a[i];
  }
}`);
    const want = await run(k!, { a, n: a.length });
    const got = await run(k!, { a, n: a.length }, { backend });
    expect(Array.from(got.out as Float32Array)).toEqual(Array.from(want.out as Float32Array));
  });
});
