// Bytes per never-seen variant, by phase (issue 21): what a change to allocation removes, counted
// where CPU time is noise (a loaded shared machine moves CPU figures by 30% between runs; bytes do
// not move). The 50-variant tiled-matmul sweep of bench/transforms.ts (c), memos emptied before
// the pass; each variant starts from a collected heap, and the young generation is made larger
// than one variant allocates, so no collection runs inside a variant and the growth of the used
// heap across a phase is exactly what the phase allocated. Also: bytes per variant still live
// after the pass (what the memos keep, which every later scavenge copies or promotes). Plain node,
// with the flags below (the semi-space flags are what make the per-phase figures exact):
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x
//   node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 bench/alloc-phases.mjs dist-x [dist-y ...]
import { PerformanceObserver } from "node:perf_hooks";
import { importFrom, matmulSweep } from "./ab-common.mjs";

const dirs = process.argv.slice(2);
if (dirs.length === 0 || typeof globalThis.gc !== "function") {
  console.error("usage: node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 bench/alloc-phases.mjs DIST [DIST ...]");
  process.exit(2);
}
const gc = globalThis.gc;
const used = () => process.memoryUsage().heapUsed;

// Collections, as the observer reports them (asynchronously: read after a turn of the loop).
let gcCount = 0;
new PerformanceObserver((list) => {
  gcCount += list.getEntries().length;
}).observe({ entryTypes: ["gc"] });
const settle = () => new Promise((r) => setTimeout(r, 0));

async function measure(dir) {
  const { generateCode } = await importFrom(dir, "codegen/index.js");
  const { clearPolyMemos } = await importFrom(dir, "src/poly/index.js");
  const { SCHEDULE_PASSES, schedule } = await importFrom(dir, "src/schedule/pipeline.js");
  const { matmul: base, points, steps } = await matmulSweep(dir);
  const names = ["split i", "split j", "split k", "prefetch a", "prefetch b", "schedule", "lower+render"];
  const variant = (p, each) => {
    let k = base;
    steps(p).forEach((s, x) => each(x, () => (k = s(k))));
    each(5, () => schedule(k));
    each(6, () => generateCode(k, "opencl"));
  };
  // Warm (JIT), then one pass measured phase by phase.
  for (let w = 0; w < 3; w++) (clearPolyMemos(), points.forEach((p) => variant(p, (_, f) => f())));
  clearPolyMemos();
  gc();
  const live0 = used();
  const bytes = names.map(() => 0);
  for (const p of points) {
    gc();
    await settle();
    const gcsAtStart = gcCount;
    variant(p, (x, f) => {
      const b = used();
      f();
      bytes[x] += used() - b;
    });
    await settle();
    // A collection inside the variant (a smaller young generation than asked) would undercount.
    if (gcCount !== gcsAtStart) throw new Error("a collection ran inside a variant: run with --min-semi-space-size=128 --max-semi-space-size=128");
  }
  gc();
  return { names, bytes: bytes.map((b) => b / points.length), retained: (used() - live0) / points.length };
}

const kb = (b) => (b / 1024).toFixed(1);
const rows = [];
for (const dir of dirs) rows.push([dir, await measure(dir)]);
const width = Math.max(...dirs.map((d) => d.length), 6);
const names = rows[0][1].names;
console.log(`KiB allocated per never-seen variant (50-variant sweep, memos emptied before the pass)`);
console.log(`${"build".padEnd(width)}  ${names.map((n) => n.padStart(13)).join("")}  ${"total".padStart(9)}  ${"retained".padStart(9)}`);
for (const [dir, r] of rows) {
  const total = r.bytes.reduce((s, b) => s + b, 0);
  console.log(`${dir.padEnd(width)}  ${r.bytes.map((b) => kb(b).padStart(13)).join("")}  ${kb(total).padStart(9)}  ${kb(r.retained).padStart(9)}`);
}
if (rows.length > 1) {
  const [a, b] = [rows[0][1], rows[1][1]];
  const tot = (r) => r.bytes.reduce((s, x) => s + x, 0);
  console.log(`${"B/A".padEnd(width)}  ${a.bytes.map((x, i) => (b.bytes[i] / x).toFixed(2).padStart(13)).join("")}  ${(tot(b) / tot(a)).toFixed(2).padStart(9)}  ${(b.retained / a.retained).toFixed(2).padStart(9)}`);
}
console.log("(retained: bytes per variant still live after the pass, held by the memos)");
