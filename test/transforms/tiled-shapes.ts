/**
 * Tiled kernels the fetch laws draw (fetch-context.test.ts, fetch-domain-memo.test.ts): a matmul, a
 * 2-D stencil or a triangle, i and j split (l tags, g tags when `groups`), matmul's k split too.
 */
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { splitIname } from "../../transforms/index.js";

export const FACTORS = [2, 3, 4, 8, 16] as const;
export const ASSUME = [undefined, "n mod 16 = 0 and n >= 16", "n >= 5"] as const;
export const SHAPES = ["matmul", "stencil", "triangle"] as const;

export function tiledKernel(shape: string, ti: number, tj: number, tk: number, assume: string | undefined, groups: boolean): Kernel {
  const opts = { name: shape, ...(assume === undefined ? {} : { assumptions: assume }) };
  let k = shape === "matmul"
    ? makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b, c: float32[n,n]", "n: int32"], opts)
    : shape === "stencil"
      ? makeKernel("{[i,j]: 1<=i<n-1 and 1<=j<n-1}", "z[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]", ["a, z: float32[n,n]", "n: int32"], opts)
      : makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "z[i,j] = 2*a[i,j]", ["a, z: float32[n,n]", "n: int32"], opts);
  k = splitIname(k, "i", ti, { innerTag: "l.1", ...(groups ? { outerTag: "g.0" } : {}) });
  k = splitIname(k, "j", tj, { innerTag: "l.0", ...(groups ? { outerTag: "g.1" } : {}) });
  return shape === "matmul" ? splitIname(k, "k", tk) : k;
}
