/**
 * The CPU lowering drops private temporaries the kernel sets and never reads, with their
 * assignments (src/schedule/cpu-dead-stores.ts), so gcc -Wall sees no variable set but not used: a
 * class object's field its constructor sets for nobody (OCCA's class-template style), and a chain
 * `u = …; v = u + 1;` where only v is unread. What is read stays, and the kernel computes the same.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";
import { compileBudgetMs, hasGcc } from "../codegen/compile-helpers.js";

const SRC = `
struct counter {
  int count;
  float *s;
  counter(float *s_, int c) : count(c), s(s_) {}
  void put(int i, float v) { s[i] = 2.0f * v; }
  float get(int i) { return s[i]; }
};
@kernel void scaled(const int n, const float *a, float *b) {
  for (int g = 0; g < (n + 7) / 8; ++g; @outer) {
    @shared float s_v[8];
    counter c(s_v, g);
    float u = 0;
    float w = 0;
    for (int i = 0; i < 8; ++i; @inner) {
      u = g * 8 + i < n ? a[g * 8 + i] : 0;
      w = u + 1;
      c.put(i, u);
    }
    for (int i = 0; i < 8; ++i; @inner) if (g * 8 + i < n) b[g * 8 + i] = c.get((i + 1) % 8);
  }
}`;

if (!hasGcc) console.warn("[skip] CPU dead stores: gcc is not installed, the c and openmp code is not compiled");

describe("private temporaries set and never read are not emitted on CPU targets", () => {
  const [k] = parseOkl(SRC);

  it("drops the unread field and the unread chain end, keeps what is read", () => {
    for (const t of ["c", "openmp"] as const) {
      const code = generateCode(k!, t).deviceCode;
      expect(code).not.toMatch(/\bc_count\b/);
      expect(code).not.toMatch(/\bw\b/);
      expect(code).toMatch(/\bu\b/);
    }
    // GPU targets are unchanged (their compilers do not warn).
    expect(generateCode(k!, "cuda").deviceCode).toMatch(/\bc_count\b/);
  });

  it.skipIf(!hasGcc)("the c and openmp code compiles with gcc -Wall -Werror (one run)", () => {
    const dir = mkdtempSync(join(tmpdir(), "loom-dead-stores-"));
    const files = (["c", "openmp"] as const).map((t) => {
      const file = join(dir, `${t}.c`);
      writeFileSync(file, generateCode(k!, t).deviceCode);
      return file;
    });
    execFileSync("gcc", ["-c", "-Wall", "-Werror", "-fopenmp", ...files], { cwd: dir, stdio: "pipe", timeout: compileBudgetMs(1) });
  });

  it("computes the same on interp and openmp", async () => {
    const n = 13, a = Float32Array.from({ length: n }, (_, i) => i - 4.5);
    const want = Array.from({ length: n }, (_, j) => {
      const g = Math.floor(j / 8), i = j % 8, src = g * 8 + ((i + 1) % 8);
      return src < n ? 2 * a[src]! : 0;
    });
    for (const backend of ["interp", ...availableNative(["openmp"])]) {
      const r = await run(k!, { n, a, b: new Float32Array(n) } as never, { backend } as never);
      expect(Array.from(r.b as Float32Array), backend).toEqual(want);
    }
  });
});
