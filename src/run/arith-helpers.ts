/**
 * Typed arithmetic as C does it, in two halves: code templates (`convertCode`, `binaryCode`, …)
 * that the expression compiler splices into generated JavaScript, and the runtime helpers `H`
 * those templates call. Representation: 64-bit integers are BigInt, every other dtype a number
 * already rounded or wrapped to its type (float16 as its float value, bool as 0/1).
 */
import { ExecutionError } from "../errors.js";
import type { Dtype } from "../ir/index.js";
import { floatToBig } from "../../codegen/js-arith-code.js";
export { binaryCode, bitNotCode, convertCode, literalCode, negCode } from "../../codegen/js-arith-code.js";
import { f16round, floatToHalf, h2f } from "../ir/float16.js";

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
  toBig: floatToBig,
  /** An element index checked against its array (js code generated with `checkedAccess`). */
  at(a: { readonly length: number }, i: number, array: string): number {
    if (!(i >= 0 && i < a.length)) {
      throw new ExecutionError(`out-of-bounds access: element ${i} of "${array}", which holds ${a.length} (the js backend checks each access of a kernel whose accesses it could not prove in bounds before the run)`);
    }
    return i;
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
  /**
   * `a ** b` of integers of at most 32 bits, modulo 2^32 (the caller converts to the dtype), by
   * squaring: a loop of `b` steps would take seconds for `b` = 2^31.
   */
  ipow(a: number, b: number, _d: Dtype, insn: string): number {
    if (b < 0) throw new ExecutionError(`instruction "${insn}": integer power with negative exponent ${b}`);
    let r = 1;
    let base = a | 0;
    for (let e = b; e > 0; e = Math.floor(e / 2)) {
      if (e % 2 === 1) r = Math.imul(r, base);
      base = Math.imul(base, base);
    }
    return r;
  },
  /** A hardware axis's size or first value, computed exactly (`exactIndexCode`): an ExecutionError past 2^53. */
  exactIndex(v: number, what: string): number {
    if (!Number.isSafeInteger(v)) throw new ExecutionError(`${what} is ${v}, which the interpreter cannot compute exactly`);
    return v;
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
    let base = a;
    for (let e = b; e > 0n; e >>= 1n) {
      if ((e & 1n) === 1n) r = BigInt.asIntN(128, r * base);
      base = BigInt.asIntN(128, base * base);
    }
    return r;
  },
  /**
   * A shift count checked against the width `w` of the promoted shifted value (32, or 64 for
   * 64-bit integers). C leaves other counts undefined; Loom makes them an error.
   */
  shc(b: number | bigint, w: number, insn: string): number {
    const n = Number(b);
    if (n >= 0 && n < w) return n;
    throw new ExecutionError(`instruction "${insn}": shift count ${b} is out of range; a ${w}-bit value shifts by 0 to ${w - 1} bits (other counts are undefined in C)`);
  },
  erf,
  erfc,
  /** C's round: halfway cases away from zero (Math.round rounds them up); -0 and NaN kept. */
  cround(x: number): number {
    const t = Math.trunc(x);
    // x - t is exact (both share x's binade or t is 0); an infinity gives NaN here and stays.
    return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
  },
  /** C's copysign: |a| with the sign bit of b (-0 counts as negative; a NaN b as positive, as C's NAN). */
  copysign(a: number, b: number): number {
    const neg = b < 0 || Object.is(b, -0);
    return neg ? -Math.abs(a) : Math.abs(a);
  },
  /** Minimum and maximum of two exact integers (numbers or BigInts alike). */
  min<T extends number | bigint>(a: T, b: T): T {
    return a < b ? a : b;
  },
  max<T extends number | bigint>(a: T, b: T): T {
    return a > b ? a : b;
  },
  /** C's fmin/fmax of floats: a NaN operand is ignored (the other one is the result), as the C targets compute it. */
  fmin(a: number, b: number): number {
    return a !== a ? b : b !== b ? a : Math.min(a, b);
  },
  fmax(a: number, b: number): number {
    return a !== a ? b : b !== b ? a : Math.max(a, b);
  },
  babs(a: bigint): bigint {
    return a < 0n ? -a : a;
  },
  /** Check an index against its axis extent; the error names instruction, array and index. */
  ix(v: number, n: number, insn: string, array: string, axis: number): number {
    if (v >= 0 && v < n) return v;
    throw new ExecutionError(
      `instruction "${insn}": index ${v} out of bounds for axis ${axis} of "${array}" (extent ${n}${n === 0 ? "; an array passed as null has none" : ""})`);
  },
  /** Check a flat (linear) index against the storage length. */
  lx(v: number, n: number, insn: string, array: string): number {
    if (v >= 0 && v < n) return v;
    throw new ExecutionError(`instruction "${insn}": linear index ${v} out of bounds for "${array}" (${n} elements${n === 0 ? "; an array passed as null has none" : ""})`);
  },
};

/**
 * erfc to about 1e-15 relative: 1 - erf below 0.5 (erfc > 0.47 there: no cancellation), beyond it
 * erfc's continued fraction with enough terms for x (about 200 / x², 800 at 0.5), so tails keep their digits.
 */
function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0.5) return 1 - erf(x);
  let f = x;
  for (let n = Math.max(60, Math.ceil(200 / (x * x))); n >= 1; n--) f = x + n / 2 / f;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

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
