// A/B of the lowering and printing of big kernels (issue 20's last item, issue 21's "big
// kernels"): bench/scale.ts's three 3,000-instruction element kernels (routes okl, make, gbar),
// scheduled for C once (scheduleForTarget, memoized), then lowered and printed
// (generateCodeFromSchedule, what generateCode(k, "c") does after the scheduling passes) by two
// compiled builds loaded side by side, in alternating blocks, as bench/ab.mjs does for the sweep.
//
//   npx tsc -p tsconfig.bench.json && rm -rf dist-a && cp -r dist dist-a   # the build before the change
//   (change, then) npx tsc -p tsconfig.bench.json
//   node --expose-gc bench/ab-lower.mjs dist-a dist [blocks] [size]
//   node --cpu-prof bench/ab-lower.mjs dist - [reps] [size]       # one build only, for a profile
//   node --import tsx --expose-gc bench/ab-lower.mjs SRC_A . [blocks] [size]   # source trees under tsx
//     (SRC_A: e.g. `git archive BASE codegen src transforms grammar native | tar -x -C dist-base`
//     and grammar/generated copied in, inside the repository so that node_modules resolves)
//
// First the outputs of the two builds are compared, each kernel on c, openmp, opencl and cuda:
// a difference is reported (and the run stops). Then per route, the CPU time (user + system) of
// one lowering per block: the median of the per-block ratios B/A is the figure, with the load.
// The kernels are rebuilt from text in each build (bench/scale.ts's makeElementKernel, written here
// again, and okl-scale.ts's assemblySource, imported from the build: tsconfig.bench.json compiles it).
//
// Route `sweep` (ROUTES=sweep, or with the others): the lowering and printing alone of bench/ab.mjs's
// 50 tiled-matmul variants on OpenCL, as a sweep runs them: per block the poly memos are emptied,
// then each variant is transformed and scheduled (not timed) and its schedule lowered and printed
// (timed). Their OpenCL is compared between the builds with the big kernels' code.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadavg } from "node:os";
import { existsSync } from "node:fs";

const [dirA, dirB, blocksArg, sizeArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error("usage: node --expose-gc bench/ab-lower.mjs DIST_A DIST_B|- [blocks] [size]");
  process.exit(2);
}
const size = Number(sizeArg ?? 3000);

/** bench/scale.ts's makeElementKernel, as text. */
function elementText(insns, globalBarrier) {
  const lines = [];
  let stores = 0;
  const room = insns - (globalBarrier ? 2 : 0);
  for (let k = 0; lines.length < room; k++) {
    const prev = k === 0 ? "g[e, n, 0]" : `t${k - 1}`;
    lines.push(`<> t${k} = g[e, n, 1] * d[${k % 16}, n] + g[e, n, 2] * d[n, ${(k * 7) % 16}] + ${prev} * w`);
    if (k % 4 === 3 && lines.length < room) lines.push(`out[e, n, ${stores++}] = t${k} - t${k - 2} {id=store${stores}}`);
  }
  if (globalBarrier) lines.push(`... gbarrier {id=gb, dep=store*}`, `out[e, n, 0] = 2 * w {id=after, dep=gb}`);
  return { text: lines.join("\n"), stores };
}

const TARGETS = ["c", "openmp", "opencl", "cuda"];

