/**
 * The laws of the earlier issues, on the native backends: random kernels under random legal
 * pipelines (splits, tags, prefetches, layouts, …) and split kernels under random g/l tags compute
 * on c, openmp and opencl what the interpreter computes; and the kernel families of issues 15 and
 * 16 (host loops, 0-d outputs, parametric temporaries, a private value saved across a global
 * barrier) on their own, so that each reaches every native backend. Fewer cases than on interp/js:
 * each case compiles native code (cached by content across runs).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { SCHEDULED_FAMILIES, UNPROVABLE_IN_BOUNDS } from "../transforms/gen-families.js";
import { GEN_STATS, genCase, genCaseOf, type Case } from "../transforms/gen-kernels.js";
import { tag } from "./parallel-helpers.js";
import { nativeAvailable, type NativeBackend } from "./native-helpers.js";

const RUNS = Number(process.env.LOOM_NATIVE_RUNS ?? 30);
const BACKENDS: NativeBackend[] = ["c", "openmp", "opencl"];

describe.each(BACKENDS)("laws on %s", (backend) => {
  const skip = !nativeAvailable(backend);
  /** Set once js failed a case of an unchecked family: shrinking that failure runs js alone. */
  let uncheckedFailed = false;

  const lawHolds = (checked: Record<string, number>, refused: Record<string, number> = {}) => async (c: Case) => {
    // The families in bounds by construction whose subscripts the bounds proof cannot prove (the
    // privateBounds family's out[b, s + j + 8*r], through a per-work-item value) run unchecked:
    // what they compute is compared, element for element, as for every other family.
    const unchecked = UNPROVABLE_IN_BOUNDS.has(c.source.family);
    const show = `\n  kernel ${JSON.stringify(c.source)}\n  params ${JSON.stringify(c.params)}\n  pipeline ${JSON.stringify(c.json)}`;
    if (unchecked) {
      // Unchecked native code that writes out of range corrupts this process instead of failing the
      // case: js, which lowers through the same CPU schedule and checks at run time each index it
      // cannot prove, runs it first (a lost bound fails there, with the case printed). Once it has
      // failed, the shrinking runs js alone: a smaller case may pass js (js zero-fills what C leaves
      // uninitialized) and still write out of range natively.
      const js = await autoTestVsRef(c.ref, c.transformed, { params: c.params, backend: "js", seed: 7 });
      if (!js.ok) uncheckedFailed = true;
      expect(js.ok, `js, before ${backend} unchecked: ${js.mismatches.slice(0, 3).join("; ")}${show}`).toBe(true);
      if (uncheckedFailed) return;
    }
    // FMA contraction (-march=native) may round differently from the interpreter: rtol, as for GPUs.
    const r = await autoTestVsRef(c.ref, c.transformed, { params: c.params, backend, seed: 7, rtol: 1e-5, ...(unchecked ? { checkBounds: false } : {}) });
    // Refused before it ran: a subscript the bounds proof cannot read as affine. A refusal, not a
    // wrong result; counted per family.
    if (!unchecked && !r.ok && /not affine .* cannot prove/.test(r.mismatches[0] ?? "")) {
      refused[c.source.family] = (refused[c.source.family] ?? 0) + 1;
      return;
    }
    expect(r.ok, `${backend}: ${r.mismatches.slice(0, 3).join("; ")}${show}`).toBe(true);
    checked[c.source.family] = (checked[c.source.family] ?? 0) + 1;
  };

  it.skipIf(skip)(`random pipelines keep the meaning of random kernels (${RUNS} cases)`, async () => {
    await fc.assert(fc.asyncProperty(genCase, lawHolds({})), { numRuns: RUNS, seed: Number(process.env.LOOM_PIPELINE_SEED ?? 4242) });
  });

  const families = Object.keys(SCHEDULED_FAMILIES);
  it.skipIf(skip)(`random pipelines keep the meaning of the kernels of issues 15 and 16 (${RUNS} cases)`, async () => {
    const before = GEN_STATS.schedRefused;
    const checked: Record<string, number> = {};
    const refused: Record<string, number> = {};
    // Each family on its own, an equal share of the cases: a draw over all of them left one family
    // with a single case or none, as the number of families grew.
    const share = Math.max(1, Math.ceil(RUNS / families.length));
    const seed = Number(process.env.LOOM_PIPELINE_SEED ?? 4343);
    for (const [n, f] of families.entries()) {
      await fc.assert(fc.asyncProperty(genCaseOf([f]), lawHolds(checked, refused)), { numRuns: share, seed: seed + n });
    }
    console.log(`${backend}: cases checked by family ${JSON.stringify(checked)}; refused by the bounds proof ${JSON.stringify(refused)}; moves refused by the scheduler ${GEN_STATS.schedRefused - before}`);
    // Each family reaches the backend (run, or refused by the bounds proof before running); those
    // in bounds by construction run.
    const least = share;
    for (const f of families) expect((checked[f] ?? 0) + (refused[f] ?? 0), f).toBeGreaterThanOrEqual(least);
    for (const f of UNPROVABLE_IN_BOUNDS) expect(checked[f] ?? 0, f).toBeGreaterThanOrEqual(least);
  });

  it.skipIf(skip)(`split kernels under random g/l tags compute what the untagged kernel computes (${RUNS} cases)`, async () => {
    type Choice = "seq" | "g" | "l";
    const kernelFor = (si: number, sj: number) => makeKernel(
      `{[io,ii,jo,ji,k]: 0<=ii<${si} and 0<=${si}*io+ii<n and 0<=ji<${sj} and 0<=${sj}*jo+ji<m and 0<=k<m}`,
      [
        `<float32> t = 2*a[${si}*io+ii, ${sj}*jo+ji] {id=priv, inames=io:ii:jo:ji}`,
        `out[${si}*io+ii, ${sj}*jo+ji] = t + sum(k, a[${si}*io+ii, k]) {id=st, dep=priv, inames=io:ii:jo:ji}`,
        `rows[${si}*io+ii] = a[${si}*io+ii, 0] {id=row, inames=io:ii, if=m > 0}`,
      ],
      ["a, out: float32[n,m]", "rows: float32[n]", "n, m: int32"],
    );
    const choice = (outer: boolean) => fc.constantFrom<Choice>(...(outer ? ["seq", "g"] as const : ["seq", "g", "l"] as const));
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 7 }),
      fc.tuple(choice(true), choice(false), choice(true), choice(false)),
      async (si, sj, n, m, choices) => {
        // OpenCL and CUDA grids have three axes: g.3 is refused at launch (seed 11, 200 runs).
        fc.pre(choices.filter((c) => c === "g").length <= 3);
        const k = kernelFor(si, sj);
        const axes = { g: 0, l: 0 };
        const tags: Record<string, string> = {};
        ["io", "ii", "jo", "ji"].forEach((iname, x) => {
          const c = choices[x]!;
          if (c !== "seq") tags[iname] = `${c}.${axes[c]++}`;
        });
        // Small integers: every sum is exact, so the comparison is exact.
        const a = Float32Array.from({ length: n * m }, (_, x) => ((x * 7) % 11) - 5);
        const seq = await run(k, { a, n, m });
        const par = await run(tag(k, tags), { a, n, m }, { backend });
        expect(Array.from(par.out as Float32Array)).toEqual(Array.from(seq.out as Float32Array));
        expect(Array.from(par.rows as Float32Array)).toEqual(Array.from(seq.rows as Float32Array));
      }), { numRuns: RUNS, seed: 99 });
  });
});
