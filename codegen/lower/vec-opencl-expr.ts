/**
 * The lane-wise expressions of an OpenCL `vec` loop (codegen/lower/vec-opencl.ts): a printed
 * expression of the loop's body as an expression on `W` lanes at once, or the reason it has none.
 *
 *   2.0f * x[8 * gid(0) + i_inner] + y[8 * gid(0) + i_inner]      (lane variable i_inner, W = 8)
 *   -> (float8)(2.0f) * vload8(0, x + 8 * gid(0)) + vload8(0, y + 8 * gid(0))
 *
 * A subexpression that does not use the lane variable stays scalar (broadcast where it meets a
 * vector, as a vector literal of one scalar of the element type); a unit-stride access is a
 * `vloadW` (which asks only element alignment); arithmetic, bitwise operators and the float
 * built-ins that work lane by lane stay themselves (OpenCL overloads them on vectors); a
 * conversion between element types is `convert_<type>W` (OpenCL casts no vector to another).
 */
import type { Dtype } from "../../src/ir/index.js";
import { ibin, ilit, type Ex } from "../ast.js";
import { type Printer } from "../printer.js";
import { uses } from "./vec-registers.js";

/** Element types with vector forms here: bool and chars stay scalar loops, half needs cl_khr_fp16 (not enabled). */
export const VECTOR_DTYPES: ReadonlySet<Dtype> = new Set(["float32", "float64", "int32", "uint32"]);
/** OpenCL's vector widths (vloadn, vstoren, typen). */
export const VECTOR_WIDTHS: ReadonlySet<number> = new Set([2, 3, 4, 8, 16]);

/** Float built-ins that act lane by lane, with a vector overload of the same name in OpenCL C. */
const LANEWISE_CALLS: ReadonlySet<string> = new Set([
  "sqrt", "exp", "log", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
  "pow", "fabs", "floor", "ceil", "rsqrt", "erf", "fmod", "fma", "abs",
  "asinh", "acosh", "atanh", "log1p", "expm1", "cbrt", "hypot", "exp2", "trunc", "round", "erfc", "copysign",
]);

/** The loop whose lanes an expression runs on: variable `v` from `lo`, `width` lanes. */
export interface Lanes {
  readonly v: string;
  readonly lo: number;
  readonly width: number;
}

/** An expression on the lanes; `scalar` is lane-invariant (one value for all). */
export type VEx =
  | { readonly k: "scalar"; readonly ex: Ex; readonly dtype: Dtype }
  | { readonly k: "load"; readonly array: string; readonly at: Ex; readonly dtype: Dtype }
  /** The lane variable's values, `(intW)(lo, lo + 1, …)`. */
  | { readonly k: "lanes"; readonly lo: number; readonly dtype: Dtype }
  | { readonly k: "op"; readonly op: string; readonly l: VEx; readonly r: VEx; readonly dtype: Dtype }
  | { readonly k: "unary"; readonly op: "-" | "~"; readonly e: VEx; readonly dtype: Dtype }
  | { readonly k: "call"; readonly fn: string; readonly args: readonly VEx[]; readonly dtype: Dtype }
  | { readonly k: "convert"; readonly e: VEx; readonly dtype: Dtype }
  /** `c ? t : f` with a lane-invariant condition. */
  | { readonly k: "select"; readonly c: Ex; readonly t: VEx; readonly f: VEx; readonly dtype: Dtype }
  /** A vector variable (a promoted accumulator row). */
  | { readonly k: "reg"; readonly name: string; readonly dtype: Dtype };

/** Why an expression has no lane-wise form, said after "a plain loop: ". */
export class NotLanewise {
  constructor(readonly why: string) {}
}

/**
 * The coefficient of `v` in integer index `e` when `e` is affine in `v` (0: does not use it), else
 * undefined: 1 for `n * k + 8 * j_outer + j` in `j`, -1 for `n - 1 - j`, undefined for `n * j`.
 */
export function strideOf(e: Ex, v: string): number | undefined {
  if (!uses(e, v)) return 0;
  if (e.k === "var") return 1;
  if (e.k !== "bin" || (e.dtype !== "idx" && e.dtype !== "int32")) return undefined;
  const l = strideOf(e.l, v);
  const r = strideOf(e.r, v);
  if (l === undefined || r === undefined) return undefined;
  if (e.op === "+") return l + r;
  if (e.op === "-") return l - r;
  if (e.op === "*") {
    if (e.l.k === "lit" && r !== 0) return e.l.value * r;
    if (e.r.k === "lit" && l !== 0) return e.r.value * l;
  }
  return undefined;
}

