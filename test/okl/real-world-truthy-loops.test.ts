/**
 * Issue 20, `while (s)` with no comparison around barriers and @inner loops (C's truth test, `s != 0`:
 * a tree reduction's `int s = p_B/2; while (s) { @barrier; …; s >>= 1; }`, `s /= 2`, `do … while (s)`,
 * `for (; s; s >>= 1)`). A quotient reaches 0 from any start within the counter's width; a shift from a
 * start >= 0, while from a negative one C's loop never ends (`-1 >> 1` is -1): a start of value
 * arguments is checked by the host before the launch (geometric.ts whileTruthyTrips). Run on interp
 * and openmp against the serial meaning; a shift from a start only the device knows stays an OklError.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/index.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { defines: { dfloat: "double" } };
const B = 16;

/** Each block's tree sum of x over B cells, one step per stride the loop runs (`starts` a read-only argument). */
const kernel = (loop: string, result = "s_sum[0]") => `
#define p_B ${B}
@kernel void blockSums(const int Nblocks, const int half, @restrict const int *starts, @restrict const dfloat *x, @restrict dfloat *partial) {
  for (int b = 0; b < Nblocks; ++b; @outer(0)) {
    @shared dfloat s_sum[p_B];
    for (int t = 0; t < p_B; ++t; @inner(0)) s_sum[t] = x[b*p_B + t];
${loop}
    @barrier("local");
    for (int t = 0; t < p_B; ++t; @inner(0)) if (t == 0) partial[b] = ${result};
  }
}`;
const STEP = `@barrier("local");
      for (int t = 0; t < p_B; ++t; @inner(0)) if (t < s && s < p_B - t) s_sum[t] += s_sum[t + s];`;

/** The serial meaning: a tree step per stride. */
const sums = (x: readonly number[], strides: (b: number) => number[]) => [0, 1].map((b) => {
  const a = x.slice(b * B, b * B + B);
  for (const s of strides(b)) for (let t = 0; t < B; ++t) if (t < s && s < B - t) a[t]! += a[t + s]!;
  return a[0]!;
});
const halving = (s: number, div: boolean) => { const out = []; for (; s !== 0; s = div ? Math.trunc(s / 2) : s >> 1) out.push(s); return out; };

describe("while (s) around barriers: C's truth test of a stride halved to 0", () => {
  const x = seeded(2 * B, 21);
  const args = (half: number, starts: number[]) => () => ({ Nblocks: 2, half, starts: Int32Array.from(starts), x: Float64Array.from(x), partial: new Float64Array(2) });

  it("int s = p_B/2; while (s) { …; s >>= 1; }, and for (; s; s >>= 1) from a value argument", async () => {
    const [k] = parseOkl(kernel(`    int s = p_B/2;\n    while (s) {\n      ${STEP}\n      s >>= 1;\n    }`), DEFINES);
    await expectSerialMeaning(k!, args(0, [0, 0]), { partial: sums(x, () => [8, 4, 2, 1]) }, 1e-12, { checkBounds: false });
    const [f] = parseOkl(kernel(`    int s = half;\n    for (; s; s >>= 1) {\n      ${STEP}\n    }`), DEFINES);
    for (const half of [5, 0]) await expectSerialMeaning(f!, args(half, [0, 0]), { partial: sums(x, () => halving(half, false)) }, 1e-12, { checkBounds: false });
  });

  it("do { …; s /= 2; } while (s != 0) from a start read at the block index: negative starts too, INT_MIN's 32 trips", async () => {
    const loop = `    int s = starts[b];\n    int trips = 0;\n    do {\n      ${STEP}\n      s /= 2;\n      ++trips;\n    } while (s != 0);`;
    const [k] = parseOkl(kernel(loop, "s_sum[0] + 1000.0*trips"), DEFINES);
    for (const starts of [[8, 3], [-7, 0], [-(2 ** 31), 2 ** 31 - 1]]) {
      const strides = (b: number) => [starts[b]!, ...halving(Math.trunc(starts[b]! / 2), true)];
      const partial = sums(x, strides).map((v, b) => v + 1000 * strides(b).length);
      await expectSerialMeaning(k!, args(0, starts), { partial }, 1e-12, { checkBounds: false });
    }
  });

  it("a negative start of a shift never ends in C: an ExecutionError before the launch", async () => {
    const [f] = parseOkl(kernel(`    int s = half;\n    while (s) {\n      ${STEP}\n      s >>= 1;\n    }`), DEFINES);
    await expect(run(f!, args(-3, [0, 0])() as never)).rejects.toThrow(/the loop never ends \(its value stays -1/);
  });

  it("refused: a shift from a start only the device knows, and a growing counter tested against 0", () => {
    const fromMemory = kernel(`    int s = starts[b];\n    while (s) {\n      ${STEP}\n      s >>= 1;\n    }`);
    const e = oklError(() => parseOkl(fromMemory, DEFINES));
    expect(e.message).toContain('its counter "s" changes by `s >>= 1` each trip, and its condition tests it against 0 (`while (s)`), which from a negative start never ends');
    expect(e.line).toBe(fromMemory.split("\n").findIndex((l) => l.includes("while (s)")) + 1);
    const growing = kernel(`    int s = 1;\n    while (s) {\n      ${STEP}\n      s <<= 1;\n    }`);
    expect(oklError(() => parseOkl(growing, DEFINES)).message).toContain('its condition tests "s" against 0 (C\'s `while (s)`), which bounds the trips only where the counter is halved each trip to 0');
  });
});
