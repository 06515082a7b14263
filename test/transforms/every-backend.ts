/**
 * Test helper: run a kernel on interp, js and every native backend available here (c, openmp,
 * opencl, and cuda on a machine with a GPU) and compare each output with a plain TypeScript reference.
 */
import { expect } from "vitest";
import type { Kernel } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { availableNative, type NativeBackend } from "../run/native-helpers.js";

/** The backends the loopy-parity tests check: interp, js, and the native ones available (cuda where a GPU is). */
export function parityBackends(): string[] {
  return ["interp", "js", ...availableNative(["c", "openmp", "opencl", "cuda"])];
}

/** The native backends the random-pipeline law also runs on, where available (c, openmp, opencl; cuda where a GPU is). */
export function lawNativeBackends(): NativeBackend[] {
  return availableNative(["c", "openmp", "opencl", "cuda"]);
}

/** `k` run with `args` on every parity backend gives `expected` (each listed output, to 1e-5 relative). */
export async function expectOnEveryBackend(
  k: Kernel, args: Record<string, unknown>, expected: Record<string, ArrayLike<number> | number>,
): Promise<void> {
  for (const backend of parityBackends()) {
    const out = (await run(k, args as never, { backend } as never)) as Record<string, ArrayLike<number> | number>;
    for (const [name, want] of Object.entries(expected)) {
      const got = out[name];
      const g = typeof got === "number" ? [got] : Array.from(got as ArrayLike<number>);
      const w = typeof want === "number" ? [want] : Array.from(want);
      expect(g.length, `${backend}: ${name} length`).toBe(w.length);
      for (let i = 0; i < w.length; i++) {
        expect(Math.abs(g[i]! - w[i]!) <= 1e-5 * Math.max(1, Math.abs(w[i]!)), `${backend}: ${name}[${i}] = ${g[i]}, expected ${w[i]}`).toBe(true);
      }
    }
  }
}
