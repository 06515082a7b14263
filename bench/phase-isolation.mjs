// What the per-variant floor (bench/phase-ceilings.mjs) is made of (issue 21). The 50-variant
// tiled-matmul sweep of bench/transforms.ts (c), OpenCL, every poly answer shared and each step
// handed an unfrozen copy of its input (the floor: no kernel-level memo answers). CPU ms per
// variant and phase, medians over passes, three ways:
//
//   in sequence:  as a sweep runs, each variant's phases one after the other (split, prefetch,
//                 schedule, lower, render): every step makes new instructions, domains and sets;
//   alone:        each phase over the same 50 input objects again (made once, before the clock),
//                 nothing in between: what identity-keyed memos below the kernel (per instruction,
//                 expression, domain, interned set) and hot data save when the objects repeat. An
//                 upper bound for carrying derived facts, not reachable by a never-seen variant,
//                 whose objects are new and mostly new in content too (its tile sizes);
//   phase-major:  the sweep with each phase run over all variants before the next (code and data
//                 of one phase stay hot), against variant after variant: what running a phase
//                 cold, after the others, costs.
//
// Both orders generate the same code (compared). A count of work where CPU time is noise: V8's
// function invocations per phase (precise coverage, `--calls`).
//
// No collection is forced between blocks: right after a full collection (global.gc()) the lowering
// of the same 50 schedules ran 3-6x slower for some 15 blocks (scavenges of 10-25 ms where they
// took 1-7), so a harness that collects before each block times that recovery, not the code.
// Plain node:
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x
//   node bench/phase-isolation.mjs dist-x [passes] [--calls]
import { Session } from "node:inspector/promises";
import { cpuMs, loadAverage, matmulSweep, median, phaseModules, PHASES } from "./ab-common.mjs";

const args = process.argv.slice(2);
const calls = args.includes("--calls");
const [dir, passesArg] = args.filter((a) => a !== "--calls");
if (!dir) {
  console.error("usage: node bench/phase-isolation.mjs DIST [passes] [--calls]");
  process.exit(2);
}
const { scheduleForTarget, lowerSchedule, NameAllocator, openclTarget, options } = await phaseModules(dir);
const { matmul, points, steps } = await matmulSweep(dir);
// An unfrozen copy has no kernel key: the steps' and the schedule's memos compute (the floor).
const copy = (k) => ({ ...k });

/** The phases of one variant, each a function of the previous one's output. */
const phaseFns = (p) => {
  const ss = steps(p);
  return [
    (k) => ss.slice(0, 3).reduce((x, s) => s(copy(x)), k),
    (k) => ss.slice(3).reduce((x, s) => s(copy(x)), k),
    (k) => scheduleForTarget(copy(k), "opencl"),
    (s) => {
      const names = NameAllocator.forKernel(s.kernel, "opencl");
      return { s, names, lowered: lowerSchedule(s, options, names) };
    },
    (l) => openclTarget.render(l.lowered, l.names, {}, l.s).deviceCode,
  ];
};
const fns = points.map(phaseFns);
// Every phase's input per variant, from one pass in sequence (answers shared from here on).
const inputs = fns.map((fs) => {
  const ins = [];
  let x = matmul;
  for (const f of fs) (ins.push(x), x = f(x));
  return ins;
});

/** In sequence: per phase, the CPU ms summed over the variants of one pass; and the code. */
function sequence() {
  const tot = PHASES.map(() => 0);
  const code = [];
  for (const fs of fns) {
    let x = matmul;
    fs.forEach((f, ph) => {
      const c = process.cpuUsage();
      x = f(x);
      tot[ph] += cpuMs(c);
    });
    code.push(x);
  }
  return { tot, code: code.join("\n") };
}

/** Phase-major: each phase over every variant before the next; CPU ms for the pass, and the code. */
function phaseMajor() {
  const c = process.cpuUsage();
  let xs = fns.map(() => matmul);
  for (let ph = 0; ph < PHASES.length; ph++) xs = xs.map((x, v) => fns[v][ph](x));
  return [cpuMs(c), xs.join("\n")];
}

/** Alone: phase `ph` over every variant's input, nothing else in between. */
function alone(ph) {
  const c = process.cpuUsage();
  let out;
  for (let v = 0; v < fns.length; v++) out = fns[v][ph](inputs[v][ph]);
  return [cpuMs(c), out];
}

const passes = Number(passesArg ?? 12);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
for (let w = 0; w < 6; w++) (sequence(), phaseMajor(), PHASES.forEach((_, ph) => alone(ph)));
const seq = PHASES.map(() => []);
const alo = PHASES.map(() => []);
const major = [];
let same = true;
const reference = sequence().code;
for (let r = 0; r < passes; r++) {
  const s = sequence();
  if (s.code !== reference) same = false;
  s.tot.forEach((t, ph) => seq[ph].push(t / fns.length));
  const [pm, pmCode] = phaseMajor();
  if (pmCode !== reference) same = false;
  major.push(pm / sum(s.tot));
  for (let ph = 0; ph < PHASES.length; ph++) alo[ph].push(alone(ph)[0] / fns.length);
}
const ms = seq.map(median);
const ma = alo.map(median);
const col = (xs) => xs.map((t) => t.toFixed(3).padStart(10)).join("");
console.log(`CPU ms per variant, floor (${dir}; 50-variant tiled-matmul sweep, OpenCL; medians of ${passes} passes)`);
console.log(`${"".padEnd(14)}${PHASES.map((p) => p.padStart(10)).join("")}${"total".padStart(10)}`);
console.log(`${"in sequence".padEnd(14)}${col(ms)}${sum(ms).toFixed(3).padStart(10)}`);
console.log(`${"alone".padEnd(14)}${col(ma)}${sum(ma).toFixed(3).padStart(10)}`);
console.log(`${"alone/seq".padEnd(14)}${PHASES.map((_, x) => (ma[x] / ms[x]).toFixed(2).padStart(10)).join("")}${(sum(ma) / sum(ms)).toFixed(2).padStart(10)}`);
console.log(`phase-major / in sequence (whole pass): ${median(major).toFixed(3)} (median of ${passes} pass pairs)`);
console.log(`${same ? "every pass generated the same code" : "NOTE: passes generated different code"}; load ${loadAverage()}`);

if (calls) {
  // Function invocations per variant and phase (deterministic): V8's precise coverage counts
  // every call; each take returns the counts since the last and resets them.
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  const take = async () => {
    const { result } = await session.post("Profiler.takePreciseCoverage");
    let n = 0;
    for (const s of result) for (const f of s.functions) n += f.ranges[0].count;
    return n;
  };
  const counts = PHASES.map(() => 0);
  for (const fs of fns) {
    let x = matmul;
    await take();
    for (let ph = 0; ph < fs.length; ph++) {
      x = fs[ph](x);
      counts[ph] += await take();
    }
  }
  await session.post("Profiler.stopPreciseCoverage");
  console.log(`${"calls".padEnd(14)}${PHASES.map((_, x) => (counts[x] / fns.length).toFixed(0).padStart(10)).join("")}${(sum(counts) / fns.length).toFixed(0).padStart(10)}`);
}
