// A/B of OKL import speed (issue 20's scale item: parseOkl of a 1,000-line kernel in at most
// 100 ms): two compiled builds loaded side by side import bench/okl-scale.ts's assembly kernel
// (1,000 and 300 lines) in alternating blocks; the median of the per-block ratios B/A is the figure
// (CPU time, user + system, is the one to trust on a shared machine; the load average is printed).
//
//   npx tsc -p tsconfig.bench.json && rm -rf dist-a && cp -r dist dist-a   # the build before the change
//   (change, then) npx tsc -p tsconfig.bench.json
//   node --expose-gc bench/ab-okl.mjs dist-a dist [blocks]
//   node --cpu-prof bench/ab-okl.mjs dist - [imports]     # one build only, for a profile
//
// First, correctness: both builds import the scale kernels and every kernel of
// test/okl/real-world-kernels.ts (its TypeScript stripped by esbuild, which tsx brings), and each
// kernel's canonical print (String(kernel)) and generated C must be identical, else the run stops.
import { readFileSync } from "node:fs";
import { alternate, importFrom, report, timeBlock } from "./ab-common.mjs";

const [dirA, dirB, countArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error("usage: node --expose-gc bench/ab-okl.mjs DIST_A DIST_B|- [blocks]");
  process.exit(2);
}

async function load(dir) {
  const { parseOkl, generateCode } = await importFrom(dir, "src/index.js");
  const { assemblyKernel } = await importFrom(dir, "bench/okl-scale.js");
  return { parseOkl, generateCode, assemblyKernel };
}

/** test/okl/real-world-kernels.ts's REAL_WORLD, its types stripped. */
async function realWorld() {
  const { transformSync } = await import("esbuild");
  const ts = readFileSync(new URL("../test/okl/real-world-kernels.ts", import.meta.url), "utf8");
  const { code } = transformSync(ts, { loader: "ts", format: "esm" });
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)).REAL_WORLD;
}

/** Each kernel's canonical print and C, or the error's message: what must not change. */
function prints(build, cases) {
  return cases.map(({ name, source, options }) => {
    try {
      const ks = build.parseOkl(source, options);
      return ks.map((k) => `${name}\n${String(k)}\n${build.generateCode(k, "c").deviceCode}`).join("\n");
    } catch (e) {
      return `${name}: ${e?.constructor?.name} ${e?.message}`;
    }
  });
}

const A = await load(dirA);
if (dirB === "-") {
  // One build, for a profile (node --cpu-prof): warm up, then `imports` imports of 1,000 lines.
  const src = A.assemblyKernel(1000);
  for (let i = 0; i < 3; i++) A.parseOkl(src);
  const [wall, cpu] = timeBlock(() => A.parseOkl(src), Number(countArg ?? 20));
  console.log(`1000 lines: ${wall.toFixed(1)} ms wall, ${cpu.toFixed(1)} ms CPU per import`);
  process.exit(0);
}
const B = await load(dirB);
const cases = [
  ...[100, 300, 1000].map((n) => ({ name: `assembly ${n}`, source: A.assemblyKernel(n), options: {} })),
  ...(await realWorld()),
];
const pa = prints(A, cases);
const pb = prints(B, cases);
const differ = cases.filter((_, i) => pa[i] !== pb[i]).map((c) => c.name);
if (differ.length) {
  console.log(`the two builds import differently: ${differ.join(", ")}`);
  process.exit(1);
}
console.log(`${cases.length} kernels imported identically by both builds (print and C)`);
const blocks = Number(countArg ?? 15);
for (const [lines, reps] of [[1000, 3], [300, 8]]) {
  const src = A.assemblyKernel(lines);
  const r = alternate(() => timeBlock(() => A.parseOkl(src), reps), () => timeBlock(() => B.parseOkl(src), reps), blocks);
  console.log(report(`${lines} lines, per import`, r));
}
