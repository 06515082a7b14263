// The lowering alone (issue 21), CPU time per tiled-matmul variant, of one or more compiled builds
// side by side: the 50-variant sweep of bench/transforms.ts on OpenCL, poly memos emptied before
// each pass, each variant transformed and scheduled (not timed) and its schedule lowered
// (lowerSchedule, timed). Passes of the builds alternate, the order reversed every other pass.
// Prints each build's median (and best) ms per variant and, for two builds, B/A of the medians and
// the median of the per-pass ratios, with the load average. Plain node:
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x-base    # before the change
//   npx tsc -p tsconfig.bench.json --outDir dist-x         # after
//   node --expose-gc bench/lower-sweep.mjs dist-x-base dist-x [passes]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadavg } from "node:os";
import { matmulSweep } from "./ab-common.mjs";
const dirs = process.argv.slice(2).filter((a) => !/^\d+$/.test(a));
const passes = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 10);
async function load(dir) {
  const at = (p) => import(pathToFileURL(resolve(dir, p)).href);
  const { scheduleForTarget } = await at("codegen/pipeline.js");
  const { lowerSchedule } = await at("codegen/lower.js");
  const { NameAllocator } = await at("codegen/names.js");
  const { openclTarget } = await at("codegen/targets/opencl.js");
  const { clearPolyMemos } = await at("src/poly/index.js");
  const { matmul: base, variants: ps } = await matmulSweep(dir);
  const pass = () => {
    clearPolyMemos();
    let ms = 0;
    for (const p of ps) {
      const s = scheduleForTarget(p(base), "opencl");
      const names = NameAllocator.forKernel(s.kernel, "opencl");
      const c = process.cpuUsage();
      lowerSchedule(s, openclTarget.d.lowerOptions, names);
      const d = process.cpuUsage(c);
      ms += (d.user + d.system) / 1000;
    }
    return ms / ps.length;
  };
  return { pass };
}
const L = [];
for (const d of dirs) L.push(await load(d));
for (let w = 0; w < 3; w++) for (const l of L) l.pass();
const res = L.map(() => []);
for (let r = 0; r < passes; r++) {
  const order = r % 2 === 0 ? L.map((_, i) => i) : L.map((_, i) => i).reverse();
  for (const i of order) { globalThis.gc?.(); res[i].push(L[i].pass()); }
}
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
dirs.forEach((d, i) => console.log(`${d}: lower ms/variant median ${med(res[i]).toFixed(3)} (best ${Math.min(...res[i]).toFixed(3)})`));
if (dirs.length === 2) console.log(`B/A ${(med(res[1]) / med(res[0])).toFixed(3)}; per-pass ratios median ${med(res[1].map((b, i) => b / res[0][i])).toFixed(3)}`);
console.log(`load ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
