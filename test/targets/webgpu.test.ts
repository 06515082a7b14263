/**
 * The webgpu backend (Dawn for Node; SwiftShader on CPUs) computes what the interpreter computes:
 * loopy's classic kernels (vector add split g/l, tiled matmul with local prefetches, a reduction
 * over an l axis, a stencil with a 2-D local tile), several device kernels around a global
 * barrier, atomics, int32 arithmetic at its edges (wrap, floor division, modulo, shifts, casts
 * from float) as a property, what the interpreter refuses (division by zero, shift counts) as the
 * same ExecutionError, and the random-pipeline law on float32 copies of the law's kernels.
 * Skipped with the reason where webgpu is unavailable, unless LOOM_REQUIRE_NATIVE lists webgpu.
 */
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ExecutionError, LoomError } from "../../src/errors.js";
import { withKernel, type Dtype, type Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { generateCode } from "../../codegen/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { webgpuAvailability, webgpuAvailabilitySync } from "../../src/run/webgpu-device.js";
import { chunkIname, splitIname } from "../../transforms/index.js";
import { applyPipeline } from "../../transforms/pipeline.js";
import { UNPROVABLE_IN_BOUNDS } from "../transforms/gen-families.js";
import { genCase, genCaseOf, type Case } from "../transforms/gen-kernels.js";
import { loopyClassics } from "../codegen/kernels.js";
import { backendAvailability as lpAvailability } from "../../src/index.js";

const status = await webgpuAvailability();
if (!status.available) console.warn(`[skip] the webgpu backend is not available here, its tests are skipped: ${status.reason}`);
const skip = !status.available;
const required = (process.env.LOOM_REQUIRE_NATIVE ?? "").split(",").map((s) => s.trim()).includes("webgpu");

describe("webgpu is reported honestly", () => {
  it.skipIf(!required)("LOOM_REQUIRE_NATIVE lists webgpu: it runs here", () => {
    expect(status.reason).toBeUndefined();
    expect(status.available).toBe(true);
  });

  it.skipIf(skip)("where it runs, the check without a device agrees", () => {
    expect(webgpuAvailabilitySync()).toEqual({ available: true });
    expect(lpAvailability("webgpu")).toEqual({ available: true });
  });

  it.skipIf(skip)("without a Vulkan driver, run throws a BackendUnavailableError saying what to install", () => {
    const script = `import { run } from "./src/run/index.js"; import { makeKernel } from "./src/parse/index.js";
      import { webgpuAvailabilitySync } from "./src/run/webgpu-device.js";
      console.log("sync: " + webgpuAvailabilitySync().reason);
      run(makeKernel("{[i]: 0<=i<n}", "out[i] = 1", ["out: float32[n]", "n: int32"]), { n: 1 }, { backend: "webgpu" })
        .then(() => console.log("ran"), (e) => console.log(e.constructor.name + ": " + e.message));`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, VK_ICD_FILENAMES: "/nonexistent/icd.json" }, encoding: "utf8", timeout: 120_000,
    });
    expect(r.stdout).toMatch(/^sync: no Vulkan driver is installed \(VK_ICD_FILENAMES=\/nonexistent\/icd.json\); the webgpu backend needs /m);
    expect(r.stdout).toMatch(/^BackendUnavailableError: Dawn found no WebGPU adapter: no Vulkan driver answered \(VK_ICD_FILENAMES=\/nonexistent\/icd.json\); the webgpu backend needs .*libvulkan1 chromium/m);
  }, 120_000);
});


/** A run's output as numbers. */
const list = (x: unknown): number[] => Array.from(x as ArrayLike<number>);

// ---- loopy's classics ----------------------------------------------------------------------------

