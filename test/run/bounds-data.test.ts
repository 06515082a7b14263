/**
 * The native bounds proof through index arrays (src/run/bounds-data.ts): a subscript read from an
 * array the kernel never writes (`q[gatherIds[n]]`, `a[idx[i]*s + c]`), a private scalar set from
 * one, or a loop bound read from memory (CSR's `gatherStarts[g] … gatherStarts[g+1]`) is bounded by
 * what this run's arrays hold. As a law on random contents (negative, past the array, near the
 * int32 limits) and kernels: whenever the proof passes, the interpreter's checked run finds every
 * access inside its array and C's int32 arithmetic computes the exact index; where every access is
 * inside and no value leaves int32, the proof passes. Where the index array is written, or its
 * storage is shared with an array the kernel writes, nothing is taken from its contents. A private
 * scalar computed from the loops' indices is its expression where read (guards on them bound it).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { checkBounds, type ArrayExtents } from "../../src/run/bounds.js";
import { availableNative } from "./native-helpers.js";

const gatherOkl = `@kernel void gather(const int Ngather, const int *gatherStarts, const int *gatherIds, const float *q, float *gatherq) {
  for (int g = 0; g < Ngather; ++g; @tile(4, @outer, @inner)) {
    const int start = gatherStarts[g];
    const int end = gatherStarts[g+1];
    float gq = 0;
    for (int n = start; n < end; ++n) {
      const int id = gatherIds[n];
      gq += q[id];
    }
    gatherq[g] = gq;
  }
}`;

type Form = "plain" | "div4" | "min";
/** The index of `form` over v = idx[i]*S + C: v, v / 4 (C's truncating `/`), or min(v, m - 1), exactly and as C's int32 computes it. */
const indexOf = (form: Form, v: number, m: number): number => (form === "plain" ? v : form === "div4" ? Math.trunc(v / 4) : Math.min(v, m - 1));
/** `out[i] = a[f(idx[i]*S + C)]` as a subscript, or through a private scalar `t = idx[i]*S`. */
function affineGather(S: number, C: number, form: Form, scalar: boolean): lp.Kernel {
  const div = (e: string) => (form === "plain" ? e : form === "div4" ? `(${e}) / 4` : `min(${e}, m - 1)`);
  const body = scalar ? `const int t = idx[i] * ${S}; out[i] = a[${div(`t + (${C})`)}];` : `out[i] = a[${div(`idx[i] * ${S} + (${C})`)}];`;
  return lp.parseOkl(`@kernel void g(const int n, const int m, const int *idx, const float *a, float *out) {
    for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { ${body} }
  }`)[0]!;
}

/** Whether the proof passes for these arrays (checkBounds on the kernel, as a native run asks it). */
function proved(k: lp.Kernel, params: Record<string, number>, arrays: Record<string, Int32Array | Float32Array>): boolean {
  const ext = new Map<string, ArrayExtents>(Object.entries(arrays).map(([n, d]) => [n, { extents: undefined, size: d.length, data: d }]));
  try {
    checkBounds(k, new Map(Object.entries(params)), ext);
    return true;
  } catch (e) {
    if (e instanceof lp.ExecutionError) return false;
    throw e;
  }
}

async function interpOk(k: lp.Kernel, args: Record<string, unknown>): Promise<boolean> {
  try {
    await lp.run(k, args as never, { backend: "interp" });
    return true;
  } catch (e) {
    if (e instanceof lp.ExecutionError) return false;
    throw e;
  }
}

const value = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -2, max: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 31 - 1, -(2 ** 31), 2 ** 30, 40_000) },
);

