// Where a compiled build's OKL import goes, phase by phase (issue 20's scale item): CPU time and
// bytes allocated per phase for bench/okl-scale.ts's assembly kernel. The phases are those of
// parseOkl: lexing (the main file alone, for scale), preprocessing (lexing included), parsing,
// validation, the two whole-unit analyses (values carried across iterations, unwritten
// @exclusive), the two rewrites (assign values, host branches) and the lowering. Bytes are exact
// when no collection runs inside an import (the flags below make the young generation big enough).
// The CPU times are a guide only: the forced collection between imports discards optimized code of
// closures (carried-assigned.ts's walkers then recompile each import and read several times their
// cost in a plain loop of imports); compare whole imports with bench/ab-okl.mjs.
//
//   npx tsc -p tsconfig.bench.json --outDir dist-x
//   node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 bench/okl-phases.mjs dist-x [dist-y ...] [--lines 1000]
import { PerformanceObserver } from "node:perf_hooks";
import { cpuMs, importFrom, loadAverage, median } from "./ab-common.mjs";

const args = process.argv.slice(2);
const li = args.indexOf("--lines");
const lines = li >= 0 ? Number(args[li + 1]) : 1000;
const dirs = li >= 0 ? args.filter((_, i) => i !== li && i !== li + 1) : args;
if (dirs.length === 0 || typeof globalThis.gc !== "function") {
  console.error("usage: node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 bench/okl-phases.mjs DIST [DIST ...] [--lines N]");
  process.exit(2);
}
const gc = globalThis.gc;
const used = () => process.memoryUsage().heapUsed;
let gcCount = 0;
new PerformanceObserver((list) => (gcCount += list.getEntries().length)).observe({ entryTypes: ["gc"] });
const settle = () => new Promise((r) => setTimeout(r, 0));

async function load(dir) {
  const m = async (p) => importFrom(dir, p);
  const { lex } = await m("src/okl/syntax/lexer.js");
  const { preprocess } = await m("src/okl/syntax/c-preprocessor.js");
  const { parseTokens } = await m("src/okl/syntax/parse-unit.js");
  const { Validator } = await m("src/okl/syntax/validate.js");
  const { carriedPrivateReads } = await m("src/okl/syntax/carried-privates.js");
  const { unwrittenExclusives } = await m("src/okl/syntax/unwritten-exclusive.js");
  const { splitAssignValues } = await m("src/okl/syntax/assign-values.js");
  const { pushHostBranches } = await m("src/okl/syntax/host-branches.js");
  const { lowerOkl } = await m("src/okl/lower/lower-okl.js");
  const { assemblyKernel } = await m("bench/okl-scale.js");
  const src = assemblyKernel(lines);
  /** One import, phase by phase: `each(name, f)` runs f. */
  const run = (each) => {
    each("lex", () => lex(src, undefined, false));
    const pp = each("preprocess", () => preprocess(src, {}));
    const unit = each("parse", () => parseTokens(pp.tokens, pp.sources, {}));
    each("validate", () => new Validator(pp.sources, {}).validate(unit));
    each("carried", () => carriedPrivateReads(unit));
    each("unwritten", () => unwrittenExclusives(unit));
    const u2 = each("rewrites", () => pushHostBranches(splitAssignValues(unit)));
    each("lower", () => lowerOkl(u2, { source: src }));
  };
  return run;
}

const PH = ["lex", "preprocess", "parse", "validate", "carried", "unwritten", "rewrites", "lower"];
const rows = [];
for (const dir of dirs) {
  const run = await load(dir);
  for (let w = 0; w < 5; w++) run((_, f) => f());
  const ms = Object.fromEntries(PH.map((p) => [p, []]));
  const bytes = Object.fromEntries(PH.map((p) => [p, []]));
  for (let r = 0; r < 9; r++) {
    gc();
    await settle();
    const g0 = gcCount;
    run((name, f) => {
      const b = used();
      const c = process.cpuUsage();
      const x = f();
      ms[name].push(cpuMs(c));
      bytes[name].push(used() - b);
      return x;
    });
    await settle();
    if (gcCount !== g0) for (const p of PH) bytes[p][bytes[p].length - 1] = NaN;
  }
  rows.push([dir, PH.map((p) => median(ms[p])), PH.map((p) => median(bytes[p].filter((x) => !Number.isNaN(x))) ?? NaN)]);
}
console.log(`${lines}-line assembly kernel, per phase: CPU ms (median of 9) / KiB allocated; load ${loadAverage()}`);
const w = Math.max(...dirs.map((d) => d.length), 6);
console.log(`${"build".padEnd(w)}  ${PH.map((p) => p.padStart(15)).join("")}  ${"total".padStart(15)}`);
for (const [dir, m, b] of rows) {
  const cell = (x, y) => `${x.toFixed(1)}/${(y / 1024).toFixed(0)}`.padStart(15);
  const tm = m.slice(1).reduce((s, x) => s + x, 0);
  const tb = b.slice(1).reduce((s, x) => s + x, 0);
  console.log(`${dir.padEnd(w)}  ${m.map((x, i) => cell(x, b[i])).join("")}  ${cell(tm, tb)}`);
}
