/**
 * A module spec for `loom tune examples/tune-matmul.ts` (docs/tuning.md): lp.autotune's options
 * plus the kernel, as the default export. A module can do what JSON cannot: build the variant
 * in code and restrict the space with functions.
 */
import * as lp from "../src/index.js"; // in a project of your own: from "loom-kernels"

const kernel = lp.makeKernel("{ [i, j, k]: 0 <= i, j, k < n }", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });

export default {
  kernel,
  space: { ti: [1, 2, 4, 8, 16], tj: [1, 2, 4, 8, 16], gl: ["no", "yes"] },
  build: (_k: lp.Kernel, p: lp.TuningPoint) => {
    const tags = p.gl === "yes";
    return lp.pipeline(
      lp.split("i", p.ti as number, tags ? { outerTag: "g.0", innerTag: "l.0" } : {}),
      lp.split("j", p.tj as number, tags ? { outerTag: "g.1", innerTag: "l.1" } : {}),
    );
  },
  restrictions: [(p: lp.TuningPoint) => (p.ti as number) * (p.tj as number) <= 64],
  params: { n: 64 },
  backend: "js",
  strategy: "greedy_ils",
  budget: { variants: 20 },
  repeats: 3,
  seed: 1,
} satisfies lp.AutotuneOptions & { kernel: lp.Kernel };
