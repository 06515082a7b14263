/**
 * JavaScript code templates for C-like typed arithmetic, shared by the js target and the
 * reference interpreter (which compiles kernels to JavaScript too), so the two are bit-identical
 * by construction. Representation: 64-bit integers are BigInt, every other dtype a number already
 * rounded or wrapped to its type (float16 as its float value, bool as 0/1). The templates call the
 * runtime helpers `H` (src/run/arith.ts), which the executing backend passes in.
 */
import { InternalError } from "../src/errors.js";
import { dtypeKind, isFloat, isWideInt, type ArithOp, type Dtype } from "../src/ir/index.js";
import { f16round } from "../src/ir/float16.js";

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

/** A float truncated to a 64-bit integer as C does (`H.toBig`); not finite gives 0. `floatToBig(-2.5, true)` is `-2n`. */
export function floatToBig(x: number, signed: boolean): bigint {
  if (!Number.isFinite(x)) return 0n;
  const b = BigInt(Math.trunc(x));
  return signed ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
}

/** The value `convertCode(·, from, to)` computes at run time, computed now (for folding literals). */
function convertNow(x: number | bigint, from: Dtype, to: Dtype): number | bigint {
  if (from === to) return x;
  const num = typeof x === "bigint" ? Number(x) : x;
  switch (to) {
    case "float64": return num;
    case "float32": return EXACT_IN_F32.has(from) ? num : Math.fround(num);
    case "float16": return f16round(num);
    case "bool": return num !== 0 ? 1 : 0;
    case "int64": case "uint64": {
      const big = typeof x === "bigint" ? x : isFloat(from) ? floatToBig(x, to === "int64") : BigInt(x);
      return to === "int64" ? BigInt.asIntN(64, big) : BigInt.asUintN(64, big);
    }
    default: return wrapNow(typeof x === "bigint" ? Number(BigInt.asIntN(32, x)) : x, to);
  }
}

/** `wrapCode` computed now. */
function wrapNow(n: number, to: Dtype): number {
  switch (to) {
    case "int32": return n | 0;
    case "int16": return (n << 16) >> 16;
    case "int8": return (n << 24) >> 24;
    case "uint32": return n >>> 0;
    case "uint16": return n & 65535;
    case "uint8": return n & 255;
    case "bool": return n !== 0 ? 1 : 0;
    default: return n;
  }
}

/**
 * A literal folded at compile time, bit for bit what the generated code would compute: `value`
 * is first a value of its own dtype `from` (`cast(float16, 0.1)` is the half nearest 0.1), then
 * converted to `to` as `convertCode` converts. The interpreter and the code generators both fold
 * with this, so a literal means the same on every backend.
 * `foldLiteral(0.1, "float64", "float16")` is `0.0999755859375`; `foldLiteral(300, "int8", "int32")` is `44`.
 */
export function foldLiteral(value: number, from: Dtype, to: Dtype): number | bigint {
  return convertNow(convertNow(value, "float64", from), from, to);
}

