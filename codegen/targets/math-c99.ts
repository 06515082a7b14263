/**
 * C99's <math.h> functions (issue 20) that some targets lack. A target without one refuses it with
 * a CodegenError naming the function and the target, never printing another function in its place.
 */
import { CodegenError } from "../../src/errors.js";

/** The functions added with issue 20: asinh, acosh, atanh, log1p, expm1, cbrt, hypot, exp2, trunc, round, erfc, copysign. */
export const C99_MATH: ReadonlySet<string> = new Set([
  "asinh", "acosh", "atanh", "log1p", "expm1", "cbrt", "hypot", "exp2", "trunc", "round", "erfc", "copysign",
]);

/**
 * Metal's standard library has no erf, log1p, expm1, cbrt, hypot or erfc (its round is C's: half away from zero).
 * ISPC's has no erf and none of the C99 functions above with C's meaning (its round rounds halves to even).
 */
const MISSING: Readonly<Record<string, { readonly fns: ReadonlySet<string>; readonly why: string }>> = {
  metal: { fns: new Set(["erf", "log1p", "expm1", "cbrt", "hypot", "erfc"]), why: "the Metal Shading Language has no such function" },
  ispc: { fns: new Set(["erf", ...C99_MATH]), why: "ISPC's standard library has no such function with C's meaning" },
  wgsl: {
    fns: new Set(["asinh", "acosh", "atanh", "log1p", "expm1", "cbrt", "hypot", "round", "erfc", "copysign"]),
    why: "WGSL has no such built-in with C's meaning (its acosh and atanh are undefined at the domain edges where C's give inf or NaN, its round rounds halves to even)",
  },
};

/** Throw a CodegenError when `target` cannot compute the math function `fn` as C does; otherwise nothing. */
export function refuseMissingMath(target: string, fn: string): void {
  const m = MISSING[target];
  if (!m?.fns.has(fn)) return;
  throw new CodegenError(`the ${target} target has no function ${fn}: ${m.why}; compute it another way or generate code for a C-family target (c, openmp, opencl, cuda)`);
}