describe.skipIf(skip)("loopy's classics on webgpu compute what the interpreter computes", () => {
  for (const ex of Object.values(loopyClassics())) {
    it(`${ex.title}, sizes ${ex.sizes.map((p) => Object.values(p).join("x")).join(", ")}`, async () => {
      for (const params of ex.sizes) {
        const r = await autoTestVsRef(ex.ref, ex.knl, { params, backend: "webgpu", rtol: 1e-5 });
        expect(r.mismatches, `${ex.title} ${JSON.stringify(params)}`).toEqual([]);
      }
    }, 60_000);
  }

  it("several device kernels in order: a global barrier inside a sequential loop (host loop), through a global temporary", async () => {
    const k0 = makeKernel("{[s,i]: 0<=s<3 and 0<=i<n}", [`for s, i
        t[s, i] = a[i] * (s + 1) {id=w}
        ... gbarrier {id=gb, dep=w}
        out[i] = out[i] + t[s, n - 1 - i] {id=r, dep=gb}
      end`], [temporary("t", "float32", [3, "n"], "global"), "a, out: float32[n]", "n: int32"], { name: "pingpong" });
    const k = splitIname(k0, "i", 8, { outerTag: "g.0", innerTag: "l.0" });
    for (const n of [1, 8, 13]) {
      const a = Float32Array.from({ length: n }, (_, i) => i - 2.5);
      const out = Float32Array.from({ length: n }, (_, i) => 2 * i);
      expect(list((await run(k, { a, out, n }, { backend: "webgpu" })).out), `n=${n}`).toEqual(list((await run(k, { a, out, n })).out));
      expect(generateCode(k, "wgsl").kernels.length).toBe(2);
    }
  }, 60_000);

  it("atomic updates of int32 in global memory (a histogram, many work-items per cell)", async () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", "h[idx[i] % 8] = h[idx[i] % 8] + 1 {id=hist, atomic}", ["idx: int32[n]", "h: int32[8]", "n: int32"], { name: "hist" }),
      "i", 16, { outerTag: "g.0", innerTag: "l.0" });
    const idx = Int32Array.from({ length: 100 }, (_, i) => (i * 7919) % 23 - 11);
    const got = await run(k, { idx, h: new Int32Array(8), n: 100 }, { backend: "webgpu", checkBounds: false });
    expect(list(got.h)).toEqual(list((await run(k, { idx, h: new Int32Array(8), n: 100 })).h!));
  }, 60_000);
});

describe.skipIf(skip)("float32 atomics: compare-and-swap on the bits of an atomic<u32>", () => {
  it("+ - min max and exchange give what the interpreter gives (operands whose sums are exact in any order)", async () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", [
      "s[0] = s[0] + a[i] {id=add, atomic}",
      "d[i % 3] = d[i % 3] - a[i] {id=sub, atomic}",
      "lo[0] = min(lo[0], a[i]) {id=lo, atomic}",
      "hi[0] = max(hi[0], a[i]) {id=hi, atomic}",
      "x[i] = a[i] * 2 {id=xchg, atomic}",
    ], ["a, x: float32[n]", "s, lo, hi: float32[1]", "d: float32[3]", "n: int32"], { name: "fatomic" }), "i", 8, { outerTag: "g.0", innerTag: "l.0" });
    const a = Float32Array.from({ length: 37 }, (_, i) => ((i * 13) % 17) - 8.5);
    const args = () => ({ a, s: Float32Array.of(0.5), d: new Float32Array(3), lo: Float32Array.of(100), hi: Float32Array.of(-100), n: a.length });
    const want = await run(k, args());
    const got = await run(k, args(), { backend: "webgpu" });
    for (const name of ["s", "d", "lo", "hi", "x"]) expect(list(got[name]), name).toEqual(list(want[name]));
  }, 60_000);
});

