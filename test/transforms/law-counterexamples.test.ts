/**
 * Bugs the random-pipeline law found, now fixed. First, a scheduler bug (law seed 20240531, 320
 * runs, kernel family paramTemp): a dependency through a global variable between an instruction
 * inside a `g` loop and one outside it was accepted in one device kernel. The instruction outside
 * runs in every work-group, so it read cells other groups write, with no global barrier between
 * (loopy's MissingBarrierError); js, c and opencl ran it as if groups were ordered. The scheduler
 * now refuses it (test/schedule/global-barrier-values.test.ts), and the law checks the class again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError, TransformError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { schedule } from "../../src/schedule/index.js";
import { addPrefetch, applyPipeline, saveAndReloadTemporaries } from "../../transforms/index.js";
import { availableNative } from "../run/native-helpers.js";
import { compile, compileBudgetMs, hasNvcc } from "../codegen/compile-helpers.js";

// The law's family saveRotate (loopy's rotate, out of place).
const rotate = makeKernel("{[i]: 0<=i<n}", "for i\n <float64> tmp = a[i] {id=maketmp}\n ... gbarrier {id=gb, dep=maketmp}\n out[(i+1) % n] = tmp {id=rotate, dep=gb}\nend",
  ["a, out: float64[n]", "n: int32"], { name: "saveRotate" });
// The law's shrunk counterexample, with the no-op splits left out.
const paramTemp = makeKernel("{[i]: 0<=i<n}", ["<> z[i] = 2*a[i] {id=w}", "out[i] = z[i] + 1 {id=r, dep=w}"], ["a, out: float64[n]", "n: int32"], { name: "paramTemp" });
const pipelineJson = [
  { op: "duplicateInames", args: ["i", "id:w", "i_d0"] }, { op: "splitIname", args: ["i_d0", 8] }, { op: "tagInames", args: [{ i_d0_inner: "g.0" }] },
];
// The same with two domains and a global argument: no duplicateInames needed.
const twoLoops = makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], ["z[i] = 2*a[i] {id=w}", "out[j] = z[j] + 1 {id=r, dep=w}"],
  ["a, z, out: float64[n]", "n: int32"], { name: "twoLoops" });

describe("a dependency between an instruction inside a g loop and one outside it, in one device kernel", () => {
  const cases = [["paramTemp after duplicateInames", applyPipeline(paramTemp, pipelineJson)], ["two loops, one on g.0", applyPipeline(twoLoops, [{ op: "tagInames", args: [{ i: "g.0" }] }])]] as const;

  for (const [what, k] of cases) {
    it(`${what}: is refused by the scheduler`, () => {
      expect(() => schedule(k)).toThrow(ScheduleError);
    });
  }
});

const BACKENDS = ["interp", "js", ...availableNative(["c", "openmp", "opencl"])] as const;
const A = Float64Array.from([10, 20, 30]);
/** loopy's rotate in plain TypeScript: out[(i+1) % n] = a[i]. */
const rotated = (a: Float64Array) => [...a].map((_, i) => a[(i + a.length - 1) % a.length]!);

/**
 * Found by the native law (seed 777, 100 runs, family saveRotate; and seed 1, 1000 runs):
 * duplicateInames of an instruction that lies, by dependencies, between a private scalar's writer
 * and reader, both left in the loop (or of the writer and reader, not the instruction between),
 * made the scheduler close the loop around the copy; the reader saw the writer's last value on
 * every backend ([50,70,90] for [30,60,90]). duplicateInames now refuses, naming the variable and
 * the three instructions; copying all three (or none) keeps the meaning.
 */
