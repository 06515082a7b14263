/**
 * Calls in OKL expressions (expressions.ts): `@dim` variables `x(i, j)` as subscripts, loopy's
 * helpers, math functions, OCCA's vector `length`/`dot`/`clamp`, substitution rules and device
 * functions (inlined, or lowered as statements by the caller).
 *
 *   lowerCall(lw, ast("sqrt(x)"), ctx)   // { kind: "call", fn: "sqrt", args: [x] }
 */
import { c, type Expr } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Ctx } from "./bindings.js";
import { memberCall } from "./class-calls.js";
import { expressionInlinable, inlineCall, type ExprLowerer } from "./inline.js";
import { MATH, warpRefusal } from "./tables.js";
import { isShuffle } from "./warp-shuffles.js";
import { cMathCall, type CTypeFacts } from "./c-conversions.js";

const NO_TYPES: CTypeFacts = { dtypeOf: () => undefined };
import { clampOf, dotOf, lengthOf } from "./vectors.js";

/** A call: @dim subscripts, loopy helpers, math functions, substitution rules and device functions (inlined). */
export function lowerCall(lw: ExprLowerer, e: A.Call, ctx: Ctx): Expr {
  if (e.callee.kind === "member") {
    const m = memberCall(e, ctx, lw.file, (d, p) => lw.fail(d, p)); // `obj.m(…)` of a class template instance (class-calls.ts)
    if (m) return lowerCall(lw, m, ctx);
    return lw.fail(`C++ member function call "${e.callee.arrow ? "->" : "."}${e.callee.name}(…)": member functions are parsed, not lowered`, e.pos, "OKL subset");
  }
  if (e.callee.kind !== "ident") return lw.fail("only calls of named functions are supported", e.pos);
  const name = e.callee.name;
  const vt = lw.vec.typeOf(e, ctx);
  if (vt) lw.fail(`"${name}(…)" gives a "${vt.name}" vector where a scalar is expected`, e.pos);
  if (!lw.file.functions.has(name)) {
    const scalar = vectorScalar(lw, name, e, ctx);
    if (scalar) return scalar;
  }
  const b = ctx.scope.get(name);
  if ((b?.kind === "array" || (b?.kind === "temp" && b.rank === 1)) && b.dim) {
    const at = dimIndex(lw, b.dim, e, ctx);
    return { kind: "subscript", array: b.name, indices: [b.offset ? { kind: "arith", op: "+", left: b.offset, right: at } : at] };
  }
  // A @dim pointer assigned under a condition (pointer-choice.ts reads only plain subscripts through a choice).
  if (b?.kind === "choice") {
    return lw.fail(`local pointer "${name}" must be assigned with "=" in the block that declares it, not under a condition, to be called as a @dim array (a @dim pointer chosen at run time is not supported)`, e.pos);
  }
  // A variable that cannot be used here (a local pointer not yet assigned, ...): its reason, not "unknown function".
  if (b?.kind === "absent" && !lw.file.functions.has(name)) return lw.fail(b.reason, e.pos);
  // The file's own function wins over a math function or helper of its name (`float sqrt(float x, int k)`):
  // C++ overloads, and the user's definition is the one written for this call.
  const f = lw.file.functions.get(name);
  if (f) return ctx.stmtCall && !expressionInlinable(f) ? ctx.stmtCall(f, e, ctx) : inlineCall(lw, f, e, ctx);
  const helper = /^loopy_(floor_div|mod|min|max|fmod)_[a-z0-9]+$/.exec(name);
  if (helper) {
    const [x, y] = args(lw, e, ctx);
    if (helper[1] === "floor_div") return { kind: "arith", op: "//", left: x!, right: y! };
    if (helper[1] === "mod" || helper[1] === "fmod") return { kind: "arith", op: "%", left: x!, right: y! };
    return { kind: "call", fn: helper[1]!, args: [x!, y!] };
  }
  if (name === "isnan") {
    // NaN is the one value that is not equal to itself.
    if (e.args.length !== 1) lw.fail("isnan takes one argument", e.pos);
    const [x] = args(lw, e, ctx);
    return { kind: "compare", op: "!=", left: x!, right: x! };
  }
  if (name === "okl_exp10f" || name === "exp10f" || name === "__exp10f" || name === "exp10") {
    // OCCA's okl_exp10f is CUDA's exp10f: 10^x, which is pow(10, x) in the instruction language.
    const [x] = args(lw, e, ctx);
    if (e.args.length !== 1) lw.fail(`${name} takes one argument`, e.pos);
    return { kind: "call", fn: "pow", args: [name === "exp10" ? c(10, undefined, true) : c(10, "float32", true), x!] };
  }
  const fn = MATH[name];
  if (fn) return cMathCall(name, fn, args(lw, e, ctx), lw.types ?? NO_TYPES); // C++'s overloads (c-conversions.ts)
  if (lw.file.rule(name, (x, scope) => lw.expr(x, { ...ctx, scope }))) return { kind: "call", fn: name, args: args(lw, e, ctx) };
  if (isShuffle(name) && lw.shuffle) return lw.shuffle(name, e, ctx);
  const warp = warpRefusal(name);
  if (warp) return lw.fail(warp, e.pos, "OKL subset");
  return lw.fail(`call of unknown function "${name}" (math functions and device functions defined in the file are supported)`, e.pos);
}

function args(lw: ExprLowerer, e: A.Call, ctx: Ctx): Expr[] {
  return e.args.map((a) => lw.expr(a, ctx));
}

/** OCCA's `length(v)`, `dot(a, b)` and scalar `clamp(x, lo, hi)`, or undefined for other calls. */
function vectorScalar(lw: ExprLowerer, name: string, e: A.Call, ctx: Ctx): Expr | undefined {
  const arity = (n: number) => {
    if (e.args.length !== n) lw.fail(`${name} takes ${n} argument(s), not ${e.args.length}`, e.pos);
  };
  const first = e.args[0] && lw.vec.typeOf(e.args[0], ctx);
  if (name === "length" && first) {
    arity(1);
    return lengthOf(first, lw.vec.comps(e.args[0]!, ctx, first));
  }
  if (name === "dot" && first) {
    arity(2);
    return dotOf(first, lw.vec.comps(e.args[0]!, ctx, first), lw.vec.comps(e.args[1]!, ctx, first));
  }
  if (name === "clamp") {
    arity(3);
    const [v, lo, hi] = e.args.map((a) => lw.expr(a, ctx));
    return clampOf(v!, lo!, hi!);
  }
  if ((name === "length" || name === "dot" || name === "normalize" || name === "cross") && !first) {
    lw.fail(`${name} takes vectors (float2/3/4, double…), not scalars`, e.pos);
  }
  return undefined;
}

/** @dim: x(a0, …) -> the flat index a_p0 + D_p0 * (a_p1 + D_p1 * (…)) (OKL.md §8). */
export function dimIndex(lw: ExprLowerer, dim: { readonly dims: readonly Expr[]; readonly order: readonly number[] }, e: A.Call, ctx: Ctx): Expr {
  const { dims, order } = dim;
  if (e.args.length !== dims.length) lw.fail(`${e.args.length > dims.length ? "Too many" : "Missing"} dimensions, expected ${dims.length} argument(s)`, e.pos, "@dim");
  const a = e.args.map((x) => lw.expr(x, ctx));
  let lin: Expr = a[order[order.length - 1]!]!;
  for (let k = order.length - 2; k >= 0; k--) {
    const p = order[k]!;
    lin = { kind: "arith", op: "+", left: a[p]!, right: { kind: "arith", op: "*", left: dims[p]!, right: lin } };
  }
  return lin;
}
