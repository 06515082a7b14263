/**
 * Expressions to JavaScript source: each node becomes code computing its value in its own dtype
 * (from `exprType`), converted where C would convert. The caller (`interp.ts`) says how names,
 * arrays and reductions are reached; this module knows only arithmetic and indexing.
 */
import { assertNever, ExecutionError } from "../errors.js";
import {
  combineTypes, exprToString, exprType, isFloat, isShiftOp, isWideInt, MATH_FUNCTIONS,
  type Dtype, type Expr, type Reduce, type TypeEnv, type TypeInfo,
} from "../ir/index.js";
import { binaryCode, bitNotCode, convertCode, literalCode, negCode } from "./arith-helpers.js";
import { foldLiteral, mathCallCode } from "../../codegen/js-arith-code.js";

/** Where an array lives in the generated code: JS variable names of its storage and layout. */
export interface ArrayView {
  readonly name: string;
  readonly dtype: Dtype;
  /** The typed array. */
  readonly data: string;
  /** Per-axis extents and strides (variables); undefined when the shape is unknown. */
  readonly extents: readonly string[] | undefined;
  readonly strides: readonly string[] | undefined;
  /** A `CellTracker` variable recording each access (local memory of a parallel kernel), if any. */
  readonly tracker?: string;
}

/** What the expression compiler asks of its caller. */
export interface ExprContext {
  readonly insnId: string;
  readonly env: TypeEnv;
  /** Code and dtype reading a variable: an iname in scope, a scalar temporary, a value argument. */
  varCode(name: string): { code: string; dtype: Dtype };
  array(name: string): ArrayView;
  /** Code evaluating a reduction in dtype `dtype` at the current point. */
  reductionCode(e: Reduce, dtype: Dtype): string;
}

/** The type of `e`, or an ExecutionError naming the instruction: `a[i] + 1` with float32 `a` is float32. */
export function typeInfoOf(e: Expr, ctx: ExprContext): TypeInfo {
  const t = exprType(e, ctx.env);
  if (!t) throw new ExecutionError(`instruction "${ctx.insnId}": cannot determine the dtype of ${exprToString(e)}; add dtypes to the arguments it uses`);
  return t;
}

/**
 * Code computing `e` converted to `want`.
 * `compileExpr(parseExpr("a[i] + 1"), "float32", ctx)` is like `Math.fround(a[i] + 1)`.
 */
export function compileExpr(e: Expr, want: Dtype, ctx: ExprContext): string {
  const t = typeInfoOf(e, ctx).dtype;
  if (e.kind === "const") return foldConst(e.value, t, want);
  return convertCode(natural(e, t, ctx), t, want);
}

/** A literal converted at compile time (`2` as int64 is `2n`, `0.1` as float32 its rounded value). */
function foldConst(value: number, from: Dtype, to: Dtype): string {
  const v = foldLiteral(value, from, to);
  return typeof v === "bigint" ? `${v}n` : literalCode(v, to);
}

