/**
 * IR expressions to typed AST expressions, node for node as the interpreter's expression compiler
 * (`src/run/compile-expr.ts`) evaluates them: each node computed in its own dtype and converted
 * where C converts. Keeping the same structure is what makes the js target bit-identical.
 */
import { assertNever, CodegenError } from "../src/errors.js";
import {
  combineTypes, exprToString, exprType, isBitwiseOp, isFloat, isShiftOp, isWideInt, MATH_FUNCTIONS,
  type Dtype, type Expr, type TypeEnv, type TypeInfo,
} from "../src/ir/index.js";
import { ibin, ilit, type Ex } from "./ast.js";
import { foldLiteral } from "./js-arith-code.js";

/** What expression lowering asks of the lowering around it. */
export interface ExprScope {
  readonly insnId: string;
  readonly env: TypeEnv;
  /** A name read as a value: an iname (maybe substituted), a value argument, a scalar temporary. */
  varEx(name: string): { ex: Ex; dtype: Dtype };
  /** The dtype of an array and the flat index of `a[indices]` / `a[[index]]`. */
  element(e: Expr & { kind: "subscript" | "linear" }): { array: string; index: Ex; dtype: Dtype };
  /**
   * Whether the int32 numerator `e` of a floor division or modulo by a positive constant is
   * provably in [0, INT32_MAX] where the instruction runs (codegen/lower/divisions.ts); then C
   * prints plain `/` and `%`. Absent: never.
   */
  nonneg?(e: Expr): boolean;
}

export function typeOf(e: Expr, s: ExprScope): TypeInfo {
  const t = typeIn(e, s.env);
  if (!t) throw new CodegenError(`instruction "${s.insnId}": cannot determine the dtype of ${exprToString(e)}; add dtypes to the arguments it uses`);
  return t;
}

/**
 * `exprType(e, env)` in a plain recursion for the nodes lowering meets most (arithmetic other than
 * bitwise, negation, `if`, leaves, casts, comparisons): lowering asks for the type of every node
 * of an expression, and `exprType` makes a closure per node (a cost under tsx). Bitwise
 * operators, calls and reductions are `exprType`'s; a property test holds the two equal.
 */
export function typeIn(e: Expr, env: TypeEnv): TypeInfo | undefined {
  switch (e.kind) {
    case "neg": return typeIn(e.operand, env);
    case "if": return combined(typeIn(e.then, env), typeIn(e.else, env));
    case "arith": if (!isBitwiseOp(e.op)) return combined(typeIn(e.left, env), typeIn(e.right, env)); break;
    case "var": return strong(env.varType(e.name));
    case "subscript": case "linear": return strong(env.varType(e.array));
    case "const":
      if (e.dtype) return strong(e.dtype);
      return e.isFloat ? WEAK_FLOAT64 : Math.abs(e.value) <= 0x7fffffff ? WEAK_INT32 : WEAK_INT64;
    case "cast": return strong(e.dtype);
    case "not": case "compare": case "logical": return BOOL;
    default: break;
  }
  return exprType(e, env);
}

const BOOL: TypeInfo = Object.freeze({ dtype: "bool", weak: false });
const WEAK_FLOAT64: TypeInfo = Object.freeze({ dtype: "float64", weak: true });
const WEAK_INT32: TypeInfo = Object.freeze({ dtype: "int32", weak: true });
const WEAK_INT64: TypeInfo = Object.freeze({ dtype: "int64", weak: true });

/** One (frozen) strong type per dtype: lowering types every leaf of every expression. */
const STRONG = new Map<Dtype, TypeInfo>();

function strong(d: Dtype | undefined): TypeInfo | undefined {
  if (!d) return undefined;
  let t = STRONG.get(d);
  if (t === undefined) STRONG.set(d, (t = Object.freeze({ dtype: d, weak: false })));
  return t;
}

function combined(l: TypeInfo | undefined, r: TypeInfo | undefined): TypeInfo | undefined {
  return l && r ? combineTypes(l, r) : undefined;
}

