/**
 * C's arithmetic types, once: the integer promotions and the usual arithmetic conversions (C11
 * 6.3.1.1, 6.3.1.8). The IR types arithmetic as numpy/loopy do; what is imported from C (OKL's
 * operators, src/okl/lower/c-conversions.ts) and what the host computes from C sources before a
 * launch (src/run/c-int-eval.ts) follow these instead.
 *
 *   cUsualConversion("int32", "uint32")   // "uint32" (numpy: int64)
 *   cPromoted("int8")                      // "int32"
 */
import { isFloat, type Dtype } from "./dtype.js";

/** The width in bits of each integer dtype (bool: 1). */
export const C_INT_BITS: Readonly<Partial<Record<Dtype, number>>> = { bool: 1, int8: 8, uint8: 8, int16: 16, uint16: 16, int32: 32, uint32: 32, int64: 64, uint64: 64 };
const FLOAT_BITS: Readonly<Partial<Record<Dtype, number>>> = { float16: 16, float32: 32, float64: 64 };
const UNSIGNED_OF: Readonly<Record<number, Dtype>> = { 32: "uint32", 64: "uint64" };

/** Whether C treats the integer dtype as unsigned (bool counts: it is never negative). */
export const cUnsigned = (d: Dtype): boolean => d.startsWith("uint") || d === "bool";

/** C's integer promotion: bool, (u)int8 and (u)int16 become int32; other dtypes are kept. */
export function cPromoted(d: Dtype): Dtype {
  const bits = C_INT_BITS[d];
  return bits !== undefined && bits < 32 ? "int32" : d;
}

/** C's usual arithmetic conversions of two dtypes (each promoted first). */
export function cUsualConversion(a: Dtype, b: Dtype): Dtype {
  a = cPromoted(a);
  b = cPromoted(b);
  if (a === b) return a;
  if (isFloat(a) || isFloat(b)) {
    if (isFloat(a) && isFloat(b)) return (FLOAT_BITS[a] ?? 0) >= (FLOAT_BITS[b] ?? 0) ? a : b;
    return isFloat(a) ? a : b;
  }
  const ba = C_INT_BITS[a]!, bb = C_INT_BITS[b]!;
  if (cUnsigned(a) === cUnsigned(b)) return ba >= bb ? a : b;
  const [s, u] = cUnsigned(a) ? [b, a] : [a, b];
  const bs = C_INT_BITS[s]!, bu = C_INT_BITS[u]!;
  if (bu >= bs) return u;
  if (bs > bu) return s; // a wider signed type holds every value of the unsigned one
  return UNSIGNED_OF[bs]!;
}

/**
 * C++ <cmath>'s result type of a floating-point function (`sqrt`, `pow`, `fmin`, …) of arguments
 * of dtypes `args`: float only when every argument is float, an integer argument counts as
 * double, otherwise the widest floating type (C++11 [c.math]; CUDA and OpenCL overload alike).
 *
 *   cMathType(["float32"])            // "float32"
 *   cMathType(["float32", "int32"])   // "float64" (std::pow(float, int) is double)
 */
export function cMathType(args: readonly Dtype[]): Dtype {
  let t: Dtype | undefined;
  for (const a of args) {
    const f = isFloat(a) ? a : "float64";
    t = t === undefined || (FLOAT_BITS[f] ?? 0) > (FLOAT_BITS[t] ?? 0) ? f : t;
  }
  return t ?? "float64";
}
