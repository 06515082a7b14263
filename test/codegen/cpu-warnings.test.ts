/**
 * The generated C of the classic kernels, the CPU benchmark's kernels (bench/cpu.ts, with the
 * schedules it measures) and the OKL kernels of bench/okl-peers compiles without a warning:
 * `gcc -c -O2 -Wall -Werror -fopenmp`, every kernel on OpenMP (the parallel body outlined) and the
 * plain-loop ones on C too, with `-fopenmp-simd` instead of `-fopenmp` (what docs/performance.md
 * tells users who compile the C themselves), one compiler invocation for each.
 * Skipped (with the reason) where gcc is absent.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode, parseOkl, pipeline, prioritize, split, type Kernel } from "../../src/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { matmul, matmulSchedule, OKL, PEERS, stencil, stencilSchedule, triad, triadSchedule } from "../../bench/cpu.js";
import { packedMatmul } from "../../bench/packing-matmul.js";
import { compileBudgetMs, hasGcc } from "./compile-helpers.js";
import { localFetch, tiledMatmul, vecadd } from "./kernels.js";

if (!hasGcc) console.warn("[skip] gcc is not installed here, so the -Wall -Werror compile of the CPU code is skipped (apt-get install gcc)");

/** The kernels, and whether each is also compiled for C (the OpenMP code differs only by the outlined parallel body). */
function kernels(): [Kernel, boolean][] {
  const mm = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "mm_tile" });
  const tile = pipeline(split("i", 4, { innerTag: "ilp", outerTag: "g.0" }), split("j", 8, { innerTag: "vec" }), prioritize("i_outer,j_outer,k,i_inner,j_inner"))(mm);
  const okl = OKL.map((name) => parseOkl(readFileSync(join(PEERS, `${name}.okl`), "utf8"), { filename: `${name}.okl` })[0]!);
  return [
    [vecadd(), true], [vecadd(16, "n mod 16 = 0 and n >= 16"), false], [tiledMatmul(), false], [localFetch(), true], [tile, true],
    [matmulSchedule(1024)(matmul), false], [matmulSchedule(1000)(matmul), true], [triadSchedule(triad), false], [stencilSchedule(stencil), false],
    // The packed matmul: micro-panel packing, vector-value tiles, plain / and % where proved.
    [packedMatmul(1000), true], [divisions(), true],
    ...okl.map((k): [Kernel, boolean] => [k, false]),
  ];
}

/** Floor divisions and moduli, plain where the numerator is provably non-negative, helpers elsewhere. */
function divisions(): Kernel {
  return makeKernel("{[i, j]: 0 <= i < n and -3 <= j < 13}", ["x[i, j + 3] = (4*i + j + 3) // 4 + (i - j) % 5 {id=a}", "y[i, j + 3] = ((j + 3) % 16) // 4 - (j // 3) {id=b}"],
    ["x, y: int32[n, 16]", "n: int32"], { name: "divisions" });
}

describe("generated CPU code compiles with -Wall -Werror", () => {
  const ks = kernels();
  it.skipIf(!hasGcc)(`${ks.length} kernels on openmp (${ks.filter(([, c]) => c).length} on c too, -fopenmp-simd), one gcc invocation each`, () => {
    const dir = mkdtempSync(join(tmpdir(), "loom-werror-"));
    const files = (target: "c" | "openmp") => ks.flatMap(([k, alsoC], n) => {
      if (target === "c" && !alsoC) return [];
      const file = `${n}_${k.name}_${target}.c`;
      writeFileSync(join(dir, file), generateCode(k, target).deviceCode);
      return [file];
    });
    for (const [target, openmp] of [["openmp", "-fopenmp"], ["c", "-fopenmp-simd"]] as const) {
      const list = files(target);
      try {
        execFileSync("gcc", ["-c", "-O2", "-Wall", "-Werror", openmp, ...list], { cwd: dir, stdio: "pipe", timeout: compileBudgetMs(list.length / 4) });
      } catch (e) {
        expect.fail(`gcc -Wall -Werror ${openmp} failed in ${dir}:\n${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`);
      }
    }
  }, compileBudgetMs(ks.length) + 60_000);
});
