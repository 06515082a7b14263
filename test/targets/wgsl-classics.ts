/**
 * Loopy's classic kernels, each with its reference and parameter sizes (non-multiples of the tile
 * sizes where the kernel allows): the wgsl target generates them (wgsl.test.ts), the webgpu
 * backend runs them against the interpreter (webgpu.test.ts).
 */
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, splitIname, tagInames } from "../../transforms/index.js";

const rowsum = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j])", ["a: float32[n,m]", "out: float32[n]", "n, m: int32"], { name: "rowsum" });
const matmul = () => makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul" });
const stencil = () => makeKernel("{[i,j]: 0<=i,j<n}", "z[i+1,j+1] = -4*a[i+1,j+1] + a[i+1,j] + a[i+1,j+2] + a[i,j+1] + a[i+2,j+1]",
  ["a, z: float32[n+2,n+2]", "n: int32"], { name: "stencil5" });

export const CLASSICS: Readonly<Record<string, { ref: () => Kernel; knl: () => Kernel; sizes: readonly Record<string, number>[] }>> = {
  "vector add split g/l": {
    ref: () => makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + b[i]", ["a, b, out: float32[n]", "n: int32"], { name: "vecadd" }),
    knl() {
      return splitIname(this.ref(), "i", 128, { outerTag: "g.0", innerTag: "l.0" });
    },
    sizes: [{ n: 1 }, { n: 128 }, { n: 300 }],
  },
  "tiled matmul with local prefetch": {
    ref: matmul,
    knl: () => {
      let k = splitIname(matmul(), "i", 16, { outerTag: "g.0", innerTag: "l.1" });
      k = splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
      k = splitIname(k, "k", 16);
      k = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"], temporaryAddressSpace: "local" });
      return addPrefetch(k, "b", { sweepInames: ["k_inner", "j_inner"], temporaryAddressSpace: "local" });
    },
    sizes: [{ n: 16 }, { n: 20 }, { n: 33 }],
  },
  "reduction over an l axis": {
    ref: rowsum,
    knl: () => splitIname(tagInames(rowsum(), { i: "g.0" }), "j", 64, { innerTag: "l.0" }),
    sizes: [{ n: 3, m: 1 }, { n: 3, m: 64 }, { n: 4, m: 100 }, { n: 2, m: 200 }],
  },
  "stencil with a 2-D local tile": {
    ref: stencil,
    knl: () => {
      let k = splitIname(stencil(), "i", 16, { outerTag: "g.1", innerTag: "l.1" });
      k = splitIname(k, "j", 16, { outerTag: "g.0", innerTag: "l.0" });
      return addPrefetch(k, "a", { sweepInames: ["i_inner", "j_inner"], temporaryAddressSpace: "local", fetchBoundingBox: true });
    },
    sizes: [{ n: 1 }, { n: 16 }, { n: 21 }],
  },
};
