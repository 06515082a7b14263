/**
 * `npm start`: the main demonstration. Builds a matrix-matrix product from loopy's notation,
 * prints the kernel as loopy would, runs it with the reference interpreter and checks the result.
 */
import * as lp from "../src/index.js";

const n = 8;
const k = lp.makeKernel(
  "{ [i, j, k]: 0 <= i, j, k < n }",
  "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"],
  { name: "matmul" },
);
console.log(lp.show(k));

const a = Float32Array.from({ length: n * n }, (_, x) => (x % 7) - 3);
const b = Float32Array.from({ length: n * n }, (_, x) => (x % 5) * 0.5);
const { c } = await lp.run(k, { a, b, n });

let maxErr = 0;
for (let i = 0; i < n; i++) {
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let q = 0; q < n; q++) s = Math.fround(s + Math.fround(a[i * n + q]! * b[q * n + j]!));
    maxErr = Math.max(maxErr, Math.abs(s - (c as Float32Array)[i * n + j]!));
  }
}
console.log(`\nc[0, 0..3] = ${Array.from((c as Float32Array).slice(0, 4)).join(", ")}`);
console.log(`interpreter vs. plain JavaScript: max |error| = ${maxErr}`);
if (maxErr !== 0) process.exit(1);
