/**
 * A private scalar that carries a value from one iteration of an iname to the next (a while loop's
 * counter, a running value) cannot keep its meaning once that iname becomes work-items or lanes:
 * each would read its own copy. tagInames refuses it (transforms/private-checks.ts); a value
 * written in the same iteration before the read (or on the first trip of a loop inside) is fine.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CodegenError, ScheduleError, TransformError } from "../../src/errors.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { chunkIname, prioritizeLoops, tagInames } from "../../transforms/index.js";
import { genOklCarriedCase, oklMismatches } from "./random-pipeline-okl.js";

const N = 6;
const a = Float64Array.from({ length: N }, (_, i) => i * 0.5 - 1);
const kernel = (insns: string[], extra: string[] = []) =>
  makeKernel("{[i,v]: 0<=i<6 and 0<=v<3}", insns, ["a, out: float64[6]", ...extra, temporary("s", "float64", [], "private"), temporary("t", "float64", [], "private")]);
const outOf = async (k: ReturnType<typeof kernel>, backend = "interp") =>
  Array.from(((await run(k, { a: Float64Array.from(a), out: new Float64Array(N) } as never, { backend } as never)) as Record<string, Float64Array>).out!);

describe("tagging an iname across which a private scalar carries a value", () => {
  it("a running value (s = s + a[i]) or a counter read before its bump is refused for g, l and ilp alike, naming both instructions", () => {
    const running = kernel(["s = 0 {id=z}", "s = s + a[i] {id=acc, dep=z}", "out[i] = s {id=w, dep=acc}"]);
    for (const tag of ["g.0", "l.0"]) expect(() => tagInames(running, { i: tag })).toThrow(/iname "i" cannot be tagged .*"acc" reads the private temporary "s" that "acc" writes within "i"/);
    // A bump after the read: two instructions carry it, so ilp's instruction-by-instruction lanes break it too.
    const counter = kernel(["s = 0 {id=z}", "out[i] = s * a[i] {id=w, dep=z}", "s = s + 1 {id=bump, dep=w, inames=i}"]);
    for (const tag of ["g.0", "l.0", "ilp", "vec"]) expect(() => tagInames(counter, { i: tag }), tag).toThrow(/"w" reads the private temporary "s" that "bump" writes/);
  });

  it("one instruction updating a value shared by ilp lanes keeps the serial sum: accepted, same result", async () => {
    const running = kernel(["s = 0 {id=z}", "s = s + a[i] {id=acc, dep=z}", "out[0] = s {id=w, dep=acc}"]);
    expect(await outOf(tagInames(running, { i: "ilp" }))).toEqual(await outOf(running));
  });

  it("a value written in the same iteration before the read is no carried value: accepted, and it computes the serial meaning", async () => {
    const k = kernel(["t = 2 * a[i] {id=d}", "out[i] = t + 1 {id=w, dep=d}"]);
    const want = await outOf(k);
    for (const tag of ["g.0", "l.0", "ilp"]) expect(await outOf(tagInames(k, { i: tag })), tag).toEqual(want);
    // The same predicates on writer and reader, on names nothing writes between them.
    const guarded = kernel(["t = 2 * a[i] {id=d, if=i > 1}", "out[i] = t + 1 {id=w, dep=d, if=i > 1}"]);
    expect(await outOf(tagInames(guarded, { i: "l.0" }))).toEqual(await outOf(guarded));
    // A writer under a predicate the reader lacks leaves the read carried where it does not hold.
    const partial = kernel(["t = 2 * a[i] {id=d, if=i > 1}", "out[i] = t + 1 {id=w, dep=d}"]);
    expect(() => tagInames(partial, { i: "l.0" })).toThrow(/"w" reads the private temporary "t" that "d" writes within "i"/);
  });

  it("a value set on the first trip of a sequential loop inside the iname is accepted; an order that puts that loop outside refuses it", async () => {
    const k = kernel(["t = a[i] {id=d, if=v == 0}", "out[i] = out[i] + t * v {id=w, dep=d}"]);
    const want = await outOf(k);
    expect(await outOf(tagInames(k, { i: "g.0" }))).toEqual(want);
    expect(want.some((x) => x !== 0)).toBe(true);
    expect(() => tagInames(prioritizeLoops(k, "v,i"), { i: "g.0" })).toThrow(/"w" reads the private temporary "t" that "d" writes within "i"/);
    // A first trip the loop never has (v starts at 0; `v == 1` is its second) does not count.
    expect(() => tagInames(kernel(["t = a[i] {id=d, if=v == 1}", "out[i] = out[i] + t * v {id=w, dep=d}"]), { i: "g.0" })).toThrow(/private temporary "t"/);
  });

  it("private arrays: one filled by a loop nest before the read is accepted (same result); a sliding window shifted from the iteration before is refused", async () => {
    const arrays = (insns: string[]) => makeKernel("{[i,j]: 0<=i<6 and 0<=j<4}", insns,
      ["a, out: float64[6]", temporary("tmp", "float64", [4], "private"), temporary("win", "float64", [2], "private")]);
    const filled = arrays(["tmp[j] = a[i] * j {id=f}", "out[i] = tmp[3] + sum(j, tmp[j]) {id=r, dep=f}"]);
    const want = await outOf(filled as never);
    for (const tag of ["g.0", "l.0"]) expect(await outOf(tagInames(filled, { i: tag }) as never), tag).toEqual(want);
    // Cells the fill leaves unwritten in this iteration (`if=j < 2`) are read from an earlier one.
    const partial = arrays(["tmp[j] = a[i] * j {id=f, if=j < 2}", "out[i] = tmp[3] {id=r, dep=f}"]);
    expect(() => tagInames(partial, { i: "l.0" })).toThrow(/"r" reads the private temporary "tmp" that "f" writes within "i"/);
    const window = arrays(["win[0] = win[1] {id=sh, inames=i}", "win[1] = a[i] {id=ld, dep=sh}", "out[i] = win[0] + win[1] {id=o, dep=ld}"]);
    expect(() => tagInames(window, { i: "g.0" })).toThrow(/"sh" reads the private temporary "win" that "ld" writes within "i"/);
  });

  it("an OKL while loop's trips chunked, the outer part tagged g.1 (the fuzzer's case): refused, naming the carried value", () => {
    const [k] = parseOkl(`@kernel void f(const int n, const float *a, float *out) {
  for (int g = 0; g < n; ++g; @outer) {
    @exclusive float c;
    int it = 0;
    while (it < 2) {
      for (int t = 0; t < 4; ++t; @inner) {
        if (it == 0) c = (float) t;
        c = c * 0.5f + a[g];
      }
      for (int t = 0; t < 4; ++t; @inner) out[4 * g + t] += c;
      ++it;
    }
  }
}`);
    expect(() => tagInames(chunkIname(k!, "it_trip", 2), { it_trip_outer: "g.1" })).toThrow(/iname "it_trip_outer" cannot be tagged g.1: instruction "\w+" reads the private temporary "(c|it)"/);
  });

  it("law: random OKL kernels with a value carried across a loop's trips, random moves after (tags among them): the interpreter's result on js, or a refusal", async () => {
    let ran = 0;
    await fc.assert(fc.asyncProperty(genOklCarriedCase, async (c) => {
      const bad = await oklMismatches(c, "js", run as never).then((m) => { ran++; return m; }, (e: unknown) => {
        if (e instanceof CodegenError || e instanceof ScheduleError || e instanceof TransformError) return [];
        throw e;
      });
      expect(bad, fc.stringify(c)).toEqual([]);
    }), { numRuns: 120, seed: 1826443397 });
    expect(ran).toBeGreaterThan(60);
  }, 240_000);
});
