/**
 * OpenMP: the parallel loop's body is a `static` function with `restrict` parameters, called from
 * the loop, so GCC keeps the kernel's aliasing knowledge (it loses `restrict` when it outlines the
 * parallel region itself, and versions loops for aliasing). Private temporaries become the
 * function's locals (no `private(...)` clause); shared ones and enclosing loops' variables are
 * passed in.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { autoTestVsRef, generateCode, makeKernel, pipeline, split } from "../../src/index.js";
import { availableNative } from "../run/native-helpers.js";
import { compileBudgetMs, hasGcc } from "./compile-helpers.js";

const triad = () => makeKernel("{[i]: 0<=i<n}", "a[i] = b[i] + s*c[i]", ["a, b, c: float64[n]", "s: float64", "n: int32"], { name: "triad" });
const rowSums = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j])", ["a: float32[n,m]", "out: float32[n]", "n, m: int32"], { name: "rows" });

describe("OpenMP's parallel loop body as a function with restrict parameters", () => {
  it("the loop calls the body with the arguments and its own variable; privates are the body's locals", () => {
    const code = generateCode(split("i", 4096, { outerTag: "g.0" })(triad()), "openmp").deviceCode;
    expect(code).toContain("static void triad_body(double *__restrict__ a, double const *__restrict__ b, double const *__restrict__ c, double const s, int32_t const n, int32_t const i_outer)\n{\n  for (int i_inner = 0;");
    expect(code).toContain("  #pragma omp parallel for\n  for (int i_outer = 0; i_outer <= loopy_floor_div_int32(n - 1, 4096); ++i_outer)\n    triad_body(a, b, c, s, n, i_outer);\n}");
    const rows = generateCode(pipeline(split("i", 4, { outerTag: "g.0", innerTag: "ilp" }))(rowSums()), "openmp").deviceCode;
    expect(rows).not.toContain("private(");
    expect(rows).toMatch(/static void rows_body\([^)]*int32_t const i_outer\)\n\{\n  float acc_j\[4\];\n/);
    // The C target has no parallel loop: nothing outlined.
    expect(generateCode(split("i", 4096, { outerTag: "g.0" })(triad()), "c").deviceCode).not.toContain("_body");
  });

  it("outlined kernels give the reference's results on openmp", async () => {
    if (availableNative(["openmp"]).length === 0) return;
    for (const [n, m] of [[0, 3], [5, 7], [13, 1]] as const) {
      expect((await autoTestVsRef(rowSums(), split("i", 4, { outerTag: "g.0", innerTag: "ilp" })(rowSums()), { params: { n, m }, backend: "openmp" })).mismatches).toEqual([]);
    }
  }, 120_000);

  it.skipIf(!hasGcc)("gcc vectorizes the triad without versioning it for aliasing (-fopt-info-vec)", () => {
    const dir = mkdtempSync(join(tmpdir(), "loom-outline-"));
    writeFileSync(join(dir, "t.c"), generateCode(split("i", 4096, { outerTag: "g.0" })(triad()), "openmp").deviceCode);
    // gcc writes its optimization report to stderr.
    const r = spawnSync("gcc", ["-O3", "-fopenmp", "-c", "t.c", "-o", "t.o", "-fopt-info-vec-all"], { cwd: dir, encoding: "utf8", timeout: compileBudgetMs(1) });
    expect(r.status, r.stderr).toBe(0);
    const report = r.stderr;
    expect(report).toMatch(/loop vectorized/);
    expect(report).not.toMatch(/versioned for vectorization because of possible aliasing/);
  }, compileBudgetMs(1) + 30_000);
});