async function load(dir) {
  // A compiled build (dist), or a source tree run under tsx (`node --import tsx`): the bench's
  // own target (`npx tsx bench/scale.ts`), where the sources' cost differs from the build's.
  const ts = existsSync(resolve(dir, "codegen/index.ts"));
  const at = (p) => pathToFileURL(resolve(dir, ts ? p.replace(/\.js$/, ".ts") : p)).href;
  const { generateCodeFromSchedule, scheduleForTarget } = await import(at("codegen/index.js"));
  const { makeKernel } = await import(at("src/parse/index.js"));
  const { parseOkl } = await import(at("src/okl/index.js"));
  const { splitIname } = await import(at("transforms/index.js"));
  const { pipeline, prefetch, split } = await import(at("transforms/pipeline.js"));
  const { clearPolyMemos } = await import(at("src/poly/index.js"));
  // bench/scale.ts's oklElementKernel: `insns - 4` body lines.
  const { assemblySource } = await import(at("bench/okl-scale.js"));
  const oklText = (insns) => assemblySource((_k, bodyLines) => bodyLines < insns - 4);
  const matmul = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
  const variants = [];
  for (const ti of [4, 8, 16, 32, 64]) {
    for (const tj of [4, 8, 16, 32, 64]) {
      for (const tk of [8, 16]) {
        variants.push(pipeline(split("i", ti, { outerTag: "g.0", innerTag: "l.1" }), split("j", tj, { outerTag: "g.1", innerTag: "l.0" }), split("k", tk),
          prefetch("a", { sweepInames: ["i_inner", "k_inner"] }), prefetch("b", { sweepInames: ["k_inner", "j_inner"] })));
      }
    }
  }
  /** CPU milliseconds per variant of lowering and printing the sweep's variants, memos emptied first. */
  const sweep = () => {
    clearPolyMemos();
    let ms = 0;
    for (const p of variants) {
      const s = scheduleForTarget(p(matmul), "opencl");
      const c = process.cpuUsage();
      generateCodeFromSchedule(s, "opencl");
      ms += cpuMs(c);
    }
    return ms / variants.length;
  };
  const make = (gbar) => {
    const { text, stores } = elementText(size, gbar);
    return makeKernel("{[e, n]: 0 <= e < nel and 0 <= n < 16}", text, [
      "g: float64[nel, 16, 3]", "d: float64[16, 16]", `out: float64[nel, 16, ${Math.max(1, stores)}]`, "w: float64", "nel: int32", "...",
    ], { name: "element", assumptions: "nel >= 1" });
  };
  const kernels = {
    okl: splitIname(parseOkl(oklText(size))[0], "m", 4),
    make: splitIname(make(false), "e", 4, { outerTag: "g.0", innerTag: "l.0" }),
    gbar: splitIname(make(true), "e", 4, { outerTag: "g.0", innerTag: "l.0" }),
  };
  const code = (route, target) => {
    const c = generateCodeFromSchedule(scheduleForTarget(kernels[route], target), target);
    return `${c.deviceCode}\n${c.hostCode ?? ""}\n${JSON.stringify(c.kernels)}`;
  };
  return {
    output: () => [...Object.keys(kernels).flatMap((r) => TARGETS.map((t) => code(r, t))), variants.map((p) => generateCodeFromSchedule(scheduleForTarget(p(matmul), "opencl"), "opencl").deviceCode).join("\n")],
    /** CPU milliseconds of one C lowering and printing of `route` (its schedule is memoized). */
    block: (route) => {
      if (route === "sweep") return sweep();
      const s = scheduleForTarget(kernels[route], "c");
      const c = process.cpuUsage();
      generateCodeFromSchedule(s, "c");
      return cpuMs(c);
    },
  };
}

function cpuMs(since) {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

const median = (xs) => [...xs].sort((u, v) => u - v)[xs.length >> 1];
const ms = (x) => x.toFixed(x < 10 ? 3 : 1);
// ROUTES=okl,make limits the routes (a profile of one).
const routes = process.env.ROUTES ? process.env.ROUTES.split(",") : ["okl", "make", "gbar"];
const A = await load(dirA);
if (dirB === "-") {
  // Profile mode: one build, `blocks` lowerings of each route.
  for (let r = 0; r < Number(blocksArg ?? 5); r++) console.log(routes.map((x) => `${x} ${A.block(x).toFixed(0)} ms`).join(", "));
  process.exit(0);
}
const B = await load(dirB);
const oa = A.output();
const ob = B.output();
const all = ["okl", "make", "gbar"];
const differ = oa.flatMap((o, i) => (o === ob[i] ? [] : [i === oa.length - 1 ? "the 50 tiled-matmul variants on opencl" : `${all[Math.floor(i / TARGETS.length)]} on ${TARGETS[i % TARGETS.length]}`]));
if (differ.length > 0) {
  console.log(`the two builds generate different code: ${differ.join(", ")}`);
  process.exit(1);
}
console.log(`outputs identical (${all.length} kernels of ${size} instructions x ${TARGETS.join(", ")}; 50 tiled-matmul variants x opencl)`);
const gc = globalThis.gc ?? (() => {});
for (const route of routes) {
  for (let w = 0; w < 2; w++) (A.block(route), B.block(route));
  const ca = [];
  const cb = [];
  const ratio = [];
  for (let b = 0; b < Number(blocksArg ?? 9); b++) {
    let x;
    let y;
    if (b % 2 === 0) (gc(), x = A.block(route), gc(), y = B.block(route));
    else (gc(), y = B.block(route), gc(), x = A.block(route));
    ca.push(x);
    cb.push(y);
    ratio.push(y / x);
  }
  const what = route === "sweep" ? "OpenCL lowering+printing per variant, CPU time" : "C lowering+printing CPU time";
  console.log(`${route}: ${what} A ${ms(median(ca))} ms, B ${ms(median(cb))} ms; B/A median ${median(ratio).toFixed(3)} over ${ratio.length} blocks (best A ${ms(Math.min(...ca))}, best B ${ms(Math.min(...cb))})`);
}
console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
