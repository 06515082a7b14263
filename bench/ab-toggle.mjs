// A/B of a route switch inside ONE compiled build (issue 21): a test hook (`useTileMemo`,
// `useOwnerRanges`, …) off and on in alternating passes of the 50-variant tiled-matmul sweep, each
// pass with the poly memos emptied first, CPU time per never-seen variant. One module instance
// runs both sides, so the cross-instance noise of two loaded builds (an A/A of bench/ab-phases.mjs
// reads 0.65-1.02 per phase at load 10-15) does not enter; the median of per-pass ratios on/off is
// the figure, with the load beside it. Plain node:
//
//   node --expose-gc bench/ab-toggle.mjs dist-x transforms/fetch-tile.js useTileMemo 30
//   SCHED=only node --expose-gc bench/ab-toggle.mjs dist-x src/schedule/row-bounds.js useOwnerRanges 30
//   SCHED=codegen node --expose-gc bench/ab-toggle.mjs dist-x codegen/lower/x.js useX 30
//
// Times prefetch a+b (default), prefetch a+b and the scheduling passes (SCHED=1), the scheduling
// passes alone (SCHED=only), or generateCode(opencl) alone, the kernel scheduled before the clock
// starts (SCHED=codegen: names, lowering and rendering, the larger half of a variant).
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadavg } from "node:os";
import { matmulSweep } from "./ab-common.mjs";
const [dir, mod, hook, passesArg] = process.argv.slice(2); const R = Number(passesArg ?? 20);
const at = (p) => pathToFileURL(resolve(dir, p)).href;
const { clearPolyMemos } = await import(at("src/poly/index.js"));
const { SCHEDULE_PASSES, schedule } = await import(at("src/schedule/pipeline.js"));
const { generateCode } = await import(at("codegen/index.js"));
const use = (await import(at(mod)))[hook];
const { matmul: base, points: pts, steps } = await matmulSweep(dir);
const sched = process.env.SCHED === "1";
const codegen = process.env.SCHED === "codegen";
const pass = (on) => {
  use(on); clearPolyMemos(); let t = 0;
  for (const p of pts) {
    const ss = steps(p); let k = ss[2](ss[1](ss[0](base)));
    if (codegen) {
      k = ss[4](ss[3](k));
      schedule(k);
      const c = process.cpuUsage();
      generateCode(k, "opencl");
      const d = process.cpuUsage(c); t += (d.user + d.system) / 1000;
      continue;
    }
    const only = process.env.SCHED === "only";
    if (only) k = ss[4](ss[3](k));
    const c = process.cpuUsage(); if (!only) k = ss[4](ss[3](k));
    if (sched || only) { let s = { kernel: k }; for (const ps of SCHEDULE_PASSES) s = ps.run(s); }
    const d = process.cpuUsage(c); t += (d.user + d.system) / 1000;
  }
  use(true);
  return t / pts.length;
};
for (let w = 0; w < 4; w++) (pass(false), pass(true));
const gc = globalThis.gc ?? (() => {}); const off = [], on = [], r = [];
for (let i = 0; i < R; i++) { let a, b; if (i % 2) (gc(), a = pass(false), gc(), b = pass(true)); else (gc(), b = pass(true), gc(), a = pass(false)); off.push(a); on.push(b); r.push(b / a); }
const med = (xs) => [...xs].sort((u, v) => u - v)[xs.length >> 1];
const what = codegen ? "generateCode" : process.env.SCHED === "only" ? "schedule" : sched ? "prefetch a+b + schedule" : "prefetch a+b";
console.log(`${hook}: off ${med(off).toFixed(3)} ms, on ${med(on).toFixed(3)} ms per variant (${what}), on/off median ${med(r).toFixed(3)}, min off ${Math.min(...off).toFixed(3)} on ${Math.min(...on).toFixed(3)}; ${R} passes each; load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