const TRUTHY = (code: string) => `(${code}) != 0`;
const JS_COMPARE = { "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "===", "!=": "!==" } as const;

/** Code computing `e` in its own dtype `t`. */
function natural(e: Expr, t: Dtype, ctx: ExprContext): string {
  const lit = JSON.stringify(ctx.insnId);
  switch (e.kind) {
    case "var": {
      const { code, dtype } = ctx.varCode(e.name);
      return convertCode(code, dtype, t);
    }
    case "const": return literalCode(e.value, t);
    case "arith": {
      // A shift count keeps its own dtype (C converts the two operands of a shift separately).
      const rt = isShiftOp(e.op) ? typeInfoOf(e.right, ctx).dtype : t;
      return binaryCode(e.op, compileExpr(e.left, t, ctx), compileExpr(e.right, rt, ctx), t, lit);
    }
    case "neg": return negCode(compileExpr(e.operand, t, ctx), t);
    case "bitnot": return bitNotCode(compileExpr(e.operand, t, ctx), t);
    case "not": return `(${TRUTHY(compileExpr(e.operand, typeInfoOf(e.operand, ctx).dtype, ctx))} ? 0 : 1)`;
    case "compare": {
      const ct = combineTypes(typeInfoOf(e.left, ctx), typeInfoOf(e.right, ctx)).dtype;
      return `(${compileExpr(e.left, ct, ctx)} ${JS_COMPARE[e.op]} ${compileExpr(e.right, ct, ctx)} ? 1 : 0)`;
    }
    case "logical": {
      const a = TRUTHY(compileExpr(e.left, typeInfoOf(e.left, ctx).dtype, ctx));
      const b = TRUTHY(compileExpr(e.right, typeInfoOf(e.right, ctx).dtype, ctx));
      return `(${a} ${e.op === "and" ? "&&" : "||"} ${b} ? 1 : 0)`;
    }
    case "if": {
      const cond = TRUTHY(compileExpr(e.cond, typeInfoOf(e.cond, ctx).dtype, ctx));
      return `(${cond} ? ${compileExpr(e.then, t, ctx)} : ${compileExpr(e.else, t, ctx)})`;
    }
    case "call": return callCode(e.fn, e.args.map((a) => compileExpr(a, t, ctx)), t, ctx);
    case "subscript": case "linear": {
      const view = ctx.array(e.array);
      return convertCode(readCode(view, offsetCode(e, view, ctx), ctx.insnId), view.dtype, t);
    }
    case "reduce": return ctx.reductionCode(e, t);
    case "cast": return compileExpr(e.value, e.dtype, ctx);
    default: return assertNever(e, "expression");
  }
}

const ARITY: Readonly<Record<string, number>> = { atan2: 2, pow: 2, fmod: 2, fma: 3, min: 2, max: 2, hypot: 2, copysign: 2 };

/** A math function with its arguments already converted to the result dtype `t`. */
function callCode(fn: string, args: readonly string[], t: Dtype, ctx: ExprContext): string {
  if (!(fn in MATH_FUNCTIONS)) {
    throw new ExecutionError(`instruction "${ctx.insnId}": unknown function "${fn}"; math functions are ${Object.keys(MATH_FUNCTIONS).join(", ")}`);
  }
  const arity = ARITY[fn] ?? 1;
  if (args.length !== arity && !((fn === "min" || fn === "max") && args.length >= 2)) {
    throw new ExecutionError(`instruction "${ctx.insnId}": ${fn} takes ${arity} argument(s), got ${args.length}`);
  }
  return mathCallCode(fn, args, t)!;
}

/**
 * Code reading element `offset` of an array, as a value of its dtype: float16 `d0` gives
 * `H.h2f(d0[off])`. A tracked view records the read for instruction `insnId` (as the read half of
 * an atomic update when `atomic`).
 */
export function readCode(view: ArrayView, offset: string, insnId = "?", atomic = false): string {
  const el = view.tracker ? `${view.data}[${view.tracker}.${atomic ? "ard" : "rd"}(${offset}, ${JSON.stringify(insnId)})]` : `${view.data}[${offset}]`;
  if (view.dtype === "float16") return `H.h2f(${el})`;
  if (view.dtype === "bool") return `(${el} !== 0 ? 1 : 0)`;
  return el;
}

/** Code storing `value` (already of the array's dtype) at element `offset`: `d0[off] = v;`. */
export function storeCode(view: ArrayView, offset: string, value: string, insnId = "?", atomic = false): string {
  if (view.tracker) {
    const stored = view.dtype === "float16" ? `H.f2h(${value})` : value;
    return `${view.tracker}.${atomic ? "awr" : "wr"}(${view.data}, ${offset}, ${stored}, ${JSON.stringify(insnId)});`;
  }
  return view.dtype === "float16" ? `${view.data}[${offset}] = H.f2h(${value});` : `${view.data}[${offset}] = ${value};`;
}

/**
 * Code computing an index expression the schedule derived from a domain (the size or the first
 * value of a hardware axis: `min((m + 3*n - 3) // 48, (m + n - 1) // 48) - m // 48 + 1`) exactly,
 * as JS numbers: its meaning is the domain's points, not int32 arithmetic. A redundant bound's
 * intermediate `m + 3*n` may pass INT32_MAX where the domain's points do not, and computed in
 * int32 it would wrap and launch no group at all. As the native runtime evaluates launch sizes
 * (`evalSizeExpr`, args.ts; test/run/exact-axes.test.ts checks the two agree); native code, which
 * does compute them in int32, is refused before it runs when they may leave int32 (index-range.ts).
 * Not derived from evalSizeExpr: that one walks the tree with a map of values and lets a division
 * by zero or a float through; this is compiled into the interpreter's code, over the variables in
 * scope (host-loop inames too), and refuses them with the interpreter's errors.
 */
export function exactIndexCode(e: Expr, ctx: ExprContext): string {
  const lit = JSON.stringify(ctx.insnId);
  const go = (n: Expr): string => {
    switch (n.kind) {
      case "const":
        if (Number.isSafeInteger(n.value)) return n.value < 0 ? `(${n.value})` : `${n.value}`;
        break;
      case "var": {
        const { code, dtype } = ctx.varCode(n.name);
        if (isFloat(dtype)) break;
        return isWideInt(dtype) ? `Number(${code})` : `(${code})`;
      }
      case "neg": return `(-${go(n.operand)})`;
      case "arith": {
        const a = go(n.left);
        const b = go(n.right);
        switch (n.op) {
          case "+": case "-": case "*": return `(${a} ${n.op} ${b})`;
          case "//": return `H.ifloordiv(${a}, ${b}, ${lit})`;
          case "/": return `H.idiv(${a}, ${b}, ${lit})`;
          case "%": return `H.imod(${a}, ${b}, ${lit})`;
          default: break;
        }
        break;
      }
      case "call":
        if ((n.fn === "min" || n.fn === "max") && n.args.length >= 1) return `Math.${n.fn}(${n.args.map(go).join(", ")})`;
        break;
      default: break;
    }
    throw new ExecutionError(`${ctx.insnId}: ${exprToString(n)} is not an integer index expression (constants, integer variables, + - * // / %, min, max)`);
  };
  return `H.exactIndex(${go(e)}, ${lit})`;
}

/** An index expression as an exact JS number (not wrapped: the bounds check sees its true value). */
function indexCode(e: Expr, ctx: ExprContext, what: string): string {
  const t = typeInfoOf(e, ctx).dtype;
  if (isFloat(t)) throw new ExecutionError(`instruction "${ctx.insnId}": ${what} ${exprToString(e)} is ${t}, not an integer`);
  const code = compileExpr(e, t, ctx);
  return isWideInt(t) ? `Number(${code})` : code;
}

/**
 * Code of the flat, bounds-checked storage offset of a subscript: `a[i, j]` gives
 * `H.ix(i0, e0_0, …) * s0_0 + H.ix(i1, e0_1, …) * s0_1`.
 */
export function offsetCode(e: Expr & { kind: "subscript" | "linear" }, view: ArrayView, ctx: ExprContext): string {
  const lit = JSON.stringify(ctx.insnId);
  const name = JSON.stringify(view.name);
  if (e.kind === "linear") {
    return `H.lx(${indexCode(e.index, ctx, `linear index of "${view.name}"`)}, ${view.data}.length, ${lit}, ${name})`;
  }
  const { extents, strides } = view;
  if (!extents || !strides) {
    throw new ExecutionError(`instruction "${ctx.insnId}": "${view.name}" has no shape; give it one or use a linear subscript ${view.name}[[…]]`);
  }
  if (e.indices.length !== extents.length) {
    throw new ExecutionError(`instruction "${ctx.insnId}": "${view.name}" has ${extents.length} axes but is subscripted with ${e.indices.length} indices`);
  }
  if (extents.length === 0) return "0";
  return e.indices
    .map((ix, axis) => `H.ix(${indexCode(ix, ctx, `index ${axis} of "${view.name}"`)}, ${extents[axis]}, ${lit}, ${name}, ${axis}) * ${strides[axis]}`)
    .join(" + ");
}
