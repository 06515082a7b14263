/**
 * Native code computes an instruction's int32 arithmetic wrapping (in uint32 in the C family, i32 in
 * WGSL), subscripts included: `out[i - m]` with `i = m + 10*i_outer + i_inner` of a chunk prints as
 * `(int32_t) ((uint32_t) m + (uint32_t) i_inner + … - (uint32_t) m)`, right whatever `m + i_inner`
 * is, as long as the whole subscript fits. The index-range proof refused such runs for m near the
 * int32 limit because the partial sum `m + i_inner` may pass it (the pipeline law's nearInt32 kernel
 * on c); it now checks a wrapping sum as a whole, and still checks plain index arithmetic (idx) at
 * every node, and what a comparison, division or call reads. Where intervals put a partial sum of a
 * split's counters past the limit, the loops' own bounds decide (src/run/index-affine.ts).
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { ExecutionError } from "../../src/errors.js";
import { chunkIname, splitIname, tagInames, tile } from "../../transforms/index.js";
import { availableNative } from "./native-helpers.js";

const MAX = 2 ** 31 - 1;
const nearInt32 = () => makeKernel(["{[i]: m<=i<m+n}"], ["out[i - m] = a[i - m]*2 + (i - m)"], ["a, out: float64[n]", "n, m: int32"], { name: "nearInt32" });
const NATIVE = availableNative(["c", "openmp", "opencl", "cuda"]);

describe("wrapping int32 subscripts near the int32 limit on the native backends", () => {
  it.skipIf(NATIVE.length === 0)(`a chunked offset domain computes the interpreter's values on ${NATIVE.join(", ") || "(none here)"}`, async () => {
    const t = chunkIname(nearInt32(), "i", 2);
    for (const backend of NATIVE) {
      for (const [n, m] of [[19, MAX - 20], [19, MAX - 40], [1, MAX - 1]]) {
        expect((await autoTestVsRef(nearInt32(), t, { params: { n: n!, m: m! }, backend, seed: 7 })).mismatches, `${backend} n=${n} m=${m}`).toEqual([]);
      }
    }
  }, 120_000);

  it.skipIf(NATIVE.length === 0)(`a split's partial sums near the limit are bounded by the loops' bounds, not intervals, on ${NATIVE.join(", ") || "(none here)"}`, async () => {
    // `5*i_outer + i_inner` reaches m + n - 1 at most; intervals put it 4 higher (each counter at its
    // own largest value), past int32 for m + n = MAX: such runs were refused (src/run/index-affine.ts).
    const split5 = splitIname(nearInt32(), "i", 5);
    const twice = splitIname(splitIname(nearInt32(), "i", 16), "i_outer", 3);
    // The fuzzer's case (seed 768434204): a lower bound ceil(a/80) printed floor((a + 79)/80) left
    // int32 for m near the limit; it is floor((a - 1)/80) + 1 now, never past a's own range.
    const tiled = tagInames(splitIname(tile(nearInt32(), ["i"], 16), "i_outer", 5), { i_outer_inner: "l.0" });
    for (const backend of NATIVE) {
      for (const [t, n, m] of [[split5, 19, MAX - 19], [twice, 19, MAX - 40], [twice, 19, MAX - 19], [tiled, 0, MAX - 40], [tiled, 19, MAX - 40], [tiled, 19, MAX - 19]] as const) {
        expect((await autoTestVsRef(nearInt32(), t, { params: { n, m }, backend, seed: 7 })).mismatches, `${backend} n=${n} m=${m}`).toEqual([]);
      }
    }
  }, 120_000);

  it.skipIf(!NATIVE.includes("c"))("plain index arithmetic is still checked at each node: a loop bound past int32 is refused", async () => {
    // i_outer's bound floor((m + n - 1)/3) is idx arithmetic: m + n - 1 leaves int32 for n = 3, m = MAX - 1.
    const t = splitIname(nearInt32(), "i", 3);
    const r = await autoTestVsRef(nearInt32(), t, { params: { n: 3, m: MAX - 1 }, backend: "c", seed: 7 }).catch((e: unknown) => e);
    const message = r instanceof Error ? r.message : (r as { mismatches: string[] }).mismatches.join("; ");
    expect(r instanceof ExecutionError || /outside int32/.test(message), message).toBe(true);
  }, 60_000);
});
