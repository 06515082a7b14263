/**
 * Issue 20, loops whose counter grows each trip around barriers and @inner loops, the mirror of the
 * halving strides (real-world-shift-loops.test.ts): a Hillis-Steele block scan's offset (`int offset =
 * 1; while (offset < p_B) { …; offset <<= 1; }`), a pairwise tree whose width doubles (`do { …; w *= 2;
 * } while (w < Nactive && w < p_B)`), and the `for` form with its iterator declared before it. The host
 * counts their trips from the counter's start and bound (value arguments and constants) as C runs the
 * loop (geometric.ts whileGrowingTrip, derived-args.ts): a start <= 0 (C's loop never ends) and a value
 * past the type's range are ExecutionErrors before the launch. Run on interp and openmp against the
 * serial meaning; a start the host cannot know stays an OklError.
 */
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import { parseOkl } from "../../src/okl/index.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { defines: { dfloat: "double" } };
const B = 16;

/** Each block's inclusive scan of x (past N: 0) over B cells, doubling `offset` from `start` while below `bound`. */
const scan = (loop: (step: string) => string) => `
#define p_B ${B}
@kernel void blockScan(const int N, const int first, const int Nscan, @restrict const dfloat *x, @restrict dfloat *scan) {
  for (int b = 0; b < (N + p_B - 1)/p_B; ++b; @outer(0)) {
    @shared dfloat s_a[p_B];
    @shared dfloat s_b[p_B];
    for (int t = 0; t < p_B; ++t; @inner(0)) s_a[t] = (b*p_B + t < N) ? x[b*p_B + t] : 0;
${loop(`@barrier("local");
      for (int t = 0; t < p_B; ++t; @inner(0)) s_b[t] = s_a[t] + ((t >= offset) ? s_a[t - offset] : 0);
      @barrier("local");
      for (int t = 0; t < p_B; ++t; @inner(0)) s_a[t] = s_b[t];`)}
    @barrier("local");
    for (int t = 0; t < p_B; ++t; @inner(0)) if (b*p_B + t < N) scan[b*p_B + t] = s_a[t];
  }
}`;

/** The serial meaning: one Hillis-Steele step per offset. */
function blockScans(x: readonly number[], N: number, offsets: readonly number[]): number[] {
  const out: number[] = [];
  for (let b = 0; b * B < N; ++b) {
    let a = Array.from({ length: B }, (_, t) => (b * B + t < N ? x[b * B + t]! : 0));
    for (const o of offsets) a = a.map((v, t) => v + (t >= o ? a[t - o]! : 0));
    out.push(...a.slice(0, Math.min(B, N - b * B)));
  }
  return out;
}

const WHILE = scan((step) => `    int offset = 1;\n    while (offset < p_B) {\n      ${step}\n      offset <<= 1;\n    }`);
const FOR = scan((step) => `    int offset = first;\n    for (; offset < Nscan; offset *= 2) {\n      ${step}\n    }`);

// libParanumal-style pairwise tree: width w doubles each trip; the first trip runs whatever Nactive says.
const PAIRS = `
#define p_B ${B}
@kernel void pairSums(const int Nblocks, const int Nactive, @restrict const dfloat *x, @restrict dfloat *out) {
  for (int b = 0; b < Nblocks; ++b; @outer(0)) {
    @shared dfloat s_x[p_B];
    for (int t = 0; t < p_B; ++t; @inner(0)) s_x[t] = x[b*p_B + t];
    int w = 1;
    do {
      @barrier("local");
      for (int t = 0; t < p_B; ++t; @inner(0)) if (t % (2*w) == 0 && t + w < p_B) s_x[t] += s_x[t + w];
      w *= 2;
    } while (w < Nactive && w < p_B);
    @barrier("local");
    for (int t = 0; t < p_B; ++t; @inner(0)) out[b*p_B + t] = s_x[t];
  }
}`;

describe("loops whose counter grows each trip, around barriers and @inner loops", () => {
  it("while (offset < p_B) { …; offset <<= 1; }: a block scan", async () => {
    const [k] = parseOkl(WHILE, DEFINES);
    const N = 40;
    const x = seeded(N, 11);
    await expectSerialMeaning(k!, () => ({ N, first: 0, Nscan: 0, x: Float64Array.from(x), scan: new Float64Array(N) }), { scan: blockScans(x, N, [1, 2, 4, 8]) }, 1e-12, { checkBounds: false });
  });

  it("for (; offset < Nscan; offset *= 2) from a value argument: the trips the host counts", async () => {
    const [k] = parseOkl(FOR, DEFINES);
    const N = 20;
    const x = seeded(N, 12);
    for (const [first, Nscan, offsets] of [[1, 16, [1, 2, 4, 8]], [3, 13, [3, 6, 12]], [2, 1, []]] as const) {
      await expectSerialMeaning(k!, () => ({ N, first, Nscan, x: Float64Array.from(x), scan: new Float64Array(N) }), { scan: blockScans(x, N, offsets) }, 1e-12, { checkBounds: false });
    }
  });

  it("do { …; w *= 2; } while (w < Nactive && w < p_B): the first trip always, the rest of the condition each trip", async () => {
    const [k] = parseOkl(PAIRS, DEFINES);
    const x = seeded(2 * B, 13);
    for (const Nactive of [1, 5, 100]) {
      const out = x.slice();
      for (let b = 0; b < 2; ++b) {
        let w = 1;
        do {
          for (let t = 0; t < B; ++t) if (t % (2 * w) === 0 && t + w < B) out[b * B + t]! += out[b * B + t + w]!;
          w *= 2;
        } while (w < Nactive && w < B);
      }
      await expectSerialMeaning(k!, () => ({ Nblocks: 2, Nactive, x: Float64Array.from(x), out: new Float64Array(2 * B) }), { out }, 1e-12, { checkBounds: false });
    }
  });

  it("a start <= 0 (C's loop never ends) and a counter passing int's range are ExecutionErrors before the launch", async () => {
    const [k] = parseOkl(FOR, DEFINES);
    const args = (first: number, Nscan: number) => ({ N: 4, first, Nscan, x: new Float64Array(4), scan: new Float64Array(4) });
    await expect(run(k!, args(0, 8) as never)).rejects.toThrow(/the loop never ends \(its value stays 0/);
    await expect(run(k!, args(3, 2 ** 31 - 1) as never)).rejects.toThrow(ExecutionError);
    await expect(run(k!, args(3, 2 ** 31 - 1) as never)).rejects.toThrow(/passes int32's range \(C's loop overflows\)/);
  });

  it("refused: a growing counter whose start the host cannot know (it reads memory)", () => {
    const text = scan((step) => `    int offset = (int) x[b];\n    while (offset < p_B) {\n      ${step}\n      offset <<= 1;\n    }`);
    const e = oklError(() => parseOkl(text, DEFINES));
    expect(e.message).toContain('its counter "offset" changes by `offset <<= 1` each trip, and its counter grows (`<<=`) and its value before the loop is not computed from value arguments and constants alone');
    expect(e.line).toBe(text.split("\n").findIndex((l) => l.includes("while (")) + 1);
  });
});
