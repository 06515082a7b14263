/**
 * Helpers of the real-world-style OKL tests (test/okl/real-world-*.test.ts): each kernel runs on the
 * interpreter and on the OpenMP backend (where it is available here) and is compared with its
 * serial meaning, written out in TypeScript next to the kernel.
 */
import { expect } from "vitest";
import type { Kernel } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";

/** The backends each real-world kernel runs on: the interpreter, and OpenMP (and CUDA, on a GPU) where they run here. */
export function realWorldBackends(): string[] {
  return ["interp", ...availableNative(["openmp", "cuda"])];
}

/** Random-looking but reproducible values in [-1, 1) (a small LCG seeded by `seed`). */
export function seeded(n: number, seed: number): number[] {
  let s = (seed * 2654435761) >>> 0 || 1;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

/**
 * Runs `k` with fresh `args()` on every backend of realWorldBackends() and checks each output of
 * `want` element by element within a relative tolerance `tol` (float32 arithmetic and math
 * libraries differ in the last bits between the interpreter and C). `opts.checkBounds: false` for
 * kernels whose subscripts read memory (CSR rows, opaque blocks), which the native bounds proof
 * cannot cover (docs/okl.md).
 */
export async function expectSerialMeaning(
  k: Kernel, args: () => Record<string, unknown>, want: Record<string, ArrayLike<number>>, tol = 1e-5,
  opts: { readonly checkBounds?: boolean } = {},
): Promise<void> {
  for (const backend of realWorldBackends()) {
    const out = (await run(k, args() as never, { backend, ...opts } as never)) as Record<string, ArrayLike<number>>;
    for (const [name, w] of Object.entries(want)) {
      const got = Array.from(out[name]!);
      expect(got.length, `${backend}: ${name} length`).toBe(w.length);
      got.forEach((g, i) => {
        const x = w[i]!;
        if (Math.abs(g - x) > tol * Math.max(1, Math.abs(x))) expect(g, `${backend}: ${name}[${i}]`).toBe(x);
      });
    }
  }
}
