/**
 * A fetch into local memory is filled by the work-items together: its footprint must be the same
 * for all. One bounded by a private temporary (`[s, j] -> {[r]: j + r < s}` with `s` set per
 * work-item) gave each work-item its own footprint, and cells others read stayed unfilled: NaN on
 * the interpreter and every target (found by the pipeline law, seed 777001). Refused now.
 */
import { describe, expect, it } from "vitest";
import { TransformError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { addPrefetch, tagInames } from "../../transforms/index.js";

const kernel = () => tagInames(makeKernel(["{[i]: 0<=i<8}", "{[j]: 0<=j<8}", "[s, j] -> {[r]: 0<=r and j + r < s}"], [
  "<int32> s = 8*(i % 2) {id=ls, inames=i}",
  "<float64> w[i] = a[i] {id=lw, inames=i}",
  "out[j] = out[j] + w[7 - j] {id=u, dep=ls:lw, inames=j:r}",
], ["a, out: float64[8]"], { name: "pb" }), { i: "l.0", j: "l.0" });

describe("a shared fetch whose footprint depends on a private value", () => {
  it("is refused, naming the private temporary", () => {
    expect(() => addPrefetch(kernel(), "w", { sweepInames: ["j"] })).toThrow(TransformError);
    expect(() => addPrefetch(kernel(), "w", { sweepInames: ["j"] })).toThrow(/filled by work-items together, but its bounds or guards read the private temporary "s"/);
  });

  it("into private memory each work-item fetches its own footprint: accepted, the same result", async () => {
    const a = Float64Array.from({ length: 8 }, (_, x) => x * 0.25 - 1);
    const args = () => ({ a: Float64Array.from(a), out: new Float64Array(8) });
    const want = (await run(kernel(), args())).out! as Float64Array;
    const k = addPrefetch(kernel(), "w", { sweepInames: ["j"], temporaryAddressSpace: "private", defaultTag: null });
    expect(Array.from((await run(k, args())).out! as Float64Array)).toEqual(Array.from(want));
  });
});
