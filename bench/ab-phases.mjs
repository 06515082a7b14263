// Per-phase CPU time of two compiled builds side by side (issue 21): the 50-variant tiled-matmul
// sweep of bench/transforms.ts (c), memos emptied before each pass, each step of each never-seen
// variant timed in CPU time (process.cpuUsage: on a shared machine wall time counts waiting for a
// core). Passes of the two builds alternate, which goes first swapping each pass. Plain node:
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x-base   # before the change
//   npx tsc -p tsconfig.bench.json --outDir dist-x        # after
//   node --expose-gc bench/ab-phases.mjs dist-x-base dist-x [passes]
//
// Prints one row per build: ms per never-seen variant for split i, split j, split k, prefetch a,
// prefetch b and generateCode(opencl), and whether the two builds generate the same code.
import { cpuMs, importFrom, loadAverage, matmulSweep, median } from "./ab-common.mjs";

const [dirA, dirB, passesArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error("usage: node --expose-gc bench/ab-phases.mjs DIST_A DIST_B [passes]");
  process.exit(2);
}
const PHASES = ["split i", "split j", "split k", "prefetch a", "prefetch b", "codegen"];

async function load(dir) {
  const { generateCode } = await importFrom(dir, "codegen/index.js");
  const { clearPolyMemos } = await importFrom(dir, "src/poly/index.js");
  const { matmul: base, points, steps } = await matmulSweep(dir);
  const run = (p, each) => {
    let k = base;
    steps(p).forEach((s, x) => each(x, () => (k = s(k))));
    each(5, () => generateCode(k, "opencl"));
    return k;
  };
  /** One pass: ms per variant for each phase. */
  const pass = () => {
    clearPolyMemos();
    const tot = PHASES.map(() => 0);
    for (const p of points) {
      run(p, (x, f) => {
        const c = process.cpuUsage();
        f();
        tot[x] += cpuMs(c);
      });
    }
    return tot.map((t) => t / points.length);
  };
  const code = () => points.map((p) => generateCode(run(p, (_, f) => f()), "opencl").deviceCode).join("\n");
  return { pass, code };
}

const A = await load(dirA);
const B = await load(dirB);
console.log(A.code() === B.code() ? "the two builds generate the same code" : "note: the two builds generate different code");
for (let w = 0; w < 4; w++) (A.pass(), B.pass());
const rows = [[], []];
const gc = globalThis.gc ?? (() => {});
for (let r = 0; r < Number(passesArg ?? 12); r++) {
  if (r % 2 === 0) (gc(), rows[0].push(A.pass()), gc(), rows[1].push(B.pass()));
  else (gc(), rows[1].push(B.pass()), gc(), rows[0].push(A.pass()));
}
const med = rows.map((rs) => PHASES.map((_, x) => median(rs.map((row) => row[x]))));
const width = Math.max(dirA.length, dirB.length);
console.log(`${"CPU ms per never-seen variant".padEnd(width)}  ${PHASES.map((p) => p.padStart(11)).join("")}  ${"total".padStart(8)}`);
[dirA, dirB].forEach((d, x) => console.log(`${d.padEnd(width)}  ${med[x].map((t) => t.toFixed(3).padStart(11)).join("")}  ${med[x].reduce((s, t) => s + t, 0).toFixed(3).padStart(8)}`));
console.log(`${"B/A".padEnd(width)}  ${PHASES.map((_, x) => (med[1][x] / med[0][x]).toFixed(2).padStart(11)).join("")}  ${(med[1].reduce((s, t) => s + t, 0) / med[0].reduce((s, t) => s + t, 0)).toFixed(2).padStart(8)}`);
console.log(`medians over ${rows[0].length} passes of each build; load ${loadAverage()}`);
