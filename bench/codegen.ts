/**
 * Code generation speed, as a sweep sees it: the untransformed matmul is built ONCE with
 * makeKernel; every variant applies splitIname (i, j, k) and tagInames from transforms/ and then
 * generates OpenCL. `npx tsx bench/codegen.ts` (or, compiled: `node dist/bench/codegen.js`)
 *
 *   (a) median warm time of one tiled-matmul 16/16/16 variant (transform + generate)
 *   (b) a sweep of 500 split-factor variants (factors 4, 8, 16, 32 for i/j/k, cycling)
 *   (c) the share of each stage: transform, schedule, lowering, printing
 *
 * The integer-set operations memoize their answers by the sets' content (src/poly/memo.ts), so a
 * variant seen before (or sharing sub-questions with one) is cheaper than a new one. Two more
 * figures say what that is worth: a sweep of 500 distinct variants (factors 2..9, no variant
 * repeats) and the 16/16/16 variant with every memo cleared first (the cold cost).
 */
import { performance } from "node:perf_hooks";
import { generateCode, lowerSchedule, scheduleForTarget } from "../codegen/index.js";
import { openclTarget } from "../codegen/targets/opencl.js";
import type { Kernel } from "../src/ir/index.js";
import { makeKernel } from "../src/parse/index.js";
import { clearPolyMemos } from "../src/poly/index.js";
import { splitIname, tagInames } from "../transforms/index.js";

/** The untransformed matmul, built once for the whole sweep. */
const base: Kernel = makeKernel(
  "{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}",
  "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul" });

/** One variant: i split with its tags given to splitIname, j tagged afterwards with tagInames. */
function variant(fi: number, fj: number, fk: number): Kernel {
  let k = splitIname(base, "i", fi, { outerTag: "g.0", innerTag: "l.1" });
  k = splitIname(k, "j", fj);
  k = splitIname(k, "k", fk);
  return tagInames(k, { j_outer: "g.1", j_inner: "l.0" });
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const STAGES = ["transform", "schedule", "lowering", "printing"] as const;
type Stage = (typeof STAGES)[number];

/** One variant, stage by stage, with the same calls generateCode makes for OpenCL. */
function staged(f: readonly [number, number, number], into: Record<Stage, number[]>): string {
  const t0 = performance.now();
  const k = variant(...f);
  const t1 = performance.now();
  const s = scheduleForTarget(k, "opencl");
  const t2 = performance.now();
  const lowered = lowerSchedule(s, openclTarget.d.lowerOptions);
  const t3 = performance.now();
  const code = openclTarget.render(lowered).deviceCode;
  const t4 = performance.now();
  into.transform.push(t1 - t0);
  into.schedule.push(t2 - t1);
  into.lowering.push(t3 - t2);
  into.printing.push(t4 - t3);
  return code;
}

const F16: [number, number, number] = [16, 16, 16];

// The staged path must print exactly what generateCode prints.
if (staged(F16, { transform: [], schedule: [], lowering: [], printing: [] }) !== generateCode(variant(...F16), "opencl").deviceCode) {
  throw new Error("bench: the staged pipeline differs from generateCode");
}

// Warm-up: JIT the whole pipeline on a few shapes, then on never-seen ones (factors 20..27, which
// no measurement below uses): repeated shapes answer from the memos, so without them the paths
// that compute answers (gist, projection, emptiness) would still be cold in the first sweep of
// new variants, and (b') would measure their compilation.
for (let w = 0; w < 200; w++) generateCode(variant(4 << (w % 4), 16, 8 << (w % 3)), "opencl");
for (let w = 0; w < 300; w++) generateCode(variant(20 + (w % 8), 20 + (Math.floor(w / 8) % 8), 20 + Math.floor(w / 64)), "opencl");

// (a) one variant, transform + generate.
const REPS = 200;
const one: number[] = [];
for (let r = 0; r < REPS; r++) {
  const t0 = performance.now();
  generateCode(variant(...F16), "opencl");
  one.push(performance.now() - t0);
}

// (b) 500 split-factor variants.
const factors = [4, 8, 16, 32];
const variants: [number, number, number][] = [];
for (let v = 0; variants.length < 500; v++) variants.push([factors[v % 4]!, factors[Math.floor(v / 4) % 4]!, factors[Math.floor(v / 16) % 4]!]);
const s0 = performance.now();
for (const f of variants) generateCode(variant(...f), "opencl");
const sweep = performance.now() - s0;

// (b') 500 distinct variants: factors 2..9 for i/j/k, no two alike.
const distinct: [number, number, number][] = [];
for (let v = 0; distinct.length < 500; v++) distinct.push([2 + (v % 8), 2 + (Math.floor(v / 8) % 8), 2 + Math.floor(v / 64)]);
clearPolyMemos();
const d0 = performance.now();
for (const f of distinct) generateCode(variant(...f), "opencl");
const sweepDistinct = performance.now() - d0;

// (a') cold: every memo cleared before each rep.
const cold: number[] = [];
for (let r = 0; r < REPS; r++) {
  clearPolyMemos();
  const t0 = performance.now();
  generateCode(variant(...F16), "opencl");
  cold.push(performance.now() - t0);
}

// (c) stages: medians for the 16/16/16 variant, totals over the sweep.
const st16: Record<Stage, number[]> = { transform: [], schedule: [], lowering: [], printing: [] };
for (let r = 0; r < REPS; r++) staged(F16, st16);
const stSweep: Record<Stage, number[]> = { transform: [], schedule: [], lowering: [], printing: [] };
for (const f of variants) staged(f, stSweep);
// The distinct sweep once more, stage by stage, memos cleared first (new variants, cold answers).
const stDistinct: Record<Stage, number[]> = { transform: [], schedule: [], lowering: [], printing: [] };
const distinct2 = distinct.map(([a, b, c]): [number, number, number] => [a + 8, b + 8, c + 8]);
clearPolyMemos();
for (const f of distinct2) staged(f, stDistinct);

const ms = (x: number, d = 3) => `${x.toFixed(d)} ms`;
const pad = (s: string, n: number) => s.padEnd(n);
console.log("Loom codegen bench: matmul built once; per variant splitIname(i, j, k) + tagInames + generateCode(opencl)");
console.log("");
console.log(`(a) tiled matmul 16/16/16, transform + generate: median ${ms(median(one))}  (${REPS} reps; budget: well under 1.5 ms)`);
console.log(`(b) 500 split-factor variants (4/8/16/32 for i/j/k): ${ms(sweep, 1)} total, ${ms(sweep / variants.length)} per variant`);
console.log(`(b') 500 distinct variants (factors 2..9, none repeats): ${ms(sweepDistinct, 1)} total, ${ms(sweepDistinct / distinct.length)} per variant`);
console.log(`(a') 16/16/16 cold (all memos cleared before each rep): median ${ms(median(cold))}`);
console.log("(c) stages        16/16/16 median     (b) mean per variant   (b') mean per variant (new variants)");
const med16 = STAGES.map((s) => median(st16[s]));
const cols = [med16, STAGES.map((s) => mean(stSweep[s])), STAGES.map((s) => mean(stDistinct[s]))];
const sums = cols.map((c) => c.reduce((a, b) => a + b, 0));
STAGES.forEach((s, i) => {
  const cells = cols.map((c, j) => pad(`${ms(c[i]!)} (${((100 * c[i]!) / sums[j]!).toFixed(0).padStart(2)}%)`, 23));
  console.log(`    ${pad(s, 12)} ${cells.join("")}`);
});
console.log(`    ${pad("sum", 12)} ${sums.map((x) => pad(ms(x), 23)).join("")}`);
