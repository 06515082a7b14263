/**
 * 32- and 64-bit signed integer data arithmetic means on the C-family targets what it means on the
 * interpreter (numpy's): sums, differences, products and negations wrap in the type, a division by
 * -1 is the wrapping negation, and a division or modulo by 0 is an error, never a trap of the
 * process. C leaves the first two undefined: gcc and clang folded `(x + 1) > x` to true at
 * INT_MAX, and `INT_MIN / -1` or `x / 0` killed the whole Node process with SIGFPE on c and
 * openmp (found by a law of narrow integers, and checked against these kernels).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ExecutionError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "./native-helpers.js";

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -INT32_MAX - 1;

const k = makeKernel("{[i]: 0<=i<n}", [
  "o_div[i] = a[i] / b[i]", "o_mod[i] = a[i] % b[i]", "o_fdiv[i] = a[i] // b[i]",
  "w_inc[i] = (a[i] + 1) > a[i]", "w_neg[i] = (-a[i]) < 0", "o_sq[i] = a[i] * a[i]", "o_sub[i] = a[i] - b[i]",
  "o_div64[i] = l[i] / cast(int64, b[i])", "w_inc64[i] = (l[i] + 1) > l[i]", "o_neg64[i] = -l[i]",
], ["a, b, o_div, o_mod, o_fdiv, w_inc, w_neg, o_sq, o_sub, w_inc64: int32[n]", "l, o_div64, o_neg64: int64[n]", "n: int32"], { name: "wide" });

const args = {
  a: Int32Array.from([INT32_MIN, INT32_MAX, INT32_MIN, -7, 7, 46341, INT32_MAX - 1]),
  b: Int32Array.from([-1, -1, 1, 2, -2, 46341, -2]),
  l: BigInt64Array.from([-(2n ** 63n), 2n ** 63n - 1n, -1n, 5n, -5n, 2n ** 40n, 0n]),
  n: 7,
};

describe("signed int32 and int64 arithmetic near the limits", () => {
  it("the interpreter wraps each node in its type, and a division by -1 is the wrapping negation", async () => {
    const r = await run(k, args);
    expect([...r.o_div!]).toEqual([INT32_MIN, -INT32_MAX, INT32_MIN, -3, -3, 1, -(INT32_MAX - 1) / 2]);
    expect([...r.o_mod!]).toEqual([0, 0, 0, 1, -1, 0, 0]);
    expect([...r.w_inc!]).toEqual([1, 0, 1, 1, 1, 1, 1]);
    expect([...r.w_neg!]).toEqual([1, 1, 1, 0, 1, 1, 1]);
    expect([...r.o_sq!]).toEqual([...args.a].map((x) => Math.imul(x, x)));
    expect([...r.w_inc64!]).toEqual([1, 0, 1, 1, 1, 1, 1]);
    expect([...r.o_neg64!]).toEqual([...args.l].map((x) => BigInt.asIntN(64, -x)));
  });

  for (const backend of ["js", ...availableNative(["c", "openmp", "opencl"])] as const) {
    it(`${backend} computes what the interpreter computes`, async () => {
      const want = await run(k, args);
      const got = await run(k, args, { backend });
      for (const out of Object.keys(want)) expect([...got[out]!], out).toEqual([...want[out]!]);
    }, 120_000);
  }

  it("C prints them wrapping (computed in the unsigned type), and divisions that may trap through helpers", () => {
    const code = generateCode(k, "c").deviceCode;
    expect(code).toContain("w_inc[i] = (int32_t) ((uint32_t) a[i] + 1u) > a[i];");
    expect(code).toContain("o_div[i] = loopy_div_acc_int32(a[i], b[i], &loopy_trap_k1, loopy_trap_ord(i));");
    expect(code).toContain("o_fdiv[i] = loopy_floor_div_chk_acc_int32(a[i], b[i], &loopy_trap_k3, loopy_trap_ord(i));");
    // A literal divisor other than 0 and -1 needs no check: index arithmetic stays as it was.
    const split = generateCode(makeKernel("{[i]: 0<=i<n}", "out[i] = i // 4", ["out: int32[n]", "n: int32"]), "c").deviceCode;
    expect(split).not.toContain("loopy_int_trap");
  });
});

describe("integer division by zero", () => {
  const d = makeKernel("{[i]: 0<=i<n}", ["q[i] = a[i] / b[i]", "r[i] = a[i] % b[i]"], ["a, b, q, r: int32[n]", "n: int32"], { name: "divz" });
  const zero = { a: Int32Array.from([7, 1, 5]), b: Int32Array.from([2, 0, 1]), n: 3 };
  const fine = { a: Int32Array.from([7, 1, 5]), b: Int32Array.from([2, 3, 1]), n: 3 };

  it("is the interpreter's error, naming the instruction", async () => {
    await expect(run(d, zero)).rejects.toThrow(/instruction "insn(_\d+)?": integer (division|modulo) by zero/);
  });

  for (const backend of availableNative(["c", "openmp", "opencl"])) {
    it(`${backend}: an ExecutionError (the process survives), and the next run starts clean`, async () => {
      await expect(run(d, zero, { backend })).rejects.toThrow(ExecutionError);
      // The interpreter's message, naming the instruction (codegen/targets/int-traps.ts).
      const want = await run(d, zero).then(() => "no error", (e: Error) => e.message);
      await expect(run(d, zero, { backend })).rejects.toThrow(want);
      const r = await run(d, fine, { backend });
      expect([...r.q!]).toEqual([3, 0, 5]);
      expect([...r.r!]).toEqual([1, 1, 0]);
    }, 120_000);
  }
});
