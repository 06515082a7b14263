// Which never-seen variants are heavy (issue 21): CPU ms per variant of the tiled-matmul sweep,
// each variant with every poly memo emptied first (so a variant's cost is its own, not what an
// earlier one left), split into pipeline and generateCode(opencl), median over passes; also the
// device code's size, so cost can be read against the size of the output. Plain node:
//
//   node --expose-gc bench/variant-costs.mjs dist-x [passes] [1000]
//
// With `1000`: bench/transforms.ts (e)'s points (tile sizes 2-64 for i, j, k) instead of the 50.
import { cpuMs, importFrom, loadAverage, matmulSweep, median } from "./ab-common.mjs";

const [dir, passesArg, which] = process.argv.slice(2);
const { generateCode } = await importFrom(dir, "codegen/index.js");
const { clearPolyMemos } = await importFrom(dir, "src/poly/index.js");
const { pipeline, prefetch, split } = await importFrom(dir, "transforms/pipeline.js");
const { matmul, points: p50 } = await matmulSweep(dir);
const s1000 = [2, 3, 4, 6, 8, 12, 16, 24, 32, 64];
const points = which === "1000" ? s1000.flatMap((a) => s1000.flatMap((b) => s1000.map((c) => [a, b, c]))) : p50;
const tiled = ([ti, tj, tk]) => pipeline(split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
  prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }));
const pipes = points.map(tiled);
const rows = points.map(() => ({ apply: [], codegen: [], chars: 0 }));
const passes = Number(passesArg ?? 5);
for (let r = 0; r < passes + 1; r++) {
  pipes.forEach((p, x) => {
    clearPolyMemos();
    let c = process.cpuUsage();
    const k = p(matmul);
    const a = cpuMs(c);
    c = process.cpuUsage();
    const code = generateCode(k, "opencl");
    const g = cpuMs(c);
    if (r > 0) (rows[x].apply.push(a), rows[x].codegen.push(g));
    rows[x].chars = code.deviceCode.length;
  });
}
const out = points.map((p, x) => ({ p: p.join("/"), apply: median(rows[x].apply), codegen: median(rows[x].codegen), chars: rows[x].chars }));
out.sort((u, v) => v.apply + v.codegen - u.apply - u.codegen);
const tot = out.map((o) => o.apply + o.codegen);
console.log(`median ${median(tot).toFixed(2)} ms, mean ${(tot.reduce((s, t) => s + t, 0) / tot.length).toFixed(2)} ms per variant (pipeline mean ${(out.reduce((s, o) => s + o.apply, 0) / out.length).toFixed(2)}, codegen mean ${(out.reduce((s, o) => s + o.codegen, 0) / out.length).toFixed(2)}); load ${loadAverage()}`);
const show = (o) => `${o.p.padEnd(9)} pipeline ${o.apply.toFixed(2)} codegen ${o.codegen.toFixed(2)} chars ${o.chars}`;
console.log("heaviest:"); out.slice(0, 12).forEach((o) => console.log("  " + show(o)));
console.log("lightest:"); out.slice(-5).forEach((o) => console.log("  " + show(o)));
if (which === "1000") {
  const cls = (o) => (o.p.split("/").some((x) => 64 % Number(x) !== 0) ? "a size not dividing 64" : "sizes dividing 64");
  for (const c of ["sizes dividing 64", "a size not dividing 64"]) {
    const g = out.filter((o) => cls(o) === c);
    const m = (f) => (g.reduce((s, o) => s + f(o), 0) / g.length).toFixed(2);
    console.log(`${c}: ${g.length} variants, mean pipeline ${m((o) => o.apply)} codegen ${m((o) => o.codegen)} chars ${m((o) => o.chars)}`);
  }
}