describe("duplicateInames of an instruction between a private scalar's writer and reader", () => {
  const mid = makeKernel("{[i]: 0<=i<n}", ["<float64> t = a[i] {id=w}", "b[i] = 2*a[i] {id=mid, dep=w}", "out[i] = t + b[i] {id=r, dep=mid}"],
    ["a, b, out: float64[n]", "n: int32"], { name: "mid" });
  const duplicate = (k: typeof mid, within: string) => applyPipeline(k, [{ op: "duplicateInames", args: ["i", within, "i_d0"] }]);
  const refusal = (k: typeof mid, within: string) => {
    try {
      duplicate(k, within);
    } catch (e) {
      expect(e).toBeInstanceOf(TransformError);
      return (e as Error).message;
    }
    throw new Error(`duplicateInames(i, ${within}) was accepted`);
  };

  it("refuses the copy of the instruction between, naming the variable and the three instructions", () => {
    expect(refusal(mid, "id:mid")).toMatch(/"w" writes "t" once per iteration of "i".*"r" reads it.*"mid" lies between them.*within "id:w or id:mid or id:r"/);
    expect(refusal(rotate, "id:gb")).toMatch(/"maketmp" writes "tmp".*"gb" lies between them/);
  });

  it("refuses the copy of the writer and reader without the instruction between (the other way round)", () => {
    expect(refusal(rotate, "id:maketmp or id:rotate")).toMatch(/giving "maketmp" and "rotate" their own copy of "i" but not "gb"/);
    expect(refusal(mid, "id:w or id:r")).toMatch(/but not "mid"/);
  });

  for (const backend of BACKENDS) {
    it(`copying all three keeps the meaning on ${backend}`, async () => {
      const out = (await run(duplicate(mid, "id:w or id:mid or id:r"), { a: A, n: 3 }, { backend })).out as Float64Array;
      expect([...out]).toEqual([...A].map((x) => 3 * x));
      const saved = saveAndReloadTemporaries(duplicate(rotate, "id:maketmp or id:gb or id:rotate"));
      expect([...(await run(saved, { a: A, n: 3 }, { backend })).out as Float64Array]).toEqual(rotated(A));
    });
  }

  it("property: any subset of a writer-between-reader chain is refused or keeps the interpreter's meaning", async () => {
    await fc.assert(fc.asyncProperty(fc.subarray(["w", "mid", "r"], { minLength: 1 }), fc.integer({ min: 1, max: 6 }), async (ids, n) => {
      let k;
      try {
        k = duplicate(mid, ids.map((x) => `id:${x}`).join(" or "));
      } catch (e) {
        expect(e).toBeInstanceOf(TransformError);
        expect(ids.length).toBeLessThan(3);
        return;
      }
      const a = Float64Array.from({ length: n }, (_, i) => i + 1);
      expect([...(await run(k, { a, n })).out as Float64Array]).toEqual([...a].map((x) => 3 * x));
    }), { numRuns: 30 });
  });
});

/**
 * Found by the law with more runs (seed 12, 2000 runs): addPrefetch of a temporary that
 * saveAndReloadTemporaries made global (`tmp[i_inner - 0]`, i_inner on g.0 of extent 1) has a
 * footprint that depends on no iname, so the fetch ran within none: it read tmp[0] once, outside
 * the host loop i_outer whose every iteration writes tmp anew (every backend: [30,30,30]). A fetch
 * now runs within every loop a writer of the fetched variable shares with its readers.
 */
