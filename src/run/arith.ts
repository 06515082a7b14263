/**
 * Typed arithmetic as C does it, in two halves: code templates (`convertCode`, `binaryCode`, …)
 * that the expression compiler splices into generated JavaScript, and the runtime helpers `H`
 * those templates call. Representation: 64-bit integers are BigInt, every other dtype a number
 * already rounded or wrapped to its type (float16 as its float value, bool as 0/1).
 */
import { ExecutionError } from "../errors.js";
import { isFloat, isWideInt, type ArithOp, type Dtype } from "../ir/index.js";
import { f16round, floatToHalf, h2f } from "./float16.js";

/** Smallest and largest values of the integer dtypes held as numbers (the identities of max/min). */
export const INT_RANGE: Readonly<Partial<Record<Dtype, readonly [number, number]>>> = {
  int8: [-128, 127], int16: [-32768, 32767], int32: [-2147483648, 2147483647],
  uint8: [0, 255], uint16: [0, 65535], uint32: [0, 4294967295], bool: [0, 1],
};

/** Narrow dtypes whose every value a float32 holds exactly (no rounding on conversion). */
const EXACT_IN_F32: ReadonlySet<Dtype> = new Set<Dtype>(["float16", "int8", "int16", "uint8", "uint16", "bool"]);

/**
 * JavaScript code converting the value of `code` (of dtype `from`) to `to`, as a C cast does:
 * floats to integers truncate, out-of-range integers wrap. `convertCode("x", "float64", "int32")` is `((x)|0)`.
 */
export function convertCode(code: string, from: Dtype, to: Dtype): string {
  if (from === to) return code;
  const big = isWideInt(from);
  const num = big ? `Number(${code})` : code;
  switch (to) {
    case "float64": return num;
    case "float32": return EXACT_IN_F32.has(from) ? code : `Math.fround(${num})`;
    case "float16": return `H.f16(${num})`;
    case "bool": return `((${code}) != 0 ? 1 : 0)`;
    case "int64": return big ? `BigInt.asIntN(64, ${code})` : isFloat(from) ? `H.toBig(${code}, true)` : `BigInt(${code})`;
    case "uint64": return big ? `BigInt.asUintN(64, ${code})` : isFloat(from) ? `H.toBig(${code}, false)` : `BigInt.asUintN(64, BigInt(${code}))`;
    default: {
      // ToInt32 truncates and wraps modulo 2^32 exactly, even for huge doubles.
      const n = big ? `Number(BigInt.asIntN(32, ${code}))` : code;
      return wrapCode(n, to);
    }
  }
}

/** Wrap an exact integer-valued number to an integer dtype held as a number. */
function wrapCode(code: string, to: Dtype): string {
  switch (to) {
    case "int32": return `((${code})|0)`;
    case "int16": return `((${code})<<16>>16)`;
    case "int8": return `((${code})<<24>>24)`;
    case "uint32": return `((${code})>>>0)`;
    case "uint16": return `((${code})&65535)`;
    case "uint8": return `((${code})&255)`;
    case "bool": return `((${code}) != 0 ? 1 : 0)`;
    default: return code;
  }
}

/** Round a float result to its dtype. */
function roundCode(code: string, d: Dtype): string {
  return d === "float32" ? `Math.fround(${code})` : d === "float16" ? `H.f16(${code})` : code;
}

/**
 * Code for `a op b` with both operands already of dtype `d`; `insn` is a JS string literal naming
 * the instruction for division-by-zero errors. `binaryCode("+", "a", "b", "int32", "'s'")` is `((a + b)|0)`.
 */
export function binaryCode(op: ArithOp, a: string, b: string, d: Dtype, insn: string): string {
  if (isFloat(d)) {
    switch (op) {
      case "+": case "-": case "*": case "/": return roundCode(`(${a} ${op} ${b})`, d);
      case "//": return roundCode(`Math.floor(${roundCode(`${a} / ${b}`, d)})`, d);
      case "%": return roundCode(`H.fmod(${a}, ${b})`, d);
      case "**": return roundCode(`Math.pow(${a}, ${b})`, d);
    }
  }
  if (isWideInt(d)) {
    const w = (x: string) => (d === "int64" ? `BigInt.asIntN(64, ${x})` : `BigInt.asUintN(64, ${x})`);
    switch (op) {
      case "+": case "-": case "*": return w(`(${a} ${op} ${b})`);
      case "/": return w(`H.bdiv(${a}, ${b}, ${insn})`);
      case "//": return w(`H.bfloordiv(${a}, ${b}, ${insn})`);
      case "%": return w(`H.bmod(${a}, ${b}, ${insn})`);
      case "**": return w(`H.bpow(${a}, ${b}, ${insn})`);
    }
  }
  // Integers held as numbers: products of 32-bit values need Math.imul to stay exact.
  const wide = d === "int32" || d === "uint32";
  switch (op) {
    case "+": case "-": return wrapCode(`${a} ${op} ${b}`, d);
    case "*": return wrapCode(wide ? `Math.imul(${a}, ${b})` : `${a} * ${b}`, d);
    case "/": return wrapCode(`H.idiv(${a}, ${b}, ${insn})`, d);
    case "//": return wrapCode(`H.ifloordiv(${a}, ${b}, ${insn})`, d);
    case "%": return wrapCode(`H.imod(${a}, ${b}, ${insn})`, d);
    case "**": return wrapCode(`H.ipow(${a}, ${b}, ${JSON.stringify(d)}, ${insn})`, d);
  }
}

