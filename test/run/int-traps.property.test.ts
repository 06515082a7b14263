/**
 * The law of integer traps: for random int8/int16/int32/int64/uint32 operands (0, -1, the type's
 * limits among them), shift counts -1..width and exponents -2..5, the interpreter and every
 * backend that runs here (js, c, openmp, opencl; cuda where a GPU exists) agree: the same values,
 * or the same ExecutionError — the interpreter's message, naming the instruction and the count or
 * exponent. A division or modulo by 0, a shift count outside 0..width-1 and a negative integer
 * exponent are errors in the interpreter; the C family records them (codegen/targets/int-traps.ts)
 * and the runtimes report them, never a silent 0. Both outcomes must occur: the law is not vacuous.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { ExecutionError } from "../../src/errors.js";
import type { Dtype, Kernel, TypedArray } from "../../src/ir/index.js";
import { tagInames } from "../../transforms/index.js";
import { availableNative } from "./native-helpers.js";

const RUNS = Number(process.env.LOOM_TRAP_RUNS ?? 30);
const N = 3;

/** Each value dtype with the dtype of its shift counts (C converts a shift's operands apart). */
const TYPES: readonly { readonly d: Dtype; readonly count: Dtype; readonly s: string }[] = [
  { d: "int8", count: "int8", s: "i8" }, { d: "int16", count: "int32", s: "i16" }, { d: "int32", count: "int64", s: "i32" },
  { d: "int64", count: "int32", s: "i64" }, { d: "uint32", count: "uint8", s: "u32" },
];

const BITS: Readonly<Partial<Record<Dtype, number>>> = { int8: 8, int16: 16, int32: 32, int64: 64, uint8: 8, uint32: 32 };

/** One sequential kernel: per dtype, each operation that may trap, and a shift by a count proved in range. */
const kernel = makeKernel("{[i]: 0<=i<n}", TYPES.flatMap(({ s }) => [
  `q_${s}[i] = a_${s}[i] / b_${s}[i] {id=div_${s}}`, `f_${s}[i] = a_${s}[i] // b_${s}[i] {id=fdiv_${s}}`,
  `m_${s}[i] = a_${s}[i] % b_${s}[i] {id=mod_${s}}`, `l_${s}[i] = a_${s}[i] << c_${s}[i] {id=shl_${s}}`,
  `r_${s}[i] = a_${s}[i] >> c_${s}[i] {id=shr_${s}}`, `p_${s}[i] = a_${s}[i] ** e_${s}[i] {id=pow_${s}}`,
  `k_${s}[i] = a_${s}[i] >> (c_${s}[i] % 8) {id=shk_${s}}`,
]), [...TYPES.flatMap(({ d, count, s }) => [`a_${s}, b_${s}, e_${s}, q_${s}, f_${s}, m_${s}, l_${s}, r_${s}, p_${s}, k_${s}: ${d}[n]`, `c_${s}: ${count}[n]`]), "n: int32"],
{ name: "traps" });

/** The limits of an integer dtype, as numbers (int64's as BigInt-safe numbers are not needed: drawn as BigInt). */
function limits(d: Dtype): [bigint, bigint] {
  const bits = BigInt(BITS[d]!);
  return d.startsWith("u") ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
}

/** Values of `d` with its edges (0, ±1, the limits) often; `rare` (the trapping ones) seldom (about half the runs trap). */
function values(d: Dtype, common: fc.Arbitrary<bigint>, rare: fc.Arbitrary<bigint>): fc.Arbitrary<bigint[]> {
  return fc.array(fc.oneof({ arbitrary: common, weight: 80 }, { arbitrary: rare, weight: 1 }), { minLength: N, maxLength: N })
    .map((xs) => xs.map((x) => (d.startsWith("u") ? BigInt.asUintN(BITS[d]!, x) : BigInt.asIntN(BITS[d]!, x))));
}

function operands(d: Dtype, count: Dtype): fc.Arbitrary<{ a: bigint[]; b: bigint[]; c: bigint[]; e: bigint[] }> {
  const [lo, hi] = limits(d);
  const any = fc.oneof(fc.constantFrom(0n, 1n, -1n, lo, hi, lo + 1n, hi - 1n), fc.bigInt({ min: lo, max: hi }));
  const width = d === "int64" ? 64n : 32n;
  return fc.record({
    a: values(d, any, any),
    b: values(d, any.filter((x) => x !== 0n), fc.constant(0n)),
    c: values(count, fc.bigInt({ min: 0n, max: width - 1n }), fc.constantFrom(-1n, width)),
    e: values(d, fc.bigInt({ min: 0n, max: 5n }), fc.constantFrom(-2n, -1n)),
  });
}

function typed(d: Dtype, xs: readonly bigint[]): TypedArray {
  switch (d) {
    case "int8": return Int8Array.from(xs, Number);
    case "int16": return Int16Array.from(xs, Number);
    case "int32": return Int32Array.from(xs, Number);
    case "uint8": return Uint8Array.from(xs, Number);
    case "uint32": return Uint32Array.from(xs, Number);
    case "int64": return BigInt64Array.from(xs);
    default: throw new Error(`no typed array for ${d} in this test`);
  }
}

