/**
 * Issue 20, hipBone's ogs `scatter_*`: a block of rows per work-group, its range read from memory in an
 * `@inner` loop into `@exclusive` values (`first = blockOffsets[b]; last = blockOffsets[b+1];`) and read
 * in the next as a loop's bounds, where the schedule puts a barrier in the loop (a `@shared` cell written
 * and read back in it). CPU targets run such a loop outside the loops over the work-items, so they refused
 * it; the value is one for the whole work-group (no work-item index, arrays the kernel never writes), and
 * is now computed once per work-group (src/schedule/cpu-hoist.ts). Kernels in the style of hipBone's ogs
 * (our own), on interp, openmp and js against their serial meaning; the cases that cannot be proven are refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { LoomError, ScheduleError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { expectSerialMeaning, realWorldBackends, seeded } from "./real-world-helpers.js";

const THREADS = 8;
const MAX_NODES = 64;
const MAX_ROWS = 16;

// Scatter: each row's value copied to its nodes through @shared memory, the copy read back in the row loop.
const blockScatter = `
#define p_threads ${THREADS}
#define p_maxNodes ${MAX_NODES}
@kernel void blockScatter(const int Nblocks, const int Nfields, const int *blockOffsets, const int *rowOffsets,
                          const int *ids, const double *src, double *dst) {
  for (int f = 0; f < Nfields; ++f; @outer(1)) {
    for (int b = 0; b < Nblocks; ++b; @outer(0)) {
      @exclusive int first, last, base;
      @shared double s_buf[p_maxNodes];
      for (int t = 0; t < p_threads; ++t; @inner) {
        first = blockOffsets[b];
        last = blockOffsets[b + 1];
        base = rowOffsets[first];
        for (int r = first + t; r < last; r += p_threads) {
          const int lo = rowOffsets[r] - base;
          const int hi = rowOffsets[r + 1] - base;
          s_buf[lo] = src[f + r * Nfields];
          for (int j = lo + 1; j < hi; j++) s_buf[j] = 2 * s_buf[lo];
        }
      }
      for (int t = 0; t < p_threads; ++t; @inner) {
        for (int j = base + t; j < rowOffsets[last]; j += p_threads)
          dst[f + ids[j] * Nfields] = s_buf[j - base];
      }
    }
  }
}`;

// Gather: each row's sum accumulated in @shared memory (a barrier in the row loop), three @inner loops.
const blockGather = `
#define p_threads ${THREADS}
#define p_maxNodes ${MAX_NODES}
#define p_maxRows ${MAX_ROWS}
@kernel void blockGather(const int Nblocks, const int *blockStarts, const int *gatherStarts, const int *gatherIds,
                         const double *q, double *gq) {
  for (int b = 0; b < Nblocks; ++b; @outer) {
    @exclusive int rowFirst, rowLast, nodeFirst, nodeLast;
    @shared double s_q[p_maxNodes];
    @shared double s_sum[p_maxRows];
    for (int t = 0; t < p_threads; ++t; @inner) {
      rowFirst = blockStarts[b];
      rowLast = blockStarts[b + 1];
      nodeFirst = gatherStarts[rowFirst];
      nodeLast = gatherStarts[rowLast];
      for (int n = nodeFirst + t; n < nodeLast; n += p_threads) s_q[n - nodeFirst] = q[gatherIds[n]];
    }
    for (int t = 0; t < p_threads; ++t; @inner) {
      for (int r = rowFirst + t; r < rowLast; r += p_threads) {
        s_sum[r - rowFirst] = 0;
        for (int n = gatherStarts[r] - nodeFirst; n < gatherStarts[r + 1] - nodeFirst; ++n) s_sum[r - rowFirst] += s_q[n];
      }
    }
    for (int t = 0; t < p_threads; ++t; @inner) {
      for (int r = rowFirst + t; r < rowLast; r += p_threads) gq[r] = s_sum[r - rowFirst];
    }
  }
}`;

/** A prefix sum: offsets[0] = 0, offsets[i+1] = offsets[i] + sizes[i]. */
const offsetsOf = (sizes: readonly number[]): number[] => sizes.reduce<number[]>((acc, s) => [...acc, acc[acc.length - 1]! + s], [0]);

