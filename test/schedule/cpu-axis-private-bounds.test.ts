/**
 * A hardware axis whose iname's domain reads a private value (`[s, e, j] -> {[r]: s + j + 8r < e}`
 * after splits of r, with r_inner_outer on g.1): the CPU lowering made the axis loop, outside every
 * work-item's code, from the iname's own bounds, reading `s` and `e` before any work-item set them
 * (js and c wrong, no error; found by the pipeline law). It now runs over the axis's box, with the
 * iname's constraints as guards inside.
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { availableNative } from "../run/native-helpers.js";

const kernel = () => tagInames(splitIname(splitIname(tagInames(makeKernel(
  ["{[b]: 0<=b<n}", "{[i]: 0<=i<8}", "{[j]: 0<=j<8}", "[s, e, j] -> {[r]: 0 <= r and s + j + 8*r < e}"], [
    "<int32> s = 8*(i % 3) {id=ls, inames=b:i}",
    "<int32> e = m - (i % 3) {id=le, inames=b:i}",
    "<float64> w[i] = a[b, i] {id=lw, inames=b:i}",
    "out[b, s + j + 8*r] = out[b, s + j + 8*r] + w[7 - j] {id=u, dep=ls:le:lw, inames=b:j:r, tags=write_race_ok}",
  ], ["a: float64[n, 8]", "out: float64[n, m]", "n, m: int32"], { name: "pb" }), { b: "g.0", i: "l.0", j: "l.0" }), "r", 7), "r_inner", 2), { r_inner_outer: "g.1" });

describe("a group axis bounded by private values on the CPU targets", () => {
  it("js and c compute what the interpreter computes", async () => {
    const n = 4, m = 29;
    const a = Float64Array.from({ length: n * 8 }, (_, x) => ((x * 7) % 11) * 0.125 - 0.5);
    const out = () => ({ a: Float64Array.from(a), out: new Float64Array(n * m), n, m });
    const want = Array.from((await run(kernel(), out())).out! as Float64Array);
    expect(want.some((x) => x !== 0)).toBe(true);
    for (const backend of ["js", ...availableNative(["c", "openmp"])]) {
      // (The subscript reads s[i]: native bounds proofs need affine ones; the interpreter checked every access.)
      expect(Array.from((await run(kernel(), out(), { backend, checkBounds: false } as never)).out! as Float64Array), backend).toEqual(want);
    }
  }, 60_000);
});
