/** Shared fixtures of the tuner's tests: a small matmul and its tiling space. */
import * as lp from "../../src/index.js";

export function matmul(): lp.Kernel {
  return lp.makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
}

/** Split factors for i and j, with or without g/l tags. */
export const TILE_SPACE = { ti: [1, 2, 4, 8], tj: [1, 2, 4, 8], gl: ["no", "yes"] };

/** The tiled matmul of a point of TILE_SPACE, as a pipeline (a step). */
export function tiled(p: lp.TuningPoint): ReturnType<typeof lp.pipeline> {
  const tags = p.gl === "yes";
  return lp.pipeline(
    lp.split("i", p.ti as number, tags ? { outerTag: "g.0", innerTag: "l.0" } : {}),
    lp.split("j", p.tj as number, tags ? { outerTag: "g.1", innerTag: "l.1" } : {}),
  );
}

/** A build that counts its calls (one per measured point). */
export function counting(build: (k: lp.Kernel, p: lp.TuningPoint) => lp.Kernel | ReturnType<typeof lp.pipeline>) {
  const calls: string[] = [];
  return {
    calls,
    build: (k: lp.Kernel, p: lp.TuningPoint) => {
      calls.push(JSON.stringify(p));
      return build(k, p);
    },
  };
}
