/**
 * OKL front end speed: preprocess + parse + validate of every OCCA example kernel (the corpus in
 * shared/corpus/okl/occa), median over repeats, and lines per second over the whole set. The
 * issue's budget is 0.3 ms per example kernel for parse + validate + lower; this measures the
 * front end alone and the whole import (parseOkl: front end + lowering to Loom kernels).
 * Run: `npx tsx bench/okl.ts`.
 */
import { cpus, loadavg } from "node:os";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseOklAst } from "../src/okl/index.js";
import { parseOkl } from "../src/okl/parse-okl.js";
import { OklError } from "../src/errors.js";

const CORPUS = process.env.LOOM_OKL_CORPUS ?? join(import.meta.dirname, "../test/fixtures/okl-corpus");

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

if (!existsSync(CORPUS)) {
  console.log(`bench/okl: corpus not found at ${CORPUS}`);
  process.exit(0);
}

const defines = new Map<string, Record<string, string>>();
for (const s of files(join(CORPUS, "occa-legacy-generated/occa-examples")).filter((f) => f.endsWith("status.json"))) {
  const j = JSON.parse(readFileSync(s, "utf8")) as { input: string; defines_prepended?: Record<string, string> };
  defines.set(j.input, j.defines_prepended ?? {});
}
const reader = (p: string) => (existsSync(p) ? readFileSync(p, "utf8") : undefined);
const inputs = files(join(CORPUS, "occa")).filter((f) => f.endsWith(".okl") && !f.includes("legacy-unit-snippets"));
const REPEATS = 200;

console.log(`machine: ${cpus()[0]?.model.trim() ?? "unknown"}, ${cpus().length} cores; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log("file".padEnd(48), "lines", "front ms", "import ms", "status");
const importMedians: number[] = [];
let importMs = 0;
let totalLines = 0;
let totalMs = 0;
const medians: number[] = [];
for (const f of inputs) {
  const rel = f.slice(CORPUS.length + 1);
  const src = readFileSync(f, "utf8");
  const opts = { filename: f, readFile: reader, defines: defines.get(rel) ?? {} };
  let status = "ok";
  try {
    parseOkl(src, opts);
  } catch (e) {
    status = e instanceof OklError ? `rejected (${e.rule})` : "crash";
  }
  if (status !== "ok") {
    console.log(rel.replace("occa/", "").padEnd(48), String(src.split("\n").length).padStart(5), "     -   ", status);
    continue;
  }
  for (let i = 0; i < 20; i++) parseOklAst(src, opts); // warm-up
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    parseOklAst(src, opts);
    times.push(performance.now() - t0);
  }
  const m = median(times);
  for (let i = 0; i < 20; i++) parseOkl(src, opts);
  const full: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    parseOkl(src, opts);
    full.push(performance.now() - t0);
  }
  const mf = median(full);
  importMedians.push(mf);
  importMs += mf;
  const lines = src.split("\n").length;
  medians.push(m);
  totalLines += lines;
  totalMs += m;
  console.log(rel.replace("occa/", "").padEnd(48), String(lines).padStart(5), m.toFixed(4).padStart(8), mf.toFixed(4).padStart(9), status);
}
console.log(`\nmedian over kernels: front end ${median(medians).toFixed(4)} ms, whole import ${median(importMedians).toFixed(4)} ms per kernel (budget for parse+validate+lower: 0.3 ms)`);
console.log(`throughput: front end ${Math.round(totalLines / (totalMs / 1000)).toLocaleString("en-US")} lines/s, whole import ${Math.round(totalLines / (importMs / 1000)).toLocaleString("en-US")} lines/s over ${medians.length} kernels (${totalLines} lines)`);
