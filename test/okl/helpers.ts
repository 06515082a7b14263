/** Small helpers shared by the OKL lowering tests. */
import { OklError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { thrownBy } from "../thrown.js";

/** The first kernel of `src`. */
export const only = (src: string, defines: Record<string, string | number> = {}): Kernel => parseOkl(src, { defines })[0]!;
/** A typed array's values as numbers. */
export const values = (x: unknown): number[] => Array.from(x as ArrayLike<number>);
/** Every target Loom generates code for. */
export const TARGETS = ["c", "openmp", "opencl", "cuda", "js", "okl"] as const;
/** The OklError `f` throws (anything else fails the test). */
export const oklError = (f: () => unknown): OklError => thrownBy(OklError, f);