describe.skipIf(skip)("the rest of what the lowering writes", () => {
  /** `k` on webgpu and on the interpreter: every output equal, to `rtol` (WGSL's built-ins are not rounded exactly). */
  async function sameAsInterp(k: Kernel, args: Record<string, unknown>, rtol = 0): Promise<void> {
    const want = await run(k, args as never);
    const got = await run(k, args as never, { backend: "webgpu", checkBounds: false });
    for (const [name, w] of Object.entries(want)) {
      const g = list(got[name]);
      list(w).forEach((x, i) => expect(Math.abs(g[i]! - x) <= rtol * Math.max(1, Math.abs(x)), `${name}[${i}]: ${g[i]} vs ${x}`).toBe(true));
    }
  }

  it("math functions, bool temporaries and arithmetic on bools, uint32, if() of floats", async () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", [
      "<float32> t = sin(a[i]) + exp(a[i]/4) + sqrt(fabs(a[i])) + pow(a[i], 3) + atan2(a[i], 2) + erf(a[i]/3) + log10(fabs(a[i])+1) + fma(a[i], 2, 1) + tanh(a[i]) {id=t}",
      "<bool> p = a[i] > 0 and i % 2 == 0 {id=p}",
      "out[i] = if(p, t, -t) + floor(a[i]) + ceil(a[i]) + max(a[i], 0.5) + rsqrt(fabs(a[i]) + 1) + a[i] % 1.5 + (a[i] // 0.7) {dep=t:p}",
      "u[i] = (u[i] + 7) * 3 // 2 {id=uu}",
      "c[i] = (i < 3) + 2*(a[i] == 0) {id=cc}",
    ], ["a, out: float32[n]", "u: uint32[n]", "c: int32[n]", "n: int32"], { name: "mathy" }), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    await sameAsInterp(k, { n: 9, a: Float32Array.from({ length: 9 }, (_, i) => i * 1.3 - 5), u: Uint32Array.from({ length: 9 }, (_, i) => 4294967290 + i) }, 1e-4);
  }, 60_000);

  it("found by the law (seed 777): chunked inames, whose indices call floor division and modulo helpers a dozen times, compile in moments", async () => {
    // With branches in the helpers, SwiftShader took minutes to compile the pipeline.
    for (const size of [1, 3]) {
      const k = chunkIname(makeKernel("{[i]: 0<=i<n}", ["t[i] = 2*a[i] {id=first}", "out[i] = t[i] + a[i] {id=second, dep=first, nosync=first}"],
        ["a, t, out: float32[n]", "n: int32"]), "i", size, { outerTag: "g.0" });
      await sameAsInterp(k, { n: 17, a: Float32Array.from({ length: 17 }, (_, i) => i) });
    }
  }, 60_000);

  it("found by the law (seed 4242): a kernel of some hundred guards (unrolled, ilp and slabs) compiles in seconds", async () => {
    // Short-circuit && in every guard made as many branches, and SwiftShader took minutes.
    const k = applyPipeline(makeKernel("{[i]: m<=i<n}", "out[i] = a[i] + m", ["a, out: float32[n]", "n, m: int32"]), [
      { op: "splitIname", args: ["i", 3, { innerTag: "unr", slabs: [1, 1] }] }, { op: "duplicateInames", args: ["i_outer", ["insn"], "i_outer_d2"] },
      { op: "splitIname", args: ["i_outer_d2", 16, { innerTag: "ilp", slabs: [1, 1] }] },
    ]);
    expect(generateCode(k, "wgsl").deviceCode).not.toContain("&&");
    await sameAsInterp(k, { n: 60, m: 4, a: Float32Array.from({ length: 60 }, (_, i) => i) });
  }, 60_000);

  it("opaque blocks of OKL: while, do-while, break, continue and block locals", async () => {
    const [k] = parseOkl(`@kernel void wh(const int n, const float *a, float *out) {
      for (int g = 0; g < n; g += 4; @outer) {
        for (int i = g; i < g + 4; ++i; @inner) {
          if (i < n) {
            float s = 0; int j = 0;
            while (true) { if (j >= i) break; s += a[j]; j++; if (j > 100) continue; }
            int k = 0;
            do { s += 1; k++; } while (k < 2);
            out[i] = s;
          }
        }
      }
    }`);
    await sameAsInterp(k!, { n: 10, a: Float32Array.from({ length: 10 }, (_, i) => i), out: new Float32Array(10) });
  }, 60_000);
});

// ---- integer semantics ---------------------------------------------------------------------------

