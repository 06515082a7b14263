/**
 * Pipeline speed, as a tuning sweep sees it (`npx tsx bench/transforms.ts`):
 *
 *   (a) median warm time to build the matmul, apply the tiled pipeline (3 splits with g/l tags and
 *       2 prefetches into local memory) and generate OpenCL, and the share of each stage;
 *   (b) a 50-variant sweep over tile sizes 4–64, each variant a pipeline replayed from its JSON,
 *       each timed once right after (a): its first-seen code paths still run partly unoptimized;
 *   (c) the same sweep again with the JIT warm (after 1,000 never-seen variants), the memos
 *       emptied before each pass: the steady state of a long tuning sweep, where variants share
 *       only what they have in common;
 *   (d) each variant with every memo emptied first: nothing shared at all;
 *   (e) a sweep of 1,000 distinct variants (tile sizes 2–64, divisors of n and not), memos emptied
 *       once before: its total time per variant.
 *
 * With `--json` (`npm run bench:transforms -- --json`) the last line is one line of JSON:
 * `{"neverSeenMs": (c)'s median, "repeatedMs": (a)'s median, "sweep1000MsPerVariant": (e)}`.
 *
 * (a) is the best of five rounds (noise from other tenants only adds time), with the median over
 * every run beside it.
 *
 * Which JavaScript runs matters: under `tsx` the sources are transformed on load; users import the
 * package compiled by `tsc` (dist/). `npm run bench:transforms` builds dist and runs this file
 * compiled with plain node (the figure for users); `npx tsx bench/transforms.ts` runs the sources.
 */
import { performance } from "node:perf_hooks";
import { generateCode } from "../codegen/index.js";
import type { Kernel } from "../src/ir/index.js";
import { makeKernel } from "../src/parse/index.js";
import { clearPolyMemos } from "../src/poly/index.js";
import { applyPipeline, pipeline, prefetch, split, toJSON, type Step } from "../transforms/pipeline.js";

