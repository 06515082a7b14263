// Work of the poly core per never-seen variant (issue 21), counted where time is noise: the
// 50-variant tiled-matmul sweep of bench/transforms.ts (c), memos emptied before the pass, each
// count split by phase (split i, split j, split k, prefetch a, prefetch b, generateCode(opencl)).
// Deterministic: compare builds (a count that does not move is work not removed). Plain node:
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x
//   node bench/poly-counts.mjs dist-x [dist-y ...]
//
// answers: memo misses (polyWork); sets: set objects built (rawSet); normalizations: finishSys
// runs; factorings: new set objects factored (factorOf's union-find); restrictions: factors
// restricted from a set (factorOf); factors built: restrictions whose content was not interned.
import { importFrom, matmulSweep } from "./ab-common.mjs";

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error("usage: node bench/poly-counts.mjs DIST [DIST ...]");
  process.exit(2);
}
const PHASES = ["split i", "split j", "split k", "prefetch a", "prefetch b", "codegen"];
const COUNTS = ["answers", "setsBuilt", "normalizations", "factorings", "restrictions", "factorsBuilt"];

async function counts(dir) {
  const { generateCode } = await importFrom(dir, "codegen/index.js");
  const { clearPolyMemos, polyCounts } = await importFrom(dir, "src/poly/index.js");
  if (polyCounts === undefined) throw new Error(`${dir}: no polyCounts in src/poly (a build from before it)`);
  const { matmul: base, points, steps } = await matmulSweep(dir);
  // One pass to load the code, then the counted one.
  for (const pass of [0, 1]) {
    clearPolyMemos();
    const tot = PHASES.map(() => COUNTS.map(() => 0));
    for (const p of points) {
      let k = base;
      const each = (x, f) => {
        const c0 = polyCounts();
        f();
        const c1 = polyCounts();
        COUNTS.forEach((n, y) => (tot[x][y] += c1[n] - c0[n]));
      };
      steps(p).forEach((s, x) => each(x, () => (k = s(k))));
      each(5, () => generateCode(k, "opencl"));
    }
    if (pass === 1) return tot.map((row) => row.map((v) => v / points.length));
  }
}

const w = Math.max(...dirs.map((d) => d.length), 14);
for (const dir of dirs) {
  const t = await counts(dir);
  console.log(`${dir}: per never-seen variant`);
  console.log(`${"".padEnd(w)}  ${PHASES.map((p) => p.padStart(11)).join("")}  ${"total".padStart(8)}`);
  COUNTS.forEach((n, y) => {
    const row = t.map((r) => r[y]);
    console.log(`${n.padEnd(w)}  ${row.map((v) => v.toFixed(2).padStart(11)).join("")}  ${row.reduce((s, v) => s + v, 0).toFixed(2).padStart(8)}`);
  });
}