/** Wrap an exact integer-valued number to an integer dtype held as a number. */
export function wrapCode(code: string, to: Dtype): string {
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
export function roundCode(code: string, d: Dtype): string {
  return d === "float32" ? `Math.fround(${code})` : d === "float16" ? `H.f16(${code})` : code;
}

/**
 * Code for `a op b` with both operands already of dtype `d` (for shifts, `b` is the count in its
 * own dtype); `insn` is a JS string literal naming the instruction for division-by-zero and
 * shift-count errors. `binaryCode("+", "a", "b", "int32", "'s'")` is `((a + b)|0)`.
 */
export function binaryCode(op: ArithOp, a: string, b: string, d: Dtype, insn: string): string {
  if (isFloat(d)) {
    switch (op) {
      case "+": case "-": case "*": case "/": return roundCode(`(${a} ${op} ${b})`, d);
      case "//": return roundCode(`Math.floor(${roundCode(`${a} / ${b}`, d)})`, d);
      case "%": return roundCode(`H.fmod(${a}, ${b})`, d);
      case "**": return roundCode(`Math.pow(${a}, ${b})`, d);
      default: throw new InternalError(`bitwise operator "${op}" on ${d} (type inference rejects float operands)`);
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
      // Two's-complement BigInts: & | ^ of in-range values stay in range; >> is arithmetic.
      case "&": case "|": case "^": return `(${a} ${op} ${b})`;
      case "<<": return w(`(${a} << ${shiftCount(b, 64, insn)})`);
      case ">>": return `(${a} >> ${shiftCount(b, 64, insn)})`;
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
    // JS bitwise operators work on int32 bit patterns: exactly C's on values promoted to int
    // (or unsigned int), wrapped back to `d`. Counts 0..31, as C allows after promotion.
    case "&": case "|": case "^": return wrapCode(`${a} ${op} ${b}`, d);
    case "<<": return wrapCode(`${a} << ${shiftCount(b, 32, insn)}`, d);
    case ">>": return wrapCode(`${a} ${dtypeKind(d) === "int" ? ">>" : ">>>"} ${shiftCount(b, 32, insn)}`, d);
  }
}

/**
 * Code for a shift count `b` (a number or BigInt of any integer dtype) shifting a `w`-bit value:
 * a literal in range as it is, anything else checked at run time by `H.shc`. 64-bit shifts take BigInt counts.
 */
function shiftCount(b: string, w: 32 | 64, insn: string): string {
  const lit = /^([0-9]+)n?$/.exec(b);
  if (lit && Number(lit[1]) < w) return w === 64 ? `${lit[1]}n` : lit[1]!;
  return w === 64 ? `BigInt(H.shc(${b}, 64, ${insn}))` : `H.shc(${b}, 32, ${insn})`;
}

/** Code for `-a` in dtype `d`: `negCode("x", "int32")` is `((-x)|0)`. */
export function negCode(a0: string, d: Dtype): string {
  // `-` before a negative literal would read as the decrement operator `--`.
  const a = a0.startsWith("-") ? `(${a0})` : a0;
  if (isFloat(d)) return `(-${a})`;
  if (d === "int64") return `BigInt.asIntN(64, -${a})`;
  if (d === "uint64") return `BigInt.asUintN(64, -${a})`;
  return wrapCode(`-${a}`, d);
}

/** Code for `~a` in the integer dtype `d`: `bitNotCode("x", "uint8")` is `((~x)&255)`. */
export function bitNotCode(a: string, d: Dtype): string {
  if (isFloat(d) || d === "bool") throw new InternalError(`operator "~" on ${d} (type inference rejects it)`);
  if (d === "int64") return `(~${a})`;
  if (d === "uint64") return `BigInt.asUintN(64, ~${a})`;
  return wrapCode(`~${a}`, d);
}

/** A number as a code literal of dtype `d`: `literalCode(2, "int64")` is `2n`. */
export function literalCode(value: number, d: Dtype): string {
  if (isWideInt(d)) return `${BigInt(Math.trunc(value))}n`;
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  if (Number.isNaN(value)) return "NaN";
  return Object.is(value, -0) ? "-0" : String(value);
}


/** Math functions of the instruction language as JavaScript, before rounding to the result dtype. */
export const MATH_JS: Readonly<Record<string, (a: readonly string[]) => string>> = {
  sqrt: (a) => `Math.sqrt(${a[0]})`, exp: (a) => `Math.exp(${a[0]})`, log: (a) => `Math.log(${a[0]})`,
  log10: (a) => `Math.log10(${a[0]})`, log2: (a) => `Math.log2(${a[0]})`, sin: (a) => `Math.sin(${a[0]})`,
  cos: (a) => `Math.cos(${a[0]})`, tan: (a) => `Math.tan(${a[0]})`, asin: (a) => `Math.asin(${a[0]})`,
  acos: (a) => `Math.acos(${a[0]})`, atan: (a) => `Math.atan(${a[0]})`, atan2: (a) => `Math.atan2(${a[0]}, ${a[1]})`,
  sinh: (a) => `Math.sinh(${a[0]})`, cosh: (a) => `Math.cosh(${a[0]})`, tanh: (a) => `Math.tanh(${a[0]})`,
  pow: (a) => `Math.pow(${a[0]}, ${a[1]})`, fabs: (a) => `Math.abs(${a[0]})`, floor: (a) => `Math.floor(${a[0]})`,
  ceil: (a) => `Math.ceil(${a[0]})`, rsqrt: (a) => `(1 / Math.sqrt(${a[0]}))`, erf: (a) => `H.erf(${a[0]})`,
  fmod: (a) => `(${a[0]} % ${a[1]})`, fma: (a) => `(${a[0]} * ${a[1]} + ${a[2]})`,
  asinh: (a) => `Math.asinh(${a[0]})`, acosh: (a) => `Math.acosh(${a[0]})`, atanh: (a) => `Math.atanh(${a[0]})`,
  log1p: (a) => `Math.log1p(${a[0]})`, expm1: (a) => `Math.expm1(${a[0]})`, cbrt: (a) => `Math.cbrt(${a[0]})`,
  hypot: (a) => `Math.hypot(${a[0]}, ${a[1]})`, exp2: (a) => `Math.pow(2, ${a[0]})`, trunc: (a) => `Math.trunc(${a[0]})`,
  // C's round is half away from zero (Math.round is half up); erfc and copysign have no Math twin.
  round: (a) => `H.cround(${a[0]})`, erfc: (a) => `H.erfc(${a[0]})`, copysign: (a) => `H.copysign(${a[0]}, ${a[1]})`,
};

/**
 * A math call with its arguments already converted to the result dtype `t` (names and arities
 * checked by the caller): `mathCallCode("sqrt", ["x"], "float32")` is `Math.fround(Math.sqrt(x))`.
 */
export function mathCallCode(fn: string, args: readonly string[], t: Dtype): string | undefined {
  if (fn === "min" || fn === "max") {
    // C's fmin/fmax (what the C targets emit): a NaN operand is ignored, where Math.min would give NaN.
    if (isFloat(t)) return args.reduce((acc, a) => `H.f${fn}(${acc}, ${a})`);
    // Exact integers: a conditional works for numbers and BigInts alike.
    return args.reduce((acc, a) => `H.${fn}(${acc}, ${a})`);
  }
  if (fn === "abs") {
    if (isFloat(t)) return `Math.abs(${args[0]})`;
    if (isWideInt(t)) return convertCode(`H.babs(${args[0]})`, "int64", t);
    return convertCode(`Math.abs(${args[0]})`, "float64", t);
  }
  const m = MATH_JS[fn];
  return m && roundCode(m(args), t);
}
