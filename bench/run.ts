/**
 * The native runtime against its peers, measured in one run (`npx tsx bench/run.ts [n]`):
 *
 *   (a) n×n float32 matmul (default n = 1024): OpenBLAS `cblas_sgemm`, a naive C triple loop, and
 *       Loom's matmuls on `openmp` — loopy's GPU-style tiling (16/16/16, a and b prefetched to
 *       "local" arrays) and a CPU-style variant (rows over threads, j innermost) — in GFLOP/s and
 *       as ratios to OpenBLAS;
 *   (b) vector add bandwidth on `openmp` against `memcpy` (GB/s counted as bytes read + written);
 *   (c) per-call overhead of the native path: the addon's call of an empty C function, and
 *       `run()` of a one-element kernel on `c` and `opencl` (argument checks, copies, launch).
 *
 * Times are medians of repeated runs, measured in native code around the call only. OpenBLAS
 * comes from Debian's libopenblas-dev; without it (a) says so and goes on.
 */
import { performance } from "node:perf_hooks";
import { loadLibrary } from "../native/index.js";
import { makeKernel } from "../src/parse/index.js";
import { backendAvailability, compileShared, run, runTimed } from "../src/run/index.js";
import { addPrefetch, prioritizeLoops, splitIname, tagInames } from "../transforms/index.js";
import type { Kernel } from "../src/ir/index.js";

const n = Number(process.argv[2] ?? 1024);
const REPS = 5;
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number, d = 1) => x.toFixed(d);

const PEERS = `
#include <stdint.h>
#include <string.h>
#include <cblas.h>
void peer_sgemm(void **a) {
  int n = *(int32_t *)a[3];
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, (const float *)a[0], n, (const float *)a[1], n, 0.0f, (float *)a[2], n);
}
void peer_naive(void **a) {
  const float *A = a[0], *B = a[1];
  float *C = a[2];
  int n = *(int32_t *)a[3];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
}
void peer_memcpy(void **a) { memcpy(a[1], a[0], (size_t)*(int64_t *)a[2]); }
void peer_empty(void **a) { (void)a; }
`;

function matmul(): Kernel {
  return makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul", assumptions: "n >= 1" });
}

function gpuStyle(): Kernel {
  let k = matmul();
  k = splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
  k = splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
  k = splitIname(k, "k", 16);
  k = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] });
  return addPrefetch(k, "b", { sweepInames: ["k_inner", "j_inner"] });
}

/** Rows over OpenMP threads, k before j so the innermost loop is unit-stride in b and c. */
function cpuStyle(): Kernel {
  const k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", [
    "c[i, j] = 0 {id=z, inames=i:j}",
    "c[i, j] = c[i, j] + a[i, k]*b[k, j] {id=upd, dep=z, inames=i:k:j}",
  ], ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul_cpu", assumptions: "n >= 1" });
  return prioritizeLoops(tagInames(k, "i:g.0"), "i,k,j");
}

async function timeLoom(k: Kernel, args: Record<string, Float32Array | number>): Promise<{ ms: number; out: Float32Array }> {
  const times: number[] = [];
  let out: Float32Array = new Float32Array(0);
  for (let r = 0; r < REPS + 1; r++) {
    const res = await runTimed(k, args, { backend: "openmp" });
    if (r > 0) times.push(res.kernelMs.reduce((a, b) => a + b, 0));
    out = res.outputs.c as Float32Array;
  }
  return { ms: median(times), out };
}

function maxRelDiff(x: Float32Array, y: Float32Array): number {
  let m = 0;
  for (let q = 0; q < x.length; q++) m = Math.max(m, Math.abs(x[q]! - y[q]!) / Math.max(1, Math.abs(y[q]!)));
  return m;
}

const omp = backendAvailability("openmp");
if (!omp.available) {
  console.log(`the openmp backend is not available: ${omp.reason}`);
  process.exit(0);
}

