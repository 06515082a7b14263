/**
 * OKL import at scale: a generated element-local assembly kernel of the shape HPC codes unroll by
 * hand (a @shared operator matrix, @exclusive geometric factors, then one statement per unrolled
 * entry, each a chain of private locals), at several sizes. Prints the import time (parseOkl, CPU
 * time, median of 5) and the C generation time per size and their ratio to the smallest size's per-line cost, so a
 * super-linear cost shows as a growing ratio, and where the import's time goes: the front end
 * (preprocessing, parsing, validation: parseOklAst) and the lowering to a kernel (lowerOkl) of a
 * unit just parsed (as an import lowers it: re-lowering one unit again and again is cheaper, its
 * nodes long promoted out of the young generation), each a median of 5, and the collector's
 * pauses per import (the scavenges that copy the import's live young objects, its tokens, AST and
 * kernel; V8's helper threads make the CPU time more than the wall time). Issue 20's budget: 100
 * ms for a 1,000-line kernel.
 * Run: `npx tsx bench/okl-scale.ts [lines...]` (TypeScript under tsx, as bench:scale runs), or the
 * compiled build, which is what a user's import runs: `npx tsc -p tsconfig.bench.json && node
 * dist/bench/okl-scale.js [lines...]` (the first line says which). The import is also given in wall
 * time (on a quiet machine it is less than the CPU time, which counts V8's collector threads too).
 * Two builds side by side (a change's effect): bench/ab-okl.mjs. `--first 1000`: the first import
 * in a fresh process (see firstImport).
 */
import { cpus, loadavg } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { generateCode, parseOkl } from "../src/index.js";
import { parseOklAst } from "../src/okl/syntax/parse-okl-ast.js";
import { lowerOkl } from "../src/okl/lower/lower-okl.js";

/** An assembly kernel of about `lines` lines: `lines - 20` unrolled statements in one @inner loop. */
export function assemblyKernel(lines: number): string {
  const n = Math.max(1, lines - 20);
  return assemblySource((k) => k < n);
}

/**
 * The assembly kernel with unrolled statements `k = 0, 1, …` while `more(k, bodyLines)` (a chain
 * of private locals, every fourth one stored): bench/scale.ts sizes it by instructions instead.
 */
export function assemblySource(more: (k: number, bodyLines: number) => boolean): string {
  const body: string[] = [];
  for (let k = 0; more(k, body.length); k++) {
    const prev = k === 0 ? "r_G00" : `t${k - 1}`;
    body.push(`      const dfloat t${k} = r_G00 * s_D[${k % 16} * p_Np + n] + r_G01 * s_D[n * p_Np + ${(k * 7) % 16}] + ${prev} * r_G11;`);
    if (k % 4 === 3) body.push(`      A[(e * p_Np + n) * p_Nacc + ${(k >> 2) % 64}] += t${k} - t${k - 2};`);
  }
  return `#define dfloat double
#define p_Np 16
#define p_Nacc 64
@kernel void assemble(const int Nelements, @restrict const dfloat *ggeo, @restrict const dfloat *D, @restrict dfloat *A) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared dfloat s_D[p_Np * p_Np];
    @exclusive dfloat r_G00, r_G01, r_G11;
    for (int n = 0; n < p_Np; ++n; @inner) {
      for (int m = 0; m < p_Np; ++m) s_D[m * p_Np + n] = D[m * p_Np + n];
      r_G00 = ggeo[3 * (e * p_Np + n) + 0];
      r_G01 = ggeo[3 * (e * p_Np + n) + 1];
      r_G11 = ggeo[3 * (e * p_Np + n) + 2];
    }
    for (int n = 0; n < p_Np; ++n; @inner) {
${body.join("\n")}
    }
  }
}
`;
}

/** `f`'s result and the CPU time it took (user + system, ms): less disturbed than wall time on a shared machine. */
function time<T>(f: () => T): [T, number] {
  const t0 = process.cpuUsage();
  const r = f();
  const d = process.cpuUsage(t0);
  return [r, (d.user + d.system) / 1000];
}

