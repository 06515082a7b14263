/** Kernels the codegen tests share, built with makeKernel on split domains (as splitIname makes them). */
import { parseInameTag, withKernel, type InameTag, type Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";

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