const genArgs = fc.tuple(...TYPES.map(({ d, count }) => operands(d, count))).map((ops) => {
  const args: Record<string, TypedArray | number> = { n: N };
  TYPES.forEach(({ d, count, s }, x) => {
    const o = ops[x]!;
    args[`a_${s}`] = typed(d, o.a);
    args[`b_${s}`] = typed(d, o.b);
    args[`c_${s}`] = typed(count, o.c);
    args[`e_${s}`] = typed(d, o.e);
  });
  return args;
});

type Backend = "interp" | "js" | "c" | "openmp" | "opencl" | "cuda";

/** What a run of `k` gives: its outputs, or its error's class and message. */
async function outcomeOf(k: Kernel, backend: Backend, args: Record<string, TypedArray | number>): Promise<unknown> {
  // Fresh copies: a backend must not see another's writes.
  const own = Object.fromEntries(Object.entries(args).map(([n, v]) => [n, typeof v === "number" ? v : v.slice()]));
  try {
    const r = await run(k, own, { backend });
    return Object.fromEntries(Object.entries(r).sort().map(([k, v]) => [k, [...v].map(String)]));
  } catch (e) {
    return { error: e instanceof ExecutionError ? "ExecutionError" : (e as Error).constructor.name, message: (e as Error).message };
  }
}

const outcome = (backend: Backend, args: Record<string, TypedArray | number>) => outcomeOf(kernel, backend, args);

const backends = ["js", ...availableNative(["c", "openmp", "opencl", "cuda"])] as const;

describe("integer traps: every backend agrees with the interpreter", () => {
  it(`${backends.join(", ")}: the same values or the same ExecutionError`, async () => {
    const seen = { values: 0, errors: new Set<string>() };
    await fc.assert(fc.asyncProperty(genArgs, async (args) => {
      const want = await outcome("interp", args);
      const kind = (want as { message?: string }).message;
      if (kind === undefined) seen.values++;
      else seen.errors.add(kind.replace(/^instruction "([a-z]+)_.*?":.*$/, "$1"));
      for (const backend of backends) expect(await outcome(backend, args), backend).toEqual(want);
    }), { numRuns: RUNS });
    // Not vacuous: runs that computed, and each kind of trap reported.
    expect(seen.values).toBeGreaterThan(0);
    expect([...seen.errors].sort()).toEqual(expect.arrayContaining(["div", "pow", "shl"]));
  }, 60_000 + RUNS * backends.length * 2_000);
});

describe("integer traps in parallel kernels", () => {
  // Two device kernels (a global barrier between them), over 2 groups of 4 work-items: only the second may trap.
  const k = tagInames(makeKernel("{[io,ii]: 0<=io<2 and 0<=ii<4}", [
    "t[4*io+ii] = a[4*io+ii] + 1 {id=w}",
    "... gbarrier {id=g, dep=w}",
    "o[4*io+ii] = t[(4*io+ii+4) % 8] / b[4*io+ii] {id=quot, dep=g}",
  ], ["a, b, t, o: int32[8]"], { name: "twostep" }), { io: "g.0", ii: "l.0" });

  for (const backend of ["js", ...availableNative(["openmp", "opencl", "cuda"])] as const) {
    it(`${backend}: the trap in the second kernel's one work-item is the interpreter's error, and a run without one computes`, async () => {
      const a = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
      const zero = { a, b: Int32Array.from([1, 1, 1, 1, 1, 1, 0, 1]) };
      const want = await outcomeOf(k, "interp", zero);
      expect(want).toEqual({ error: "ExecutionError", message: 'instruction "quot": integer division by zero' });
      expect(await outcomeOf(k, backend, zero)).toEqual(want);
      const fine = { a, b: Int32Array.from([1, 2, 3, 4, -1, -2, -3, 5]) };
      expect(await outcomeOf(k, backend, fine)).toEqual(await outcomeOf(k, "interp", fine));
    }, 120_000);
  }
});

describe("the recorded value is the interpreter's", () => {
  // A uint64 count of 2^64 - 1 is recorded as its 64 bits and read back unsigned; an int64 exponent below -2^32 keeps its high word.
  const k = makeKernel("{[i]: 0<=i<n}", ["w[i] = l[i] >> c[i] {id=wide}", "p[i] = l[i] ** e[i] {id=pw}"], ["l, w, p, e: int64[n]", "c: uint64[n]", "n: int32"], { name: "wide" });
  const cases = {
    count: { l: BigInt64Array.from([5n]), c: BigUint64Array.from([2n ** 64n - 1n]), e: BigInt64Array.from([2n]), n: 1 },
    exponent: { l: BigInt64Array.from([5n]), c: BigUint64Array.from([1n]), e: BigInt64Array.from([-(2n ** 40n) - 3n]), n: 1 },
  };
  for (const backend of ["js", ...availableNative(["c", "openmp", "opencl", "cuda"])] as const) {
    it(`${backend}: a uint64 shift count and a large negative int64 exponent`, async () => {
      for (const args of Object.values(cases)) {
        const want = await outcomeOf(k, "interp", args);
        expect(JSON.stringify(want)).toMatch(/shift count 18446744073709551615|negative exponent -1099511627779/);
        expect(await outcomeOf(k, backend, args)).toEqual(want);
      }
    }, 120_000);
  }
});
