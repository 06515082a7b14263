/**
 * C99's math functions added with issue 20 (asinh, acosh, atanh, log1p, expm1, cbrt, hypot, exp2,
 * trunc, round, erfc, copysign) mean C's <math.h> on the interpreter, js, c, openmp and opencl, at
 * float64 and float32, including -0, the domain edges (atanh(±1) = ±inf, acosh(<1) = NaN,
 * log1p(-1) = -inf), NaN and the infinities. The reference is written here, apart from src/.
 */
import { describe, expect, it } from "vitest";
import { BUILT_TARGETS, generateCode } from "../../codegen/index.js";
import { fixParameters, splitIname } from "../../transforms/index.js";
import { CodegenError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "./native-helpers.js";

/** C's round: halves away from zero, from the two neighbouring integers (no helper of src/). */
function cRound(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const lo = Math.floor(x);
  const hi = Math.ceil(x);
  const r = x - lo === hi - x ? (x > 0 ? hi : lo) : x - lo < hi - x ? lo : hi;
  return r === 0 ? (x < 0 ? -0 : 0) : r;
}

/** erfc at points whose value is known to 17 digits (Abramowitz and Stegun, table 7.1; the tails from erfc's series). */
const ERFC: ReadonlyMap<number, number> = new Map([
  [0, 1], [0.5, 0.4795001221869535], [-0.5, 1.5204998778130465], [1, 0.15729920705028513], [-1, 1.8427007929497148],
  [2.5, 4.0695201744495893e-4], [-2.5, 1.999593047982555], [3, 2.209049699858544e-5], [5, 1.5374597944280349e-12],
  [100, 0], [-100, 2], [Infinity, 0], [-Infinity, 2],
]);

const ONE_ARG: Readonly<Record<string, (x: number) => number>> = {
  asinh: Math.asinh, acosh: Math.acosh, atanh: Math.atanh, log1p: Math.log1p, expm1: Math.expm1, cbrt: Math.cbrt,
  exp2: (x) => 2 ** x, trunc: Math.trunc, round: cRound,
  erfc: (x) => (Number.isNaN(x) ? NaN : ERFC.get(x) ?? NaN),
};
const TWO_ARGS: Readonly<Record<string, (x: number, y: number) => number>> = {
  hypot: Math.hypot,
  copysign: (x, y) => (y < 0 || Object.is(y, -0) ? -Math.abs(x) : Math.abs(x)),
};
/** Where the result is an integer (or a sign), the targets agree to the bit. */
const EXACT = new Set(["trunc", "round", "copysign"]);

const X = [0, -0, 1, -1, 0.5, -0.5, 2.5, -2.5, 3, 5, 100, -100, NaN, Infinity, -Infinity];
/** Near the domain edges and the rounding boundaries (erfc is checked only where its value is tabled). */
const EDGES = [0.49999999999999994, 1.0000001, 0.9999999, -0.9999999, 1e-10, -1e-10, 0.75, 1e300, -1e300];
const Y = [-0, 2, -3, 0, 1, -1, -0, 7, 4, NaN, 1, -0, 2, Infinity, 1];

function kernel(dt: "float32" | "float64") {
  const fns = [...Object.keys(ONE_ARG), ...Object.keys(TWO_ARGS)];
  return makeKernel("{[i]: 0<=i<n}", fns.map((f) => `o_${f}[i] = ${f}(x[i]${f in TWO_ARGS ? ", y[i]" : ""})`),
    [`x, y, ${fns.map((f) => `o_${f}`).join(", ")}: ${dt}[n]`, "n: int32"], { name: `c99_${dt}` });
}

function inputs(dt: "float32" | "float64") {
  const xs = [...X, ...EDGES];
  const ys = xs.map((_, i) => Y[i % Y.length]!);
  const A = dt === "float32" ? Float32Array : Float64Array;
  return { x: A.from(xs), y: A.from(ys), n: xs.length };
}

/** Each output against the reference: bit-equal where exact, a few ulps of the dtype elsewhere; NaN, ±inf and ±0 exactly. */
function check(got: Record<string, ArrayLike<number> | ArrayLike<bigint>>, dt: "float32" | "float64", where: string) {
  const { x, y, n } = inputs(dt);
  const f = dt === "float32" ? Math.fround : (v: number) => v;
  const tol = dt === "float32" ? 4e-7 : 4e-15;
  for (const fn of [...Object.keys(ONE_ARG), ...Object.keys(TWO_ARGS)]) {
    const out = got[`o_${fn}`] as ArrayLike<number>;
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      if (fn === "erfc" && !Number.isNaN(xi) && !ERFC.has(xi)) continue;
      const want = f(fn in TWO_ARGS ? TWO_ARGS[fn]!(xi, y[i]!) : ONE_ARG[fn]!(xi));
      const v = out[i]!;
      const what = `${where} ${fn}(${xi}${fn in TWO_ARGS ? `, ${Object.is(y[i], -0) ? "-0" : y[i]}` : ""}) = ${Object.is(v, -0) ? "-0" : v}, want ${Object.is(want, -0) ? "-0" : want}`;
      if (EXACT.has(fn) || !Number.isFinite(want) || want === 0) expect(Object.is(v, want), what).toBe(true);
      else expect(Math.abs(v - want) <= tol * Math.abs(want), what).toBe(true);
    }
  }
}

