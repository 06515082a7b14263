/**
 * The law of issue 16 point 8 on the native backends: for random small kernels over offset
 * domains (1-D and 2-D, split or not, hardware-tagged or not) or with a flat subscript
 * `m*i + j - m*i + 2*i` (index arithmetic of a parameter stride), and values drawn near the int32
 * limits, each native backend either computes what the interpreter computes or refuses with a
 * LoomError, never a silently wrong result (c, openmp, opencl; cuda where a GPU exists). Both
 * outcomes must occur: the law is not vacuous.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { LoomError } from "../../src/errors.js";
import { splitIname } from "../../transforms/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { nativeAvailable, type NativeBackend } from "./native-helpers.js";

const RUNS = Number(process.env.LOOM_NATIVE_RUNS ?? 40);
const BACKENDS: NativeBackend[] = ["c", "openmp", "opencl", "cuda"];
const MAX = 2 ** 31 - 1;
const MIN = -(2 ** 31);

const nearLimits = fc.oneof(
  fc.constantFrom(MAX, MIN, 0, 1, -1),
  fc.integer({ min: MAX - 40, max: MAX }),
  fc.integer({ min: MIN, max: MIN + 40 }),
  fc.integer({ min: -5, max: 5 }),
);

interface Shape {
  /** 1-D or 2-D offset domain, or a flat subscript `s*i + j - s*i` with a stride parameter s. */
  readonly form: "1d" | "2d" | "stride";
  readonly len: number;
  readonly split: number;
  readonly tagged: boolean;
}

const genShape: fc.Arbitrary<Shape> = fc.record({
  form: fc.constantFrom("1d", "2d", "stride"),
  len: fc.constantFrom(3, 4),
  split: fc.constantFrom(1, 2, 3, 4),
  tagged: fc.boolean(),
});

const kernels = new Map<string, Kernel>();

/** `out[i - m(, j - p)] = 2*a[…] + 1` over `m <= i < m + len (and p <= j < p + 2)`, or the stride form; split and tagged. */
function kernelOf(s: Shape): Kernel {
  const key = JSON.stringify(s);
  let k = kernels.get(key);
  if (k) return k;
  k = s.form === "2d"
    ? makeKernel(`{[i,j]: m <= i < m + ${s.len} and p <= j < p + 2}`, "out[i - m, j - p] = 2*a[i - m, j - p] + 1",
      [`a, out: float32[${s.len}, 2]`, "m, p: int32"], { name: "off2" })
    : s.form === "stride"
      ? makeKernel(`{[i,j]: 0 <= i < ${s.len} and 0 <= j < 2}`, "out[i, j] = 2*a[[m*i + j - m*i + 2*i]] + p",
        [`a, out: float32[${s.len}, 2]`, "m, p: int32"], { name: "stride" })
      : makeKernel(`{[i]: m <= i < m + ${s.len}}`, "out[i - m] = 2*a[i - m] + 1", [`a, out: float32[${s.len}]`, "m: int32"], { name: "off1" });
  if (s.split > 1) k = splitIname(k, "i", s.split, s.tagged ? { outerTag: "g.0", innerTag: "l.0" } : {});
  kernels.set(key, k);
  return k;
}

describe.each(BACKENDS)("int32 law on %s", (backend) => {
  const skip = !nativeAvailable(backend);

  it.skipIf(skip)(`equals the interpreter or refuses with a LoomError, for offsets near the int32 limits (${RUNS} cases)`, async () => {
    let ran = 0;
    let refused = 0;
    await fc.assert(fc.asyncProperty(genShape, nearLimits, nearLimits, async (s, m, p) => {
      const k = kernelOf(s);
      const a = Float32Array.from({ length: s.len * (s.form === "1d" ? 1 : 2) }, (_, x) => x - 2);
      const args: Record<string, Float32Array | number> = s.form === "1d" ? { a, m } : { a, m, p };
      const ref = await run(k, args);
      try {
        const got = await run(k, args, { backend });
        ran += 1;
        expect(Array.from(got.out as Float32Array), `${JSON.stringify(s)} m=${m} p=${p}`).toEqual(Array.from(ref.out as Float32Array));
      } catch (e) {
        if (!(e instanceof LoomError)) throw e;
        refused += 1;
        expect(e.message).toMatch(/int32/);
      }
    }), { numRuns: RUNS, seed: Number(process.env.LOOM_PIPELINE_SEED ?? 1616) });
    expect(ran).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
