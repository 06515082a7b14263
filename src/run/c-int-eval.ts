/**
 * C's integer meaning of an expression over value arguments, for the sizes the host computes from
 * an OKL source before a launch (derived-args.ts): `(entries + size - 1) / size` is evaluated as C
 * evaluates it in the arguments' types, with C's integer promotions and usual arithmetic
 * conversions, exactly (BigInt). Where C's evaluation is undefined (a signed overflow, a division
 * by zero, a conversion of a value a signed type cannot hold) it is an ExecutionError naming the
 * sub-expression, never a size computed past C's meaning; unsigned arithmetic wraps, as C's does.
 * The IR's own operators keep their meaning: `/` truncates, `//` floors, `%` is Python's (the OKL
 * import spells C's `%` with them, src/okl/lower/c-remainder.ts).
 *
 *   evalCInt(parseExpr("(e + s - 1) / s"), new Map([["e", -(2n**31n)], ["s", -2n]]), types, "eo_end")
 *   // ExecutionError: eo_end: e + s = -2147483650 overflows int32 (undefined in C)
 */
import { ExecutionError } from "../errors.js";
import { C_INT_BITS, cPromoted, cUnsigned, cUsualConversion, exprToString, type Dtype, type Expr } from "../ir/index.js";

/** An integer type C computes in (after the integer promotions): int32, uint32, int64 or uint64. */
interface CType { readonly signed: boolean; readonly bits: number; readonly dtype: Dtype }

const INT: CType = { signed: true, bits: 32, dtype: "int32" };
const name = (t: CType) => t.dtype;
const lo = (t: CType) => (t.signed ? -(1n << BigInt(t.bits - 1)) : 0n);
const hi = (t: CType) => (t.signed ? (1n << BigInt(t.bits - 1)) - 1n : (1n << BigInt(t.bits)) - 1n);

/** C's type of a value of dtype `d` after the integer promotions (src/ir/c-types.ts); undefined for floating types. */
function promoted(d: Dtype): CType | undefined {
  const p = cPromoted(d);
  const bits = C_INT_BITS[p];
  return bits === undefined ? undefined : { signed: !cUnsigned(p), bits, dtype: p };
}

/** C's usual arithmetic conversions of two promoted integer types (src/ir/c-types.ts). */
const common = (a: CType, b: CType): CType => promoted(cUsualConversion(a.dtype, b.dtype))!;

interface Typed { readonly v: bigint; readonly t: CType }

/**
 * C's value of `e` (an integer expression of the IR over value arguments `params`, whose dtypes
 * `types` gives), or an ExecutionError where C has none.
 */
export function evalCInt(e: Expr, params: ReadonlyMap<string, bigint>, types: ReadonlyMap<string, Dtype>, what: string): bigint {
  const fail = (detail: string): never => {
    throw new ExecutionError(`${what}: ${detail}`);
  };
  /** `v` as a value of type `t` (C's conversion: modular into an unsigned type; a signed type must hold it). */
  const convert = (v: bigint, t: CType, n: Expr): bigint => {
    if (!t.signed) return BigInt.asUintN(t.bits, v);
    if (v < lo(t) || v > hi(t)) fail(`${exprToString(n)} = ${v} does not fit ${name(t)} (C's conversion is not defined)`);
    return v;
  };
  /** The result of an operation in type `t`: a signed overflow is undefined in C; unsigned wraps. */
  const result = (v: bigint, t: CType, n: Expr): Typed => {
    if (t.signed && (v < lo(t) || v > hi(t))) fail(`${exprToString(n)} = ${v} overflows ${name(t)} (undefined in C)`);
    return { v: t.signed ? v : BigInt.asUintN(t.bits, v), t };
  };
  /** Two operands converted to their common type (C's usual arithmetic conversions). */
  const operands = (l: Expr, r: Expr): { x: bigint; y: bigint; t: CType } => {
    const a = go(l);
    const b = go(r);
    const t = common(a.t, b.t);
    return { x: convert(a.v, t, l), y: convert(b.v, t, r), t };
  };
  const go = (n: Expr): Typed => {
    switch (n.kind) {
      case "const": {
        if (n.isFloat || !Number.isInteger(n.value)) return fail(`${exprToString(n)} is not an integer`);
        const v = BigInt(n.value);
        const t = n.dtype ? promoted(n.dtype) : v >= lo(INT) && v <= hi(INT) ? INT : promoted("int64");
        if (!t) return fail(`${exprToString(n)} is not an integer`);
        return { v: convert(v, t, n), t };
      }
      case "var": {
        const v = params.get(n.name);
        if (v === undefined) return fail(`uses "${n.name}", which is not a value argument that was passed`);
        const t = promoted(types.get(n.name) ?? "int32");
        if (!t) return fail(`"${n.name}" is not an integer argument`);
        return { v: convert(v, t, n), t };
      }
      case "neg": {
        const a = go(n.operand);
        return result(-a.v, a.t, n);
      }
      case "cast": {
        const t = promoted(n.dtype);
        if (!t) return fail(`${exprToString(n)} converts to a floating type`);
        const a = go(n.value);
        // A cast to a type narrower than int converts to it, then promotes back to int.
        const narrow = /^(u?)int(8|16)$/.exec(n.dtype);
        if (narrow) return { v: convert(a.v, { signed: narrow[1] === "", bits: Number(narrow[2]), dtype: n.dtype }, n), t };
        return { v: convert(a.v, t, n), t };
      }
      case "arith": {
        const { x, y, t } = operands(n.left, n.right);
        switch (n.op) {
          case "+": return result(x + y, t, n);
          case "-": return result(x - y, t, n);
          case "*": return result(x * y, t, n);
          case "/": case "//": case "%": {
            if (y === 0n) return fail(`divides by zero (${exprToString(n.right)} = 0)`);
            if (n.op === "/") return result(x / y, t, n);
            const q = x / y - ((x % y !== 0n) && ((x < 0n) !== (y < 0n)) ? 1n : 0n); // floor
            return result(n.op === "//" ? q : x - q * y, t, n);
          }
          default: return fail(`cannot evaluate ${exprToString(n)} before the run (operator ${n.op})`);
        }
      }
      case "compare": {
        const { x, y } = operands(n.left, n.right);
        const r = n.op === "<" ? x < y : n.op === "<=" ? x <= y : n.op === ">" ? x > y : n.op === ">=" ? x >= y : n.op === "==" ? x === y : x !== y;
        return { v: r ? 1n : 0n, t: INT };
      }
      case "if": {
        const c = go(n.cond);
        const a = go(n.then);
        const b = go(n.else);
        const t = common(a.t, b.t);
        return c.v !== 0n ? { v: convert(a.v, t, n.then), t } : { v: convert(b.v, t, n.else), t };
      }
      case "call":
        if ((n.fn === "min" || n.fn === "max") && n.args.length > 0) {
          const xs = n.args.map(go);
          const t = xs.map((x) => x.t).reduce(common);
          const vs = xs.map((x, k) => convert(x.v, t, n.args[k]!));
          return { v: vs.reduce((p, q) => ((n.fn === "min") === (q < p) ? q : p)), t };
        }
        break;
      default:
        break;
    }
    return fail(`cannot evaluate ${exprToString(n)} before the run`);
  };
  return go(e).v;
}
