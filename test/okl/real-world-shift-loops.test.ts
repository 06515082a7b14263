/**
 * Issue 20, the last lowering refusals: tree reductions written as `while` loops whose counter is a
 * stride halved each trip (`int s = p_B/2; while (s > 0) { @barrier; …; s >>= 1; }`), `do … while`
 * and `for` loops whose iterator is declared before them (`for (; s > 0; s /= 2)`), around barriers
 * and @inner loops. Their trips are bounded by the counter's width (geometric.ts: a trip needs
 * `s >= 1`), the whole condition deciding each trip (while-trips.ts, kernel-lockstep.ts). Kernels in
 * libParanumal's reduction style, each on interp and openmp against its serial meaning; what cannot
 * be bounded stays an OklError at the loop's line:column saying why.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { defines: { dfloat: "double", dlong: "int" } };
const B = 32;

/** Each block's sum of squares of `x` (past N: 0), by a tree over `B` cells read through `@shared` memory. */
const kernel = (loop: string) => `
#define p_B ${B}
@kernel void blockSumSquares(const dlong N, const int half, @restrict const dfloat *x, @restrict dfloat *partial) {
  for (dlong b = 0; b < (N + p_B - 1)/p_B; ++b; @outer(0)) {
    @shared dfloat s_sum[p_B];
    for (int t = 0; t < p_B; ++t; @inner(0)) {
      const dlong id = b*p_B + t;
      s_sum[t] = id < N ? x[id]*x[id] : 0.0;
    }
${loop}
    for (int t = 0; t < p_B; ++t; @inner(0)) if (t == 0) partial[b] = s_sum[0];
  }
}`;

const STEP = `@barrier("local");
      for (int t = 0; t < p_B; ++t; @inner(0)) if (t < s) s_sum[t] += s_sum[t + s];`;

/** The loops, and the strides each runs (its serial meaning), from `half` (a value argument). */
const LOOPS: Record<string, { readonly src: string; readonly strides: (half: number) => number[] }> = {
  "while (s > 0) { …; s >>= 1; }": {
    src: `    int s = p_B/2;\n    while (s > 0) {\n      ${STEP}\n      s >>= 1;\n    }`,
    strides: () => [16, 8, 4, 2, 1],
  },
  "for (; s > 0; s /= 2) from a value argument": {
    src: `    int s = half;\n    for (; s > 0; s /= 2) {\n      ${STEP}\n    }`,
    strides: (h) => { const out = []; for (let s = h; s > 0; s = Math.trunc(s / 2)) out.push(s); return out; },
  },
  "do { …; s = s >> 1; } while (s >= 1)": {
    src: `    int s = half;\n    do {\n      ${STEP}\n      s = s >> 1;\n    } while (s >= 1);`,
    strides: (h) => { const out = [h]; for (let s = h >> 1; s >= 1; s >>= 1) out.push(s); return out; },
  },
  "for (s = half; s > 0 && N > 0; s >>= 1)": {
    src: `    int s;\n    for (s = half; s > 0 && N > 0; s >>= 1) {\n      ${STEP}\n    }`,
    strides: (h) => { const out = []; for (let s = h; s > 0; s >>= 1) out.push(s); return out; },
  },
};

/** The serial meaning: each block's cells, then one tree step per stride. */
function blockSums(x: readonly number[], N: number, strides: readonly number[]): number[] {
  const blocks = Math.ceil(N / B);
  return Array.from({ length: blocks }, (_, b) => {
    const s = Array.from({ length: B }, (_, t) => (b * B + t < N ? x[b * B + t]! ** 2 : 0));
    for (const st of strides) for (let t = 0; t < B; ++t) if (t < st) s[t]! += s[t + st]!;
    return s[0]!;
  });
}

describe("tree reductions whose stride halves each trip, around barriers and @inner loops", () => {
  for (const [name, loop] of Object.entries(LOOPS)) {
    it(`${name}: the serial meaning on interp and openmp`, async () => {
      const [k] = parseOkl(kernel(loop.src), DEFINES);
      for (const [N, half] of [[70, 16], [32, 8], [5, 1], [40, 0]] as const) {
        const x = seeded(N, N + half);
        const strides = loop.strides(half);
        // A zero stride is no trip for the while and for forms; do-while's first trip reads nothing then (t < 0).
        await expectSerialMeaning(k!, () => ({ N, half, x: new Float64Array(x), partial: new Float64Array(Math.ceil(N / B)) }),
          { partial: blockSums(x, N, strides.filter((s) => s > 0)) }, 1e-12, { checkBounds: false });
      }
    });
  }
});

describe("what cannot be bounded before the loop runs", () => {
  const cases: [string, string, string][] = [
    ["a growing counter from memory", `    int s = (int) x[b];\n    while (s < half) {\n      ${STEP}\n      s <<= 1;\n    }`, "its counter grows"],
    ["a bound read at run time", `    int s = p_B/2;\n    while (s > half) {\n      ${STEP}\n      s >>= 1;\n    }`, "must be a compile-time constant >= 0"],
    ["a bound that never ends", `    int s = p_B/2;\n    while (s > -1) {\n      ${STEP}\n      s >>= 1;\n    }`, "the bound -1 may keep it running forever"],
    ["a shift by the width", `    int s = p_B/2;\n    while (s > 0) {\n      ${STEP}\n      s >>= 32;\n    }`, "the shift must be by a constant from 1 to 31"],
  ];
  it("is an OklError at the loop's bound naming the counter and why", () => {
    fc.assert(fc.property(fc.constantFrom(...cases), ([, src, why]) => {
      const text = kernel(src);
      const e = oklError(() => parseOkl(text, DEFINES));
      expect(e.message).toContain('its counter "s" changes by');
      expect(e.message).toContain(why);
      const lines = text.split("\n");
      const line = lines.findIndex((l) => l.includes("while (")) + 1;
      expect(e.line).toBe(line);
    }), { numRuns: 8 });
  });

  it("a stride that may differ between work-items is refused at the condition", () => {
    const text = kernel(`    int s = (int) partial[b];\n    while (s > 0) {\n      ${STEP}\n      s >>= 1;\n    }`);
    const e = oklError(() => parseOkl(text, DEFINES));
    expect(e.message).toMatch(/the condition of the while loop at \d+:\d+ decides for a loop holding @inner loops or barriers/);
    expect(e.message).toContain("partial");
  });

  it("a continue in a for loop whose iterator is declared before it is refused (it would skip the update)", () => {
    const text = kernel(`    int s = half;\n    for (; s > 0; s >>= 1) {\n      if (half > 8) continue;\n      ${STEP}\n    }`);
    const e = oklError(() => parseOkl(text, DEFINES));
    expect(e.message).toContain("declare the iterator in the loop");
    expect(e.line).toBe(text.split("\n").findIndex((l) => l.includes("continue")) + 1);
  });
});