/** Blocks of rows (0..MAX_ROWS rows each, some empty), each row of `minNodes`..4 nodes, at most MAX_NODES per block. */
const blocksArb = (minNodes: number) => fc.array(
  fc.array(fc.integer({ min: minNodes, max: 4 }), { maxLength: MAX_ROWS }).filter((rows) => rows.reduce((a, b) => a + b, 0) <= MAX_NODES),
  { minLength: 1, maxLength: 4 });

/** A permutation of 0..n-1 drawn from `seed` (the node ids: no two nodes write one cell). */
function permutation(n: number, seed: number): number[] {
  const keys = seeded(n, seed);
  return Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
}

const budget = 40_000 * realWorldBackends().length;

/** expectSerialMeaning, and the js backend (the CPU lowering's other user) on the same inputs. */
async function onCpuTargets(k: Kernel, args: () => Record<string, unknown>, want: Record<string, readonly number[]>, tol: number): Promise<void> {
  await expectSerialMeaning(k, args, want, tol, { checkBounds: false });
  const out = (await run(k, args() as never, { backend: "js" } as never)) as Record<string, ArrayLike<number>>;
  for (const [name, w] of Object.entries(want)) Array.from(out[name]!).forEach((g, i) => expect(Math.abs(g - w[i]!), `js: ${name}[${i}]`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w[i]!))));
}

