// Micro-benchmark of kernel statistics: getOpMap + getMemAccessMap (and kernelCost) of a tiled matmul
// (i, j split by 16 onto g/l axes, k split by 8): cold (content memos cleared each time), a fresh
// kernel of the same structure (a sweep's next variant: content-keyed memos apply), the same kernel
// again; and the length of its printed counts. Prints medians. Not a test.
// Run: npx tsx bench/statistics.ts
import * as lp from "../src/index.js";
import { clearPolyMemos } from "../src/poly/index.js";

function tiledMatmul(): lp.Kernel {
  let k = lp.makeKernel("{[i,k,j]: 0<=i<n and 0<=k<n and 0<=j<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b, c: float32[n, n]", "n: int32"], { assumptions: "n >= 1" });
  k = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
  k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
  return lp.splitIname(k, "k", 8);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(reps: number, make: () => lp.Kernel, cold = false, cost = false): number[] {
  const out: number[] = [];
  for (let r = 0; r < reps; r++) {
    const k = make();
    if (cold) clearPolyMemos();
    const t0 = performance.now();
    lp.getOpMap(k);
    lp.getMemAccessMap(k);
    if (cost) lp.kernelCost(k, { n: 1024 });
    out.push(performance.now() - t0);
  }
  return out;
}

const first = performance.now();
const k0 = tiledMatmul();
const ops = lp.getOpMap(k0);
const mem = lp.getMemAccessMap(k0);
console.log(`statistics: getOpMap + getMemAccessMap of a tiled matmul (16x16 g/l, k by 8)`);
console.log(`  first call             ${(performance.now() - first).toFixed(1)} ms`);
time(5, tiledMatmul);
console.log(`  cold (median)          ${median(time(20, tiledMatmul, true)).toFixed(2)} ms`);
console.log(`  fresh kernel (median)  ${median(time(50, tiledMatmul)).toFixed(2)} ms`);
console.log(`  same kernel (median)   ${median(time(50, () => k0)).toFixed(2)} ms`);
console.log(`  + kernelCost, cold     ${median(time(20, tiledMatmul, true, true)).toFixed(2)} ms`);
console.log(`  + kernelCost, fresh    ${median(time(50, tiledMatmul, false, true)).toFixed(2)} ms`);
console.log(`  printed: op map ${ops.toString().length} chars, mem map ${mem.toString().length} chars`);
console.log(`  total flops: ${ops.sum().toString().slice(0, 200)}`);