describe.skipIf(skip)("int32 and uint32 arithmetic means what it means on the interpreter", () => {
  const ops = splitIname(makeKernel("{[i]: 0<=i<n}", [
    "o1[i] = a[i] // b[i] + a[i] % b[i] {id=s1}",
    "o2[i] = a[i] / b[i] {id=s2}",
    "o3[i] = a[i] * b[i] + a[i] - b[i] {id=s3}",
    "o4[i] = (a[i] << (b[i] & 31)) ^ (a[i] >> 3) {id=s4}",
    "o5[i] = f[i] {id=s5}",
    "u1[i] = u[i] // (u[i] % 7 + 1) + u[i] * 3 - (u[i] >> 2) {id=s6}",
    "o6[i] = -a[i] + min(a[i], b[i]) * max(a[i], 2) {id=s7}",
  ], ["a, b, o1, o2, o3, o4, o5, o6: int32[n]", "f: float32[n]", "u, u1: uint32[n]", "n: int32"], { name: "intops" }),
  "i", 4, { outerTag: "g.0", innerTag: "l.0" });
  const int32 = fc.oneof(fc.integer({ min: -2147483648, max: 2147483647 }), fc.constantFrom(-2147483648, -1, 0, 1, 2147483647), fc.integer({ min: -20, max: 20 }));
  const nonzero = int32.filter((x) => x !== 0);
  const float = fc.oneof(fc.float({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-2147483648.5, 4294967296 * 3 + 4096, -1e20, 3.99, -3.99));

  it("for random operands at the int32 edges (wrap, floor //, % with the divisor's sign, truncating /, INT_MIN / -1, shifts, float to int casts that wrap)", async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(int32, nonzero, float, fc.nat()), { minLength: 1, maxLength: 9 }), async (rows) => {
      const n = rows.length;
      const args = {
        a: Int32Array.from(rows.map((r) => r[0])), b: Int32Array.from(rows.map((r) => r[1])), f: Float32Array.from(rows.map((r) => r[2])),
        u: Uint32Array.from(rows.map((r) => r[3])), n,
      };
      const want = await run(ops, args);
      const got = await run(ops, args, { backend: "webgpu" });
      for (const name of ["o1", "o2", "o3", "o4", "o5", "o6", "u1"]) expect(list(got[name]), name).toEqual(list(want[name]));
    }), { numRuns: 15, seed: 22 });
  }, 120_000);

  it("constant expressions that overflow wrap at run time, as on the interpreter (WGSL would refuse them while compiling)", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = (2147483647 + 1) * 3 + a[i] + (-2147483647 - 1) // -1 + -(-2147483647 - 1)", ["a, out: int32[n]", "n: int32"]);
    const a = Int32Array.of(5, -5);
    expect(list((await run(k, { a, n: 2 }, { backend: "webgpu" })).out)).toEqual(list((await run(k, { a, n: 2 })).out));
  }, 60_000);

  const traps: [string, string, Record<string, Int32Array>, RegExp][] = [
    ["division", "out[i] = a[i] // b[i] {id=div}", { a: Int32Array.of(4, 5), b: Int32Array.of(1, 0) }, /^instruction "div": integer division by zero$/],
    ["modulo", "out[i] = a[i] % b[i] {id=mod}", { a: Int32Array.of(4, 5), b: Int32Array.of(0, 2) }, /^instruction "mod": integer modulo by zero$/],
    ["shift", "out[i] = a[i] << b[i] {id=sh}", { a: Int32Array.of(4, 5), b: Int32Array.of(3, 40) }, /^instruction "sh": shift count 40 is out of range/],
    ["power", "out[i] = a[i] ** b[i] {id=pw}", { a: Int32Array.of(4, 5), b: Int32Array.of(3, -2) }, /^instruction "pw": integer power with negative exponent -2$/],
  ];
  for (const [what, insn, arrays, message] of traps) {
    it(`what the interpreter refuses, webgpu refuses alike: ${what}`, async () => {
      const k = splitIname(makeKernel("{[i]: 0<=i<n}", insn, ["a, b, out: int32[n]", "n: int32"]), "i", 2, { outerTag: "g.0", innerTag: "l.0" });
      const args = { ...arrays, n: 2 };
      await expect(run(k, args)).rejects.toThrow(message);
      const e = await run(k, args, { backend: "webgpu" }).then(() => undefined, (x: unknown) => x);
      expect(e).toBeInstanceOf(ExecutionError);
      expect((e as Error).message).toMatch(message);
    }, 60_000);
  }

  it("a division in the branch an if() does not take does not trap", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = if(b[i] != 0, a[i] // b[i], -1)", ["a, b, out: int32[n]", "n: int32"]);
    const args = { a: Int32Array.of(7, 7, -7), b: Int32Array.of(2, 0, 2), n: 3 };
    expect(list((await run(k, args, { backend: "webgpu" })).out)).toEqual([3, -1, -4]);
  }, 60_000);
});