describe("C99 math functions (asinh ... copysign) mean C's on every backend", () => {
  for (const dt of ["float64", "float32"] as const) {
    for (const backend of ["interp", "js", ...availableNative(["c", "openmp", "opencl", "cuda"])] as const) {
      it(`${backend}, ${dt}`, async () => {
        check(await run(kernel(dt), inputs(dt), { backend }), dt, `${backend} ${dt}:`);
      }, 120_000);
    }
  }

  it("prints the C names (float32: the f suffix in C, the overload in OpenCL) and never another function", () => {
    const c = generateCode(kernel("float32"), "c").deviceCode;
    for (const fn of [...Object.keys(ONE_ARG), ...Object.keys(TWO_ARGS)]) expect(c).toContain(`${fn}f(`);
    const cl = generateCode(kernel("float64"), "opencl").deviceCode;
    for (const fn of [...Object.keys(ONE_ARG), ...Object.keys(TWO_ARGS)]) expect(cl).toMatch(new RegExp(`\\b${fn}\\(`));
  });

  it("targets without a function refuse it with a CodegenError naming function and target", () => {
    const one = (fn: string) => makeKernel("{[i]: 0<=i<n}", [`o[i] = ${fn}(x[i]${fn in TWO_ARGS ? ", x[i]" : ""})`], ["x, o: float32[n]", "n: int32"]);
    for (const [target, fn] of [["metal", "erfc"], ["metal", "log1p"], ["ispc", "round"], ["wgsl", "atanh"], ["wgsl", "copysign"]] as const) {
      expect(() => generateCode(one(fn), target), `${target} ${fn}`).toThrow(CodegenError);
      expect(() => generateCode(one(fn), target), `${target} ${fn}`).toThrow(new RegExp(`${target} target has no function ${fn}`));
    }
    expect(generateCode(one("trunc"), "wgsl").deviceCode).toMatch(/\btrunc\(/);
    expect(generateCode(one("atanh"), "metal").deviceCode).toMatch(/\batanh\(/);
  });

  it("every target prints each function under its own name (f suffix, std:: or overload) or refuses it", () => {
    for (const target of BUILT_TARGETS) {
      for (const fn of [...Object.keys(ONE_ARG), ...Object.keys(TWO_ARGS)]) {
        const one = makeKernel("{[i]: 0<=i<n}", [`o[i] = ${fn}(x[i]${fn in TWO_ARGS ? ", y[i]" : ""})`], ["x, y, o: float32[n]", "n: int32"]);
        let code: string;
        try {
          code = generateCode(one, target).deviceCode;
        } catch (e) {
          expect(e, `${target} ${fn}`).toBeInstanceOf(CodegenError);
          expect((e as Error).message, `${target} ${fn}`).toContain(`${target} target has no function ${fn}`);
          continue;
        }
        const name = target === "js" ? { round: "H.cround", erfc: "H.erfc", copysign: "H.copysign", exp2: "Math.pow" }[fn] ?? `Math.${fn}` : fn;
        expect(code, `${target} ${fn}`).toMatch(new RegExp(`(^|[^\\w])${name.replace(".", "\\.")}f?\\(`));
      }
    }
  });

  it("a vec loop on OpenCL computes them lane-wise (vector overloads), as the interpreter does", async () => {
    const k = fixParameters(splitIname(kernel("float32"), "i", 4, { innerTag: "vec" }), { n: 24 });
    const code = generateCode(k, "opencl").deviceCode;
    expect(code).toMatch(/atanh\(vload4/);
    const { x, y } = inputs("float32");
    expect(x.length).toBe(24);
    check(await run(k, { x, y }, { backend: "interp" }), "float32", "interp vec:");
    for (const backend of availableNative(["opencl"])) check(await run(k, { x, y }, { backend }), "float32", `${backend} vec:`);
  }, 120_000);

  it("the loopy syntax rejects a wrong argument count", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["o[i] = hypot(x[i])"], ["x, o: float64[n]", "n: int32"]);
    await expect(run(k, { x: Float64Array.of(1), n: 1 })).rejects.toThrow(/hypot takes 2 argument/);
  });
});
