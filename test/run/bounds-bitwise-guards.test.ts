/**
 * The native bounds proof reads a guard written with C's `&` of comparisons as `and` (libParanumal's
 * Hex3D volume kernels: `if (i < p_Nq & j < p_Nq && k < p_Nq)`), and `|` as `or`; it refused such
 * kernels as "not affine enough". `&` of anything but truth values stays unused in the proof.
 */
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { checkBounds } from "../../src/run/index.js";

const guarded = (cond: string) => makeKernel("{[i, j]: 0<=i<8 and 0<=j<8}", `out[i, j] = a[i*n + j] {if=${cond}}`, ["a: float64[len]", "out: float64[8, 8]", "n, len: int32"]);
const check = (cond: string, n: number) =>
  checkBounds(guarded(cond), new Map([["n", n], ["len", n * n]]), new Map([["a", { extents: [n * n], size: n * n }], ["out", { extents: [8, 8], size: 64 }]]));

describe("the bounds proof reads & and | of comparisons", () => {
  it("proves a[i*n + j] inside the arrays under (i < n) & (j < n), and refuses without the guard", () => {
    expect(() => check("(i < n) & (j < n)", 5)).not.toThrow();
    expect(() => check("(i < n) & ((j < n) & (j >= 0))", 5)).not.toThrow();
    expect(() => check("i >= 0", 5)).toThrow(ExecutionError);
  });

  it("| is or: (i >= n) | (j >= n) negated; a bitwise & of values proves nothing", () => {
    expect(() => check("not ((i >= n) | (j >= n))", 5)).not.toThrow();
    expect(() => check("(i & n) < n", 5)).toThrow(/may be safe|not affine/);
  });
});
