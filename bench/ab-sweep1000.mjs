// A/B of two compiled builds on bench/transforms.ts (e) (issue 21): the 1,000-variant tiled-matmul
// sweep (tile sizes 2-64 for i, j, k, divisors of n and not), memos emptied once before each pass,
// passes of the two builds alternating (which goes first swapping each pass), CPU ms per variant
// (process.cpuUsage: on a shared machine wall time counts waiting for a core), the median of the
// per-pass-pair ratios B/A the figure, with the load. Also: whether both builds generate the same
// code for all 1,000 variants, and the poly answers each computes per variant (deterministic).
//
//   node --expose-gc bench/ab-sweep1000.mjs dist-x-base dist-x [passes]
//
// 784 of the 1,000 variants have a tile size that does not divide n (3, 6, 12, 24): before the
// tile fetch took them (fetch-tile.ts's face not implied) and local axes were read off the chain's
// rows (chain-witness.ts), they cost about twice a dividing one, cold. Measured with both (load
// 13-18, 2 cores): B/A 0.832 and 0.861 (four passes each, passes 0.77-0.92); poly answers per
// variant 16.46 -> 12.21; the same code for all 1,000 variants. The 50-variant sweep of
// bench/transforms.ts (c) has only dividing sizes: its poly counts and bytes do not move.
import { cpuMs, importFrom, loadAverage, median } from "./ab-common.mjs";

const [dirA, dirB, passesArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error("usage: node --expose-gc bench/ab-sweep1000.mjs DIST_A DIST_B [passes]");
  process.exit(2);
}
const S = [2, 3, 4, 6, 8, 12, 16, 24, 32, 64];

async function load(dir) {
  const { generateCode } = await importFrom(dir, "codegen/index.js");
  const { clearPolyMemos, polyWork } = await importFrom(dir, "src/poly/index.js");
  const { makeKernel } = await importFrom(dir, "src/parse/index.js");
  const { applyPipeline, pipeline, prefetch, split, toJSON } = await importFrom(dir, "transforms/pipeline.js");
  const base = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
  const tiled = (ti, tj, tk) => pipeline(split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
    prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }));
  const jsons = [];
  for (const ti of S) for (const tj of S) for (const tk of S) jsons.push(JSON.stringify(toJSON(tiled(ti, tj, tk))));
  const pass = () => {
    clearPolyMemos();
    const c = process.cpuUsage();
    for (const j of jsons) generateCode(applyPipeline(base, JSON.parse(j)), "opencl");
    return cpuMs(c) / jsons.length;
  };
  const code = () => {
    clearPolyMemos();
    const w = polyWork();
    const text = jsons.map((j) => generateCode(applyPipeline(base, JSON.parse(j)), "opencl").deviceCode).join("\n");
    return { text, answers: (polyWork() - w) / jsons.length };
  };
  return { pass, code };
}

const A = await load(dirA);
const B = await load(dirB);
const ca = A.code();
const cb = B.code();
console.log(ca.text === cb.text ? "the two builds generate the same code for all 1,000 variants" : "note: the two builds generate different code");
console.log(`poly answers per variant (memos emptied once): A ${ca.answers.toFixed(2)}, B ${cb.answers.toFixed(2)}`);
const gc = globalThis.gc ?? (() => {});
const rows = [];
for (let r = 0; r < Number(passesArg ?? 4); r++) {
  let a;
  let b;
  if (r % 2 === 0) (gc(), a = A.pass(), gc(), b = B.pass());
  else (gc(), b = B.pass(), gc(), a = A.pass());
  rows.push([a, b]);
  console.log(`  pass ${r}: A ${a.toFixed(2)}, B ${b.toFixed(2)} CPU ms per variant, B/A ${(b / a).toFixed(3)}`);
}
console.log(`CPU ms per variant: A ${median(rows.map((x) => x[0])).toFixed(2)}, B ${median(rows.map((x) => x[1])).toFixed(2)}, median B/A ${median(rows.map(([a, b]) => b / a)).toFixed(3)}; load ${loadAverage()}`);
