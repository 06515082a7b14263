/** Small helpers shared by the OKL lowering tests. */
import { OklError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { expect } from "vitest";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";
import { thrownBy } from "../thrown.js";

/** The first kernel of `src`. */
export const only = (src: string, defines: Record<string, string | number> = {}): Kernel => parseOkl(src, { defines })[0]!;
/** A typed array's values as numbers. */
export const values = (x: unknown): number[] => Array.from(x as ArrayLike<number>);
/** Every target Loom generates code for. */
export const TARGETS = ["c", "openmp", "opencl", "cuda", "js", "okl"] as const;
/** The OklError `f` throws (anything else fails the test). */
export const oklError = (f: () => unknown): OklError => thrownBy(OklError, f);

/** The backends OKL's parity tests run: interp, js and the native ones available here (cuda where a GPU is). */
export function parityBackends(): string[] {
  return ["interp", "js", ...availableNative(["c", "openmp", "opencl", "cuda"])];
}

/** `k` run with `args` (fresh copies per backend) gives `expected` on every parity backend. */
export async function expectOnEveryBackend(k: Kernel, args: () => Record<string, unknown>, expected: Record<string, ArrayLike<number>>): Promise<void> {
  for (const backend of parityBackends()) {
    const out = (await run(k, args() as never, { backend } as never)) as Record<string, ArrayLike<number>>;
    for (const [name, want] of Object.entries(expected)) expect(values(out[name]), `${backend}: ${name}`).toEqual(values(want));
  }
}

/**
 * The OklError of a string-walking device function `f(const char *s)` whose body (between `int n =
 * 0;` and `return n;`, at line 4) is `body`, called by a kernel over 4-character names.
 */
export function refusedStringWalk(body: string): OklError {
  return oklError(() => parseOkl(`
inline int f(const char *s) {
  int n = 0;
${body}
  return n;
}
@kernel void k(const int N, @restrict const char *names, @restrict int *y) {
  for (int i = 0; i < N; ++i; @tile(4, @outer, @inner)) y[i] = f(names + 4*i);
}`));
}
