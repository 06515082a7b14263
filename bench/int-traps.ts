/**
 * What checking integer traps costs on c (gcc -O3 -march=native, or $LOOM_CFLAGS): a loop of
 * data-dependent shifts `o[i] = (a[i] ^ r) << s[i]` and a loop of floor divisions
 * `q[i] = (a[i] ^ r) // d[i]` (n = 2048 int32, in L1; `reps` rounds in one call), each against the
 * same loop unchecked:
 *
 * - shift: Loom's checked loop against Loom's `<< (s[i] & 31)` (a count proved in range: no check)
 *   and against plain C (`a << s`, no check at all);
 * - division: Loom's checked loop against plain C's floor division (no check of the divisor).
 *
 * With `--before DIR` (a compiled build of an earlier tree: `npx tsc -p tsconfig.bench.json
 * --outDir DIR`), that build's checked loops are timed beside, in the same rounds: the before/after
 * ratio of a change to the checks. The variants alternate in rounds; printed are each one's best
 * time, the ratios of the best times, and the ratios within each round (their median and range: on
 * a loaded machine a 1 ms call is often preempted, and the best times are the steadier figure),
 * with the load average.
 *
 * Run: `npx tsx bench/int-traps.ts [--before DIR] [--quick]`. Needs cc.
 */
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as lp from "../src/index.js";
import { loadKernels } from "../src/run/native-compile.js";

const quick = process.argv.includes("--quick");
const beforeAt = process.argv.indexOf("--before");
const beforeDir = beforeAt > 0 ? process.argv[beforeAt + 1] : undefined;
const N = 2048;
const REPS = quick ? 500 : 4000;
const ROUNDS = quick ? 3 : 11;

type Lp = typeof lp;

/** The kernels of one build: checked shift, shift by a count proved in range, checked floor division. */
function kernels(L: Lp) {
  const dom = "{[r,i]: 0<=r<reps and 0<=i<n}";
  const args = ["a, s, d, o: int32[n]", "n, reps: int32"];
  return {
    shift: L.makeKernel(dom, "o[i] = (a[i] ^ r) << s[i] {id=sh}", args, { name: "shift" }),
    shiftProved: L.makeKernel(dom, "o[i] = (a[i] ^ r) << (s[i] & 31) {id=sh}", args, { name: "shift_proved" }),
    division: L.makeKernel(dom, "o[i] = (a[i] ^ r) // d[i] {id=dv}", args, { name: "division" }),
  };
}

const PEERS = `
#include <stdint.h>
#define EXPORT __attribute__((visibility("default")))
EXPORT void peer_shift(void **a);
void peer_shift(void **a)
{
  const int32_t *restrict x = (const int32_t *)a[0], *restrict s = (const int32_t *)a[1];
  int32_t *restrict o = (int32_t *)a[2];
  const int n = *(const int32_t *)a[3], reps = *(const int32_t *)a[4];
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < n; ++i) o[i] = (x[i] ^ r) << s[i];
}
EXPORT void peer_division(void **a);
void peer_division(void **a)
{
  const int32_t *restrict x = (const int32_t *)a[0], *restrict d = (const int32_t *)a[1];
  int32_t *restrict o = (int32_t *)a[2];
  const int n = *(const int32_t *)a[3], reps = *(const int32_t *)a[4];
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < n; ++i) {
      const int32_t p = x[i] ^ r, q = p / d[i];
      o[i] = (p % d[i] != 0 && ((p < 0) != (d[i] < 0))) ? q - 1 : q;
    }
}
`;

/** Inputs: shift counts in 0..31 and divisors in -9..9 without 0 (nothing traps). */
function inputs() {
  const a = new Int32Array(N);
  const s = new Int32Array(N);
  const d = new Int32Array(N);
  let x = 12345;
  for (let i = 0; i < N; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    a[i] = x | 0;
    s[i] = x >>> 27;
    d[i] = ((x >>> 8) % 9) + 1;
    if (x & 1) d[i] = -d[i]!;
  }
  return { a, s, d };
}

type Timed = () => Promise<number>;