describe("the bounds proof through what index arrays hold", () => {
  it("as a law: a passing proof means every access is inside and C's int32 index is the exact one; inside and within int32 means it passes", async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(value, { minLength: 1, maxLength: 6 }), fc.constantFrom(1, 2, 3, 65_536), fc.constantFrom(-3, 0, 2, -(2 ** 31) + 5),
      fc.constantFrom<Form>("plain", "div4", "min"), fc.integer({ min: 0, max: 12 }), fc.boolean(),
      async (ix, S, C, form, m, scalar) => {
        const k = affineGather(S, C, form, scalar);
        const idx = Int32Array.from(ix);
        const arrays = { idx, a: Float32Array.from({ length: m }, (_, j) => j + 0.5), out: new Float32Array(ix.length) };
        const params = { n: ix.length, m };
        const exact = ix.map((x) => indexOf(form, x * S + C, m));
        const int32 = ix.every((x) => Math.abs(x * S) < 2 ** 31 && Math.abs(x * S + C) < 2 ** 31);
        const inside = exact.every((v) => v >= 0 && v < m);
        const ok = proved(k, params, arrays);
        if (ok) {
          expect(await interpOk(k, { ...params, ...arrays })).toBe(true);
          expect(ix.map((x) => indexOf(form, (Math.imul(x, S) + C) | 0, m))).toEqual(exact);
        }
        if (inside && int32) expect(ok, JSON.stringify({ ix, S, C, form, m, scalar })).toBe(true);
      }), { numRuns: 150 });
  });

  it("as a law on CSR gathers: a passing proof means the interpreter's run finds every access inside", async () => {
    const [k] = lp.parseOkl(gatherOkl);
    await fc.assert(fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 }), fc.array(value, { minLength: 0, maxLength: 10 }),
      fc.integer({ min: 0, max: 12 }), fc.integer({ min: -2, max: 2 }),
      async (counts, ids, qn, shift) => {
        const starts = [0];
        for (const c of counts) starts.push(starts.at(-1)! + c);
        // A shift moves the whole row structure past (or before) gatherIds.
        const args = {
          Ngather: counts.length, gatherStarts: Int32Array.from(starts, (s) => s + shift), gatherIds: Int32Array.from(ids),
          q: Float32Array.from({ length: qn }, (_, j) => j + 1), gatherq: new Float32Array(counts.length),
        };
        const { Ngather, ...arrays } = args;
        if (proved(k!, { Ngather }, arrays)) expect(await interpOk(k!, args)).toBe(true);
        // Every row inside gatherIds and every id inside q: proved.
        const rowsInside = shift >= 0 && starts.at(-1)! + shift <= ids.length;
        const used = ids.slice(Math.max(0, shift), starts.at(-1)! + shift);
        if (rowsInside && used.length === ids.length && ids.every((x) => x >= 0 && x < qn)) expect(proved(k!, { Ngather }, arrays)).toBe(true);
      }), { numRuns: 120 });
  });

  it.each(availableNative(["openmp", "c"]).slice(0, 1))("a CSR gather runs natively on %s, checked; ids or rows past their arrays are refused, naming what the arrays hold", async (backend) => {
    const [k] = lp.parseOkl(gatherOkl);
    const starts = Int32Array.from([0, 2, 5, 5, 9, 12]);
    const ids = Int32Array.from({ length: 12 }, (_, i) => (i * 7) % 10);
    const q = Float32Array.from({ length: 10 }, (_, i) => i + 1);
    const args = (s = starts, g = ids) => ({ Ngather: 5, gatherStarts: s, gatherIds: g, q, gatherq: new Float32Array(5) });
    const [ref, got] = [await lp.run(k!, args(), { backend: "interp" }), await lp.run(k!, args(), { backend })];
    expect(Array.from(got.gatherq as Float32Array)).toEqual(Array.from(ref.gatherq as Float32Array));
    const bad = ids.slice();
    bad[3] = 10;
    await expect(lp.run(k!, args(starts, bad), { backend })).rejects.toThrow(/reads q may be outside its bounds .*id can be >= 10 \(with what this run.s index arrays hold: .*gatherIds holds 0…10\), so Loom cannot prove it inside 0…9/);
    await expect(lp.run(k!, args(Int32Array.from([0, 2, 5, 5, 9, 13]), ids), { backend })).rejects.toThrow(/reads gatherIds may be outside its bounds .*n can be >= 12/);
  });

  it.each(availableNative(["c"]))("a scalar computed from the loops' indices is its expression where read: guards on the indices then bound it (%s)", async (backend) => {
    const src = (guard: string) => lp.parseOkl(`@kernel void f(const int N, const float *a, float *out) {
      for (int b = 0; b < N; ++b; @outer) {
        @shared float s[20];
        for (int n = 0; n < 24; ++n; @inner) { int id = 19 - n; if (${guard}) s[id] = a[b*24 + n]; }
        @barrier();
        for (int n = 0; n < 24; ++n; @inner) { if (n < 20) out[b*20 + n] = s[n]; }
      }
    }`)[0]!;
    const args = () => ({ N: 2, a: Float32Array.from({ length: 48 }, (_, i) => i), out: new Float32Array(40) });
    const out = await lp.run(src("n < 20"), args(), { backend });
    expect(Array.from(out.out as Float32Array)).toEqual(Array.from({ length: 40 }, (_, i) => 24 * Math.floor(i / 20) + 19 - (i % 20)));
    // id = 19 - n < 0 at n = 20: outside, and said so for certain (no index array took part).
    await expect(lp.run(src("n < 21"), args(), { backend })).rejects.toThrow(/writes s outside its bounds for N=2: axis 0 \(id\) can be < 0, but it must lie in 0…19/);
  });

  it("counts only the elements an index can reach: an over-allocated index array's tail holds anything", () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[idx[i]]", ["idx: int32[m]", "a: float32[m]", "out: float32[n]", "n, m: int32"]);
    const arrays = (idx: number[]) => ({ idx: Int32Array.from(idx), a: new Float32Array(4), out: new Float32Array(2) });
    expect(proved(k, { n: 2, m: 4 }, arrays([3, 0, -7, 1 << 30]))).toBe(true);
    expect(proved(k, { n: 3, m: 4 }, arrays([3, 0, -7, 1 << 30]))).toBe(false);
  });

  it("an iname named like the proof's fresh variables (loom_bq_0) is another value: proved or refused as its own", () => {
    const k = lp.makeKernel("{[loom_bq_0, j]: 0<=loom_bq_0<n and 0<=j<4}", "out[4*loom_bq_0 + j] = a[(j + 8*loom_bq_0)//2 + idx[j]]",
      ["a: float32[m]", "idx: int32[4]", "out: float32[16]", "n, m: int32"]);
    const arrays = (m: number) => ({ a: new Float32Array(m), idx: Int32Array.of(0, 1, 0, 1), out: new Float32Array(16) });
    // Largest index (3 + 24)//2 + 1 = 14.
    expect(proved(k, { n: 4, m: 15 }, arrays(15))).toBe(true);
    expect(proved(k, { n: 4, m: 14 }, arrays(14))).toBe(false);
  });

  it("takes nothing from an index array the kernel writes, or one whose storage an output shares", () => {
    const k = lp.makeKernel("{[i]: 0<=i<n}", ["out[i] = a[idx[i]]", "idx[i] = 0 {dep=insn}"], ["idx: int32[n]", "a: float32[m]", "out: float32[n]", "n, m: int32"]);
    const idx = Int32Array.from([0, 1]);
    const arrays = { idx, a: new Float32Array(4), out: new Float32Array(2) };
    expect(proved(k, { n: 2, m: 4 }, arrays)).toBe(false);
    const readOnly = lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[idx[i]]", ["idx: int32[n]", "a: int32[m]", "out: int32[n]", "n, m: int32"]);
    expect(proved(readOnly, { n: 2, m: 4 }, { idx, a: new Int32Array(4), out: new Int32Array(2) })).toBe(true);
    // out is idx's storage: the kernel's writes change the indices it reads.
    const shared = new Int32Array(4);
    expect(proved(readOnly, { n: 2, m: 4 }, { idx: shared.subarray(0, 2), a: new Int32Array(4), out: shared.subarray(1, 3) })).toBe(false);
    expect(proved(readOnly, { n: 2, m: 4 }, { idx: shared.subarray(0, 2), a: new Int32Array(4), out: shared.subarray(2, 4) })).toBe(true);
  });
});