const buildMatmul = (): Kernel => makeKernel(
  "{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}",
  "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });

/** loopy's tiled matmul: i, j on work-groups and work-items, k in tiles, a and b tiles fetched to local memory. */
const tiled = (ti: number, tj: number, tk: number): Step => pipeline(
  split("i", ti, { outerTag: "g.0", innerTag: "l.1" }),
  split("j", tj, { outerTag: "g.1", innerTag: "l.0" }),
  split("k", tk),
  prefetch("a", { sweepInames: ["i_inner", "k_inner"] }),
  prefetch("b", { sweepInames: ["k_inner", "j_inner"] }),
);

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function once(p: Step): { build: number; apply: number; codegen: number; bytes: number } {
  const t0 = performance.now();
  const k = buildMatmul();
  const t1 = performance.now();
  const t = p(k);
  const t2 = performance.now();
  const code = generateCode(t, "opencl");
  const t3 = performance.now();
  return { build: t1 - t0, apply: t2 - t1, codegen: t3 - t2, bytes: code.deviceCode.length };
}

const p16 = tiled(16, 16, 16);
// Warm: V8 compiles the pipeline's hot paths with its optimizing tier only after some hundred
// calls, and goes on tiering up for a while (a sweep makes thousands): five warm-up runs left (a)
// half in the baseline tier, and after 200 the rounds below still got faster one by one.
for (let w = 0; w < 1000; w++) once(p16);
// Five rounds of 200 runs. Other tenants of a shared machine only ever add time, so the best
// round's median is the figure for the code (as `timeit` takes the best of its repeats); the
// median over every run is printed beside it, so the noise shows.
const rounds = Array.from({ length: 5 }, () => Array.from({ length: 200 }, () => once(p16)));
const totalOf = (r: { build: number; apply: number; codegen: number }) => r.build + r.apply + r.codegen;
const best = rounds.reduce((a, r) => (median(r.map(totalOf)) < median(a.map(totalOf)) ? r : a));
const everyRun = rounds.flat();
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
console.log("(a) tiled matmul 16/16/16: 3 splits (g/l tags) + 2 local prefetches, OpenCL");
console.log(`    median warm total ${fmt(median(best.map(totalOf)))} (best of 5 rounds of 200; ${fmt(median(everyRun.map(totalOf)))} over all 1000 runs; rounds ${rounds.map((r) => median(r.map(totalOf)).toFixed(2)).join(", ")})`);
console.log(`    best round: build ${fmt(median(best.map((r) => r.build)))}, pipeline ${fmt(median(best.map((r) => r.apply)))}, OpenCL ${fmt(median(best.map((r) => r.codegen)))} (${best[0]!.bytes} chars of device code)`);

// (b) 50 distinct variants: (ti, tj, tk) from {4, 8, 16, 32, 64}; each one replays its stored JSON.
const sizes = [4, 8, 16, 32, 64];
const points: [number, number, number][] = [];
for (const ti of sizes) for (const tj of sizes) for (const tk of [8, 16]) points.push([ti, tj, tk]);
const base = buildMatmul();
const jsons = points.slice(0, 50).map(([ti, tj, tk]) => JSON.stringify(toJSON(tiled(ti, tj, tk))));
/**
 * Each variant once, in order: total and per-variant times (and each variant's pipeline and
 * OpenCL parts, which two people speed up separately), and how many failed.
 */
function sweepOnce(): { total: number; per: number[]; apply: number[]; codegen: number[]; failed: number } {
  const t0 = performance.now();
  let failed = 0;
  const per: number[] = [];
  const apply: number[] = [];
  const codegen: number[] = [];
  for (const json of jsons) {
    const s = performance.now();
    try {
      const t = applyPipeline(base, JSON.parse(json));
      const m = performance.now();
      generateCode(t, "opencl");
      apply.push(m - s);
      codegen.push(performance.now() - m);
    } catch (e) {
      failed++;
      if (failed === 1) console.log(`    first failing variant: ${json}\n    ${(e as Error).message}`);
    }
    per.push(performance.now() - s);
  }
  return { total: performance.now() - t0, per, apply, codegen, failed };
}
const b = sweepOnce();
console.log(`(b) sweep of ${jsons.length} variants (tile sizes 4–64, replayed from JSON, pipeline + OpenCL), first pass: ${fmt(b.total)} total, ${fmt(b.total / jsons.length)} mean, ${fmt(median(b.per))} median per variant${b.failed ? `, ${b.failed} failed` : ""}`);
// (c) A long sweep's steady state: the JIT has seen every code path, and each sweep starts with
// empty memos (no answer remembered from an earlier pass), so only what variants share is reused.
// (a)'s warm-up repeats one variant, whose answers are remembered: it warms the memo hits, not the
// work of a never-seen variant. V8 goes on tiering that work up for about a thousand variants (on
// the quiet machine, 2026-11-30, a pass's median fell from 3.6 ms at the 5th pass to 1.9 ms by the
// 25th, and no further by the 40th), so 20 passes (1,000 never-seen variants) run before the clock.
for (let w = 0; w < 20; w++) {
  clearPolyMemos();
  sweepOnce();
}
const passes: { total: number; per: number[]; apply: number[]; codegen: number[] }[] = [];
for (let rep = 0; rep < 5; rep++) {
  clearPolyMemos();
  passes.push(sweepOnce());
}
const bestPass = passes.reduce((x, y) => (y.total < x.total ? y : x));
console.log(`(c) the same sweep again, warm JIT, memos emptied before each pass: ${fmt(bestPass.total / jsons.length)} mean, ${fmt(median(bestPass.per))} median per variant (best of 5 passes; pass means ${passes.map((q) => (q.total / jsons.length).toFixed(2)).join(", ")} ms)`);
console.log(`    of which (medians of that pass) pipeline ${fmt(median(bestPass.apply))}, OpenCL ${fmt(median(bestPass.codegen))}`);
// (d) Cold: every memo emptied before each variant, so nothing is shared even between variants.
const cold: number[] = [];
for (let rep = 0; rep < 3; rep++) {
  for (const json of jsons) {
    clearPolyMemos();
    const s = performance.now();
    generateCode(applyPipeline(base, JSON.parse(json)), "opencl");
    cold.push(performance.now() - s);
  }
}
console.log(`(d) each variant with every poly memo emptied first: ${fmt(median(cold))} median per variant (${cold.length} runs)`);
// (e) A long sweep: 1,000 variants never seen before, sharing only what they have in common.
const sizes1000 = [2, 3, 4, 6, 8, 12, 16, 24, 32, 64];
const jsons1000: string[] = [];
for (const ti of sizes1000) for (const tj of sizes1000) for (const tk of sizes1000) jsons1000.push(JSON.stringify(toJSON(tiled(ti, tj, tk))));
clearPolyMemos();
const t1000 = performance.now();
for (const json of jsons1000) generateCode(applyPipeline(base, JSON.parse(json)), "opencl");
const sweep1000 = (performance.now() - t1000) / jsons1000.length;
console.log(`(e) sweep of ${jsons1000.length} distinct variants (tile sizes 2–64 for i, j, k), memos emptied once before: ${fmt(sweep1000)} per variant`);
console.log(`    (${process.argv[1]?.endsWith(".js") ? "compiled JavaScript, plain node" : "TypeScript sources under tsx"})`);
if (process.argv.includes("--json")) {
  const round3 = (x: number) => Math.round(x * 1000) / 1000;
  console.log(JSON.stringify({ neverSeenMs: round3(median(bestPass.per)), repeatedMs: round3(median(best.map(totalOf))), sweep1000MsPerVariant: round3(sweep1000) }));
}