describe("a private prefetch of a saved temporary stays in the reader's g iname and host loop", () => {
  const steps = [
    { op: "splitIname", args: ["i", 1] }, { op: "tagInames", args: [{ i_inner: "g.0" }] }, { op: "saveAndReloadTemporaries", args: [] },
    { op: "addPrefetch", args: ["tmp", { temporaryAddressSpace: "private" }] },
  ];

  for (const backend of BACKENDS) {
    it(`rotates with and without the prefetch on ${backend}`, async () => {
      for (const k of [applyPipeline(rotate, steps.slice(0, 3)), applyPipeline(rotate, steps)]) {
        for (const n of [1, 3, 5]) {
          const a = Float64Array.from({ length: n }, (_, i) => 10 * (i + 1));
          expect([...(await run(k, { a, n }, { backend })).out as Float64Array]).toEqual(rotated(a));
        }
      }
    });
  }

  it("property: for any split factor and n, the prefetched saved rotate agrees with the reference on js, or both kernels are refused by the scheduler", async () => {
    // A factor above 1 puts the host loop's bounds on the g iname: the scheduler refuses it, with the prefetch or without.
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 9 }), async (by, n) => {
      const split = [{ op: "splitIname", args: ["i", by] }, ...steps.slice(1)];
      const a = Float64Array.from({ length: n }, (_, i) => i + 1);
      const outcome = async (k: typeof rotate) => {
        try {
          return [...(await run(k, { a, n }, { backend: "js" })).out as Float64Array];
        } catch (e) {
          expect(e).toBeInstanceOf(ScheduleError);
          return "refused";
        }
      };
      const plain = await outcome(applyPipeline(rotate, split.slice(0, 3)));
      expect(await outcome(applyPipeline(rotate, split))).toEqual(plain);
      if (by === 1) expect(plain).toEqual(rotated(a));
    }), { numRuns: 20 });
  });

  it("the fetch runs within i_inner and i_outer, after the writer", () => {
    const fetch = applyPipeline(rotate, steps).instructions.find((x) => x.id === "tmp_fetch_rule")!;
    expect([...fetch.withinInames].sort()).toEqual(["i_inner", "i_outer"]);
    expect(fetch.dependsOn).toContain("maketmp");
  });

  it("fetchOuterInames that leave out a loop the writer shares with the reader are refused, naming it", () => {
    const k = applyPipeline(rotate, steps.slice(0, 3));
    expect(() => addPrefetch(k, "tmp", { temporaryAddressSpace: "private", fetchOuterInames: ["i_inner"] }))
      .toThrow(/tmp is written anew in every iteration of i_outer \(by "maketmp".*add i_outer to fetchOuterInames/);
  });

  it("a temporary array written in a loop and fetched swept by its other axis: the fetch runs in that loop (interp, js)", async () => {
    const k0 = makeKernel("{[i,j]: 0<=i<n and 0<=j<3}", ["<float64> u[j] = a[i] + j {id=w}", "out[i] = sum(j, u[j]) {id=r, dep=w}"],
      ["a, out: float64[n]", "n: int32"], { name: "rowTemp" });
    const k = addPrefetch(k0, "u", { sweepInames: ["j"], temporaryAddressSpace: "private" });
    expect(k.instructions.find((x) => x.id === "u_fetch_rule")!.withinInames).toContain("i");
    for (const backend of ["interp", "js"] as const) {
      expect([...(await run(k, { a: A, n: 3 }, { backend })).out as Float64Array]).toEqual([...A].map((x) => 3 * x + 3));
    }
  });
});

/**
 * Found by the law with more runs (seed 11, 2000 runs, family tempArray; not filtered): a local
 * prefetch of `a` over i_inner and j (fetch inames on l.1/l.0 by default) with i split by 3 onto
 * g.0. The kernel's meaning is right (the sequential reader runs on every work-item, each writing
 * the same value): only the CPU lowering was wrong. `t` lives across the fetch's barrier, so it
 * got one slot per work-item, and its reader ran "within" the fetch's inames a_dim_0/a_dim_1 to
 * index the slot, which guarded it by the fetch's domain (`3*i_outer + a_dim_0 < n`): in the last,
 * partial group the work-items outside that domain wrote 0 to out (js, c, openmp: out[3] = 0 at
 * n = 4). Now such an axis gets a loop over its whole box (the work-group size), the fetch keeps
 * its own domain as a guard.
 */
