/**
 * The interpreter computes the size and first value of a hardware axis exactly: they are derived
 * from the domain, whose meaning is its points, not int32 arithmetic. Found by the random-pipeline
 * law (seed 77, 2,500 runs): with `m` near INT32_MAX, a redundant bound of the g.0 axis,
 * `(m + 3*n - 3) // 48`, wrapped in int32, the size came out negative, and the transformed kernel
 * ran no group at all (every output 0) where the reference wrote every element.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { c, exprToString, v, type Expr } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { evalSizeExpr } from "../../src/run/args.js";
import { H } from "../../src/run/arith-helpers.js";
import { exactIndexCode, type ExprContext } from "../../src/run/compile-expr.js";
import { applyPipeline, type PipelineJSON } from "../../transforms/pipeline.js";
import { availableNative } from "./native-helpers.js";
import { webgpuAvailability } from "../../src/run/webgpu-device.js";

const INT32_MAX = 2 ** 31 - 1;

describe("hardware axes near the int32 limits", () => {
  it("a g.0 axis whose redundant bounds pass INT32_MAX still runs every group (the law's counterexample)", async () => {
    const k = makeKernel("{[i]: m<=i<m+n}", "out[i - m] = a[i - m]*2 + (i - m)", ["a, out: float64[n]", "n, m: int32"]);
    const steps: PipelineJSON = [
      { op: "splitIname", args: ["i", 3] }, { op: "splitIname", args: ["i_outer", 16] }, { op: "tagInames", args: [{ i_outer_outer: "g.0" }] },
      { op: "duplicateInames", args: ["i_outer_inner", "id:insn", "i_outer_inner_d0"] }, { op: "splitIname", args: ["i_outer_inner", 1] },
    ];
    const t = applyPipeline(k, steps);
    for (const m of [0, INT32_MAX - 26, INT32_MAX - 9]) {
      const n = 10;
      const a = Float64Array.from({ length: n }, (_, x) => x + 1);
      const want = [...(await run(k, { a, n, m }, { backend: "interp" })).out!];
      expect(want).toEqual(Array.from({ length: n }, (_, x) => 2 * (x + 1) + x));
      for (const backend of ["interp", "js"] as const) {
        expect([...(await run(t, { a, n, m }, { backend })).out!], `${backend}, m = ${m}`).toEqual(want);
      }
    }
  });
});

/** Random integer index expressions over p0, p1, p2 (min/max, floor division and modulo by nonzero constants). */
const indexExpr: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: -100, max: 100 }).map((value): Expr => c(value)),
    fc.constantFrom("p0", "p1", "p2").map((name): Expr => v(name)),
    fc.tuple(fc.constantFrom("+", "-", "*"), tie("e"), tie("e")).map(([op, left, right]) => ({ kind: "arith", op, left, right }) as Expr),
    fc.tuple(fc.constantFrom("//", "/", "%"), tie("e"), fc.integer({ min: -64, max: 64 }).filter((x) => x !== 0))
      .map(([op, left, d]) => ({ kind: "arith", op, left, right: c(d) }) as Expr),
    fc.tuple(fc.constantFrom("min", "max"), tie("e"), tie("e")).map(([fn, x, y]) => ({ kind: "call", fn, args: [x, y] }) as Expr),
    tie("e").map((operand) => ({ kind: "neg", operand }) as Expr),
  ),
})).e;

const near = fc.oneof(fc.integer({ min: -INT32_MAX - 1, max: INT32_MAX }), fc.constantFrom(0, 1, -1, INT32_MAX, INT32_MAX - 1, -INT32_MAX - 1, INT32_MAX - 47));

describe("exactIndexCode", () => {
  const ctx = {
    insnId: "the size under test",
    varCode: (name: string) => ({ code: `V[${JSON.stringify(name)}]`, dtype: "int32" }),
  } as unknown as ExprContext;

  it("computes what the native runtime's launch sizes compute (evalSizeExpr), never wrapping", () => {
    fc.assert(fc.property(indexExpr, near, near, near, (e, p0, p1, p2) => {
      const params = new Map([["p0", p0], ["p1", p1], ["p2", p2]]);
      const want = evalSizeExpr(e, params, "size");
      const f = new Function("H", "V", `return ${exactIndexCode(e, ctx)};`) as (h: typeof H, v: Record<string, number>) => number;
      if (!Number.isSafeInteger(want)) {
        expect(() => f(H, Object.fromEntries(params))).toThrow();
        return;
      }
      // (evalSizeExpr's modulo may give -0, the same integer)
      expect(f(H, Object.fromEntries(params)) + 0, exprToString(e)).toBe(want + 0);
    }), { numRuns: 300 });
  });

  it("refuses what is not an integer index expression, naming it", () => {
    expect(() => exactIndexCode(c(0.5), ctx)).toThrow(/the size under test: 0\.5 is not an integer index expression/);
  });
});

