// Shared by the A/B scripts of compiled builds (bench/ab-okl.mjs): load a build's module by path,
// time a block in wall and CPU time, and alternate blocks of two builds so that a shared machine's
// noise hits both alike; the median of the per-block ratios B/A is the figure. Plain node.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadavg } from "node:os";

/** A module of the build in `dir` (e.g. dist-a), by its path inside the build. */
export const importFrom = (dir, path) => import(pathToFileURL(resolve(dir, path)).href);

/** CPU milliseconds (user + system) since `since` (a process.cpuUsage()). */
export function cpuMs(since) {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

export const median = (xs) => [...xs].sort((u, v) => u - v)[xs.length >> 1];

/** The load average, as "1.2 3.4 5.6". */
export const loadAverage = () => loadavg().map((l) => l.toFixed(1)).join(" ");

/** [wall ms, CPU ms] of `reps` calls of `f`, divided by `reps`. */
export function timeBlock(f, reps) {
  const c = process.cpuUsage();
  const t = performance.now();
  for (let r = 0; r < reps; r++) f();
  return [(performance.now() - t) / reps, cpuMs(c) / reps];
}

/**
 * `blocks` alternating blocks of `a()` and `b()` (each returns [wall, CPU]), after `warm` of each,
 * which goes first swapping each block (garbage a block leaves is collected in the next); with
 * --expose-gc, garbage is collected between blocks, outside the timed part. Returns the medians:
 * { wall: [a, b, b/a], cpu: [a, b, b/a], best: [a cpu, b cpu] }.
 */
export function alternate(a, b, blocks, warm = 3) {
  for (let w = 0; w < warm; w++) (a(), b());
  const gc = globalThis.gc ?? (() => {});
  const rows = [];
  for (let k = 0; k < blocks; k++) {
    let x;
    let y;
    if (k % 2 === 0) (gc(), x = a(), gc(), y = b());
    else (gc(), y = b(), gc(), x = a());
    rows.push([x, y]);
  }
  const col = (f) => median(rows.map(f));
  return {
    wall: [col(([x]) => x[0]), col(([, y]) => y[0]), col(([x, y]) => y[0] / x[0])],
    cpu: [col(([x]) => x[1]), col(([, y]) => y[1]), col(([x, y]) => y[1] / x[1])],
    best: [Math.min(...rows.map(([x]) => x[1])), Math.min(...rows.map(([, y]) => y[1]))],
  };
}

/** One line of `alternate`'s result: label, medians of A and B, and B/A, wall and CPU, with the load. */
export function report(label, r) {
  const f = (x) => x.toFixed(2);
  return `${label}: wall A ${f(r.wall[0])} ms, B ${f(r.wall[1])} ms, B/A ${r.wall[2].toFixed(3)}; CPU A ${f(r.cpu[0])} ms, B ${f(r.cpu[1])} ms, B/A ${r.cpu[2].toFixed(3)} (best A ${f(r.best[0])}, B ${f(r.best[1])}); load ${loadAverage()}`;
}

/**
 * bench/transforms.ts's tiled-matmul sweep in the build in `dir`: the kernel, its 50 tile-size
 * points (ti, tj of 4..64, tk of 8 or 16), each point's steps (3 splits with g/l tags, 2 local
 * prefetches) and each point's pipeline.
 */
export async function matmulSweep(dir) {
  const { makeKernel } = await importFrom(dir, "src/parse/index.js");
  const { pipeline, prefetch, split } = await importFrom(dir, "transforms/pipeline.js");
  const matmul = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
  const sizes = [4, 8, 16, 32, 64];
  const points = [];
  for (const ti of sizes) for (const tj of sizes) for (const tk of [8, 16]) points.push([ti, tj, tk]);
  const steps = ([ti, tj, tk]) => [split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
    prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] })];
  return { matmul, points, steps, variants: points.map((p) => pipeline(...steps(p))) };
}

/** The five phases of a sweep variant the phase benches time, and what they call in build `dir`. */
export const PHASES = ["split", "prefetch", "schedule", "lower", "render"];

export async function phaseModules(dir) {
  const { scheduleForTarget } = await importFrom(dir, "codegen/pipeline.js");
  const { lowerSchedule } = await importFrom(dir, "codegen/lower.js");
  const { NameAllocator } = await importFrom(dir, "codegen/names.js");
  const { openclTarget } = await importFrom(dir, "codegen/targets/opencl.js");
  return { scheduleForTarget, lowerSchedule, NameAllocator, openclTarget, options: openclTarget.d.lowerOptions };
}
