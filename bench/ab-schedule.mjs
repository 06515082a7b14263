// A/B of two compiled builds' scheduling of one big kernel, in one process (as bench/ab.mjs does
// for the tiled-matmul sweep): bench/scale.ts's kernels, scheduled for C by each build in
// alternating blocks; the median of the per-block CPU-time ratios B/A is the figure to trust on
// a shared machine (the load average is printed beside it).
//
//   node --expose-gc bench/ab-schedule.mjs DIST_A DIST_B [gbar|make|okl] [instructions] [blocks]
//   node --expose-gc bench/ab-schedule.mjs DIST_A DIST_B sweep - [blocks]
//
// sweep: bench/ab.mjs's 50 tiled-matmul variants, each block with the poly memos emptied and the
// variants made anew (not timed), then only their scheduling for OpenCL timed (per variant). Only
// the sweep needs no bench/scale.js.
//
// Both builds need bench/scale.js: compile with a tsconfig that includes bench/scale.ts, e.g.
// `npx tsc -p tsconfig.bench.json --outDir dist-x` after adding it to that config's include, or
// the scratch one of the change. Each build makes its own kernel (its own parser and split), and
// each block schedules a fresh copy of it (a new identity: the schedule memo misses) with the
// poly memos emptied first, outside the timed part. The two builds' schedules must print alike.
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dirA, dirB, route = "gbar", sizeArg = "3000", blocksArg = "9"] = process.argv.slice(2);
if (!dirA || !dirB || !["gbar", "make", "okl", "sweep"].includes(route)) {
  console.error("usage: node --expose-gc bench/ab-schedule.mjs DIST_A DIST_B [gbar|make|okl|sweep] [instructions] [blocks]");
  process.exit(2);
}

async function load(dir) {
  const at = (p) => pathToFileURL(resolve(dir, p)).href;
  const { scheduleForTarget } = await import(at("codegen/index.js"));
  const { showSchedule } = await import(at("src/schedule/index.js"));
  const { clearPolyMemos } = await import(at("src/poly/index.js"));
  if (route === "sweep") return sweep(at, scheduleForTarget, showSchedule, clearPolyMemos);
  const { makeElementKernel, oklElementKernel } = await import(at("bench/scale.js")).catch(() => {
    console.error(`${dir}/bench/scale.js is missing: compile bench/scale.ts into ${dir} too (add it to the tsconfig's include)`);
    process.exit(2);
  });
  const { parseOkl } = await import(at("src/okl/index.js"));
  const { splitIname } = await import(at("transforms/index.js"));
  const n = Number(sizeArg);
  const k = route === "okl"
    ? splitIname(parseOkl(oklElementKernel(n))[0], "m", 4)
    : splitIname(makeElementKernel(n, route === "gbar"), "e", 4, { outerTag: "g.0", innerTag: "l.0" });
  const fresh = () => Object.freeze({ ...k });
  return {
    text: () => showSchedule(scheduleForTarget(fresh(), "c")),
    /** One block: [wall ms, CPU ms] of scheduling a fresh copy for C. */
    block: () => {
      clearPolyMemos();
      const copy = fresh();
      globalThis.gc?.();
      const c = process.cpuUsage();
      const t = performance.now();
      scheduleForTarget(copy, "c");
      const d = process.cpuUsage(c);
      return [performance.now() - t, (d.user + d.system) / 1000];
    },
  };
}

/** The sweep: 50 tiled-matmul variants (bench/ab.mjs's), scheduled for OpenCL; block times are per variant. */
async function sweep(at, scheduleForTarget, showSchedule, clearPolyMemos) {
  const { makeKernel } = await import(at("src/parse/index.js"));
  const { pipeline, prefetch, split } = await import(at("transforms/pipeline.js"));
  const base = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
  const tiled = (ti, tj, tk) => pipeline(split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
    prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }));
  const all = [];
  for (const ti of [4, 8, 16, 32, 64]) for (const tj of [4, 8, 16, 32, 64]) for (const tk of [8, 16]) all.push(tiled(ti, tj, tk));
  return {
    text: () => all.map((p) => showSchedule(scheduleForTarget(p(base), "opencl"))).join("\n"),
    block: () => {
      clearPolyMemos();
      // A fresh identity each (the schedule memo misses); the poly answers the transformations
      // found stay, as for a never-seen variant of a sweep.
      const ks = all.map((p) => Object.freeze({ ...p(base) }));
      globalThis.gc?.();
      const c = process.cpuUsage();
      const t = performance.now();
      for (const k of ks) scheduleForTarget(k, "opencl");
      const d = process.cpuUsage(c);
      return [(performance.now() - t) / ks.length, (d.user + d.system) / 1000 / ks.length];
    },
  };
}

const median = (xs) => [...xs].sort((u, v) => u - v)[xs.length >> 1];
const A = await load(dirA);
const B = await load(dirB);
if (A.text() !== B.text()) console.log("note: the two builds' schedules differ");
const wall = [[], [], []];
const cpu = [[], [], []];
for (let b = 0; b < Number(blocksArg); b++) {
  // Alternate which build goes first.
  const [x, y] = b % 2 === 0 ? [A.block(), B.block()] : ((r) => [r[1], r[0]])([B.block(), A.block()]);
  wall[0].push(x[0]); wall[1].push(y[0]); wall[2].push(y[0] / x[0]);
  cpu[0].push(x[1]); cpu[1].push(y[1]); cpu[2].push(y[1] / x[1]);
}
const f = (v) => v.toFixed(route === "sweep" ? 3 : 1);
const what = route === "sweep" ? "sweep (per variant): scheduleForTarget(opencl)" : `${route} ${sizeArg}: scheduleForTarget(c)`;
console.log(`${what} wall A ${f(median(wall[0]))} ms, B ${f(median(wall[1]))} ms, B/A median ${median(wall[2]).toFixed(3)}`);
console.log(`${what} CPU time A ${f(median(cpu[0]))} ms, B ${f(median(cpu[1]))} ms, B/A median ${median(cpu[2]).toFixed(3)} over ${cpu[2].length} blocks; load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