async function main(): Promise<void> {
  const { a, s, d } = inputs();
  const lib = await loadKernels(PEERS, {}, "bench/int-traps.ts peers", ["peer_shift", "peer_division"]);
  const peer = (sym: string, div: Int32Array): Timed => async () =>
    lib.call(sym, [a, div, new Int32Array(N), N, REPS], ["ptr", "ptr", "ptr", "int32", "int32"]) / 1e6;
  const loom = (L: Lp, k: lp.Kernel): Timed => async () =>
    (await L.runTimed(k, { a, s, d, o: new Int32Array(N), n: N, reps: REPS }, { backend: "c" })).kernelMs.reduce((u, v) => u + v, 0);
  const after = kernels(lp);
  const B = beforeDir ? (await import(pathToFileURL(resolve(beforeDir, "src/index.js")).href)) as Lp : undefined;
  const before = B ? kernels(B) : undefined;

  // The same outputs from every variant (nothing traps here).
  const out = async (L: Lp, k: lp.Kernel) => [...(await L.run(k, { a, s, d, o: new Int32Array(N), n: N, reps: 2 }, { backend: "c" })).o!];
  const want = {
    shift: await out(lp, after.shiftProved),
    division: await out(lp, after.division),
  };
  if (JSON.stringify(await out(lp, after.shift)) !== JSON.stringify(want.shift)) throw new Error("the checked and unchecked shift loops differ");
  if (before && JSON.stringify(await out(B!, before.shift)) !== JSON.stringify(want.shift)) throw new Error("the before build's shift loop differs");

  const variants: [string, Timed][] = [
    ["shift: Loom checked", loom(lp, after.shift)],
    ["shift: Loom count & 31 (no check)", loom(lp, after.shiftProved)],
    ["shift: plain C (no check)", peer("peer_shift", s)],
    ["division: Loom checked", loom(lp, after.division)],
    ["division: plain C (no check)", peer("peer_division", d)],
    ...(before ? [["shift: before build, checked", loom(B!, before.shift)], ["division: before build, checked", loom(B!, before.division)]] as [string, Timed][] : []),
  ];
  const best = new Map<string, number>();
  const rounds: Map<string, number>[] = [];
  const load0 = loadavg()[0]!;
  for (let r = 0; r < ROUNDS; r++) {
    const times = new Map<string, number>();
    for (const [name, f] of r % 2 === 0 ? variants : [...variants].reverse()) {
      const t = await f();
      times.set(name, t);
      best.set(name, Math.min(best.get(name) ?? Infinity, t));
    }
    rounds.push(times);
  }
  const ms = (name: string) => best.get(name)!;
  const elements = (N * REPS) / 1e6;
  for (const [name] of variants) console.log(`${name.padEnd(36)} ${ms(name).toFixed(3).padStart(8)} ms  ${(ms(name) / elements).toFixed(3)} ns/element (best)`);
  // The median over rounds of the ratio within a round (both timed moments apart): noise hits both alike.
  const ratio = (x: string, y: string) => {
    const rs = rounds.map((t) => t.get(x)! / t.get(y)!).sort((u, v) => u - v);
    return `${(ms(x) / ms(y)).toFixed(2)} (per round: median ${rs[rs.length >> 1]!.toFixed(2)}, ${rs[0]!.toFixed(2)}..${rs[rs.length - 1]!.toFixed(2)})`;
  };
  console.log("ratios of the best times (and of the times within each round):");
  console.log(`  shift checked / count & 31: ${ratio("shift: Loom checked", "shift: Loom count & 31 (no check)")}, / plain C: ${ratio("shift: Loom checked", "shift: plain C (no check)")}`);
  console.log(`  division checked / plain C: ${ratio("division: Loom checked", "division: plain C (no check)")}`);
  if (before) {
    console.log(`  before / after: shift ${ratio("shift: before build, checked", "shift: Loom checked")}, division ${ratio("division: before build, checked", "division: Loom checked")}`);
  }
  console.log(`n = ${N} int32 x ${REPS} rounds, ${ROUNDS} rounds; load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)} (${process.env.LOOM_CFLAGS ?? "-O3 -march=native -fopenmp"})`);
}

await main();
