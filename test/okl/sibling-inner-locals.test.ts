/**
 * OCCA's `25_iso3dfd_okl_shared` style (issue 20, round 2): two sibling `@inner` loops over a
 * runtime size, each declaring its own `int offset` and `int xloc`; the first fills a `@shared` halo
 * array in three exclusive branches (the schedule orders them with barriers, as it cannot tell that
 * their cells differ), the second reads it. No value flows across a barrier in C, so CPU targets need
 * no slot per work-item (cpu-privatize.ts's inlineCrossing): before, c and openmp refused it with
 * "private temporary "offset" ... lives across a barrier ... not a compile-time constant".
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { availableNative } from "../run/native-helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const R = 2;
const WG = 16;
const SRC = `
#define R ${R}
#define WGSX ${WG}
@kernel void halo(const int n, const int G, const float *in, float *out) {
  for (int g = 0; g < G; ++g; @outer) {
    @shared float s[WGSX + 2*R];
    for (int x = 0; x < n; ++x; @inner) {
      int offset = R + g*(n + 2*R) + x;
      int xloc = x % WGSX;
      if (xloc == 0) {
        for (int i = -R; i <= 0; i++) s[xloc + i + R] = in[offset + i];
      } else if (xloc == n - 1) {
        for (int i = 0; i <= R; i++) s[xloc + i + R] = in[offset + i];
      } else {
        s[xloc + R] = in[offset];
      }
    }
    for (int x = 0; x < n; ++x; @inner) {
      int offset = R + g*(n + 2*R) + x;
      int xloc = x % WGSX;
      int offset_0 = 2;
      float v = 0.5f * in[offset];
      for (int r = 1; r <= R; r++) v += s[xloc + r + R] + s[xloc - r + R];
      out[g*n + x] = offset_0 * v;
    }
  }
}`;

/** The serial meaning: a 5-point stencil over each group's padded row, times the second loop's own `offset_0` (2, a name the importer's fresh names must not take). */
function serial(n: number, G: number, input: readonly number[]): Float32Array {
  const out = new Float32Array(n * G);
  for (let g = 0; g < G; g++) {
    for (let x = 0; x < n; x++) {
      const o = R + g * (n + 2 * R) + x;
      let v = Math.fround(0.5 * input[o]!);
      for (let r = 1; r <= R; r++) v = Math.fround(v + Math.fround(input[o + r]! + input[o - r]!));
      out[g * n + x] = 2 * v;
    }
  }
  return out;
}

describe("sibling @inner loops with same-named locals around a @shared halo (OCCA's iso3dfd)", () => {
  const [k] = parseOkl(SRC);

  it("each declaration is a temporary of its own; the user's offset_0 keeps its meaning", () => {
    const names = k!.temporaries.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    // Two `offset` declarations and the user's own `offset_0`: three temporaries, none sharing a name.
    expect(names.filter((x) => x.startsWith("offset")).length).toBe(3);
    expect(names.filter((x) => x.startsWith("xloc")).length).toBe(2);
  });

  it("lowers to every target, and c/openmp keep no per-work-item copy of offset or xloc", () => {
    for (const t of ["c", "openmp", "opencl", "cuda"] as const) expect(() => generateCode(k!, t), t).not.toThrow();
    const c = generateCode(k!, "c").deviceCode;
    expect(c).not.toMatch(/offset\w*\s*\[/);
    expect(c).not.toMatch(/xloc\w*\s*\[/);
  });

  it("runs as its serial meaning on interp, c and openmp for random sizes", async () => {
    const backends = availableNative(["c"]);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 2, max: WG }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 1000 }), async (n, G, seed) => {
      const input = Float32Array.from(seeded(G * (n + 2 * R), seed));
      const args = () => ({ n, G, in: Float32Array.from(input), out: new Float32Array(n * G) });
      const want = serial(n, G, Array.from(input));
      // The halo's subscripts go through the private `xloc`, which the native bounds proof does not follow.
      await expectSerialMeaning(k!, args, { out: want }, 1e-5, { checkBounds: false });
      for (const backend of backends) {
        const { run } = await import("../../src/run/index.js");
        const out = (await run(k!, args() as never, { backend, checkBounds: false } as never)) as Record<string, Float32Array>;
        Array.from(out.out!).forEach((g, i) => expect(Math.abs(g - want[i]!), `${backend}: out[${i}]`).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want[i]!))));
      }
    }), { numRuns: 4 });
  }, 120_000);

  it("one `int o;` of the @outer body, assigned before its use in each @inner loop: no slot per work-item, the serial meaning on interp, c and openmp", async () => {
    const [k2] = parseOkl(`
@kernel void mirror(const int n, const int G, const float *in, float *out) {
  for (int g = 0; g < G; ++g; @outer) {
    @shared float s[${WG}];
    int o;
    for (int x = 0; x < n; ++x; @inner) { o = g*n + x; s[x] = in[o]; }
    for (int x = 0; x < n; ++x; @inner) { o = g*n + n - 1 - x; out[o] = 2.0f * s[x] + o; }
  }
}`);
    const c = generateCode(k2!, "c").deviceCode;
    expect(c).not.toMatch(/\bo\s*\[/);
    const n = 7;
    const G = 3;
    const input = Float32Array.from(seeded(n * G, 3));
    const want = new Float32Array(n * G);
    for (let g = 0; g < G; g++) for (let x = 0; x < n; x++) want[g * n + n - 1 - x] = Math.fround(2 * input[g * n + x]! + (g * n + n - 1 - x));
    const args = () => ({ n, G, in: Float32Array.from(input), out: new Float32Array(n * G) });
    await expectSerialMeaning(k2!, args, { out: want }, 1e-6, { checkBounds: false });
    for (const backend of availableNative(["c"])) {
      const { run } = await import("../../src/run/index.js");
      const out = (await run(k2!, args() as never, { backend, checkBounds: false } as never)) as Record<string, Float32Array>;
      expect(Array.from(out.out!), backend).toEqual(Array.from(want));
    }
  });
});
