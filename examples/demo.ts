/**
 * `npm start`: Loom's main job on the CPU, end to end.
 *
 * 1. Import a kernel written in OCCA's kernel language (OKL), print it as loopy would, lower it to
 *    C and CUDA, run it natively (OpenMP where this machine has a C compiler, else the generated
 *    JavaScript) and check it against the reference interpreter.
 * 2. Tune a matrix product: sweep tile sizes and tags, every variant checked against the
 *    untransformed kernel before it is timed, with a progress line; print the fastest variant,
 *    its pipeline (replayable JSON), what it reached and its generated code.
 */
import * as lp from "../src/index.js";

const native = lp.backendAvailability("openmp").available;
const backend: lp.BackendName = native ? "openmp" : "js";
const say = (s = "") => console.log(s);
const rule = (title: string) => say(`\n== ${title} ${"=".repeat(Math.max(0, 70 - title.length))}`);

// ---------------------------------------------------------------- 1. OKL in, every target out
const okl = `
@kernel void smooth(const int n, const float *u, float *v) {
  for (int by = 1; by < n - 1; by += 16; @outer(1)) {
    for (int bx = 1; bx < n - 1; bx += 16; @outer(0)) {
      for (int y = by; y < by + 16; ++y; @inner(1)) {
        for (int x = bx; x < bx + 16; ++x; @inner(0)) {
          if (y < n - 1 && x < n - 1) {
            v[y*n + x] = 0.2f*(u[y*n + x] + u[(y-1)*n + x] + u[(y+1)*n + x] + u[y*n + x - 1] + u[y*n + x + 1]);
          }
        }
      }
    }
  }
}`;
rule("1. an OKL kernel, imported");
const [smooth] = lp.parseOkl(okl, { filename: "smooth.okl" });
say(String(smooth));
rule("lowered to C (excerpt)");
say(lp.generateCode(smooth!, "c").deviceCode.split("\n").slice(0, 18).join("\n") + "\n  …");
rule("lowered to CUDA (excerpt)");
say(lp.generateCode(smooth!, "cuda").deviceCode.split("\n").slice(0, 12).join("\n") + "\n  …");

// OKL pointers have no shape: the caller passes every array, as with OCCA.
const n = 200;
const u = Float32Array.from({ length: n * n }, (_, q) => Math.sin(q));
const ran = await lp.runTimed(smooth!, { n, u, v: new Float32Array(n * n) }, { backend });
const reference = (await lp.run(smooth!, { n, u, v: new Float32Array(n * n) })).v!;
const got = ran.outputs.v!;
const differing = got.filter((x, q) => !Object.is(x, reference[q])).length;
say(`\nran on ${backend}${native ? "" : " (no C compiler here: the generated JavaScript)"}: n = ${n}, ` +
  `kernel ${ran.kernelMs.reduce((x, y) => x + y, 0).toFixed(3)} ms (compiled before timing); ` +
  `${differing} of ${n * n} elements differ from the reference interpreter's`);
if (differing !== 0) process.exit(1);

// ---------------------------------------------------------------- 2. tune a matrix product
rule(`2. tuning a matrix product on ${backend}`);
const mm = lp.makeKernel("{ [i, j, k]: 0 <= i, j, k < n }", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"],
  { name: "matmul", assumptions: "n mod 32 = 0 and n >= 32" }); // tiles divide n: no remainder guards
const space = { ti: [4, 8, 16], tj: [8, 16, 32], order: ["ikj", "ijk"] };
const tty = process.stdout.isTTY === true;
const started = performance.now();
const { best, records } = await lp.autotune(mm, {
  space,
  build: (_k, p) => lp.pipeline(
    lp.split("i", p.ti as number, { outerTag: "g.0" }),
    lp.split("j", p.tj as number, { innerTag: "ilp" }),
    lp.prioritize(p.order === "ikj" ? "i_outer,i_inner,k,j_outer" : "i_outer,i_inner,j_outer,k")),
  params: { n: native ? 256 : 64 },
  testParams: { n: 32 },              // the correctness check's size (a multiple of 32, as assumed)
  backend,
  strategy: "exhaustive",
  repeats: 3,
  onProgress: (done, total, b) => {
    const line = `  ${done}/${total} variants, best ${b ? `${b.medianMs.toFixed(3)} ms at ${JSON.stringify(b.point)}` : "none yet"}`;
    if (tty) process.stdout.write(`\r${line.padEnd(78)}`);
    else say(line);
  },
});
if (tty) say();
const seconds = (performance.now() - started) / 1000;
const counts = new Map<string, number>();
for (const r of records) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
say(`\n${records.length} variants in ${seconds.toFixed(1)} s (${[...counts].map(([s, c]) => `${c} ${s}`).join(", ")})`);
const reached = best.gflops !== undefined ? `, ${best.gflops.toFixed(2)} GFLOP/s` : "";
say(`fastest: ${JSON.stringify(best.point)}: median ${best.medianMs.toFixed(3)} ms${reached}`);
say(`its pipeline (lp.fromJSON replays it):\n${lp.describe(lp.fromJSON(best.pipeline))}`);
rule("the fastest variant's code");
say(lp.generateCode(lp.replay(records, mm), backend === "js" ? "js" : "openmp").deviceCode);
