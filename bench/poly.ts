// Micro-benchmark of the integer-set hot path used by code generation: parse a 4-d parametric
// set, project out the two innermost dims, bound every dim in terms of the outer ones.
// Run: npx tsx bench/poly.ts
import { clearPolyMemos, dimBounds, parseSet, projectOut } from "../src/poly/index.js";

const TEXT =
  "[n, m] -> { [i, j, k, l] : 0 <= i < n and 0 <= j <= i and 0 <= k < m and j <= l < k + n and (l - i) mod 2 = 0 }";

function once(): void {
  const s = parseSet(TEXT);
  const p = projectOut(s, ["k", "l"]);
  if (p.dims.length !== 2) throw new Error("bench: unexpected projection");
  s.dims.forEach((d, k) => dimBounds(s, d, s.dims.slice(0, k)));
}

/** Times of `reps` repetitions; `cold` clears the content-keyed memos first, so every repetition does the work. */
function timeIt(reps: number, cold: boolean): number[] {
  const t: number[] = [];
  for (let r = 0; r < reps; r++) {
    if (cold) clearPolyMemos();
    const t0 = process.hrtime.bigint();
    once();
    t.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return t.sort((a, b) => a - b);
}

timeIt(200, true); // warm-up: JIT
console.log(`poly: parse + projectOut(2 dims) + dimBounds(4 dims), 1000 reps`);
for (const cold of [true, false]) {
  const t = timeIt(1000, cold);
  const q = (f: number) => t[Math.min(t.length - 1, Math.floor(f * t.length))]!;
  const label = cold ? "cold (memos cleared each rep)" : "memoized (same set again)   ";
  console.log(`  ${label}  median ${q(0.5).toFixed(1)} µs   p90 ${q(0.9).toFixed(1)} µs   min ${t[0]!.toFixed(1)} µs`);
}
