// A/B of two compiled builds in one process, for changes too small to see through a shared
// machine's noise: both builds are loaded side by side and timed in alternating blocks, so noise
// hits both alike; the median of the per-block ratios B/A is the figure.
//
//   npx tsc -p tsconfig.bench.json && rm -rf dist-a && cp -r dist dist-a   # the build before the change
//   (change, then) npx tsc -p tsconfig.bench.json
//   node --expose-gc bench/ab.mjs dist-a dist [warm|sweep|pipeline] [blocks]   (gc between blocks)
//
// Keep the copy inside the repository (dist-*/ is ignored): its imports of nearley and moo resolve
// through the repository's node_modules.
//
// warm: the tiled matmul of bench/transforms.ts (a), 40 runs per block. sweep: its 50 variants,
// one pass per block, each pass with that build's memos emptied first (bench/transforms.ts (c)).
// pipeline: as sweep, but only the transformations (applyPipeline), not the code generation.
// Every block is timed twice: wall time and the process's CPU time (process.cpuUsage(), user +
// system). On a loaded machine (load 7-15 on 2 cores) wall time counts time the process waited
// for a core; the CPU-time ratio is the figure to trust, with the load average beside it.
// Outputs of the two builds are compared first; a difference is reported. Last, the poly answers
// each build computes per variant (polyWork, memos emptied): deterministic, so a change in work
// shows even where the timing cannot (warm mode: one tiled matmul over the 50 variants' pass).
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dirA, dirB, mode = "warm", blocksArg] = process.argv.slice(2);
if (!dirA || !dirB || !["warm", "sweep", "pipeline"].includes(mode)) {
  console.error("usage: node bench/ab.mjs DIST_A DIST_B [warm|sweep|pipeline] [blocks]");
  process.exit(2);
}

async function load(dir) {
  const at = (p) => pathToFileURL(resolve(dir, p)).href;
  const { generateCode } = await import(at("codegen/index.js"));
  const { makeKernel } = await import(at("src/parse/index.js"));
  const { pipeline, prefetch, split } = await import(at("transforms/pipeline.js"));
  const { clearPolyMemos, polyWork } = await import(at("src/poly/index.js"));
  const build = () => makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
  const tiled = (ti, tj, tk) => pipeline(split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
    prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] }));
  const one = tiled(16, 16, 16);
  const sizes = [4, 8, 16, 32, 64];
  const all = [];
  for (const ti of sizes) for (const tj of sizes) for (const tk of [8, 16]) all.push(tiled(ti, tj, tk));
  const base = build();
  return {
    output: () => all.map((p) => generateCode(p(base), "opencl").deviceCode).join("\n"),
    /** Poly answers computed per variant in one pass with emptied memos (deterministic: a measure of work that noise does not touch). */
    work: () => {
      clearPolyMemos();
      const w = polyWork();
      if (mode === "pipeline") for (const p of all) p(base);
      else for (const p of all) generateCode(p(base), "opencl");
      return (polyWork() - w) / all.length;
    },
    /** Milliseconds per variant for one block: [wall, CPU]. */
    block: mode === "warm"
      ? () => {
        const ts = [];
        const cs = [];
        for (let r = 0; r < 40; r++) {
          const c = process.cpuUsage();
          const t = performance.now();
          generateCode(one(build()), "opencl");
          ts.push(performance.now() - t);
          cs.push(cpuMs(c));
        }
        return [median(ts), median(cs)];
      }
      : () => {
        clearPolyMemos();
        const c = process.cpuUsage();
        const t = performance.now();
        if (mode === "sweep") for (const p of all) generateCode(p(base), "opencl");
        else for (const p of all) p(base);
        return [(performance.now() - t) / all.length, cpuMs(c) / all.length];
      },
  };
}

/** CPU milliseconds (user + system) since `since`. */
function cpuMs(since) {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

const median = (xs) => [...xs].sort((u, v) => u - v)[xs.length >> 1];
const A = await load(dirA);
const B = await load(dirB);
if (A.output() !== B.output()) console.log("note: the two builds generate different code");
for (let w = 0; w < (mode === "warm" ? 10 : 4); w++) (A.block(), B.block());
const ra = [];
const rb = [];
const ratio = [];
const ca = [];
const cb = [];
const cratio = [];
for (let b = 0; b < Number(blocksArg ?? 30); b++) {
  // Alternate which build goes first: garbage one block leaves behind is collected in the next.
  let x;
  let y;
  // With --expose-gc, garbage is collected between blocks, outside the timed part.
  const gc = globalThis.gc ?? (() => {});
  if (b % 2 === 0) (gc(), x = A.block(), gc(), y = B.block());
  else (gc(), y = B.block(), gc(), x = A.block());
  ra.push(x[0]);
  rb.push(y[0]);
  ratio.push(y[0] / x[0]);
  ca.push(x[1]);
  cb.push(y[1]);
  cratio.push(y[1] / x[1]);
}
const loadAvg = (await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ");
console.log(`${mode}: A ${median(ra).toFixed(3)} ms, B ${median(rb).toFixed(3)} ms per variant; B/A median ${median(ratio).toFixed(3)} over ${ratio.length} blocks (best A ${Math.min(...ra).toFixed(3)}, best B ${Math.min(...rb).toFixed(3)})`);
console.log(`${mode} CPU time: A ${median(ca).toFixed(3)} ms, B ${median(cb).toFixed(3)} ms per variant; B/A median ${median(cratio).toFixed(3)} (best A ${Math.min(...ca).toFixed(3)}, best B ${Math.min(...cb).toFixed(3)}); load ${loadAvg}`);
console.log(`poly answers computed per variant (memos emptied, deterministic): A ${A.work().toFixed(2)}, B ${B.work().toFixed(2)}`);
