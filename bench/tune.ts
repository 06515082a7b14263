/**
 * `npx tsx bench/tune.ts [--quick] [--json] [--backend openmp|js]`: autotuning at scale.
 *
 * Two 200-variant spaces (a tiled float32 matrix product, a 5-point float32 stencil) are swept
 * exhaustively on the backend (every variant checked against the interpreter, then timed), which
 * gives the ground truth: every point measured once. Then each strategy is run on that log at equal
 * budgets (20 and 40 variants, 10% and 20% of the space) by `lp.simulateTuning`, over seeds 0..9: the median of the
 * best GFLOP/s (GB/s for the stencil) each finds, against the optimum and against random sampling.
 * Simulation replays exactly the measurements a live sweep would make (test/tune/simulate.test.ts
 * checks that a sweep and its simulation choose the same points), so strategies are compared on
 * the same numbers instead of on noise.
 *
 * The sweep's own cost per variant is reported from the records' phases: building the variant
 * (transformations), the sweep's framework time (strategy, metrics, the log) and, measured again
 * after the sweep, code generation of each variant, against the toolchain's time (the check:
 * code generation, compilation, the interpreter's reference run) and the kernel runs.
 *
 * `--quick`: 20 variants per space and small sizes (a smoke test of this script).
 * `--json`: one line of JSON at the end.
 * `--logs DIR`: keep the sweeps' logs in DIR (default: a temporary directory, removed at the end);
 * run again with the same DIR and the sweeps resume from them (nothing measured twice), so the
 * strategies can be compared again without measuring.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import * as lp from "../src/index.js";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const json = argv.includes("--json");
const backendArg = argv[argv.indexOf("--backend") + 1];
const backend = (argv.includes("--backend") ? backendArg : lp.backendAvailability("openmp").available ? "openmp" : "js") as lp.BackendName;
const STRATEGIES = ["random", "genetic", "bayes", "greedy_ils", "simulated_annealing"] as const;
const SEEDS = 10;
/** Equal budgets for every strategy: 10% and 20% of a 200-variant space. */
const BUDGETS = quick ? [8] : [20, 40];
const keep = argv.includes("--logs") ? argv[argv.indexOf("--logs") + 1] : undefined;
const dir = keep ?? mkdtempSync(join(tmpdir(), "loom-bench-tune-"));
if (keep) mkdirSync(keep, { recursive: true });

interface Space {
  readonly name: string;
  readonly kernel: lp.Kernel;
  readonly space: Record<string, (number | string)[]>;
  readonly build: (k: lp.Kernel, p: lp.TuningPoint) => lp.Step;
  readonly params: Record<string, number>;
  readonly testParams: Record<string, number>;
  /** The record's rate that matters: GFLOP/s for the compute-bound kernel, GB/s for the stencil. */
  readonly rate: "gflops" | "gbps";
}