describe("a reader outside a local fetch's l inames, of a temporary living across the fetch's barrier", () => {
  const k0 = makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", ["<> t[j] = 2*x[j] + 1 {id=w}", "out[i] = sum(j, t[j]*a[i,j]) {id=r, dep=w}"],
    ["a: float64[n,4]", "x: float64[4]", "out: float64[n]", "n: int32"], { name: "tempArray" });
  const fetched = (by: number) => applyPipeline(k0, [
    { op: "splitIname", args: ["i", by] }, { op: "tagInames", args: [{ i_outer: "g.0" }] },
    { op: "addPrefetch", args: ["a", { sweepInames: ["i_inner", "j"], temporaryAddressSpace: "local" }] },
  ]);
  const k = fetched(3);

  for (const backend of ["interp", "js", ...availableNative(["c", "openmp", "opencl"])] as const) {
    it(`computes the reference on ${backend} (the law's case, n = 4, and the partial groups of n = 1, 5)`, async () => {
      for (const n of [4, 1, 5]) {
        expect((await autoTestVsRef(k0, k, { params: { n }, backend, seed: 7 })).mismatches).toEqual([]);
      }
    });
  }

  it("the CPU loop over the fetch's l.1 axis spans the work-group, the fetch alone is guarded by its domain", () => {
    const code = generateCode(k, "c").deviceCode;
    expect(code).toMatch(/for \(int a_dim_0_l1 = 0; a_dim_0_l1 <= 2; \+\+a_dim_0_l1\)/);
    expect(code).toMatch(/if \(3 \* i_outer \+ a_dim_0_l1 < n\)\n\s*a_fetch\[/);
    expect(code).toMatch(/\n\s*acc_j = acc_j \+ t\[/);
  });

  it("property: js agrees with the interpreter for any split factor and n (partial groups included)", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 9 }), async (by, n) => {
      const kb = fetched(by);
      expect((await autoTestVsRef(k0, kb, { params: { n }, backend: "js", seed: 7 })).mismatches).toEqual([]);
    }), { numRuns: 20 });
  });
});

/**
 * Narrow integers and bools on the C-family targets (found extending the law to them, and reading
 * the printer): C computes char and short arithmetic in int, and bool is a byte there, where the
 * interpreter computes each node in its dtype and wraps (as numpy). Each was a silent wrong result
 * on c, openmp, opencl and cuda (or a kernel PoCL refused): `-x` and `x / -1` of int8 -128 gave
 * 128; abs of int8 -128 gave 128, of uint32 4294967295 gave 1 on C, of int32 INT_MIN compared
 * above 0 on OpenCL (its abs returns the unsigned type); integer `**` was C's double pow (65536 ** 2
 * gave 4294967296, not the int32 wrap 0) and no OpenCL function at all; `-b` of a bool gave -1 (the
 * interpreter: -1 converted to bool is true); a value stored into a bool, or cast to one, was
 * truncated to a byte (256 became false); a bool element whose byte is 2 compared above true; min
 * of bools, and max of an int8 and a uint16 (int32), had no OpenCL overload. Not narrow at all, found
 * by the same law: `if(c, x, y)` under `and`/`or` lost its parentheses (C's `?:` binds looser than
 * `&&`), so `(a > 0) and if(a > 1, a, 0)` computed `(a > 0 && a > 1) ? a : 0`. One kernel, so each
 * backend compiles once.
 */
