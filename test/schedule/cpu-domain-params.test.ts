/**
 * Issue 20: an inner loop whose domain takes private temporaries (`@exclusive int s, e`) and an
 * iname of an l axis (`r = s + n`) as parameters. On CPU targets the l inames of one axis share one
 * loop and barrier-crossing private values get one slot per work-item; the inner loop's bounds must
 * follow both (they lost `n`, writing out of range, and read the array `s` as a scalar). Each
 * variant runs on interp, js, c, openmp and opencl (where available) against its serial meaning.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError, ScheduleError } from "../../src/errors.js";
import { generateCode } from "../../codegen/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { addDtypes, makeKernel, temporary } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { applyPipeline } from "../../transforms/pipeline.js";
import { tagInames } from "../../transforms/index.js";
import { parityBackends } from "../transforms/every-backend.js";
import { privateBoundsSource } from "../transforms/gen-families.js";
import { privatizedBounds, tag } from "./schedule-kernels.js";

/**
 * Four nests, one device kernel each: the repro, the start and the bound as per-work-item
 * private values, and hipBone's gather (`row = blockStart + n` with blockStart privatized: did not compile).
 * Each work-item strides by the group's 16 (a stride of 4 had work-items n and n + 4 update one
 * cell: a race on a GPU, which the interpreter reports).
 */
const OKL = `@kernel void rows(const int Nb, const int *starts, const double *q, double *o1, double *o2, double *o3, double *o4) {
  for (int b = 0; b < Nb; ++b; @outer) { @exclusive int s, e;
    for (int n = 0; n < 16; ++n; @inner) { s = starts[b]; e = starts[b + 1]; }
    for (int n = 0; n < 16; ++n; @inner) for (int r = s + n; r < e; r += 16) o1[r] = o1[r] + 2 * q[r]; }
  for (int b = 0; b < Nb; ++b; @outer) { @exclusive int s2, e2; @shared double w[16];
    for (int n = 0; n < 16; ++n; @inner) { s2 = starts[b] + n; e2 = starts[b + 1]; w[n] = q[n]; }
    @barrier("local");
    for (int n = 0; n < 16; ++n; @inner) for (int r = s2; r < e2; r += 16) o2[r] = o2[r] + w[15 - n]; }
  for (int b = 0; b < Nb; ++b; @outer) { @exclusive int s3, e3; @shared double w3[16];
    for (int n = 0; n < 16; ++n; @inner) { s3 = starts[b]; e3 = starts[b + 1] - n; w3[n] = q[n]; }
    @barrier("local");
    for (int n = 0; n < 16; ++n; @inner) for (int r = s3 + n; r < e3; r += 16) o3[r] = o3[r] + w3[15 - n]; }
  for (int b = 0; b < Nb; ++b; @outer) { @exclusive int blockStart, blockEnd; @shared double s_w[16];
    for (int n = 0; n < 16; ++n; @inner) { blockStart = starts[b]; blockEnd = starts[b + 1]; s_w[n] = q[n]; }
    @barrier("local");
    for (int n = 0; n < 16; ++n; @inner) for (int row = blockStart + n; row < blockEnd; row += 16) o4[row] = s_w[n] + row; }
}`;

/** The same class made with makeKernel and l.0 tags (schedule-kernels.ts). */
const made = privatizedBounds;

/** `out[r] += val(n, r)` for each work-item `n` of each block `b`, `r` from `start(b, n)` by `step` below `end(b, n)`. */
function serial(
  len: number, blocks: number, start: (b: number, n: number) => number, end: (b: number, n: number) => number, step: number,
  val: (n: number, r: number) => number,
): Float64Array {
  const out = new Float64Array(len);
  for (let b = 0; b < blocks; b++) for (let n = 0; n < 16; n++) for (let r = start(b, n); r < end(b, n); r += step) out[r]! += val(n, r);
  return out;
}

/** Block boundaries: nondecreasing, 0..40 apart (empty blocks, blocks shorter and longer than 16). */
const startsArb = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 4 })
  .map((gaps) => gaps.reduce<number[]>((acc, g) => [...acc, acc[acc.length - 1]! + g], [0]));

function expectSame(backend: string, name: string, got: ArrayLike<number>, want: Float64Array): void {
  expect(Array.from(got), `${backend}: ${name}`).toEqual(Array.from(want));
}

/** Random block boundaries per kernel: each backend compiles the kernel once, then runs it RUNS times. */
const RUNS = 4;

