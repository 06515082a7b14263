/** No input escapes as anything but a LoomError: pathologically deep or long expressions included. */
import { describe, expect, it } from "vitest";
import { LoomError } from "../src/errors.js";
import { makeKernel, parseExpr } from "../src/parse/index.js";
import { parseSet } from "../src/poly/index.js";
import { run } from "../src/run/index.js";

const DEEP = 30_000;

describe("pathologically deep input is a LoomError, never a RangeError", () => {
  it("makeKernel and parseExpr with tens of thousands of chained terms", () => {
    const chain = Array(DEEP).fill("a[i]").join(" + ");
    expect(() => makeKernel("{[i]: 0<=i<n}", `out[i] = ${chain}`)).toThrow(LoomError);
    expect(() => makeKernel("{[i]: 0<=i<n}", `out[i] = ${"-".repeat(DEEP)}a[i]`)).toThrow(/nested or chained too deeply/);
    // parseExpr alone copes with this length; whatever it does, it must not be a RangeError.
    let thrown: unknown;
    try {
      parseExpr(`${"-".repeat(DEEP * 3)}b`);
    } catch (e) {
      thrown = e;
    }
    if (thrown !== undefined) expect(thrown).toBeInstanceOf(LoomError);
  });

  it("parseSet with a very long affine chain", () => {
    expect(() => parseSet(`{[i]: 0 <= ${Array(DEEP).fill("i").join(" + ")} < n}`)).toThrow(LoomError);
  });

  it("a long but reasonable expression still builds and runs", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", `out[i] = ${Array(1000).fill("a[i]").join(" + ")}`, ["a: float64[n]", "..."]);
    const { out } = await run(k, { a: Float64Array.of(1, 2), n: 2 });
    expect(Array.from(out as Float64Array)).toEqual([1000, 2000]);
  });
});