describe("narrow integers and bools mean on C, OpenMP and OpenCL what they mean on the interpreter", () => {
  const k = makeKernel("{[i]: 0<=i<n}", [
    "o_neg[i] = -a[i]", "w_neg[i] = (-a[i]) > 0", "o_negu[i] = -b[i]",
    "o_div[i] = a[i] / -1", "w_div[i] = (c[i] / -1) > 0",
    "o_abs[i] = abs(a[i])", "w_abs[i] = abs(e[i]) > 0", "o_absu[i] = abs(f[i])",
    "o_pow[i] = a[i] ** 2", "o_pow32[i] = e[i] ** 2", "w_pow[i] = (c[i] ** 3) > 0",
    "o_bneg[i] = -p[i]", "o_cast[i] = cast(bool, e[i])", "w_byte[i] = p[i] > q[i]", "o_bmin[i] = min(p[i], q[i] + q[i])",
    "o_max[i] = max(a[i], cast(uint16, b[i]))", "w_and[i] = (a[i] > 0) and if(a[i] > 1, a[i], 0)", "w_and2[i] = if(a[i] > 0, 2, a[i]) and 0",
  ], ["a, o_neg, o_div, o_abs, o_pow: int8[n]", "b, o_negu: uint8[n]", "c: int16[n]", "e, o_pow32, o_max: int32[n]", "f, o_absu: uint32[n]",
    "p, q, o_cast, o_bmin: bool[n]", "w_neg, w_div, w_abs, w_pow, o_bneg, w_byte, w_and, w_and2: int32[n]", "n: int32"], { name: "narrow_bool" });
  const args = {
    a: Int8Array.from([-128, -127, -1, 0, 1, 127]), b: Uint8Array.from([0, 1, 2, 128, 254, 255]),
    c: Int16Array.from([-32768, -32767, -1, 0, 1, 32767]), e: Int32Array.from([-(2 ** 31), 65536, 256, 0, -1, 2 ** 31 - 1]),
    f: Uint32Array.from([2 ** 32 - 1, 2 ** 31, 1, 0, 7, 2 ** 31 - 1]), p: Uint8Array.from([2, 1, 1, 0, 0, 1]), q: Uint8Array.from([1, 1, 0, 1, 0, 0]), n: 6,
  };
  const wrap8 = (x: number) => (x << 24) >> 24;

  it("the interpreter wraps each node in its dtype and reads a bool's byte as not 0", async () => {
    const r = await run(k, args);
    expect([...r.o_neg!]).toEqual([...args.a].map((x) => wrap8(-x)));
    expect([...r.o_div!]).toEqual([...args.a].map((x) => wrap8(Math.trunc(-x))));
    expect([...r.o_abs!]).toEqual([...args.a].map((x) => wrap8(Math.abs(x))));
    expect([...r.o_pow32!]).toEqual([...args.e].map((x) => Math.imul(x, x)));
    expect([...r.o_absu!]).toEqual([...args.f]);
    expect([...r.o_cast!]).toEqual([...args.e].map((x) => (x !== 0 ? 1 : 0)));
    expect([...r.o_bneg!]).toEqual([...args.p].map((x) => (x !== 0 ? 1 : 0)));
    expect([...r.w_byte!]).toEqual([...args.p].map((x, i) => (x !== 0 && args.q[i] === 0 ? 1 : 0)));
    expect([...r.w_and!]).toEqual([...args.a].map((x) => (x > 1 ? 1 : 0)));
    expect([...r.w_and2!]).toEqual([...args.a].map(() => 0));
  });

  for (const backend of availableNative(["c", "openmp", "opencl"])) {
    it(`${backend} computes what the interpreter computes, near the limits of each type`, async () => {
      const want = await run(k, args);
      const got = await run(k, args, { backend });
      for (const out of Object.keys(want)) if (out.startsWith("o_") || out.startsWith("w_")) expect([...got[out]!], out).toEqual([...want[out]!]);
    }, 120_000);
  }

  // CUDA and HIP print the same code; no GPU runs it here, so nvcc at least compiles the helpers and casts.
  it.skipIf(!hasNvcc)("its CUDA compiles with nvcc -ptx (skipped without nvcc)", () => {
    compile(k, "cuda", "cu", "nvcc", ["-ptx"]);
  }, compileBudgetMs(1));

  it("wgsl negates a bool, and takes abs and min of bools, as the interpreter (WGSL has no - on bool)", () => {
    const kb = makeKernel("{[i]: 0<=i<n}", ["<bool> t = -(x[i] > 0) {id=s}", "o[i] = t + abs(x[i] > 1) {dep=s}"], ["x, o: int32[n]", "n: int32"], { name: "bneg" });
    const code = generateCode(kb, "wgsl").deviceCode;
    expect(code).toContain("t = x[i] > 0i;");
    expect(code).not.toMatch(/abs\(/);
  });
});