describe("hipBone-style scatter and gather: an @exclusive block range read from memory bounds a loop holding a barrier", () => {
  it("scatter: the row value at every node of the row, on every backend, as the serial meaning", async () => {
    const k = parseOkl(blockScatter, { filename: "blockScatter.okl" })[0]!;
    await fc.assert(fc.asyncProperty(blocksArb(1), fc.integer({ min: 1, max: 2 }), async (blocks, nfields) => {
      const rows = blocks.flat();
      const blockOffsets = offsetsOf(blocks.map((b) => b.length));
      const rowOffsets = offsetsOf(rows);
      const nodes = rowOffsets[rows.length]!;
      const ids = permutation(nodes, rows.length * 31 + nfields);
      const src = seeded(Math.max(rows.length, 1) * nfields, nodes + 5);
      const dst = seeded(Math.max(nodes, 1) * nfields, 9);
      const want = dst.slice();
      for (let f = 0; f < nfields; f++) {
        rows.forEach((_, r) => {
          for (let j = rowOffsets[r]!; j < rowOffsets[r + 1]!; j++) want[f + ids[j]! * nfields] = (j === rowOffsets[r] ? 1 : 2) * src[f + r * nfields]!;
        });
      }
      await onCpuTargets(k, () => ({
        Nblocks: blocks.length, Nfields: nfields, blockOffsets: Int32Array.from(blockOffsets), rowOffsets: Int32Array.from(rowOffsets),
        ids: Int32Array.from(ids.length > 0 ? ids : [0]), src: Float64Array.from(src), dst: Float64Array.from(dst),
      }), { dst: want }, 0);
    }), { numRuns: 3, seed: 2031 });
  }, budget);

  it("gather: each row's sum through two @shared arrays and three @inner loops, as the serial meaning", async () => {
    const k = parseOkl(blockGather, { filename: "blockGather.okl" })[0]!;
    await fc.assert(fc.asyncProperty(blocksArb(0), async (blocks) => {
      const rows = blocks.flat();
      const blockStarts = offsetsOf(blocks.map((b) => b.length));
      const gatherStarts = offsetsOf(rows);
      const nodes = gatherStarts[rows.length]!;
      const gatherIds = permutation(nodes, nodes + 17).map((i) => i % Math.max(1, nodes - 2));
      const q = seeded(Math.max(nodes, 1), rows.length + 3);
      const gq = seeded(Math.max(rows.length, 1), 11);
      const want = gq.slice();
      rows.forEach((_, r) => {
        let s = 0;
        for (let n = gatherStarts[r]!; n < gatherStarts[r + 1]!; n++) s += q[gatherIds[n]!]!;
        want[r] = s;
      });
      await onCpuTargets(k, () => ({
        Nblocks: blocks.length, blockStarts: Int32Array.from(blockStarts), gatherStarts: Int32Array.from(gatherStarts),
        gatherIds: Int32Array.from(gatherIds.length > 0 ? gatherIds : [0]), q: Float64Array.from(q), gq: Float64Array.from(gq),
      }), { gq: want }, 1e-12);
    }), { numRuns: 3, seed: 2032 });
  }, budget);

  it("the CPU code reads the block range once per work-group, from one scalar, in the loop that holds the barrier", () => {
    const code = generateCode(parseOkl(blockScatter)[0]!, "openmp").deviceCode;
    const group = code.indexOf("for (int b = 0;");
    const first = code.indexOf("first = blockOffsets[b];");
    const inner = code.indexOf("for (int t = 0;");
    expect(group).toBeGreaterThanOrEqual(0);
    // Assigned inside the loop over the groups, before any loop over the work-items.
    expect(first).toBeGreaterThan(group);
    expect(first).toBeLessThan(inner);
    expect(code).not.toMatch(/first\[/);
    // Each work-item's row bounds are loaded only where it has a row: the loop over the work-items of the
    // second phase has the first's bound, and reads no slot of `lo` that no work-item wrote.
    const loops = [...code.matchAll(/for \(int t = 0; t <= ([^;]+); \+\+t\)\s*\{\s*(\w+)(?:\[t\])? = /g)].map((m) => [m[1], m[2]]);
    expect(loops.slice(0, 2)).toEqual([["loopy_min_int32(last - first - 8 * r - 1, 7)", "lo"], ["loopy_min_int32(last - first - 8 * r - 1, 7)", "lo_item"]]);
  });
});

/** `src` lowered for `target`: the error it throws, or undefined. */
function refusal(src: string, target: string): unknown {
  try {
    generateCode(parseOkl(src)[0]!, target as never);
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("what cannot be proven one value per work-group is refused on CPU targets, naming why", () => {
  it("the range read from an array the kernel also writes", () => {
    // The block range kept in `counts`, which the last loop writes: a re-read need not give the same value.
    const written = blockScatter
      .replace("const int *blockOffsets", "int *counts")
      .replace("first = blockOffsets[b];", "first = counts[2 * b];")
      .replace("last = blockOffsets[b + 1];", "last = counts[2 * b + 1];")
      .replace("dst[f + ids[j] * Nfields] = s_buf[j - base];", "dst[f + ids[j] * Nfields] = s_buf[j - base];\n        if (t == 0) counts[2 * b] = 0;");
    for (const target of ["c", "openmp"]) {
      const e = refusal(written, target);
      expect(e, target).toBeInstanceOf(ScheduleError);
      expect(String((e as Error).message)).toMatch(/loop "r" .*holds a barrier .*private temporary "first".*reads array "counts", which instruction "\w+" \(at \d+:\d+\) of the kernel writes/);
      expect(String((e as Error).message)).toMatch(/arrays the kernel only reads/);
    }
    expect(refusal(written, "opencl")).toBeUndefined();
  });

  it("a bound that depends on the work-item index", () => {
    const perItem = blockScatter.replace("first = blockOffsets[b];", "first = blockOffsets[b] + t % 2;");
    const e = refusal(perItem, "openmp");
    expect(e).toBeInstanceOf(LoomError);
    expect(String((e as Error).message)).toMatch(/loop "r" .*private temporary "first".*reads the work-item index "t"/);
  });

  it("a bound assigned from a value computed in a loop", () => {
    const inLoop = blockScatter.replace("first = blockOffsets[b];", "first = 0;\n        for (int s = 0; s < 2; ++s) first += blockOffsets[b] * s;");
    const e = refusal(inLoop, "c");
    expect(e).toBeInstanceOf(LoomError);
    expect(String((e as Error).message)).toMatch(/loop "r" .*private temporary "first".*\(2 instructions assign it\)/);
  });
});