/**
 * A literal of dtype `from` folded to `to` as the interpreter folds it (`foldLiteral`, shared):
 * `convertValue(0.1, "float64", "float16")` is the half nearest 0.1. Wide integers stay plain
 * signed numbers, as C and the js target wrap them after each operation.
 */
export function convertValue(v: number, from: Dtype, to: Dtype): number {
  if (isWideInt(to)) return from === to ? v : Number.isFinite(v) ? Math.trunc(v) : 0;
  const r = foldLiteral(v, from, to);
  return typeof r === "bigint" ? Number(r) : r;
}

/** `e` converted to `want`: `lowerExpr(2*a[i], "float32")` is `2.0f * a[i]` in C. */
export function lowerExpr(e: Expr, want: Dtype, s: ExprScope): Ex {
  const t = typeOf(e, s).dtype;
  if (e.kind === "const") return { k: "lit", value: convertValue(e.value, t, want), dtype: want };
  const n = natural(e, t, s);
  if (t === want) return n;
  // float -> char/short through int: C's direct conversion of an out-of-range value (255.0f to int8_t) is
  // undefined and gcc folds it to 127; through int32 it wraps as the interpreter does (and x86 at run time).
  if (isFloat(t) && NARROW_INTS.has(want)) return { k: "cast", to: want, from: "int32", e: { k: "cast", to: "int32", from: t, e: n } };
  return { k: "cast", to: want, from: t, e: n };
}

const NARROW_INTS: ReadonlySet<Dtype> = new Set(["int8", "uint8", "int16", "uint16"]);

/** A condition as a bool-typed expression. */
export function lowerCond(e: Expr, s: ExprScope): Ex {
  return lowerExpr(e, "bool", s);
}

function natural(e: Expr, t: Dtype, s: ExprScope): Ex {
  switch (e.kind) {
    case "var": {
      const { ex, dtype } = s.varEx(e.name);
      return dtype === t ? ex : { k: "cast", to: t, from: dtype, e: ex };
    }
    case "const": return { k: "lit", value: e.value, dtype: t };
    case "arith": {
      // A shift count keeps its own dtype (C converts the two operands of a shift separately).
      const rt = isShiftOp(e.op) ? typeOf(e.right, s).dtype : t;
      const l = lowerExpr(e.left, t, s);
      const r = lowerExpr(e.right, rt, s);
      // (Two literals, not a spread of an optional field: a spread in a literal is a runtime call per node.)
      const bin: Ex = rt !== t ? { k: "bin", op: e.op, l, r, dtype: t, insn: s.insnId, countDtype: rt } : { k: "bin", op: e.op, l, r, dtype: t, insn: s.insnId };
      // `a // d`, `a % d` with a >= 0 and d > 0 a constant: truncating division floors.
      const exact = (e.op === "//" || e.op === "%") && t === "int32" && e.right.kind === "const" && !e.right.isFloat &&
        Number.isSafeInteger(e.right.value) && e.right.value > 0 && s.nonneg?.(e.left) === true;
      return exact ? { ...bin, nonneg: true } : bin;
    }
    case "neg": return { k: "neg", e: lowerExpr(e.operand, t, s), dtype: t };
    case "bitnot": return { k: "bitnot", e: lowerExpr(e.operand, t, s), dtype: t };
    case "not": return { k: "not", e: lowerExpr(e.operand, typeOf(e.operand, s).dtype, s) };
    case "compare": {
      const ct = combineTypes(typeOf(e.left, s), typeOf(e.right, s)).dtype;
      return { k: "bin", op: e.op, l: lowerExpr(e.left, ct, s), r: lowerExpr(e.right, ct, s), dtype: ct };
    }
    case "logical":
      return {
        k: "bin", op: e.op === "and" ? "&&" : "||", dtype: "bool",
        l: lowerExpr(e.left, typeOf(e.left, s).dtype, s), r: lowerExpr(e.right, typeOf(e.right, s).dtype, s),
      };
    case "if":
      return { k: "cond", c: lowerExpr(e.cond, typeOf(e.cond, s).dtype, s), t: lowerExpr(e.then, t, s), f: lowerExpr(e.else, t, s) };
    case "call": {
      if (!(e.fn in MATH_FUNCTIONS)) {
        throw new CodegenError(`instruction "${s.insnId}": unknown function "${e.fn}"; math functions are ${Object.keys(MATH_FUNCTIONS).join(", ")}`);
      }
      const args = e.args.map((a) => lowerExpr(a, t, s));
      if ((e.fn === "min" || e.fn === "max") && args.length >= 2) {
        return args.reduce((acc, a) => ({ k: "bin", op: e.fn as "min" | "max", l: acc, r: a, dtype: t }));
      }
      return { k: "call", fn: e.fn, args, dtype: t };
    }
    case "subscript": case "linear": {
      const el = s.element(e);
      const load: Ex = { k: "load", array: el.array, index: el.index, dtype: el.dtype };
      return el.dtype === t ? load : { k: "cast", to: t, from: el.dtype, e: load };
    }
    case "reduce":
      // One definition of reductions (identities, accumulators): preprocessing's. Code is generated from realized kernels.
      throw new CodegenError(`instruction "${s.insnId}": the reduction ${exprToString(e)} reached code generation; ` +
        `reductions must be realized by preprocessing first (schedule(k) realizes them unless given realizeReductions: false)`);
    case "cast": return lowerExpr(e.value, e.dtype, s);
    default: return assertNever(e, "expression");
  }
}

