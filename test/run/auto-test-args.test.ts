/**
 * autoTestVsRef on kernels whose value arguments differ: a parameter fixed by fixParameters, the
 * stride arguments stride:auto adds, a value argument without a value; array arguments must still
 * match, and an integer difference is an infinite error.
 */
import { describe, expect, it } from "vitest";
import { ExecutionError, LoomError } from "../../src/errors.js";
import { globalArg, makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { fixParameters, tagArrayAxes } from "../../transforms/index.js";

const double = () => makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"], { name: "double" });
const transpose = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[j,i] = a[i,j] + i", ["a: float64[n,m]", "out: float64[m,n]", "n, m: int32"], { name: "tr" });

describe("autoTestVsRef: a parameter fixed by fixParameters", () => {
  it("is ok on interp and js with the parameter in params (n is the reference's only)", async () => {
    const fixed = fixParameters(double(), { n: 64 });
    expect(fixed.args.map((a) => a.name)).toEqual(["a", "out"]);
    for (const backend of ["interp", "js"] as const) {
      expect(await autoTestVsRef(double(), fixed, { params: { n: 64 }, backend })).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
    }
  });

  it("takes the parameter from the other kernel's shapes when params do not give it", async () => {
    const fixed = fixParameters(double(), { n: 64 });
    expect(await autoTestVsRef(double(), fixed)).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
    expect(await autoTestVsRef(fixed, double(), { params: {} })).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
  });

  it("still catches a kernel that computes something else", async () => {
    const wrong = fixParameters(makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + if(i == 5, 1, 0)", ["a, out: float32[n]", "n: int32"]), { n: 64 });
    for (const backend of ["interp", "js"] as const) {
      const r = await autoTestVsRef(double(), wrong, { params: { n: 64 }, backend });
      expect(r.ok).toBe(false);
      expect(r.mismatches).toHaveLength(1);
      expect(r.mismatches[0]).toMatch(/^out\[5\]: expected -?[\d.e-]+, got -?[\d.e-]+$/);
      expect(r.maxRelError).toBeGreaterThan(1e-5);
    }
    // Fixed only in the instructions of another kernel (loopy's within): a value argument both
    // have, which the fixed kernel no longer reads.
    const plusN = (text: string) => makeKernel("{[i]: 0<=i<n}", text, ["a, out: float32[n]", "n: int32"]);
    const within = fixParameters(plusN("out[i] = a[i] + n {id=s}\nout[i] = out[i] + 0*n {id=t, dep=s}"), { n: 64 }, { within: "id:s" });
    expect(within.args.map((a) => a.name)).toContain("n");
    const ref = plusN("out[i] = a[i] + n {id=s}\nout[i] = out[i] + 0*n {id=t, dep=s}");
    expect((await autoTestVsRef(ref, within, { params: { n: 64 } })).ok).toBe(true);
  });

  it("reports params that give the reference other extents than the fixed kernel has", async () => {
    const r = await autoTestVsRef(double(), fixParameters(double(), { n: 64 }), { params: { n: 32 } });
    expect(r).toEqual({ ok: false, maxRelError: Infinity, mismatches: [
      'array "a" has extents (32) in the reference but (64) in the kernel: "n", an argument of the reference only, has a value the other kernel was not made for',
      'array "out" has extents (32) in the reference but (64) in the kernel: "n", an argument of the reference only, has a value the other kernel was not made for',
    ] });
    // The other way round: n is the kernel's only.
    const back = await autoTestVsRef(fixParameters(double(), { n: 64 }), double(), { params: { n: 32 } });
    expect(back.ok).toBe(false);
    expect(back.mismatches[0]).toBe('array "a" has extents (64) in the reference but (32) in the kernel: "n", an argument of the kernel only, has a value the other kernel was not made for');
  });
});

describe("autoTestVsRef: stride:auto arguments", () => {
  it("takes the strides from params (padded rows)", async () => {
    const k = tagArrayAxes(transpose(), "a", "stride:auto,c");
    expect(k.args.map((a) => a.name)).toContain("a_stride0");
    for (const backend of ["interp", "js"] as const) {
      const r = await autoTestVsRef(transpose(), k, { params: { n: 5, m: 3, a_stride0: 7 }, backend });
      expect(r).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
    }
  });

  it("derives dense strides that params do not give, on any axes", async () => {
    for (const tags of ["stride:auto,stride:auto", "stride:auto,c", "c,stride:auto", "f,stride:auto"]) {
      const k = tagArrayAxes(transpose(), "a, out", tags);
      for (const backend of ["interp", "js"] as const) {
        const r = await autoTestVsRef(transpose(), k, { params: { n: 4, m: 6 }, backend, seed: 3 });
        expect(r, `${tags} on ${backend}`).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
      }
    }
    // Both directions: the reference may be the one with stride arguments.
    const k = tagArrayAxes(transpose(), "a", "stride:auto,stride:auto");
    expect((await autoTestVsRef(k, transpose(), { params: { n: 3, m: 2 } })).ok).toBe(true);
  });

  it("still catches a wrong kernel with stride arguments", async () => {
    const wrong = tagArrayAxes(makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[j,i] = a[i,j] + j", ["a: float64[n,m]", "out: float64[m,n]", "n, m: int32"]), "a", "stride:auto,c");
    const r = await autoTestVsRef(transpose(), wrong, { params: { n: 3, m: 3 } });
    expect(r.ok).toBe(false);
    expect(r.mismatches[0]).toMatch(/^out\[\d, \d\]: expected/);
  });

  it("asks for a stride argument that is used as more than a stride", async () => {
    // s is the stride of a's axis 0 and is read by the instruction: no dense value stands for it.
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[j,i] = a[i,j] + i + 0*s",
      [globalArg("a", "float64", ["n", "m"], { dimTags: "stride:s,c" }), "out: float64[m,n]", "n, m, s: int32"]);
    const ref = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[j,i] = a[i,j] + i", ["a: float64[n,m]", "out: float64[m,n]", "n, m: int32"]);
    expect(await autoTestVsRef(ref, k, { params: { n: 3, m: 2 } })).toEqual({
      ok: false, maxRelError: Infinity, mismatches: ['value argument "s" of the kernel has no value: give it in params'],
    });
    expect((await autoTestVsRef(ref, k, { params: { n: 3, m: 2, s: 2 } })).ok).toBe(true);
  });
});

describe("autoTestVsRef: arguments that must still match", () => {
  it("reports an extra array argument of the kernel", async () => {
    const extra = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + 0*b[i]", ["a, b, out: float32[n]", "n: int32"]);
    expect(await autoTestVsRef(double(), extra, { params: { n: 8 } })).toEqual({
      ok: false, maxRelError: Infinity, mismatches: ['array argument "b" of the kernel is not an argument of the reference'],
    });
  });

  it("reports an array argument of the reference missing from the kernel", async () => {
    const ref = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + 0*b[i]", ["a, b, out: float32[n]", "n: int32"]);
    expect(await autoTestVsRef(ref, double(), { params: { n: 8 } })).toEqual({
      ok: false, maxRelError: Infinity, mismatches: ['array argument "b" of the reference is missing from the kernel'],
    });
  });

  it("reports a shared value argument of another dtype", async () => {
    const other = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int64"]);
    const r = await autoTestVsRef(double(), other, { params: { n: 8 } });
    expect(r.ok).toBe(false);
    expect(r.mismatches).toEqual(['argument "n": reference has value int32, kernel has value int64']);
  });

  it("reports a value argument without a value, naming the kernel that has it", async () => {
    const withM = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + m - m", ["a, out: float32[n]", "n, m: int32"]);
    expect(await autoTestVsRef(double(), withM, { params: { n: 8 } })).toEqual({
      ok: false, maxRelError: Infinity, mismatches: ['value argument "m" of the kernel has no value: give it in params'],
    });
    expect((await autoTestVsRef(withM, double(), { params: { n: 8 } })).mismatches).toEqual(['value argument "m" of the reference has no value: give it in params']);
    expect((await autoTestVsRef(double(), withM, { params: { n: 8, m: 3 } })).ok).toBe(true);
  });
});

describe("autoTestVsRef without options", () => {
  it("defaults params to {}: fine without value arguments, a reported problem with them", async () => {
    const fixed = fixParameters(double(), { n: 16 });
    expect(await autoTestVsRef(fixed, fixed)).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
    expect(await autoTestVsRef(double(), double())).toEqual({
      ok: false, maxRelError: Infinity, mismatches: ['value argument "n" of both kernels has no value: give it in params'],
    });
  });

  it("refuses options that are not an object with a LoomError", async () => {
    await expect(autoTestVsRef(double(), double(), null as never)).rejects.toThrow(ExecutionError);
    await expect(autoTestVsRef(double(), double(), { params: 64 as never })).rejects.toThrow(LoomError);
    await expect(autoTestVsRef(double(), double(), { params: 64 as never })).rejects.toThrow(/params must be an object/);
  });
});

describe("autoTestVsRef: maxRelError agrees with ok", () => {
  it("is Infinity when an integer element differs, 0 when none does", async () => {
    const a = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: int32[n]", "n: int32"]);
    const b = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i]", ["a, out: int32[n]", "n: int32"]);
    const c = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i] + if(i == 2, 1, 0)", ["a, out: int32[n]", "n: int32"]);
    expect(await autoTestVsRef(a, b, { params: { n: 10 } })).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
    const r = await autoTestVsRef(a, c, { params: { n: 10 } });
    expect(r.ok).toBe(false);
    expect(r.maxRelError).toBe(Infinity);
    expect(r.mismatches).toEqual([expect.stringMatching(/^out\[2\]: expected -?\d+, got -?\d+$/)]);
  });

  it("is Infinity when a bool element differs", async () => {
    const a = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a, out: bool[n]", "n: int32"]);
    const b = makeKernel("{[i]: 0<=i<n}", "out[i] = if(i == 1, 1 - a[i], a[i])", ["a, out: bool[n]", "n: int32"]);
    const r = await autoTestVsRef(a, b, { params: { n: 4 } });
    expect(r.ok).toBe(false);
    expect(r.maxRelError).toBe(Infinity);
  });
});
