/**
 * Tables of expression lowering (expressions.ts): C's math functions as IR functions, constant
 * subscripts, and reads of file-scope constant tables.
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding, Fail } from "./bindings.js";
import { rowMajorIndex } from "./initializers.js";

/** C's math functions (and their float variants) as IR functions. */
export const MATH: Readonly<Record<string, string>> = {
  sqrt: "sqrt", sqrtf: "sqrt", exp: "exp", expf: "exp", log: "log", logf: "log", log10: "log10", log10f: "log10",
  log2: "log2", log2f: "log2", sin: "sin", sinf: "sin", cos: "cos", cosf: "cos", tan: "tan", tanf: "tan",
  asin: "asin", asinf: "asin", acos: "acos", acosf: "acos", atan: "atan", atanf: "atan", atan2: "atan2", atan2f: "atan2",
  sinh: "sinh", sinhf: "sinh", cosh: "cosh", coshf: "cosh", tanh: "tanh", tanhf: "tanh", pow: "pow", powf: "pow",
  fabs: "fabs", fabsf: "fabs", floor: "floor", floorf: "floor", ceil: "ceil", ceilf: "ceil", rsqrt: "rsqrt", rsqrtf: "rsqrt",
  erf: "erf", erff: "erf", fmod: "fmod", fmodf: "fmod", fma: "fma", fmaf: "fma", abs: "abs",
  min: "min", max: "max", fmin: "min", fminf: "min", fmax: "max", fmaxf: "max",
  asinh: "asinh", asinhf: "asinh", acosh: "acosh", acoshf: "acosh", atanh: "atanh", atanhf: "atanh",
  log1p: "log1p", log1pf: "log1p", expm1: "expm1", expm1f: "expm1", cbrt: "cbrt", cbrtf: "cbrt",
  hypot: "hypot", hypotf: "hypot", exp2: "exp2", exp2f: "exp2", trunc: "trunc", truncf: "trunc",
  round: "round", roundf: "round", erfc: "erfc", erfcf: "erfc", copysign: "copysign", copysignf: "copysign",
};

/** The largest file-scope table read at run-time subscripts (as a chain of selects). */
const MAX_SELECT = 64;

/** The value of an integer IR expression of constants, or undefined. */
export function constIndex(e: Expr): number | undefined {
  if (e.kind === "const") return e.isFloat ? undefined : e.value;
  if (e.kind === "neg") {
    const v = constIndex(e.operand);
    return v === undefined ? undefined : -v;
  }
  if (e.kind !== "arith") return undefined;
  const a = constIndex(e.left);
  const b = constIndex(e.right);
  if (a === undefined || b === undefined) return undefined;
  switch (e.op) {
    case "+": return a + b;
    case "-": return a - b;
    case "*": return a * b;
    default: return undefined;
  }
}

/**
 * An element of a file-scope constant table: the value itself at constant subscripts, else a
 * select over the values (no target has initialized memory the kernel could read instead).
 */
export function tableRead(b: Extract<Binding, { kind: "table" }>, indices: readonly Expr[], label: string, pos: A.Pos, fail: Fail): Expr {
  if (indices.length !== b.shape.length) fail(`array "${label}" has ${b.shape.length} dimension(s), subscripted with ${indices.length}`, pos);
  const lin = b.offset ? { kind: "arith" as const, op: "+" as const, left: b.offset, right: rowMajorIndex(indices, b.shape) } : rowMajorIndex(indices, b.shape);
  const at = constIndex(lin);
  if (at !== undefined) {
    if (at < 0 || at >= b.values.length) fail(`array "${label}" has ${b.values.length} element(s); element ${at} is out of bounds`, pos);
    return b.values[at]!;
  }
  if (b.values.length > MAX_SELECT) fail(`file-scope array "${label}" (${b.values.length} elements) read at a run-time subscript: only tables of at most ${MAX_SELECT} elements are supported (as a select)`, pos);
  let out = b.values[b.values.length - 1]!;
  for (let k = b.values.length - 2; k >= 0; k--) out = { kind: "if", cond: { kind: "compare", op: "==", left: lin, right: c(k) }, then: b.values[k]!, else: out };
  return out;
}


/**
 * CUDA's (and HIP's) warp-level intrinsics: each reads or votes on other threads' registers within
 * a hardware warp. OKL's model has no warps (work-items of one @inner nest communicate through
 * @shared memory between loops), OpenMP, serial C and OpenCL have no such lanes, and CUDA's own
 * results depend on the warp size, the mask and which threads are active: no meaning Loom could
 * give them on every target, so they are refused naming what to write instead. The shuffles of a
 * full mask and a constant width have one (warp-shuffles.ts lowers them first).
 */
const WARP = /^__(shfl(_up|_down|_xor)?(_sync)?|ballot(_sync)?|any(_sync)?|all(_sync)?|activemask|syncwarp|match_(any|all)_sync|reduce_(add|min|max|and|or|xor)_sync)$/;

/** The refusal of a warp-level intrinsic `name`, or undefined where `name` is none. */
export function warpRefusal(name: string): string | undefined {
  if (!WARP.test(name)) return undefined;
  return `"${name}" is a CUDA warp-level operation (it reads other threads' registers within a hardware warp): OKL's model has no warps, ` +
    "so it has no meaning on the serial, OpenMP and OpenCL targets (and on CUDA its result depends on the warp size and the active threads). " +
    "Write the exchange through @shared memory instead: one @inner loop stores each work-item's value in a @shared array, the next @inner loop " +
    "(OCCA puts the barrier between them) reads the partner's element, e.g. `s[t] = v;` then `v += s[t + 16];` guarded by `t + 16 < 32` " +
    "(the shuffles `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync`, `__shfl_xor_sync` with a full mask and a constant width are accepted: warp-shuffles.ts)";
}
