// A/B of the lowering alone (issue 21), fine enough for changes of a few percent: the 50-variant
// tiled-matmul sweep's schedules (OpenCL) made once per build, then lowered again and again
// (NameAllocator + lowerSchedule, what generateCode does after the scheduling passes) by two
// compiled builds loaded side by side, in alternating blocks of the 50; CPU time, the median of
// the per-block ratios B/A. No collection is forced between blocks (after a forced full collection
// the same lowerings ran 3-6x slower for some 15 blocks: bench/phase-isolation.mjs). An A/A run
// gives the noise, with B a copy of A's folder (one folder twice is one set of modules, shared):
// 0.96-1.02 over four runs at load 10-13 on two cores, so a change of a few percent needs several
// runs. The 50 variants' OpenCL is compared first. Plain node:
//
//   npx tsc -p tsconfig.bench.json --outDir dist-a   # before the change; then after it:
//   npx tsc -p tsconfig.bench.json && node bench/ab-lower-fixed.mjs dist-a dist [blocks]
import { alternate, loadAverage, matmulSweep, phaseModules, timeBlock } from "./ab-common.mjs";

const [dirA, dirB, blocksArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error("usage: node bench/ab-lower-fixed.mjs DIST_A DIST_B [blocks]");
  process.exit(2);
}

async function load(dir) {
  const { scheduleForTarget, lowerSchedule, NameAllocator, openclTarget, options } = await phaseModules(dir);
  const { matmul, variants } = await matmulSweep(dir);
  const scheds = variants.map((v) => scheduleForTarget(v(matmul), "opencl"));
  return {
    code: () => scheds.map((s) => {
      const names = NameAllocator.forKernel(s.kernel, "opencl");
      return openclTarget.render(lowerSchedule(s, options, names), names, {}, s).deviceCode;
    }).join("\n"),
    /** [wall, CPU] ms per variant of one block (the 50 schedules lowered once each). */
    block: () => timeBlock(() => {
      for (const s of scheds) lowerSchedule(s, options, NameAllocator.forKernel(s.kernel, "opencl"));
    }, 1).map((ms) => ms / scheds.length),
  };
}

const a = await load(dirA);
const b = await load(dirB);
if (a.code() !== b.code()) {
  console.log("the two builds generate different OpenCL for the sweep");
  process.exit(1);
}
const blocks = Number(blocksArg ?? 80);
// Without --expose-gc, alternate collects nothing between blocks (see above).
const r = alternate(a.block, b.block, blocks, 30);
console.log(`lowering of fixed schedules: A ${r.cpu[0].toFixed(3)} ms, B ${r.cpu[1].toFixed(3)} ms per variant (CPU); B/A median ${r.cpu[2].toFixed(3)} over ${blocks} blocks; load ${loadAverage()}`);
