/** Random inputs for imported OKL kernels: array lengths from their shapes at given parameters. */
import { allocArray, type Dtype, type Kernel, type TypedArray } from "../../src/ir/index.js";
import { evalSizeExpr } from "../../src/run/size-expr.js";

/** The flat length of every array argument (at least 1). */
export function argLengths(k: Kernel, params: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of k.args) {
    if (a.kind !== "array") continue;
    const env = new Map(Object.entries(params));
    // The library's own reading of a shape (run sizes arrays with it).
    out[a.name] = Math.max(1, (a.shape ?? []).reduce((p, e) => p * evalSizeExpr(e, env, `the shape of ${a.name}`), 1));
  }
  return out;
}

/** A deterministic random array (values in [-1, 1) for floats, [0, 10) for integers). */
export function randomArray(d: Dtype, n: number, seed: number): TypedArray {
  const a = allocArray(d, n);
  let s = seed * 2654435761 % 4294967296 || 1;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const u = s / 2147483648;
    (a as unknown as number[])[i] = d.startsWith("float") ? 2 * u - 1 : Math.floor(10 * u);
  }
  return a;
}