describe("integer powers", () => {
  const modpow = modpowOf;

  it("wrap as repeated int32 products do, and take logarithmic time in the exponent", () => {
    fc.assert(fc.property(near, fc.integer({ min: 0, max: 40 }), (a, b) => {
      let r = 1;
      for (let k = 0; k < b; k++) r = Math.imul(r, a);
      expect(H.ipow(a, b, "int32", "p")).toBe(r);
    }), { numRuns: 200 });
    // 2^31 - 1 steps would take seconds; by squaring it is 31.
    for (const a of [3, -7, 65535, INT32_MAX]) expect(H.ipow(a, INT32_MAX, "int32", "p")).toBe(Number(modpow(BigInt(a), BigInt(INT32_MAX), 32)));
    for (const a of [3n, -5n, 2n ** 40n + 1n]) expect(H.bpow(a, 2n ** 62n - 1n, "p")).toBe(modpow(a, 2n ** 62n - 1n, 128));
  });
});

describe("integer powers on the C-family targets", () => {
  const k = makeKernel("{[i]: 0<=i<n}", ["o[i] = a[i] ** e[i]", "o8[i] = b[i] ** cast(int8, e[i] % 128)", "o64[i] = l[i] ** cast(int64, e[i])"],
    ["a, e, o: int32[n]", "b, o8: int8[n]", "l, o64: int64[n]", "n: int32"], { name: "powers" });
  const args = {
    a: Int32Array.from([3, -7, 65535, INT32_MAX, 2, -1]), e: Int32Array.from([INT32_MAX, INT32_MAX - 1, 1 << 30, 5, 31, INT32_MAX]),
    b: Int8Array.from([3, -128, 127, -1, 2, 0]), l: BigInt64Array.from([3n, -5n, 2n ** 40n + 1n, 7n, 2n, -1n]), n: 6,
  };
  for (const backend of ["interp", ...availableNative(["c", "opencl"])] as const) {
    it(`${backend}: by squaring, wrapping in the type as repeated products do (exponents near INT32_MAX finish)`, async () => {
      const r = await run(k, args, { backend });
      expect([...r.o!]).toEqual([...args.a].map((a, x) => Number(modpowOf(BigInt(a), BigInt(args.e[x]!), 32))));
      expect([...r.o8!]).toEqual([...args.b].map((b, x) => Number(modpowOf(BigInt(b), BigInt(((args.e[x]! % 128) << 24) >> 24), 8))));
      expect([...r.o64!]).toEqual([...args.l].map((l, x) => modpowOf(l, BigInt(args.e[x]!), 64)));
    }, 120_000);
  }
});

/** a ** b modulo 2^bits (b >= 0), signed: BigInt's modular arithmetic, reduced after every product. */
function modpowOf(a: bigint, b: bigint, bits: number): bigint {
  const m = 1n << BigInt(bits);
  let r = 1n;
  let x = ((a % m) + m) % m;
  for (let e = b; e > 0n; e /= 2n) {
    if (e % 2n === 1n) r = (r * x) % m;
    x = (x * x) % m;
  }
  return BigInt.asIntN(bits, r);
}

describe("integer powers on webgpu", async () => {
  const status = await webgpuAvailability();
  const k = makeKernel("{[i]: 0<=i<n}", ["o[i] = a[i] ** e[i]", "u[i] = w[i] ** cast(uint32, e[i])"], ["a, e, o: int32[n]", "w, u: uint32[n]", "n: int32"], { name: "powers" });
  const args = {
    a: Int32Array.from([3, -7, 65535, INT32_MAX]), e: Int32Array.from([INT32_MAX, INT32_MAX - 1, 1 << 30, 5]),
    w: Uint32Array.from([3, 4294967295, 65537, 2]), n: 4,
  };
  it.skipIf(!status.available)(`by squaring, as the interpreter${status.available ? "" : ` (skipped: ${status.reason})`}`, async () => {
    const want = await run(k, args);
    const got = await run(k, args, { backend: "webgpu" });
    expect([...got.o!]).toEqual([...want.o!]);
    expect([...got.u!]).toEqual([...want.u!]);
    expect([...want.o!]).toEqual([...args.a].map((a, x) => Number(modpowOf(BigInt(a), BigInt(args.e[x]!), 32))));
  }, 240_000);
});