/** Code for `-a` in dtype `d`: `negCode("x", "int32")` is `((-x)|0)`. */
export function negCode(a: string, d: Dtype): string {
  if (isFloat(d)) return `(-${a})`;
  if (d === "int64") return `BigInt.asIntN(64, -${a})`;
  if (d === "uint64") return `BigInt.asUintN(64, -${a})`;
  return wrapCode(`-${a}`, d);
}

/** A number as a code literal of dtype `d`: `literalCode(2, "int64")` is `2n`. */
export function literalCode(value: number, d: Dtype): string {
  if (isWideInt(d)) return `${BigInt(Math.trunc(value))}n`;
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  if (Number.isNaN(value)) return "NaN";
  return Object.is(value, -0) ? "-0" : String(value);
}

/** The identity of a reduction in dtype `d`: sum 0, product 1, max the lowest value, min the highest (`reductionIdentity("max", "int8")` is `-128`). */
export function reductionIdentity(op: "sum" | "product" | "max" | "min", d: Dtype): string {
  if (op === "sum") return literalCode(0, d);
  if (op === "product") return literalCode(1, d);
  const lowest = op === "max";
  if (isFloat(d)) return lowest ? "-Infinity" : "Infinity";
  if (d === "int64") return lowest ? "-9223372036854775808n" : "9223372036854775807n";
  if (d === "uint64") return lowest ? "0n" : "18446744073709551615n";
  const [lo, hi] = INT_RANGE[d]!;
  return String(lowest ? lo : hi);
}

function divByZero(insn: string, what: string): never {
  throw new ExecutionError(`instruction "${insn}": integer ${what} by zero`);
}

/** Python's float modulo: the result takes the sign of the divisor. */
function fmod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

/** The runtime helpers generated code calls as `H.name(…)`. */
export const H = {
  f16: f16round,
  h2f,
  f2h: floatToHalf,
  fmod,
  toBig(x: number, signed: boolean): bigint {
    if (!Number.isFinite(x)) return 0n;
    const b = BigInt(Math.trunc(x));
    return signed ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
  },
  idiv(a: number, b: number, insn: string): number {
    if (b === 0) divByZero(insn, "division");
    return Math.trunc(a / b);
  },
  ifloordiv(a: number, b: number, insn: string): number {
    if (b === 0) divByZero(insn, "division");
    return Math.floor(a / b);
  },
  imod(a: number, b: number, insn: string): number {
    if (b === 0) divByZero(insn, "modulo");
    const r = a % b;
    return r !== 0 && r < 0 !== b < 0 ? r + b : r;
  },
  ipow(a: number, b: number, d: Dtype, insn: string): number {
    if (b < 0) throw new ExecutionError(`instruction "${insn}": integer power with negative exponent ${b}`);
    let r = 1;
    for (let k = 0; k < b; k++) r = d === "int32" || d === "uint32" ? Math.imul(r, a) : (r * a) % 2 ** 32;
    return r;
  },
  bdiv(a: bigint, b: bigint, insn: string): bigint {
    if (b === 0n) divByZero(insn, "division");
    return a / b;
  },
  bfloordiv(a: bigint, b: bigint, insn: string): bigint {
    if (b === 0n) divByZero(insn, "division");
    const q = a / b;
    return q * b !== a && a < 0n !== b < 0n ? q - 1n : q;
  },
  bmod(a: bigint, b: bigint, insn: string): bigint {
    if (b === 0n) divByZero(insn, "modulo");
    const r = a % b;
    return r !== 0n && r < 0n !== b < 0n ? r + b : r;
  },
  bpow(a: bigint, b: bigint, insn: string): bigint {
    if (b < 0n) throw new ExecutionError(`instruction "${insn}": integer power with negative exponent ${b}`);
    let r = 1n;
    for (let k = 0n; k < b; k++) r = BigInt.asIntN(128, r * a);
    return r;
  },
  erf,
  /** Minimum and maximum of two exact integers (numbers or BigInts alike). */
  min<T extends number | bigint>(a: T, b: T): T {
    return a < b ? a : b;
  },
  max<T extends number | bigint>(a: T, b: T): T {
    return a > b ? a : b;
  },
  babs(a: bigint): bigint {
    return a < 0n ? -a : a;
  },
  /** Check an index against its axis extent; the error names instruction, array and index. */
  ix(v: number, n: number, insn: string, array: string, axis: number): number {
    if (v >= 0 && v < n) return v;
    throw new ExecutionError(
      `instruction "${insn}": index ${v} out of bounds for axis ${axis} of "${array}" (extent ${n})`);
  },
  /** Check a flat (linear) index against the storage length. */
  lx(v: number, n: number, insn: string, array: string): number {
    if (v >= 0 && v < n) return v;
    throw new ExecutionError(`instruction "${insn}": linear index ${v} out of bounds for "${array}" (${n} elements)`);
  },
};

/** erf to about 1e-14: Taylor series near 0, a continued fraction for erfc beyond. */
function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const a = Math.abs(x);
  if (a < 3) {
    let term = a;
    let sum = a;
    for (let n = 1; n < 200 && Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
      term *= (-a * a) / n;
      sum += term / (2 * n + 1);
    }
    return (Math.sign(x) * 2 * sum) / Math.sqrt(Math.PI);
  }
  // erfc(a) = exp(-a²)/√π · 1/(a + 1/2/(a + 1/(a + 3/2/(a + …)))), evaluated backwards.
  let f = a;
  for (let n = 60; n >= 1; n--) f = a + n / 2 / f;
  const erfc = Math.exp(-a * a) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}
