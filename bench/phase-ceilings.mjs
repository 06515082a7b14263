// Where a never-seen variant's time goes, and how much of it sharing across variants could save at
// most (issue 21). The 50-variant tiled-matmul sweep of bench/transforms.ts (c), CPU time per
// variant and phase (splits, prefetches, schedule, names + lowering, rendering), in two kinds of
// pass, alternating:
//
//   never seen: the poly memos emptied before the pass, as bench/transforms.ts (c) runs;
//   floor:      the same variants again with every poly answer remembered (by content or by
//               interned set) from the pass before, but each step handed an unfrozen copy of its
//               input kernel, so that no kernel-level memo (a step's, a prefetch's, the schedule's
//               per kernel object) can return a kernel seen before. What is left is the work done
//               anew for every new kernel object: building kernels, rewriting instructions, the
//               schedule's passes and checks, the lowering's logic, the AST and its printing.
//
// floor/never-seen per phase is the share that no sharing of poly answers, interning or factoring
// can remove (those remove at most never-seen - floor). Per phase, the median over every variant
// of every pass (bench/transforms.ts's neverSeenMs is a median too) and the mean, CPU time
// (process.cpuUsage: on a shared machine wall time counts waiting for a core); means include the
// garbage collector's share, medians of single variants mostly do not. Plain
// node, compiled build:
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x
//   node --expose-gc bench/phase-ceilings.mjs dist-x [passes]
import { cpuMs, importFrom, loadAverage, matmulSweep, median, phaseModules, PHASES } from "./ab-common.mjs";

const [dir, passesArg] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node --expose-gc bench/phase-ceilings.mjs DIST [passes]");
  process.exit(2);
}
const { clearPolyMemos } = await importFrom(dir, "src/poly/index.js");
const { scheduleForTarget, lowerSchedule, NameAllocator, openclTarget, options } = await phaseModules(dir);
const { matmul, points, steps } = await matmulSweep(dir);

/** One pass over the sweep: per variant, CPU ms per phase; and the code. */
function pass(floor) {
  if (!floor) clearPolyMemos();
  const per = [];
  const code = [];
  // An unfrozen copy has no kernel key: the steps' memos compute (see the header).
  const input = (k) => (floor ? { ...k } : k);
  for (const p of points) {
    const ss = steps(p);
    const tot = PHASES.map(() => 0);
    let k = matmul;
    let c = process.cpuUsage();
    for (const s of ss.slice(0, 3)) k = s(input(k));
    tot[0] += cpuMs(c);
    c = process.cpuUsage();
    for (const s of ss.slice(3)) k = s(input(k));
    tot[1] += cpuMs(c);
    c = process.cpuUsage();
    const s = scheduleForTarget(k, "opencl");
    tot[2] += cpuMs(c);
    c = process.cpuUsage();
    const names = NameAllocator.forKernel(s.kernel, "opencl");
    const lowered = lowerSchedule(s, options, names);
    tot[3] += cpuMs(c);
    c = process.cpuUsage();
    code.push(openclTarget.render(lowered, names, {}, s).deviceCode);
    tot[4] += cpuMs(c);
    per.push(tot);
  }
  return { per, code: code.join("\n") };
}

const gc = globalThis.gc ?? (() => {});
for (let w = 0; w < 6; w++) (pass(false), pass(true));
const rows = { cold: [], floor: [] };
let same = true;
for (let r = 0; r < Number(passesArg ?? 12); r++) {
  gc();
  const a = pass(false);
  gc();
  const b = pass(true);
  if (a.code !== b.code) same = false;
  rows.cold.push(...a.per);
  rows.floor.push(...b.per);
}
const sum = (xs) => xs.reduce((s, x) => s + x, 0);
// Per phase, the median and the mean over every variant of every pass of a kind.
const med = (rs) => PHASES.map((_, x) => median(rs.map((row) => row[x])));
const mean = (rs) => PHASES.map((_, x) => sum(rs.map((row) => row[x])) / rs.length);
const cold = med(rows.cold);
const floor = med(rows.floor);
const line = (label, xs) => `${label.padEnd(22)}${xs.map((t) => t.toFixed(3).padStart(10)).join("")}${sum(xs).toFixed(3).padStart(10)}`;
console.log(`CPU ms per never-seen variant (${dir}; 50-variant tiled-matmul sweep, OpenCL)`);
console.log(`${"".padEnd(22)}${PHASES.map((p) => p.padStart(10)).join("")}${"total".padStart(10)}`);
console.log(line("never seen", cold));
console.log(line("floor (answers shared)", floor));
console.log(`${"floor / never seen".padEnd(22)}${PHASES.map((_, x) => (floor[x] / cold[x]).toFixed(2).padStart(10)).join("")}${(sum(floor) / sum(cold)).toFixed(2).padStart(10)}`);
const [mc, mf] = [mean(rows.cold), mean(rows.floor)];
console.log(line("means: never seen", mc));
console.log(line("means: floor", mf));
console.log(`medians (first rows) and means over ${rows.cold.length} variants (${rows.cold.length / points.length} passes) of each kind; ${same ? "both kinds generate the same code" : "NOTE: the two kinds generated different code"}; load ${loadAverage()}`);