/** Index `e` at the loop's first lane: `v` replaced by `lo`, index sums folded (`8 * j_outer + j` at j = 0: `8 * j_outer`). */
export function atFirstLane(e: Ex, lanes: Lanes): Ex {
  if (e.k === "var") return e.name === lanes.v ? ilit(lanes.lo) : e;
  if (e.k === "bin" && (e.op === "+" || e.op === "-" || e.op === "*") && (e.dtype === "idx" || e.dtype === "int32")) {
    return ibin(e.op, atFirstLane(e.l, lanes), atFirstLane(e.r, lanes));
  }
  return e;
}

/** The element dtype `e` has in C (after implicit conversions, which the printer leaves out), where known. */
function printedDtype(e: Ex): Dtype | undefined {
  switch (e.k) {
    case "lit": return e.dtype === "idx" ? "int32" : e.dtype;
    case "load": case "call": return e.dtype;
    case "bin": return ["+", "-", "*", "/", "min", "max", "**"].includes(e.op) ? (e.dtype === "idx" ? "int32" : e.dtype) : undefined;
    case "neg": return e.dtype === "idx" ? "int32" : e.dtype;
    default: return undefined;
  }
}

const ARITH = new Set(["+", "-", "*", "/"]);
const BITWISE = new Set(["&", "|", "^", "<<", ">>"]);
const isFloatD = (d: Dtype) => d === "float32" || d === "float64";

/**
 * `e` (computed in `dtype`, its dtype by the lowering's typing) on the lanes, or a NotLanewise.
 * Every vector node has an element type of VECTOR_DTYPES; a node that does not use the lane
 * variable is `scalar`.
 */
export function lanewise(e: Ex, dtype: Dtype, lanes: Lanes): VEx | NotLanewise {
  const v = lanes.v;
  if (!uses(e, v)) return { k: "scalar", ex: e, dtype };
  if (!VECTOR_DTYPES.has(dtype)) return new NotLanewise(`${dtype} values have no OpenCL vector type here`);
  const both = (l: Ex, r: Ex, d: Dtype, f: (a: VEx, b: VEx) => VEx): VEx | NotLanewise => {
    const a = lanewise(l, d, lanes);
    if (a instanceof NotLanewise) return a;
    const b = lanewise(r, d, lanes);
    return b instanceof NotLanewise ? b : f(a, b);
  };
  switch (e.k) {
    case "var": return dtype === "int32" ? { k: "lanes", lo: lanes.lo, dtype } : new NotLanewise(`the lane index is used as ${dtype}`);
    case "load": {
      if (e.dtype !== dtype) return new NotLanewise(`${e.array} is read as ${dtype}`);
      const s = strideOf(e.index, v);
      if (s !== 1) return new NotLanewise(`${e.array}[…] is not unit-stride in ${v} (${s === undefined ? "its stride is not a constant" : `stride ${s}`}: a gather)`);
      return { k: "load", array: e.array, at: atFirstLane(e.index, lanes), dtype };
    }
    case "bin": {
      const d = e.dtype === "idx" ? "int32" : e.dtype;
      if (d !== dtype) return new NotLanewise(`an operation in ${d} gives a ${dtype} value`);
      const float = isFloatD(d);
      if (ARITH.has(e.op) || e.op === "min" || e.op === "max" || (e.op === "//" && (float || e.nonneg))) {
        return both(e.l, e.r, d, (l, r) => {
          if (e.op === "min" || e.op === "max") return { k: "call", fn: float ? `f${e.op}` : e.op, args: [l, r], dtype: d };
          if (e.op === "//" && float) return { k: "call", fn: "floor", args: [{ k: "op", op: "/", l, r, dtype: d }], dtype: d };
          return { k: "op", op: e.op === "//" ? "/" : e.op, l, r, dtype: d };
        });
      }
      if (e.op === "**" && float) return both(e.l, e.r, d, (l, r) => ({ k: "call", fn: "pow", args: [l, r], dtype: d }));
      if (BITWISE.has(e.op) && !float) {
        // A shift count keeps its own dtype: a lane-varying one must be the value's; a scalar one is converted (OpenCL masks it anyway).
        return both(e.l, e.r, d, (l, r) => ({ k: "op", op: e.op, l, r, dtype: d }));
      }
      return new NotLanewise(`${e.op === "//" ? "floor division" : e.op === "%" ? "%" : `the operator ${e.op}`} on ${d} has no lane-wise vector form here`);
    }
    case "neg": {
      const a = lanewise(e.e, dtype, lanes);
      return a instanceof NotLanewise ? a : { k: "unary", op: "-", e: a, dtype };
    }
    case "bitnot": {
      if (isFloatD(dtype)) return new NotLanewise("~ of a float");
      const a = lanewise(e.e, dtype, lanes);
      return a instanceof NotLanewise ? a : { k: "unary", op: "~", e: a, dtype };
    }
    case "cast": {
      if (e.to !== dtype) return new NotLanewise(`a conversion to ${e.to} gives a ${dtype} value`);
      if (!VECTOR_DTYPES.has(e.from)) return new NotLanewise(`${e.from} values have no OpenCL vector type here`);
      const a = lanewise(e.e, e.from, lanes);
      return a instanceof NotLanewise ? a : e.from === e.to ? a : { k: "convert", e: a, dtype };
    }
    case "call": {
      if (!isFloatD(e.dtype) || !LANEWISE_CALLS.has(e.fn)) return new NotLanewise(`${e.fn} on ${e.dtype} has no lane-wise vector form here`);
      const args: VEx[] = [];
      for (const x of e.args) {
        const a = lanewise(x, e.dtype, lanes);
        if (a instanceof NotLanewise) return a;
        args.push(a);
      }
      return { k: "call", fn: e.fn === "abs" ? "fabs" : e.fn, args, dtype };
    }
    case "cond": {
      if (uses(e.c, v)) return new NotLanewise("a condition depends on the lane");
      return both(e.t, e.f, dtype, (t, f) => ({ k: "select", c: e.c, t, f, dtype }));
    }
    default: return new NotLanewise(`${e.k === "not" ? "a logical value" : "a comparison"} depends on the lane`);
  }
}

