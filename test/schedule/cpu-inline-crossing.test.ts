/**
 * The CPU lowering's `inlineCrossing` (cpu-privatize.ts): a private scalar that a barrier separates
 * from its readers, defined once from inames, value arguments and scalars of the same kind, is
 * recomputed where it is read instead of given a slot per work-item, so a runtime work-group size
 * is no obstacle. Each condition of its proof has a kernel here that breaks it and stays refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { tag } from "../run/parallel-helpers.js";
import { availableNative } from "../run/native-helpers.js";

const DOMAIN = "{[g,i]: 0<=g<G and 0<=i<n}";
const ARGS = ["a, out: float32[16*G]", "idx: int32[16]", "G, n: int32", temporary("s", "float32", [16], "local")];

/** `defs` then a @shared-style exchange through `s` (a barrier between `w` and `r`) reading `o` on both sides; g on g.0, i on l.0 of runtime size n. */
function exchange(defs: readonly string[]) {
  return tag(makeKernel(DOMAIN, [
    ...defs,
    "s[i] = a[o] {id=w, dep=p*}",
    "out[g*16 + i] = s[n - 1 - i] + o {id=r, dep=w}",
  ], ARGS), { g: "g.0", i: "l.0" });
}

const crossing = /lives across a barrier.*not a compile-time constant/;

describe("CPU lowering: values a barrier separates from their readers", () => {
  it("a value computed from inames and value arguments (through another such value) is recomputed: c keeps no per-work-item copy", () => {
    const k = exchange(["<int32> base = g*16 {id=p0}", "<int32> o = base + (i*3) % n {id=p, dep=p0}"]);
    const c = generateCode(k, "c").deviceCode;
    expect(c).not.toMatch(/\bo\[/);
    expect(c).not.toMatch(/\bbase\[/);
  });

  it("runs as on the interpreter (js and c) for runtime work-group sizes", async () => {
    const k = exchange(["<int32> base = g*16 {id=p0}", "<int32> o = base + (i*3) % n {id=p, dep=p0}"]);
    const backends = ["js", ...availableNative(["c"])];
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 3 }), fc.integer(), async (n, G, seed) => {
      const a = Float32Array.from({ length: 16 * G }, (_, j) => ((j * 7919 + seed) % 101) / 7);
      const args = () => ({ a: Float32Array.from(a), idx: new Int32Array(16), G, n, out: new Float32Array(16 * G) });
      const want = Array.from(((await run(k, args() as never, { backend: "interp" })) as Record<string, Float32Array>).out!);
      // The serial meaning: out[g*16 + i] = a[o(n-1-i)] + o(i), o(j) = g*16 + (3j) % n.
      for (let g = 0; g < G; g++) for (let i = 0; i < n; i++) expect(want[g * 16 + i]).toBe(Math.fround(a[g * 16 + (3 * (n - 1 - i)) % n]! + g * 16 + (3 * i) % n));
      for (const backend of backends) {
        const got = ((await run(k, args() as never, { backend, checkBounds: false } as never)) as Record<string, Float32Array>).out!;
        expect(Array.from(got), backend).toEqual(want);
      }
    }), { numRuns: 4 });
  }, 60_000);

  const refused: readonly [string, readonly string[]][] = [
    ["reads memory (another work-item may have changed it: no recomputing)", ["<int32> o = idx[i] {id=p}"]],
    ["has two writers", ["<int32> o = i {id=p}", "o = o + g*16 {id=p2, dep=p}"]],
    ["is written under a condition its readers do not have", ["<int32> o = g*16 + i {id=p, if=i < n - 1}"]],
  ];
  for (const [why, defs] of refused) {
    it(`a value that ${why} still needs a slot per work-item, refused for a runtime size`, () => {
      const k = exchange(defs);
      expect(() => generateCode(k, "opencl")).not.toThrow();
      expect(() => generateCode(k, "c")).toThrow(ScheduleError);
      expect(() => generateCode(k, "c")).toThrow(crossing);
    });
  }

  it("a chain of definitions is inlined within a node budget, and privatized past it (constant size), both as on the interpreter", async () => {
    for (const len of [20, 150]) {
      const chain = ["<int32> c0 = i {id=p0}", ...Array.from({ length: len }, (_, j) => `<int32> c${j + 1} = c${j} + ${j % 3} {id=p${j + 1}, dep=p${j}}`)];
      const k = tag(makeKernel("{[g,i]: 0<=g<G and 0<=i<16}", [
        ...chain,
        `<int32> o = g*16 + c${len} % 16 {id=p, dep=p${len}}`,
        "s[i] = a[o] {id=w, dep=p}",
        "out[g*16 + i] = s[15 - i] + o {id=r, dep=w}",
      ], ARGS), { g: "g.0", i: "l.0" });
      const c = generateCode(k, "c").deviceCode;
      // Short: recomputed (no per-work-item array); long: past the budget, one slot per work-item.
      expect(/\bo\[/.test(c), `chain of ${len}`).toBe(len > 50);
      const args = () => ({ a: Float32Array.from({ length: 32 }, (_, j) => j * 0.5), idx: new Int32Array(16), G: 2, n: 16, out: new Float32Array(32) });
      const want = ((await run(k, args() as never, { backend: "interp" })) as Record<string, Float32Array>).out!;
      const got = ((await run(k, args() as never, { backend: "js", checkBounds: false } as never)) as Record<string, Float32Array>).out!;
      expect(Array.from(got)).toEqual(Array.from(want));
    }
  }, 60_000);

  it("a value rewritten after the barrier only under a condition its reader lacks still needs a slot per work-item", () => {
    const k = tag(makeKernel(DOMAIN, [
      "<int32> o = g*16 + i {id=p}",
      "s[i] = a[o] {id=w, dep=p}",
      "... lbarrier {id=b, dep=w}",
      "o = g*16 + 15 - i {id=p2, dep=b, if=i < n - 1}",
      "out[g*16 + i] = s[n - 1 - i] + o {id=r, dep=p2:w}",
    ], ARGS), { g: "g.0", i: "l.0" });
    expect(() => generateCode(k, "c")).toThrow(crossing);
    // Without the condition, each phase writes it before reading it: one scalar serves every work-item.
    const k2 = tag(makeKernel(DOMAIN, [
      "<int32> o = g*16 + i {id=p}",
      "s[i] = a[o] {id=w, dep=p}",
      "... lbarrier {id=b, dep=w}",
      "o = g*16 + 15 - i {id=p2, dep=b}",
      "out[g*16 + i] = s[n - 1 - i] + o {id=r, dep=p2:w}",
    ], ARGS), { g: "g.0", i: "l.0" });
    expect(generateCode(k2, "c").deviceCode).not.toMatch(/\bo\[/);
  });
});