let peers;
let haveBlas = true;
try {
  peers = loadLibrary(await compileShared(PEERS, { flags: ["-O3", "-march=native"], libs: ["-lopenblas"] }, "benchmark peers"));
} catch (e) {
  haveBlas = false;
  console.log(`OpenBLAS not usable (${(e as Error).message.split("\n")[0]}); install libopenblas-dev. Peers without it:`);
  peers = loadLibrary(await compileShared(PEERS.replace(/#include <cblas.h>[^]*?\n}\n/, ""), { flags: ["-O3", "-march=native"] }, "benchmark peers"));
}

// ---- (a) matmul ----
const a = Float32Array.from({ length: n * n }, (_, x) => ((x * 13) % 7) / 7 - 0.4);
const b = Float32Array.from({ length: n * n }, (_, x) => ((x * 5) % 11) / 11 - 0.5);
const flops = 2 * n ** 3;
const peerTime = (sym: string): { ms: number; out: Float32Array } => {
  const c = new Float32Array(n * n);
  const times: number[] = [];
  for (let r = 0; r < REPS + 1; r++) {
    const ns = peers.call(sym, [a, b, c, n], ["ptr", "ptr", "ptr", "int32"]);
    if (r > 0) times.push(ns / 1e6);
  }
  return { ms: median(times), out: c };
};
console.log(`(a) float32 matmul, n = ${n}, ${process.env.OMP_NUM_THREADS ?? "all"} OpenMP threads; median of ${REPS}`);
const rows: [string, { ms: number; out: Float32Array }][] = [];
if (haveBlas) rows.push(["OpenBLAS cblas_sgemm", peerTime("peer_sgemm")]);
rows.push(["naive C (i, j, k; -O3, 1 thread)", peerTime("peer_naive")]);
rows.push(["Loom openmp, GPU-style tiles + prefetch", await timeLoom(gpuStyle(), { a, b, n })]);
rows.push(["Loom openmp, CPU-style (i parallel, j inner)", await timeLoom(cpuStyle(), { a, b, n })]);
const ref = rows[0]![1];
for (const [name, r] of rows) {
  const gf = flops / (r.ms * 1e6);
  console.log(`    ${name.padEnd(46)} ${fmt(r.ms, 2).padStart(9)} ms ${fmt(gf, 2).padStart(8)} GFLOP/s   ratio to ${haveBlas ? "OpenBLAS" : "naive"} ${fmt(ref.ms / r.ms, 3)}   max rel diff ${maxRelDiff(r.out, ref.out).toExponential(1)}`);
}

// ---- (b) bandwidth ----
const len = 1 << 24;
const va = Float32Array.from({ length: len }, (_, x) => x % 97);
const vb = Float32Array.from({ length: len }, (_, x) => x % 89);
const vecadd = splitIname(makeKernel("{[i]: 0<=i<n}", "c[i] = a[i] + b[i]", ["a, b, c: float32[n]", "n: int32"], { name: "vecadd" }),
  "i", 1 << 16, { outerTag: "g.0" });
const addTimes: number[] = [];
const cOut = new Float32Array(len);
for (let r = 0; r < REPS + 1; r++) {
  const res = await runTimed(vecadd, { a: va, b: vb, c: cOut, n: len }, { backend: "openmp" });
  if (r > 0) addTimes.push(res.kernelMs[0]!);
}
const dst = new Float32Array(len);
const cpyTimes: number[] = [];
for (let r = 0; r < REPS + 1; r++) {
  const ns = peers.call("peer_memcpy", [va, dst, BigInt(len * 4)], ["ptr", "ptr", "int64"]);
  if (r > 0) cpyTimes.push(ns / 1e6);
}
const addGBs = (3 * 4 * len) / (median(addTimes) * 1e6);
const cpyGBs = (2 * 4 * len) / (median(cpyTimes) * 1e6);
console.log(`(b) vector add of ${len} float32 on openmp: ${fmt(addGBs)} GB/s; memcpy ${fmt(cpyGBs)} GB/s; ratio ${fmt(addGBs / cpyGBs, 2)}`);

// ---- (c) overhead ----
const emptyNs: number[] = [];
const dummy = new Float32Array(1);
for (let r = 0; r < 20000; r++) {
  const t0 = performance.now();
  peers.call("peer_empty", [dummy], ["ptr"]);
  emptyNs.push((performance.now() - t0) * 1e6);
}
console.log(`(c) per-call overhead: addon call of an empty C function ${fmt(median(emptyNs.slice(1000)) / 1000, 2)} µs (JS to C and back)`);
const one = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"], { name: "one" });
for (const backend of ["c", "opencl"] as const) {
  if (!backendAvailability(backend).available) {
    console.log(`    run() on ${backend}: not available here`);
    continue;
  }
  const x = Float32Array.of(1);
  await run(one, { a: x, n: 1 }, { backend });
  const walls: number[] = [];
  const kern: number[] = [];
  for (let r = 0; r < 500; r++) {
    const t0 = performance.now();
    const res = await runTimed(one, { a: x, n: 1 }, { backend });
    walls.push(performance.now() - t0);
    kern.push(res.kernelMs[0]!);
  }
  console.log(`    run() of a one-element kernel on ${backend}: ${fmt(median(walls) * 1000)} µs per call, of which the launch ${fmt(median(kern) * 1000)} µs`);
}
