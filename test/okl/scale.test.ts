/**
 * OKL import at scale (bench/okl-scale.ts times it): the generated unrolled assembly kernel imports
 * with one instruction per statement, fresh names stay unique, and the footprint of an argument
 * written at many constant offsets (grouped per index form, bounded once per group) is the same as
 * the largest access's. No wall-clock assertion: the bench measures time.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { assemblyKernel } from "../../bench/okl-scale.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const shapeText = (e: unknown): string => JSON.stringify(e);

describe("the unrolled assembly kernel of bench/okl-scale.ts", () => {
  it("imports with one instruction per statement and unique instruction names", () => {
    for (const lines of [60, 240]) {
      const [k] = parseOkl(assemblyKernel(lines));
      const n = lines - 20;
      const ids = k!.instructions.map((i) => i.id);
      expect(new Set(ids).size).toBe(ids.length);
      // n locals + n/4 accumulations in the second @inner loop, plus the loads of the first.
      expect(k!.instructions.filter((i) => i.kind === "assign").length).toBeGreaterThanOrEqual(n + Math.floor(n / 4));
    }
  });

  it("runs on interp and openmp as its serial meaning (a small instance)", async () => {
    const lines = 36, n = lines - 20, Np = 16, Nacc = 64, N = 2;
    const [k] = parseOkl(assemblyKernel(lines));
    const ggeo = seeded(3 * N * Np, 1), D = seeded(Np * Np, 2);
    const A = new Float64Array(N * Np * Nacc);
    for (let e = 0; e < N; e++) for (let j = 0; j < Np; j++) {
      const [g00, g01, g11] = [0, 1, 2].map((c) => ggeo[3 * (e * Np + j) + c]!);
      const t: number[] = [];
      for (let q = 0; q < n; q++) {
        t.push(g00! * D[(q % 16) * Np + j]! + g01! * D[j * Np + ((q * 7) % 16)]! + (q === 0 ? g00! : t[q - 1]!) * g11!);
        if (q % 4 === 3) A[(e * Np + j) * Nacc + ((q >> 2) % 64)] += t[q]! - t[q - 2]!;
      }
    }
    await expectSerialMeaning(k!, () => ({ Nelements: N, ggeo: Float64Array.from(ggeo), D: Float64Array.from(D), A: new Float64Array(N * Np * Nacc) }), { A }, 1e-12);
  });
});

describe("footprints of many constant offsets", () => {
  it("property: the shape is one past the largest offset, whatever the order of the accesses", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 30 }), (offsets) => {
      const body = offsets.map((o) => `out[8 * i + ${o}] = 1;`).join(" ");
      const [k] = parseOkl(`@kernel void f(const int n, float *out) { for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { ${body} } }`);
      const out = k!.args.find((a) => a.name === "out");
      const single = parseOkl(`@kernel void f(const int n, float *out) { for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { out[8 * i + ${Math.max(...offsets)}] = 1; } }`)[0]!;
      expect(shapeText(out?.kind === "array" ? out.shape : undefined)).toBe(shapeText((single.args[1] as { shape?: unknown }).shape));
    }), { numRuns: 25 });
  });
});