/**
 * An integer subscript as an index expression: int32 arithmetic as the program computes it
 * (the interpreter evaluates indices in their own dtype, unwrapped for wide integers).
 */
export function lowerIndex(e: Expr, s: ExprScope, what: string): Ex {
  const t = typeOf(e, s).dtype;
  if (isFloat(t)) throw new CodegenError(`instruction "${s.insnId}": ${what} ${exprToString(e)} is ${t}, not an integer`);
  if (e.kind === "const") return ilit(e.value);
  if (e.kind === "var") {
    const v = s.varEx(e.name);
    if (v.dtype === "int32") return v.ex;
  }
  const ex = lowerExpr(e, t, s);
  return isWideInt(t) ? { k: "cast", to: "int32", from: t, e: ex } : ex;
}

/**
 * Size and stride expressions (integers, parameters, `+ - *`, `//`) as exact index arithmetic.
 * `signed`: the value may be negative (a hardware axis's base, `m // 3` for `m <= i`), so `//`
 * floors with loopy's helper instead of C's truncating division.
 */
export function sizeEx(e: Expr, name: (n: string) => Ex, signed = false): Ex {
  switch (e.kind) {
    case "const": return ilit(e.value);
    case "var": return name(e.name);
    case "neg": return ibin("-", ilit(0), sizeEx(e.operand, name, signed));
    case "arith":
      if (e.op === "+" || e.op === "-" || e.op === "*") return ibin(e.op, sizeEx(e.left, name, signed), sizeEx(e.right, name, signed));
      // Sizes and strides are non-negative: plain C division floors them.
      if (e.op === "//" || e.op === "/") return { k: "bin", op: "//", l: sizeEx(e.left, name, signed), r: sizeEx(e.right, name, signed), dtype: "idx", nonneg: !signed };
      break;
    case "call":
      if ((e.fn === "min" || e.fn === "max") && e.args.length >= 2) {
        return e.args.map((a) => sizeEx(a, name, signed)).reduce((acc, a) => ({ k: "bin", op: e.fn as "min" | "max", l: acc, r: a, dtype: "idx" }));
      }
      break;
    default: break;
  }
  throw new CodegenError(`cannot generate code for the size expression ${exprToString(e)}; use integers, parameters, + - * and //`);
}
