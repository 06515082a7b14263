/**
 * `npm start`: the main demonstration. A matrix product written in loopy's notation is printed as
 * loopy would, tiled for a GPU (16×16 work-groups), scheduled, turned into OpenCL, and run both by
 * the reference interpreter (with its GPU semantics) and by the generated JavaScript, which must
 * agree with each other and with a plain JavaScript loop nest.
 */
import * as lp from "../src/index.js";

const n = 40; // not a multiple of 16: the remainder guards are exercised
let k = lp.makeKernel(
  "{ [i, j, k]: 0 <= i, j, k < n }",
  "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"],
  { name: "matmul" },
);
console.log(lp.show(k));

k = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
k = lp.splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
k = lp.splitIname(k, "k", 16);
console.log("\n" + lp.showSchedule(lp.schedule(k)));

const code = lp.generateCode(k, "opencl");
console.log("\n" + code.deviceCode);
console.log(`launch: ${code.kernels.map((d) => `${d.name}: groups (${d.globalSize.join(", ")}), work-items (${d.localSize.join(", ")})`).join("; ")}`);

const a = Float32Array.from({ length: n * n }, (_, x) => (x % 7) - 3);
const b = Float32Array.from({ length: n * n }, (_, x) => (x % 5) * 0.5);
const interp = (await lp.run(k, { a, b, n })).c as Float32Array;
const js = (await lp.run(k, { a, b, n }, { backend: "js" })).c as Float32Array;

let maxErr = 0;
let mismatch = 0;
for (let i = 0; i < n; i++) {
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let q = 0; q < n; q++) s = Math.fround(s + Math.fround(a[i * n + q]! * b[q * n + j]!));
    maxErr = Math.max(maxErr, Math.abs(s - interp[i * n + j]!));
    if (!Object.is(interp[i * n + j], js[i * n + j])) mismatch++;
  }
}
console.log(`\nc[0, 0..3] = ${Array.from(interp.slice(0, 4)).join(", ")}`);
console.log(`interpreter vs. plain JavaScript: max |error| = ${maxErr}`);
console.log(`generated JavaScript vs. interpreter: ${mismatch} differing elements`);
if (maxErr !== 0 || mismatch !== 0) process.exit(1);

// The same kernel, with a and b prefetched to local memory as loopy's tiled matmul, compiled and
// run natively where this machine can (each backend says why when it cannot).
const fetched = lp.addPrefetch(lp.addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] }), "b", { sweepInames: ["k_inner", "j_inner"] });
for (const backend of ["openmp", "opencl", "cuda"] as const) {
  const avail = lp.backendAvailability(backend);
  if (!avail.available) {
    console.log(`${backend}: skipped (${avail.reason})`);
    continue;
  }
  const { outputs, kernelMs } = await lp.runTimed(fetched, { a, b, n }, { backend });
  const got = outputs.c as Float32Array;
  const diff = got.reduce((m, x, q) => Math.max(m, Math.abs(x - interp[q]!)), 0);
  console.log(`${backend} (prefetched): max |difference| from the interpreter = ${diff}, kernel ${kernelMs.map((t) => t.toFixed(3)).join(" + ")} ms`);
  if (diff > 1e-4) process.exit(1);
}