// ---- the random-pipeline law ---------------------------------------------------------------------

const RUNS = Number(process.env.LOOM_WEBGPU_LAW_RUNS ?? 12);

/** `k` with every float64 array, value and temporary made float32 (WGSL has no 64-bit floats). */
function asFloat32(k: Kernel): Kernel {
  const f = <T extends { dtype: Dtype | undefined }>(x: T): T => (x.dtype === "float64" ? { ...x, dtype: "float32" } : x);
  return withKernel(k, { args: k.args.map(f), temporaries: k.temporaries.map(f) });
}

/** Cases of the families in bounds by construction (UNPROVABLE_IN_BOUNDS), run unchecked. */
const UNCHECKED_RUNS = Number(process.env.LOOM_WEBGPU_UNCHECKED_RUNS ?? 3);

describe.skipIf(skip)("random pipelines: webgpu computes what the interpreter does (float32 copies of the law's kernels)", () => {
  const stats = { checked: 0, parallel: 0, unchecked: 0, refused: [] as string[] };
  afterAll(() => console.log(`webgpu law: ${stats.checked} checked (${stats.parallel} with g/l axes, ${stats.unchecked} unchecked); refused before running: ${JSON.stringify(stats.refused)}`));

  const lawHolds = async (c: Case) => {
    const ref = asFloat32(c.ref);
    const k = asFloat32(c.transformed);
    // A family in bounds by construction whose subscripts the bounds proof cannot prove runs unchecked.
    const unchecked = UNPROVABLE_IN_BOUNDS.has(c.source.family);
    let r;
    try {
      r = await autoTestVsRef(ref, k, { params: c.params, backend: "webgpu", seed: 7, rtol: 1e-4, ...(unchecked ? { checkBounds: false } : {}) });
    } catch (e) {
      // The bounds proof refuses what it cannot prove (as on the native backends); nothing else may fail.
      if (unchecked || !(e instanceof LoomError) || !/cannot prove|out of bounds|outside int32/.test(e.message)) throw e;
      stats.refused.push(e.message.slice(0, 80));
      return;
    }
    // A run refused before it ran (a subscript the bounds proof cannot read as affine), reported
    // as the reference's success against the kernel's failure: a refusal, not a wrong result (as
    // the native law counts it).
    if (!unchecked && !r.ok && /not affine .* cannot prove/.test(r.mismatches[0] ?? "")) {
      stats.refused.push(r.mismatches[0]!.slice(0, 80));
      return;
    }
    expect(r.ok, `${r.mismatches.slice(0, 3).join("; ")}\n  kernel ${JSON.stringify(c.source)}\n  params ${JSON.stringify(c.params)}\n  pipeline ${JSON.stringify(c.json)}`).toBe(true);
    stats.checked++;
    if (unchecked) stats.unchecked++;
    if (Object.values(k.inameTags).some((t) => t.kind === "g" || t.kind === "l")) stats.parallel++;
  };

  it(`autoTestVsRef(k, p(k)) is ok on webgpu (${RUNS} cases)`, async () => {
    await fc.assert(fc.asyncProperty(genCase, lawHolds), { numRuns: RUNS, seed: Number(process.env.LOOM_PIPELINE_SEED ?? 2211) });
    expect(stats.checked).toBeGreaterThanOrEqual(Math.ceil((RUNS * 3) / 4));
    expect(stats.parallel).toBeGreaterThanOrEqual(1);
  }, 300_000);

  it(`the families in bounds by construction (${[...UNPROVABLE_IN_BOUNDS].join(", ")}) run unchecked and compute the interpreter's values (${UNCHECKED_RUNS} cases)`, async () => {
    const before = stats.unchecked;
    await fc.assert(fc.asyncProperty(genCaseOf([...UNPROVABLE_IN_BOUNDS]), lawHolds), { numRuns: UNCHECKED_RUNS, seed: Number(process.env.LOOM_PIPELINE_SEED ?? 2211) });
    expect(stats.unchecked - before).toBe(UNCHECKED_RUNS);
  }, 100_000 * UNCHECKED_RUNS);
});