/** How vector code is printed: the kernel's printer (scalar parts, helpers) and type names. */
export interface VectorPrinting {
  readonly p: Printer;
  readonly typeName: (d: Dtype) => string;
  readonly width: number;
}

/** `array + at` as a pointer: `x + 8 * gid(0)`, `acc` alone at 0. */
export function pointer(array: string, at: Ex, pr: VectorPrinting): string {
  // Sums print bare (`x + 8 * gid(0) + j`: the same address added left to right); anything looser is parenthesized.
  return at.k === "lit" && at.value === 0 ? array : `${array} + ${pr.p.expr(at, 9)}`;
}

/** `x` as the vector printed: a scalar broadcast as a vector literal of one scalar of the element type. */
export function printVector(x: VEx, pr: VectorPrinting): string {
  const w = pr.width;
  const vt = (d: Dtype) => `${pr.typeName(d)}${w}`;
  const inner = (y: VEx) => (y.k === "op" || y.k === "select" || y.k === "unary" ? `(${printVector(y, pr)})` : printVector(y, pr));
  switch (x.k) {
    case "scalar": {
      const ex = x.ex;
      const same = printedDtype(ex) === x.dtype;
      return same ? `(${vt(x.dtype)})(${pr.p.expr(ex)})` : `(${vt(x.dtype)})((${pr.typeName(x.dtype)}) ${pr.p.expr(ex, 12)})`;
    }
    case "load": return `vload${w}(0, ${pointer(x.array, x.at, pr)})`;
    case "lanes": return `(${vt(x.dtype)})(${Array.from({ length: w }, (_, n) => x.lo + n).join(", ")})`;
    case "op": return `${inner(x.l)} ${x.op} ${inner(x.r)}`;
    case "unary": return `${x.op}${inner(x.e)}`;
    case "call": return `${x.fn}(${x.args.map((a) => printVector(a, pr)).join(", ")})`;
    case "convert": return `convert_${vt(x.dtype)}(${printVector(x.e, pr)})`;
    case "select": return `${pr.p.expr(x.c, 12)} ? ${inner(x.t)} : ${inner(x.f)}`;
    case "reg": return x.name;
  }
}

/** Each node of `x` rebuilt by `f` where it returns one (bottom-up), else kept: `mapVEx(x, (y) => (y.k === "load" ? reg : undefined))`. */
export function mapVEx(x: VEx, f: (y: VEx) => VEx | undefined): VEx {
  const m = (y: VEx) => mapVEx(y, f);
  let y: VEx = x;
  switch (x.k) {
    case "op": y = { ...x, l: m(x.l), r: m(x.r) }; break;
    case "unary": case "convert": y = { ...x, e: m(x.e) }; break;
    case "call": y = { ...x, args: x.args.map(m) }; break;
    case "select": y = { ...x, t: m(x.t), f: m(x.f) }; break;
    default: break;
  }
  return f(y) ?? y;
}
