/** Kernels the codegen tests share, built with makeKernel on split domains (as splitIname makes them). */
import { parseInameTag, withKernel, type InameTag, type Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { addPrefetch, splitIname, tagInames } from "../../transforms/index.js";

export function tag(k: Kernel, tags: Record<string, string>): Kernel {
  const t: Record<string, InameTag> = { ...k.inameTags };
  for (const [i, s] of Object.entries(tags)) t[i] = parseInameTag(s) as InameTag;
  return withKernel(k, { inameTags: t });
}

/** `out[i] = a[i] + b[i]` with i split by `f` (i = f*io + ii). */
export function vecadd(f = 128, assumptions?: string): Kernel {
  return makeKernel(`{[io, ii]: 0 <= ii < ${f} and 0 <= ${f}*io + ii < n}`, `out[${f}*io+ii] = a[${f}*io+ii] + b[${f}*io+ii]`,
    ["a: float32[n]", "b: float32[n]", "out: float32[n]", "n: int32"], { name: "vecadd", ...(assumptions ? { assumptions } : {}) });
}

/** Tiled matmul: i, j split by t (g/l), k split by t. */
export function tiledMatmul(t = 16, assumptions = "n mod 16 = 0 and n >= 16"): Kernel {
  const k = makeKernel(
    `{[io,ii,jo,ji,ko,ki]: 0<=ii,ji,ki<${t} and 0<=${t}*io+ii<n and 0<=${t}*jo+ji<n and 0<=${t}*ko+ki<n}`,
    `c[${t}*io+ii, ${t}*jo+ji] = sum((ko,ki), a[${t}*io+ii, ${t}*ko+ki]*b[${t}*ko+ki, ${t}*jo+ji])`,
    ["a: float32[n,n]", "b: float32[n,n]", "c: float32[n,n]", "n: int32"], { name: "matmul", assumptions });
  return tag(k, { io: "g.0", ii: "l.1", jo: "g.1", ji: "l.0" });
}

/** A local prefetch read across work-items: needs a barrier. */
export function localFetch(): Kernel {
  return tag(makeKernel("{[i]: 0<=i<16}", [
    "a_fetch[i] = a[i] {id=fetch}",
    "out[i] = a_fetch[15 - i] {id=use, dep=fetch}",
  ], [temporary("a_fetch", "float32", [16], "local"), "a: float32[16]", "out: float32[16]"], { name: "rev" }), { i: "l.0" });
}

/** One of loopy's classics: the reference kernel, its transformed version, and sizes to run both at. */
export interface Classic {
  /** What the tests call it: "tiled matmul with local prefetch". */
  readonly title: string;
  readonly ref: Kernel;
  readonly knl: Kernel;
  /** Parameter sets: multiples of the tile sizes and, where the kernel allows, sizes that are not. */
  readonly sizes: readonly Record<string, number>[];
}

export type ClassicName = "vecadd" | "matmul_tiled_prefetch" | "reduction_lpar" | "stencil5_tile";

/**
 * Loopy's four classics, built with the transformations as loopy's examples build them (vector
 * add split g/l, tiled matmul with local prefetches, a reduction over an `l` axis, a 5-point
 * stencil with a 2-D local tile; test/codegen/loopy-examples.test.ts writes the same kernels out
 * by hand): every target's tests take them from here. `matmulAssumptions` (loopy's
 * `"n mod 16 = 0 and n >= 16"`) gives the matmul without guards, as loopy's generated code, and
 * sizes that satisfy it: `loopyClassics().stencil5_tile.knl`.
 */
export function loopyClassics(o: { readonly matmulAssumptions?: string } = {}): Readonly<Record<ClassicName, Classic>> {
  const vecadd = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + b[i]", ["a, b: float32[n]", "out: float32[n]", "n: int32"], { name: "vecadd" });
  const matmul = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"],
    { name: "matmul", ...(o.matmulAssumptions !== undefined ? { assumptions: o.matmulAssumptions } : {}) });
  const rowsum = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j])", ["a: float32[n,m]", "out: float32[n]", "n, m: int32"], { name: "rowsum" });
  const stencil = makeKernel("{[i,j]: 0<=i,j<n}", "z[i+1,j+1] = -4*a[i+1,j+1] + a[i+1,j] + a[i+1,j+2] + a[i,j+1] + a[i+2,j+1]",
    ["a, z: float32[n+2,n+2]", "n: int32"], { name: "stencil5" });
  // Both tiled kernels: i on g.0/l.1 (matmul) or g.1/l.1 (stencil), j on the other g axis and l.0.
  const tile = (k: Kernel, gi: string, gj: string) =>
    splitIname(splitIname(k, "i", 16, { outerTag: gi, innerTag: "l.1" }), "j", 16, { outerTag: gj, innerTag: "l.0" });
  const local = { temporaryAddressSpace: "local" } as const;
  let mm = splitIname(tile(matmul, "g.0", "g.1"), "k", 16);
  mm = addPrefetch(addPrefetch(mm, "a", { sweepInames: ["i_inner", "k_inner"], ...local }), "b", { sweepInames: ["k_inner", "j_inner"], ...local });
  return {
    vecadd: { title: "vector add split g/l", ref: vecadd, knl: splitIname(vecadd, "i", 128, { outerTag: "g.0", innerTag: "l.0" }), sizes: [{ n: 1 }, { n: 128 }, { n: 300 }] },
    matmul_tiled_prefetch: {
      title: "tiled matmul with local prefetch", ref: matmul, knl: mm,
      sizes: o.matmulAssumptions !== undefined ? [{ n: 16 }, { n: 48 }] : [{ n: 16 }, { n: 20 }, { n: 33 }],
    },
    reduction_lpar: {
      title: "reduction over an l axis", ref: rowsum, knl: splitIname(tagInames(rowsum, { i: "g.0" }), "j", 64, { innerTag: "l.0" }),
      sizes: [{ n: 3, m: 1 }, { n: 3, m: 64 }, { n: 4, m: 100 }, { n: 2, m: 200 }],
    },
    stencil5_tile: {
      title: "stencil with a 2-D local tile", ref: stencil,
      knl: addPrefetch(tile(stencil, "g.1", "g.0"), "a", { sweepInames: ["i_inner", "j_inner"], fetchBoundingBox: true, ...local }),
      sizes: [{ n: 1 }, { n: 16 }, { n: 21 }],
    },
  };
}
