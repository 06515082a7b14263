/**
 * End-to-end law tying the integer-set core to the interpreter: for random domains (non-rectangular,
 * parametric, with equalities, mods, floor/ceil and existentials), a kernel that marks every
 * instance visits exactly the points brute force finds, each once; reductions over the inner
 * dimensions count exactly the points of each slice.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { B, box, holds, PARAM_VALUES, setArb, toText, type GenSet } from "../poly/gen.js";

const W = 2 * B + 1; // array extent along each dim: index x + B for x in -B..B

function args(g: GenSet, n: number, extra: Record<string, Int32Array>): Record<string, Int32Array | number> {
  return g.params.length > 0 ? { ...extra, n } : extra;
}

/** Brute-force points of `g` at parameter value `n`, as dim tuples. */
function brutePoints(g: GenSet, n: number): number[][] {
  return box(g.dims, []).filter((x) => holds(g, g.params.length > 0 ? [n, ...x] : x));
}

function flatIndex(x: readonly number[]): number {
  return x.reduce((acc, v) => acc * W + (v + B), 0);
}

describe("law: the interpreter runs each statement once per point of its domain", () => {
  it("marks exactly the brute-force points (200 random domains)", async () => {
    await fc.assert(
      fc.asyncProperty(setArb(), fc.constantFrom(...PARAM_VALUES), async (g, n) => {
        const idx = g.dims.map((d) => `${d} + ${B}`).join(", ");
        const k = makeKernel(toText(g), `hit[${idx}] = hit[${idx}] + 1`, [`hit: int32[${g.dims.map(() => W).join(", ")}]`, "..."]);
        const hit = new Int32Array(W ** g.dims.length);
        const out = (await run(k, args(g, n, { hit }))).hit as Int32Array;
        const expected = new Int32Array(hit.length);
        for (const x of brutePoints(g, n)) expected[flatIndex(x)] = 1;
        expect(Array.from(out)).toEqual(Array.from(expected));
      }),
      { numRuns: 200 },
    );
  });

  it("a reduction over the inner dims counts each slice of the outer dim (200 random domains)", async () => {
    await fc.assert(
      fc.asyncProperty(setArb({ dims: 3 }), fc.constantFrom(...PARAM_VALUES), async (g, n) => {
        const [i, ...inner] = g.dims;
        const k = makeKernel(toText(g), `cnt[${i} + ${B}] = sum((${inner.join(", ")}), 1)`, [`cnt: int32[${W}]`, "..."]);
        const out = (await run(k, args(g, n, { cnt: new Int32Array(W) }))).cnt as Int32Array;
        const expected = new Int32Array(W);
        for (const x of brutePoints(g, n)) expected[x[0]! + B]!++;
        expect(Array.from(out)).toEqual(Array.from(expected));
      }),
      { numRuns: 200 },
    );
  });
});