describe("CPU targets: inner loops bounded by private temporaries and inames (issue 20)", () => {
  const backends = parityBackends();
  /** A budget that grows with the toolchain's work (a compile per native backend), not a fixed short timeout. */
  const budget = 30_000 * backends.length;
  const [okl] = parseOkl(OKL, { filename: "rows.okl" });

  it("OKL: start = private + @inner index, start private per work-item, bound private per work-item, hipBone's gather", async () => {
    await fc.assert(fc.asyncProperty(startsArb, async (starts) => {
      const nb = starts.length - 1;
      // Room past the last block: a loop bound that loses `n` writes up to 15 cells past it, inside the array.
      const len = starts[nb]! + 32;
      const q = new Float64Array(len).map((_, i) => i + 1);
      const st = (b: number) => starts[b]!;
      const want1 = serial(len, nb, (b, n) => st(b) + n, (b) => st(b + 1), 16, (_n, r) => 2 * q[r]!);
      const want2 = serial(len, nb, (b, n) => st(b) + n, (b) => st(b + 1), 16, (n) => q[15 - n]!);
      const want3 = serial(len, nb, (b, n) => st(b) + n, (b, n) => st(b + 1) - n, 16, (n) => q[15 - n]!);
      const want4 = serial(len, nb, (b, n) => st(b) + n, (b) => st(b + 1), 16, (n, r) => q[n]! + r);
      for (const backend of backends) {
        const args = { Nb: nb, starts: Int32Array.from(starts), q, o1: new Float64Array(len), o2: new Float64Array(len), o3: new Float64Array(len), o4: new Float64Array(len) };
        // The indices read memory: no static bounds proof for native code (the serial answers check them).
        const out = (await run(okl!, args as never, { backend, checkBounds: false } as never)) as Record<string, Float64Array>;
        expectSame(backend, "o1", out.o1!, want1);
        expectSame(backend, "o2", out.o2!, want2);
        expectSame(backend, "o3", out.o3!, want3);
        expectSame(backend, "o4", out.o4!, want4);
      }
    }), { numRuns: RUNS });
  }, budget);

  it("makeKernel with l.0 tags: a second l.0 iname and barrier-crossing private values as parameters", async () => {
    const k = made();
    await fc.assert(fc.asyncProperty(startsArb, async (starts) => {
      const nb = starts.length - 1;
      const len = starts[nb]! + 48;
      const q = new Float64Array(16).map((_, i) => i + 1);
      const want = serial(len, nb, (b, n) => starts[b]! + 16 * (n % 2) + n, (b, n) => starts[b + 1]! - (n % 3), 16, (n) => q[15 - n]!);
      for (const backend of backends) {
        const out = (await run(k, { nb, starts: Int32Array.from(starts), q, out: new Float64Array(len) } as never, { backend, checkBounds: false } as never)) as Record<string, Float64Array>;
        expectSame(backend, "out", out.out!, want);
      }
    }), { numRuns: RUNS });
  }, budget);

  it("the CPU code reads a per-work-item copy of a privatized bound, loaded inside the work-item loop", () => {
    const code = generateCode(made(), "c").deviceCode;
    expect(code).toMatch(/s_item = s\[m\];/);
    expect(code).toMatch(/e_item = e\[m\];/);
    // No loop bound reads the arrays themselves, nor the dropped iname.
    expect(code).not.toMatch(/for \(int r[^;]*;[^;]*\b[se]\b(?!_item)[^;]*;/);
    expect(code).toMatch(/for \(int r[^;]*;[^;]*e_item - s_item - m - 1/);
  });

  it("found by the pipeline law's privateBounds family after the first fix: a g.1 or l.1 iname in the inner loop's domain", async () => {
    const source = privateBoundsSource("8*(i % 2)");
    const k = tagInames(makeKernel([...source.domains], [...source.instructions], [...source.args], { name: source.family }), { ...source.tags });
    // g.1 in r's domain bounded the work-item loop by the copies before their load; l.1 there was
    // taken as the axis loop, so the privatized stores ran only where r's range was not empty.
    const pipelines = [
      [{ op: "tile", args: [["r"], [1]] }, { op: "splitIname", args: ["r_inner", 5, { outerTag: "g.1" }] }],
      [{ op: "splitIname", args: ["r", 2, { innerTag: "ilp" }] }, { op: "tile", args: [["r_outer"], [1], { innerTags: ["l.1"] }] }],
    ];
    for (const p of pipelines) {
      const t = applyPipeline(k, p as never);
      for (const params of [{ n: 4, m: 2 }, { n: 1, m: 28 }]) {
        const r = await autoTestVsRef(k, t, { params, backend: "js", seed: 7 });
        expect(r.mismatches.slice(0, 2), `${JSON.stringify(p)} ${JSON.stringify(params)}`).toEqual([]);
      }
    }
  });

  it("a loop bound reading a temporary array is refused when the kernel is built, for every target (C would read its address; test/ir/domain-params.test.ts has the routes)", () => {
    const build = () => makeKernel(["{[i]: 0<=i<4}", "{[j]: 0<=j<4}", "[t] -> {[r]: 0<=r<t}"], [
      "<int32> t[i] = cnt[i] {id=lt}",
      "out[j] = sum(r, 1) {id=u, dep=lt}",
    ], ["cnt: int32[4]", "out: int32[4]"]);
    expect(build).toThrow(LoomError);
    expect(build).toThrow(/the domain of "r" takes parameter "t", which names \w+ temporary "t", an array \(1 axis\), not a scalar/);
  });

  it("a loop holding a barrier whose bounds read a per-work-item value is refused on CPU targets, naming both", () => {
    const k = tag(addDtypes(makeKernel(["{[n]: 0<=n<16}", "{[m]: 0<=m<16}", "[e] -> {[r]: 0 <= r < e}"], [
      "<int32> e = cnt[n] {id=le, inames=n}",
      "w[m] = r {id=lw, inames=r:m, dep=le}",
      "out[m] = w[15 - m] {id=u, inames=r:m, dep=lw}",
    ], [temporary("w", "int32", [16], "local"), "..."]), { cnt: "int32", out: "int32" }), { n: "l.0", m: "l.0" });
    let err: unknown;
    try {
      generateCode(k, "c");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LoomError);
    expect(err).toBeInstanceOf(ScheduleError);
    expect(String((err as Error).message)).toMatch(/loop "r".*barrier.*private temporary "e"/);
  });
});
