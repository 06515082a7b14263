/**
 * Issue 16 point 8: generated C/OpenCL computes loop bounds, subscripts and hardware ids in 32-bit
 * int. With parameters near the int32 limits a bound such as `(n + 2)/2` overflowed and native
 * runs returned zeros. Now a run whose index arithmetic can leave int32 is refused (an
 * ExecutionError naming the parameter and the expression); every other run equals the interpreter.
 * Also: a hardware axis's base (`m // 3` for `m <= i`) floors for negative m on opencl.
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { ExecutionError, LoomError } from "../../src/errors.js";
import { splitIname } from "../../transforms/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { nativeAvailable, type NativeBackend } from "./native-helpers.js";

const BACKENDS: NativeBackend[] = ["c", "openmp", "opencl", "cuda"];
const MAX = 2 ** 31 - 1;
const MIN = -(2 ** 31);

/** The issue's kernel: three points from n, split by 2. */
function issueKernel(): Kernel {
  const k = makeKernel("{[i]: n <= i < n + 3}", "out[i - n] = 2*a[i - n] + 1", ["a, out: float32[3]", "n: int32"], { name: "offset3" });
  return splitIname(k, "i", 2);
}

/** Elementwise over an offset domain of `len` points from m. */
function offsetKernel(len: number): Kernel {
  return makeKernel(`{[i]: m <= i < m + ${len}}`, `out[i - m] = 2*a[i - m] + 1`, [`a, out: float32[${len}]`, "m: int32"], { name: "offset" });
}

/** A 2-D array indexed `n*i + j` in its flat storage, over m rows. */
function twoD(): Kernel {
  return makeKernel("{[i,j]: 0 <= i < m and 0 <= j < n}", "out[i, j] = 3", ["out: float32[m, n]", "m, n: int32"], { name: "rows" });
}

const a3 = () => Float32Array.from([1, 2, 3]);

/** The run's outputs on `backend`, or the LoomError it refused with. */
async function outcome(k: Kernel, args: Record<string, unknown>, backend: NativeBackend | "interp"): Promise<Record<string, unknown> | LoomError> {
  try {
    return await run(k, args as never, { backend });
  } catch (e) {
    if (e instanceof LoomError) return e;
    throw e;
  }
}

describe.each(BACKENDS)("int32 index arithmetic on %s", (backend) => {
  const skip = !nativeAvailable(backend);

  it.skipIf(skip)("refuses the issue's n = 2**31 - 2 (the bound (n + 2)/2 overflows), naming n and the expression, instead of returning zeros", async () => {
    const k = issueKernel();
    const ref = await run(k, { a: a3(), n: 2 ** 31 - 2 });
    expect(Array.from(ref.out as Float32Array)).toEqual([3, 5, 7]);
    const err = await outcome(k, { a: a3(), n: 2 ** 31 - 2 }, backend);
    expect(err).toBeInstanceOf(ExecutionError);
    const msg = (err as Error).message;
    expect(msg).toContain("n=2147483646");
    expect(msg).toContain("(n + 2)");
    expect(msg).toMatch(/int32/);
    expect(msg).toMatch(/interp or js/);
  });

  it.skipIf(skip)("runs the issue's kernel as the interpreter does for ordinary n (positive, negative, zero)", async () => {
    const k = issueKernel();
    for (const n of [0, 1, 7, -5, 1000000]) {
      const got = await run(k, { a: a3(), n }, { backend });
      expect(Array.from(got.out as Float32Array), `n=${n}`).toEqual([3, 5, 7]);
    }
  });

  it.skipIf(skip)("an offset domain near the int32 limits: runs where every index fits, refuses where one does not", async () => {
    const k = offsetKernel(4);
    const ok: number[] = [];
    for (const m of [MAX, MAX - 3, MAX - 4, MAX - 5, MIN, MIN + 1, 0, 1, -1]) {
      const got = await outcome(k, { a: Float32Array.from([1, 2, 3, 4]), m }, backend);
      if (got instanceof LoomError) {
        expect(got, `m=${m}`).toBeInstanceOf(ExecutionError);
        expect(got.message).toContain(`m=${m}`);
        continue;
      }
      ok.push(m);
      expect(Array.from(got.out as Float32Array), `m=${m}`).toEqual([3, 5, 7, 9]);
    }
    // The loop `m <= i <= m + 3` runs its counter to m + 4: fits up to m = MAX - 4; the lower limit fits.
    expect(ok).toEqual(expect.arrayContaining([MAX - 4, MAX - 5, MIN, MIN + 1, 0, 1, -1]));
    expect(ok).not.toContain(MAX);
    expect(ok).not.toContain(MAX - 3);
  });

  it.skipIf(skip)("a split with remainder near the limits: refused or the interpreter's result, and runs far from them", async () => {
    const k = splitIname(offsetKernel(5), "i", 2);
    const a = Float32Array.from([1, 2, 3, 4, 5]);
    let ran = 0;
    for (const m of [MAX, MAX - 5, MAX - 100, MIN, MIN + 1, 0, 1, 2 ** 30]) {
      const got = await outcome(k, { a, m }, backend);
      if (got instanceof LoomError) {
        expect(got, `m=${m}`).toBeInstanceOf(ExecutionError);
        continue;
      }
      ran += 1;
      expect(Array.from(got.out as Float32Array), `m=${m}`).toEqual([3, 5, 7, 9, 11]);
    }
    expect(ran).toBeGreaterThanOrEqual(3);
  });

  it.skipIf(skip)("a split tagged g.0/l.0 over a domain from a negative m starts its groups at floor(m/3), not C's truncated m/3 (found by the int32 law)", async () => {
    const k = splitIname(offsetKernel(3), "i", 3, { outerTag: "g.0", innerTag: "l.0" });
    for (const m of [-5, -1, -3, MIN + 40, 4]) {
      const got = await run(k, { a: a3(), m }, { backend });
      expect(Array.from(got.out as Float32Array), `m=${m}`).toEqual([3, 5, 7]);
    }
  });

  it.skipIf(skip)("a flat subscript m*i + j whose product leaves int32 is refused naming the product; small m runs", async () => {
    const k = makeKernel("{[i,j]: 0 <= i < 3 and 0 <= j < 2}", "out[i, j] = a[[m*i + j - m*i + 2*i]]", ["a, out: float32[3, 2]", "m: int32"], { name: "flat" });
    const a = Float32Array.from([1, 2, 3, 4, 5, 6]);
    for (const m of [2 ** 30, MAX, MIN]) {
      const err = await outcome(k, { a, m }, backend);
      expect(err, `m=${m}`).toBeInstanceOf(ExecutionError);
      expect((err as Error).message).toContain("(m * i)");
    }
    expect(Array.from((await run(k, { a, m: 7 }, { backend })).out as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it.skipIf(skip)("a 2-D index n*i + j: a loop that never runs is not refused, whatever n", async () => {
    const k = twoD();
    for (const n of [MAX, 0, 1]) {
      const got = await outcome(k, { m: 0, n }, backend);
      expect(got, `n=${n}`).not.toBeInstanceOf(LoomError);
      expect((got as Record<string, Float32Array>).out.length).toBe(0);
    }
    const got = await run(k, { m: 2, n: 3 }, { backend });
    expect(Array.from(got.out as Float32Array)).toEqual([3, 3, 3, 3, 3, 3]);
  });
});