const n = quick ? 128 : 512;
const matmul: Space = {
  name: "matmul",
  kernel: lp.makeKernel("{ [i, j, k]: 0 <= i, j, k < n }", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" }),
  space: { ti: [1, 2, 4, 8, 16], tj: [4, 8, 16, 32, 64], tk: [1, 16, 64, 256], order: ["ikj", "ijk"] },
  build: (_k, p) => {
    const steps: lp.Step[] = [lp.split("i", p.ti as number, { outerTag: "g.0" }), lp.split("j", p.tj as number, { innerTag: "ilp" })];
    const tk = p.tk as number;
    const kLoops = tk > 1 ? "k_outer,k_inner" : "k";
    if (tk > 1) steps.push(lp.split("k", tk));
    steps.push(lp.prioritize(p.order === "ikj" ? `i_outer,${tk > 1 ? "k_outer,i_inner,k_inner" : "i_inner,k"},j_outer` : `i_outer,i_inner,j_outer,${kLoops}`));
    return lp.pipeline(...steps);
  },
  params: { n },
  testParams: { n: 64 },
  rate: "gflops",
};

const m = quick ? 256 : 4096; // 64 MiB per array: beyond the last-level cache
const stencil: Space = {
  name: "stencil",
  kernel: lp.makeKernel("{ [i, j]: 1 <= i, j < n - 1 }",
    "out[i, j] = 0.2f*(u[i, j] + u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1])",
    ["u, out: float32[n, n]", "n: int32"], { name: "stencil", assumptions: "n >= 3" }),
  space: { ti: [1, 2, 4, 8, 16], tj: [8, 16, 32, 64, 128], order: ["rows", "tiles"], par: ["i", "j"], unroll: ["no", "yes"] },
  build: (_k, p) => {
    const tj = p.tj as number;
    return lp.pipeline(
      lp.split("i", p.ti as number, p.par === "i" ? { outerTag: "g.0" } : {}),
      lp.split("j", tj, { ...(p.par === "j" ? { outerTag: "g.0" } : {}), ...(p.unroll === "yes" && tj <= 16 ? { innerTag: "unr" } : {}) }),
      lp.prioritize(p.order === "rows" ? "i_outer,i_inner,j_outer,j_inner" : "i_outer,j_outer,i_inner,j_inner"));
  },
  params: { n: m },
  testParams: { n: 13 },
  rate: "gbps",
};

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const say = (s: string) => { if (!json) console.log(s); else process.stderr.write(`${s}\n`); };

// The peak is measured again in this run (not taken from the cache), so ratios to it are of one run.
const peak = backend === "c" || backend === "openmp" ? await lp.machinePeak({ refresh: true }) : undefined;
say(`Loom autotuning benchmark, backend ${backend}; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
if (peak) say(`machine peak: ${peak.gflops32.toFixed(1)} GFLOP/s float32 FMA, ${peak.gflops.toFixed(1)} float64, ${peak.gbps.toFixed(1)} GB/s triad (${peak.cached ? "cached" : "measured now"}, ${peak.measuredAt})`);

const summary: Record<string, unknown> = {};
for (const s of [matmul, stencil]) {
  const log = join(dir, `${s.name}${quick ? "-quick" : ""}.jsonl`);
  const size = Object.values(s.space).reduce((a, v) => a * v.length, 1);
  say(`\n== ${s.name}: ${quick ? 20 : size} variants on ${backend}, ${JSON.stringify(s.params)}`);
  const t0 = performance.now();
  let lastLine = 0;
  const result = await lp.autotune(s.kernel, {
    space: s.space, build: s.build, params: s.params, testParams: s.testParams, backend, repeats: 5, log,
    strategy: quick ? "random" : "exhaustive", ...(quick ? { budget: { variants: 20 } } : {}),
    onProgress: (done, total, best) => {
      if (done === total || performance.now() - lastLine > 10_000) {
        lastLine = performance.now();
        say(`  ${done}/${total}, best ${best ? `${best.medianMs.toFixed(3)} ms (${(best[s.rate] ?? NaN).toFixed(2)} ${s.rate === "gflops" ? "GFLOP/s" : "GB/s"})` : "-"}`);
      }
    },
  });
  const wallS = (performance.now() - t0) / 1000;
  const { records, best } = result;
  const statuses = new Map<string, number>();
  for (const r of records) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const unit = s.rate === "gflops" ? "GFLOP/s" : "GB/s";
  const bestRate = best[s.rate] ?? NaN;
  // Against this run's peak (records resumed from a log carry the fraction of the peak of their day).
  const frac = peak === undefined ? undefined : bestRate / (s.rate === "gflops" ? peak.gflops32 : peak.gbps);

  // The sweep's own cost: building each variant, its framework time, and code generation again here.
  const ph = records.map((r) => r.phases!).filter(Boolean);
  const codegenMs: number[] = [];
  const target = backend === "js" ? "js" : backend === "opencl" ? "opencl" : "openmp";
  for (const r of records) {
    if (!r.ok || r.pipeline === undefined) continue;
    const k = lp.applyPipeline(s.kernel, r.pipeline);
    const c0 = performance.now();
    lp.generateCode(k, target);
    codegenMs.push(performance.now() - c0);
  }
  const own = ph.map((p, i) => p.buildMs + p.frameworkMs + (codegenMs[i] ?? median(codegenMs)));
  const resumed = records.filter((r) => r.phases && wallS * 1000 < r.phases.benchmarkMs).length > 0;
  say(`  ${records.length} variants${resumed ? " (resumed from the log: measured in an earlier run)" : ""} in ${wallS.toFixed(1)} s (${(wallS * 1000 / records.length).toFixed(0)} ms each): ${[...statuses].map(([k, v]) => `${v} ${k}`).join(", ")}`);
  say(`  best: ${JSON.stringify(best.point)} ${best.medianMs.toFixed(3)} ms = ${bestRate.toFixed(2)} ${unit}${frac !== undefined ? ` = ${(frac * 100).toFixed(1)}% of this machine's ${s.rate === "gflops" ? "float32 FMA peak" : "triad bandwidth"}` : ""}`);
  say(`  per variant (medians): build ${median(ph.map((p) => p.buildMs)).toFixed(2)} ms, code generation ${median(codegenMs).toFixed(2)} ms, framework ${median(ph.map((p) => p.frameworkMs)).toFixed(2)} ms ` +
    `=> the sweep's own cost ${median(own).toFixed(2)} ms (mean ${(own.reduce((a, b) => a + b, 0) / Math.max(1, own.length)).toFixed(2)} ms); ` +
    `toolchain and check ${median(ph.map((p) => p.checkMs)).toFixed(0)} ms, benchmark runs ${median(ph.map((p) => p.benchmarkMs)).toFixed(0)} ms`);

  // Each strategy at equal budget on the measured log.
  const optimum = Math.max(...records.filter((r) => r.ok).map((r) => r[s.rate] ?? 0));
  const strategies: Record<string, Record<number, { median: number; ofOptimum: number }>> = {};
  for (const budget of BUDGETS) {
    say(`  strategies at ${budget} variants, median over ${SEEDS} seeds of the best ${unit} found (optimum ${optimum.toFixed(2)}):`);
    for (const strategy of STRATEGIES) {
      const found: number[] = [];
      for (let seed = 0; seed < SEEDS; seed++) {
        const sim = await lp.simulateTuning(log, strategy, { seed, budget: { variants: budget }, space: s.space, missing: "invalid" });
        found.push(sim.best?.[s.rate] ?? 0);
      }
      (strategies[strategy] ??= {})[budget] = { median: median(found), ofOptimum: median(found) / optimum };
      const v = strategies[strategy]![budget]!;
      say(`    ${strategy.padEnd(20)} ${v.median.toFixed(2)} ${unit} (${(v.ofOptimum * 100).toFixed(1)}% of the optimum; ${(v.median / strategies.random![budget]!.median).toFixed(3)}x random)`);
    }
  }
  summary[s.name] = {
    variants: records.length, wallS, best: { point: best.point, medianMs: best.medianMs, [s.rate]: bestRate, peakFraction: frac },
    ownMsPerVariant: median(own), statuses: Object.fromEntries(statuses), strategies,
  };
}
if (!keep) rmSync(dir, { recursive: true, force: true });
summary.load = loadavg()[0];
if (json) console.log(JSON.stringify(summary));
