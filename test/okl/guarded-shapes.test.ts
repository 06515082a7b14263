/**
 * Pointer arguments' shapes under the conditions that guard their accesses (issue 15.17): C
 * evaluates `c ? vec[i] : 0`, `c && vec[i]` and the body of `if (c)` only where `c` holds, so the
 * footprint, and the bounds proof before native code, count `vec[i]` only there. A buffer holding
 * exactly what the kernel touches is accepted on every backend; one element less is refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import { exprToString } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";
import { expectOnEveryBackend, only, values } from "./helpers.js";

/** The blockSum: a block's sum of `vec`, padded with zeros past `entries` by a select. */
const blockSum = (bs: number, select = "(i < entries) ? vec[i] : 0.0f") => `@kernel void blockSum(const int entries, const float *vec, float *blockSum) {
  for (int b = 0; b < (entries + ${bs - 1}) / ${bs}; ++b; @outer) {
    @shared float s[${bs}];
    for (int t = 0; t < ${bs}; ++t; @inner) {
      const int i = b * ${bs} + t;
      s[t] = ${select};
    }
    for (int t = 0; t < ${bs}; ++t; @inner) {
      if (t == 0) {
        float acc = 0.0f;
        for (int k = 0; k < ${bs}; ++k) acc += s[k];
        blockSum[b] = acc;
      }
    }
  }
}`;

function reference(vec: Float32Array, bs: number): Float32Array {
  const out = new Float32Array(Math.ceil(vec.length / bs));
  vec.forEach((v, i) => void (out[Math.floor(i / bs)]! += v));
  return out;
}

const shapeOf = (src: string, arg: string) => {
  const a = only(src).args.find((x) => x.name === arg)!;
  return a.kind === "array" && a.shape ? a.shape.map(exprToString) : undefined;
};
const data = (n: number) => Float32Array.from({ length: n }, (_, i) => (i % 7) + 1);

describe("footprints under the conditions that guard the access", () => {
  it("a select: vec has the shape (entries), not the rational box (entries + 31)", () => {
    expect(shapeOf(blockSum(32), "vec")).toEqual(["entries"]);
  });

  it("without a guard, the integer footprint: 32 * ceil(entries / 32), not the rational entries + 31", async () => {
    const src = `@kernel void f(const int entries, const float *vec, float *o) {
  for (int b = 0; b < (entries + 31) / 32; ++b; @outer) {
    for (int t = 0; t < 32; ++t; @inner) { o[b * 32 + t] = 2.0f * vec[b * 32 + t]; }
  }
}`;
    expect(shapeOf(src, "vec")).toEqual(["32*((entries - 1)//32) + 32"]);
    const vec = data(128);
    await expectOnEveryBackend(only(src), () => ({ entries: 100, vec: vec.slice(), o: new Float32Array(128) }), { o: vec.map((v) => 2 * v) });
  });

  it("the select's else branch, && and if guard their accesses too", () => {
    expect(shapeOf(blockSum(32, "(i >= entries) ? 0.0f : vec[i]"), "vec")).toEqual(["entries"]);
    expect(shapeOf(blockSum(32, "(i < entries && vec[i] > 0.0f) ? 1.0f : 0.0f"), "vec")).toEqual(["entries"]);
    expect(shapeOf(blockSum(32, "(i >= entries || vec[i] > 0.0f) ? 1.0f : 0.0f"), "vec")).toEqual(["entries"]);
  });

  it("a buffer of exactly `entries` elements runs on interp, js, c, openmp and opencl (the bounds proof uses the select)", async () => {
    const vec = data(100);
    await expectOnEveryBackend(only(blockSum(32)), () => ({ entries: 100, vec: vec.slice(), blockSum: new Float32Array(4) }), { blockSum: reference(vec, 32) });
  });

  it("one element less is refused, on the interpreter and before native code", async () => {
    for (const backend of ["interp", ...availableNative(["c"])]) {
      const call = run(only(blockSum(32)), { entries: 100, vec: data(99), blockSum: new Float32Array(4) } as never, { backend } as never);
      await expect(call, backend).rejects.toThrow(ExecutionError);
    }
  });

  it("law: any block size and entries give the reference with an exact buffer (interpreter)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(2, 4, 8, 16), fc.integer({ min: 1, max: 70 }), async (bs, entries) => {
        const vec = data(entries);
        const out = await run(only(blockSum(bs)), { entries, vec, blockSum: new Float32Array(Math.ceil(entries / bs)) } as never, { backend: "interp" } as never);
        expect(values((out as Record<string, unknown>).blockSum)).toEqual(values(reference(vec, bs)));
      }),
      { numRuns: 20 },
    );
  });

  it("a footprint whose form is negative where its loop is empty is at least 0: out[5 * b] over b < N runs at N = 0", async () => {
    const src = `@kernel void f(const int N, const float *x, float *out) {
  for (int b = 0; b < N; ++b; @outer) { for (int t = 0; t < 4; ++t; @inner) { if (t == 0) out[5 * b] = x[3 * b + 2] + b; } }
}`;
    expect(shapeOf(src, "out")).toEqual(["max(5*N - 4, 0)"]);
    // A form that is never negative for parameters >= 0 keeps its plain form.
    expect(shapeOf(src, "x")).toEqual(["3*N"]);
    const k = only(src);
    await expectOnEveryBackend(k, () => ({ N: 0, x: new Float32Array(0), out: new Float32Array(0) }), { out: [] });
    await expectOnEveryBackend(k, () => ({ N: 2, x: Float32Array.from([0, 0, 1, 0, 0, 2]), out: new Float32Array(6) }), { out: [1, 0, 0, 0, 0, 3] });
  });
});
