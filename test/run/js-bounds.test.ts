/**
 * The js backend never reads or writes outside an array silently: where the accesses of a run
 * cannot be proved in bounds beforehand (data-dependent subscripts), its code checks each access
 * and throws an ExecutionError at the first one outside, as the interpreter does -- per axis, so
 * `a[i, j]` with `j` past its row fails even where the flat index stays inside the storage; proved
 * runs use the unchecked code.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";

const gather = () => lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[idx[i]]", ["a: float32[m]", "idx: int32[n]", "out: float32[n]", "n, m: int32"], { name: "gather" });
const rowGather = () => lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[i, idx[i]]", ["a: float32[n, w]", "idx: int32[n]", "out: float32[n]", "n, w: int32"], { name: "row_gather" });
const scatter = () => lp.makeKernel("{[i]: 0<=i<n}", "out[idx[i]] = a[i] {tags=write_race_ok}", ["a: float32[n]", "idx: int32[n]", "out: float32[m]", "n, m: int32"], { name: "scatter" });

async function outcome(k: lp.Kernel, args: Record<string, Float32Array | Int32Array | number>, backend: lp.BackendName) {
  try {
    return { out: Array.from((await lp.run(k, args, { backend })).out as Float32Array) };
  } catch (e) {
    expect(e).toBeInstanceOf(lp.ExecutionError);
    return { error: true };
  }
}

describe("js backend: accesses it cannot prove in bounds are checked as they run", () => {
  it("a gather through an index outside the array is an ExecutionError naming the array, not NaN", async () => {
    const a = Float32Array.from([1, 2, 3, 4]);
    await expect(lp.run(gather(), { a, idx: Int32Array.from([3, 7, 1]), n: 3, m: 4 }, { backend: "js" }))
      .rejects.toThrow(/index 7 out of bounds for axis 0 of "a" \(extent 4\)/);
    await expect(lp.run(scatter(), { a: Float32Array.from([1, 2]), idx: Int32Array.from([0, -1]), n: 2, m: 4 }, { backend: "js" }))
      .rejects.toThrow(lp.ExecutionError);
  });

  it("property: on random index arrays js fails exactly where the interpreter fails, and agrees elsewhere", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 6 }), fc.array(fc.oneof(fc.integer({ min: -2, max: 8 }), fc.constantFrom(2147483647, -2147483648)), { minLength: 0, maxLength: 6 }), fc.boolean(),
      async (m, ix, isGather) => {
        const n = ix.length;
        const idx = Int32Array.from(ix);
        const args = isGather
          ? { a: Float32Array.from({ length: m }, (_, q) => q + 0.5), idx, out: new Float32Array(n), n, m }
          : { a: Float32Array.from({ length: n }, (_, q) => q + 0.5), idx, out: new Float32Array(m), n, m };
        const k = isGather ? gather() : scatter();
        const [ref, js] = [await outcome(k, args, "interp"), await outcome(k, args, "js")];
        expect(js.error ?? false).toBe(ref.error ?? false);
        // Scatter with repeated indices is a race the interpreter may order otherwise: compare gathers.
        if (!ref.error && isGather) expect(js.out).toEqual(ref.out);
      }), { numRuns: 60 });
  });

  it("an index past its axis that stays inside the storage (the next row) is an ExecutionError naming array, axis, index and extent", async () => {
    const a = Float32Array.from({ length: 12 }, (_, q) => q);
    await expect(lp.run(rowGather(), { a, idx: Int32Array.from([1, 5, 0]), n: 3, w: 4 }, { backend: "js" }))
      .rejects.toThrow(/index 5 out of bounds for axis 1 of "a" \(extent 4\)/);
    const shifted = lp.makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", "out[i, j] = a[i, j+1]", ["a: float32[n, 4]", "out: float32[n, 4]", "n: int32"]);
    await expect(lp.run(shifted, { a, n: 3 }, { backend: "js" })).rejects.toThrow(/index 4 out of bounds for axis 1 of "a" \(extent 4\)/);
  });

  it("only the checked code checks: the code of a run proved in bounds indexes directly", () => {
    const k = lp.addDtypes(rowGather(), { a: "float32", idx: "int32", out: "float32" });
    expect(lp.generateCode(k, "js").deviceCode).not.toMatch(/H\.(ix|at)\(/);
    const checked = lp.generateCode(k, "js", { checkedAccess: true }).deviceCode;
    expect(checked).toMatch(/H\.ix\(idx\[H\.at\(idx, H\.ix\(i, n, "[^"]*", "idx", 0\)/);
    expect(checked).toMatch(/H\.ix\(idx\[[^\n]*\], w, "[^"]*", "a", 1\)/);
  });

  it("property: on random rows and column indices (inside and outside the row, inside the storage) js fails exactly where the interpreter does", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.array(fc.integer({ min: -3, max: 9 }), { minLength: 1, maxLength: 4 }),
      async (n, w, cols) => {
        const idx = Int32Array.from({ length: n }, (_, q) => cols[q % cols.length]!);
        const args = { a: Float32Array.from({ length: n * w }, (_, q) => q + 0.5), idx, out: new Float32Array(n), n, w };
        const [ref, js] = [await outcome(rowGather(), args, "interp"), await outcome(rowGather(), args, "js")];
        expect(js.error ?? false).toBe(ref.error ?? false);
        expect(ref.error ?? false).toBe(Array.from(idx).some((c) => c < 0 || c >= w));
        if (!ref.error) expect(js.out).toEqual(ref.out);
      }), { numRuns: 40 });
  });

  it("an affine access past the end fails on js too", async () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[i+1]", ["a: float32[n]", "out: float32[n]", "n: int32"]);
    await expect(lp.run(k, { a: new Float32Array(4), n: 4 }, { backend: "js" })).rejects.toThrow(/index 4 out of bounds for axis 0 of "a" \(extent 4\)/);
  });
});
