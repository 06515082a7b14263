/**
 * Type inference through self-reference (issue 15, point 13; loopy's type inference guesses from
 * the writers it can type, then revises until all agree): `<> aind = 0`, `aind = aind + 1` is int32.
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

const dtypes = (k: { temporaries: readonly { name: string; dtype?: string }[] }) => Object.fromEntries(k.temporaries.map((t) => [t.name, t.dtype]));

describe("a temporary whose writer reads itself", () => {
  it("takes the type of its other writers: aind = 0, aind = aind + 1 is int32, and runs on every backend", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", [
      "<> aind = 0 {id=init}", "aind = aind + 1 {id=inc, dep=init}", "aind = aind*3 {id=tri, dep=inc}", "out[i] = aind*a[i] {dep=tri}",
    ], ["a, out: float64[n]", "n: int32"]);
    expect(dtypes(k)).toEqual({ aind: "int32" });
    const a = Float64Array.from({ length: 5 }, (_, i) => i - 1.5);
    await expectOnEveryBackend(k, { a, n: 5 }, { out: a.map((x) => 3 * x) });
  });
  it("is revised when a writer widens it: t = 0, t = t + 0.5 is float64", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = 0 {id=init}", "t = t + 0.5 {id=inc, dep=init}", "out[i] = t*a[i] {dep=inc}"], ["a, out: float64[n]", "n: int32"]);
    expect(dtypes(k)).toEqual({ t: "float64" });
  });
  it("stays unknown (to run time) when another writer reads an argument of unknown dtype; a float32 a then makes it float32", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = 0 {id=init}", "t = t + a[i] {id=inc, dep=init}", "out[i] = t {dep=inc}"], ["a, out", "n: int32"]);
    expect(dtypes(k)).toEqual({ t: undefined });
    const a = Float32Array.from({ length: 6 }, (_, i) => i + 0.25);
    let acc = 0;
    await expectOnEveryBackend(k, { a, n: 6 }, { out: a.map((x) => (acc += x)) });
  });
});