/** The median CPU time of `runs` calls of `f`. */
function median(f: () => unknown, runs: number): number {
  const ts = Array.from({ length: runs }, () => time(f)[1]).sort((a, b) => a - b);
  return ts[ts.length >> 1]!;
}

/** The median CPU time and the median wall time of `runs` imports of `src`. */
function medianImport(src: string, runs: number): [number, number] {
  const walls: number[] = [];
  const cpu = median(() => {
    const t = performance.now();
    parseOkl(src);
    walls.push(performance.now() - t);
  }, runs);
  return [cpu, walls.sort((a, b) => a - b)[walls.length >> 1]!];
}

/** The median CPU time of lowering `runs` units of `src`, each just parsed (not timed), as an import lowers one. */
function medianFreshLowering(src: string, runs: number): number {
  const ts: number[] = [];
  for (let r = 0; r < runs; r++) {
    const unit = parseOklAst(src);
    ts.push(time(() => lowerOkl(unit, { source: src }))[1]);
  }
  return ts.sort((a, b) => a - b)[ts.length >> 1]!;
}

/** The collector's pause time per import over `runs` imports (milliseconds; the observer reports after a turn of the loop). */
async function gcPerImport(src: string, runs: number): Promise<number> {
  let paused = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) paused += e.duration;
  });
  obs.observe({ entryTypes: ["gc"] });
  for (let r = 0; r < runs; r++) parseOkl(src);
  await new Promise((resolve) => setTimeout(resolve, 20));
  obs.disconnect();
  return paused / runs;
}

/**
 * `--first N`: the first import of an N-line kernel in this fresh process, what a user's one-off
 * import costs: CPU for loading the modules (with Node's start), the first import, and the second
 * (the difference is V8 compiling and learning the code: interpreter, baseline and optimizing tiers).
 */
function firstImport(lines: number, loaded: number): void {
  const src = assemblyKernel(lines);
  const [, first] = time(() => parseOkl(src));
  const [, second] = time(() => parseOkl(src));
  console.log(`${lines} lines in a fresh process: modules and Node's start ${loaded.toFixed(0)} ms, first import ${first.toFixed(1)} ms, second ${second.toFixed(1)} ms (CPU; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")})`);
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--first") {
  const started = process.cpuUsage();
  firstImport(Number(process.argv[3] ?? 1000), (started.user + started.system) / 1000);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv.slice(2).map(Number).filter((x) => x > 0);
  let base: number | undefined;
  const compiled = import.meta.url.endsWith(".js");
  console.log(`${compiled ? "compiled build (node)" : "TypeScript under tsx"}; CPU time (user + system), median of 5 imports after 3 (and 20 of 300 lines first); load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}, ${cpus().length} CPUs`);
  // The JIT first: 3 imports leave much of the code unoptimized, and the first size measured read
  // as a fixed cost per import (300 lines first: 119 ms, then 16 ms in the same run).
  const warm = assemblyKernel(300);
  for (let w = 0; w < 20; w++) parseOkl(warm);
  for (const lines of sizes.length ? sizes : [100, 300, 1000]) {
    const src = assemblyKernel(lines);
    for (let w = 0; w < 3; w++) parseOkl(src); // warm-up (JIT)
    const [imp, wall] = medianImport(src, 5);
    const k = parseOkl(src)[0]!;
    const [, gen] = time(() => generateCode(k, "c"));
    const perLine = imp / lines;
    base ??= perLine;
    const front = median(() => parseOklAst(src), 5);
    const lower = medianFreshLowering(src, 5);
    const gc = await gcPerImport(src, 5);
    console.log(`${String(lines).padStart(5)} lines, ${String(k.instructions.length).padStart(5)} instructions: import ${imp.toFixed(1)} ms (wall ${wall.toFixed(1)} ms; ${(perLine * 1000).toFixed(0)} ms per 1,000 lines, ${(perLine / base).toFixed(2)}x per line vs smallest; front end ${front.toFixed(1)} ms, lowering ${lower.toFixed(1)} ms, collector pauses ${gc.toFixed(1)} ms), C generation ${gen.toFixed(1)} ms`);
  }
}
