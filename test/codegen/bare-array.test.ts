/**
 * An array with axes named without a subscript has no meaning: the interpreter refuses it, and so
 * does every target's code generation now (c, js and cuda printed `a[0]`, returning [6, 6] for
 * `out[i] = a + 1` with a = [5, 7]; found by the statistics-against-interpreter law, s36).
 */
import { describe, expect, it } from "vitest";
import { CodegenError, ExecutionError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { generateCode } from "../../codegen/index.js";
import { run } from "../../src/run/index.js";

const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a + 1", ["a: float64[n]", "out: float64[n]", "n: int32"]);
const WHY = `instruction "insn" uses array "a" without a subscript; it has 1 axes`;

describe("an array with axes named bare", () => {
  it.each(["c", "js", "cuda", "opencl"] as const)("is a CodegenError on %s", (target) => {
    expect(() => generateCode(k, target)).toThrow(CodegenError);
    expect(() => generateCode(k, target)).toThrow(WHY);
  });

  it("is refused by run on interp and js alike", async () => {
    const args = () => ({ a: new Float64Array([5, 7]), n: 2 });
    await expect(run(k, args(), { backend: "interp" })).rejects.toThrow(ExecutionError);
    await expect(run(k, args(), { backend: "js" })).rejects.toThrow(WHY);
  });

  it("a 0-d array named bare stays its one element", () => {
    const z = makeKernel("{[i]: 0<=i<n}", "out[i] = s + 1", ["s: float64[]", "out: float64[n]", "n: int32"]);
    expect(generateCode(z, "c").deviceCode).toMatch(/out\[i\] = s\[0\] \+ 1\.0;/);
  });
});
