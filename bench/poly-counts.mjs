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
import { importFrom } from "./ab-common.mjs";

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error("usage: node bench/poly-counts.mjs DIST [DIST ...]");
  process.exit(2);
}
const PHASES = ["split i", "split j", "split k", "prefetch a", "prefetch b", "codegen"];
const COUNTS = ["answers", "setsBuilt", "normalizations", "factorings", "restrictions", "factorsBuilt"];

async function counts(dir) {
  const { generateCode } = await importFrom(dir, "codegen/index.js");
  const { makeKernel } = await importFrom(dir, "src/parse/index.js");
  const { prefetch, split } = await importFrom(dir, "transforms/pipeline.js");
  const { clearPolyMemos, polyCounts } = await importFrom(dir, "src/poly/index.js");
  if (polyCounts === undefined) throw new Error(`${dir}: no polyCounts in src/poly (a build from before it)`);
  const base = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
  const sizes = [4, 8, 16, 32, 64];
  const points = [];
  for (const ti of sizes) for (const tj of sizes) for (const tk of [8, 16]) points.push([ti, tj, tk]);
  const steps = ([ti, tj, tk]) => [split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
    prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] })];
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
