/**
 * C's integer conversions for the operators of OKL. The IR types arithmetic as numpy/loopy do
 * (int32 op uint32 is int64, int8 + int8 is int8, uint64 op int64 is float64); OKL is C, whose
 * integer promotions (types narrower than int become int) and usual arithmetic conversions differ:
 * `-1 / 2u` is 2147483647 in C, 0 in the IR. This module computes C's type of each operand and
 * inserts IR casts only where the IR's own typing of the node would differ from C's; a kernel whose
 * operands all have one type (int with int, double with double) is left exactly as it was.
 *
 * Floating point: an unsuffixed literal (`0.5`, `M_PI`) is a double in C, where the IR's weak literal
 * adapts to a float operand; so `x * 0.5` with float x becomes `(float64)x * 0.5` (computed in
 * double, rounded where it is stored), and math calls take C++'s <cmath> overloads (cMathCall).
 *
 *   cBinary("/", a, u, types)   // (uint32)a / u when a is int32 and u uint32
 *   cBinary("*", x, c(0.5, undefined, true), types)   // (float64)x * 0.5 when x is float32
 *   cUnary("-", c8, types)      // -(int32)c8
 */
import { c, cMathType, promote, C_INT_BITS, cPromoted, cUnsigned, cUsualConversion, exprType, isBitwiseOp, isFloat, isShiftOp, MATH_FUNCTIONS, type ArithOp, type Dtype, type Expr, type TypeEnv, type TypeInfo } from "../../ir/index.js";

/** Where the lowering looks names up: arguments, temporaries, block locals (inames are int32). */
export interface CTypeFacts {
  dtypeOf(name: string): Dtype | undefined;
}

/** The C operators this module converts. */
export type CBinaryOp = ArithOp | "<" | ">" | "<=" | ">=" | "==" | "!=";

const BITS = C_INT_BITS;
const UNSIGNED = cUnsigned;

/** C's type of an operand: its dtype, and whether it is an unsuffixed literal (whose IR type adapts). */
interface CType {
  readonly dtype: Dtype;
  readonly literal: boolean;
}

/** C's integer promotion and usual arithmetic conversions (src/ir/c-types.ts), under this module's names. */
export const promoted = cPromoted;
export const usualConversion = cUsualConversion;

/** C's type of an IR expression built from C (undefined where unknown: calls of unknown functions). */
export function cTypeOf(e: Expr, facts: CTypeFacts): Dtype | undefined {
  return cType(e, facts)?.dtype;
}

function cType(e: Expr, facts: CTypeFacts): CType | undefined {
  switch (e.kind) {
    case "neg": case "bitnot": case "arith": case "if": case "call": {
      let t = recentC.get(e, facts);
      if (t === undefined && (t = cTypeOfOperator(e, facts)) !== undefined) recentC.set(e, facts, t);
      return t;
    }
  }
  return cTypeOfOperator(e, facts);
}

function cTypeOfOperator(e: Expr, facts: CTypeFacts): CType | undefined {
  switch (e.kind) {
    case "const":
      if (e.dtype) return cTyped(e.dtype, false);
      if (e.isFloat) return cTyped("float64", true);
      return cTyped(Math.abs(e.value) <= 0x7fffffff ? "int32" : "int64", true);
    case "var": return known(facts.dtypeOf(e.name));
    case "subscript": case "linear": return known(facts.dtypeOf(e.array));
    case "cast": return cTyped(e.dtype, false);
    case "compare": case "logical": case "not": return cTyped("int32", false);
    case "neg": case "bitnot": {
      const t = cType(e.operand, facts);
      return t && cTyped(promoted(t.dtype), t.literal);
    }
    case "arith": {
      const l = cType(e.left, facts);
      if (isShiftOp(e.op)) return l && cTyped(promoted(l.dtype), l.literal);
      const r = cType(e.right, facts);
      return l && r ? cTyped(usualConversion(l.dtype, r.dtype), l.literal && r.literal) : undefined;
    }
    case "if": {
      const a = cType(e.then, facts), b = cType(e.else, facts);
      return a && b ? cTyped(usualConversion(a.dtype, b.dtype), a.literal && b.literal) : undefined;
    }
    case "call": {
      const rule = MATH_FUNCTIONS[e.fn];
      if (rule === undefined) return undefined;
      let t: CType | undefined;
      const ds: Dtype[] = [];
      for (const a of e.args) {
        const x = cType(a, facts);
        if (!x) return undefined;
        ds.push(x.dtype);
        t = t ? cTyped(usualConversion(t.dtype, x.dtype), t.literal && x.literal) : x;
      }
      // sqrt, pow, …: C++'s overloads (cMathCall gave the arguments their types); min, max, abs: the usual conversions.
      return t && rule === "float" ? cTyped(cMathType(ds), t.literal) : t;
    }
    default: return undefined;
  }
}

/**
 * One frozen type object per (dtype, flag), shared: cBinary types both operands' subtrees at every
 * operator of an expression, and a new object per node typed was a third of an import's garbage.
 */
function sharedTypes<T extends object>(make: (dtype: Dtype, flag: boolean) => T): (dtype: Dtype, flag: boolean) => T {
  const maps = [new Map<Dtype, T>(), new Map<Dtype, T>()] as const;
  return (dtype, flag) => {
    const m = maps[flag ? 1 : 0];
    let t = m.get(dtype);
    if (t === undefined) m.set(dtype, (t = Object.freeze(make(dtype, flag))));
    return t;
  };
}
/** CTypes per (dtype, literal). */
const cTyped = sharedTypes((dtype, literal): CType => ({ dtype, literal }));

const known = (d: Dtype | undefined): CType | undefined => (d === undefined ? undefined : cTyped(d, false));

/**
 * The C and IR types of the operator nodes typed last, so that typing an expression bottom-up (as
 * cBinary does at every operator, asking for both operands' types) is linear in its size, not in
 * size times depth: an operator's operands are among the nodes typed just before it. A few
 * entries searched by identity (no map to grow and collect). Only known types are remembered: a
 * name's dtype, once known, never changes (arguments, temporaries, block locals and inames all have
 * fresh names), while an unknown one may become known.
 */
class Recent<T> {
  private readonly nodes: (Expr | undefined)[] = new Array(16).fill(undefined);
  private readonly values: (T | undefined)[] = new Array(16).fill(undefined);
  private facts: CTypeFacts | undefined;
  private next = 0;
  get(e: Expr, facts: CTypeFacts): T | undefined {
    if (facts !== this.facts) return undefined;
    for (let k = 0; k < 16; k++) if (this.nodes[k] === e) return this.values[k];
    return undefined;
  }
  set(e: Expr, facts: CTypeFacts, t: T): void {
    if (facts !== this.facts) {
      this.facts = facts;
      this.nodes.fill(undefined);
      this.values.fill(undefined);
    }
    this.nodes[this.next] = e;
    this.values[this.next] = t;
    this.next = (this.next + 1) & 15;
  }
}
const recentC = new Recent<CType>();
const recentIr = new Recent<TypeInfo>();

/** TypeInfos per (dtype, weak), shared as CTypes are. */
const irTyped = sharedTypes((dtype, weak): TypeInfo => ({ dtype, weak }));

/**
 * `combineTypes(a, b)` as a shared TypeInfo: an operand when it wins, else one per (dtype, weak)
 * (combineTypes makes a new object for every operator typed, and an array for a strong and a weak
 * operand: with irType, a fifth of the lowering's garbage).
 */
function combined(a: TypeInfo, b: TypeInfo): TypeInfo {
  if (a.weak === b.weak) return a.dtype === b.dtype ? a : irTyped(promote(a.dtype, b.dtype), a.weak);
  // combineTypes' rule for a strong and a weak operand, without its [strong, weak] array.
  const strong = a.weak ? b : a;
  const weak = a.weak ? a : b;
  return isFloat(weak.dtype) && !isFloat(strong.dtype) ? irTyped("float64", false) : strong;
}

/** The TypeEnv irType hands exprType, one per facts (not a closure and an object per operand typed). */
const typeEnvs = new WeakMap<CTypeFacts, TypeEnv>();

/**
 * The TypeEnv of `facts`. Its own function: the closure, made in irType, captured irType's
 * parameter, so V8 allocated irType's context on every call (a seventh of the lowering's garbage).
 */
function typeEnvOf(facts: CTypeFacts): TypeEnv {
  let env = typeEnvs.get(facts);
  if (env === undefined) typeEnvs.set(facts, (env = { varType: (n) => facts.dtypeOf(n) }));
  return env;
}

/**
 * The IR's type of `e` (the IR's rules, exprType's), or undefined. Arithmetic, negation and
 * conditionals are typed here from their operands' remembered types, as exprType types them.
 */
function irType(e: Expr, facts: CTypeFacts): TypeInfo | undefined {
  switch (e.kind) {
    // Leaves as exprType types them, without its environment's closure and a new object each.
    case "var": {
      const d = facts.dtypeOf(e.name);
      return d && irTyped(d, false);
    }
    case "subscript": case "linear": {
      const d = facts.dtypeOf(e.array);
      return d && irTyped(d, false);
    }
    case "const":
      if (e.dtype) return irTyped(e.dtype, false);
      return irTyped(e.isFloat ? "float64" : Math.abs(e.value) <= 0x7fffffff ? "int32" : "int64", true);
    case "cast": return irTyped(e.dtype, false);
  }
  const operator = (e.kind === "arith" && !isBitwiseOp(e.op)) || e.kind === "neg" || e.kind === "if";
  if (!operator) {
    try {
      return exprType(e, typeEnvOf(facts));
    } catch {
      return undefined;
    }
  }
  let t = recentIr.get(e, facts);
  if (t !== undefined) return t;
  if (e.kind === "neg") t = irType(e.operand, facts);
  else {
    const a = irType(e.kind === "if" ? e.then : e.left, facts);
    const b = a && irType(e.kind === "if" ? e.else : e.right, facts);
    t = a && b ? combined(a, b) : undefined;
  }
  if (t !== undefined) recentIr.set(e, facts, t);
  return t;
}

/** `e` in dtype `t` (integer `t`): a literal keeps its weak form when its value fits `t`, else becomes C's converted constant. */
function convert(e: Expr, t: Dtype, facts: CTypeFacts): Expr {
  if (e.kind === "const" && e.dtype === undefined && !e.isFloat) {
    if (fits(e.value, t)) return e;
    const bits = BITS[t]!;
    if (bits > 53) return { kind: "cast", dtype: t, value: e };
    const m = 2 ** bits;
    return c(((e.value % m) + m) % m, t, false);
  }
  if (irType(e, facts)?.dtype === t && !(e.kind === "const" && e.dtype === undefined)) return e;
  return { kind: "cast", dtype: t, value: e };
}

function fits(v: number, t: Dtype): boolean {
  const bits = BITS[t];
  if (bits === undefined) return true;
  if (UNSIGNED(t)) return v >= 0 && v < 2 ** bits;
  return v >= -(2 ** (bits - 1)) && v < 2 ** (bits - 1);
}

/**
 * C's `l op r`: the operands converted to C's common type where the IR's typing of the node would
 * differ. `build` makes the node from the converted operands (the caller's `%`, for instance).
 */
export function cBinary(op: CBinaryOp, l: Expr, r: Expr, facts: CTypeFacts, build: (l: Expr, r: Expr) => Expr): Expr {
  const lt = cType(l, facts);
  const rt = cType(r, facts);
  if (!lt || !rt || (lt.literal && rt.literal)) return build(l, r);
  const shift = op === "<<" || op === ">>";
  const t = shift ? promoted(lt.dtype) : usualConversion(lt.dtype, rt.dtype);
  if (isFloat(t)) {
    // Commonly the IR computes in t already (double with double): no operand lists then.
    const li = irType(l, facts), ri = li && irType(r, facts);
    if (ri) {
      const j = combined(li!, ri);
      if (j.dtype === t && (!j.weak || t === "float64")) return build(l, r);
    }
    const xs = [l, r];
    const ys = floatOperands(xs, t, facts);
    return ys === xs ? build(l, r) : build(ys[0]!, ys[1]!);
  }
  if (shift) return build(convert(l, t, facts), r);
  const li = irType(l, facts), ri = irType(r, facts);
  const node = li && ri ? combined(li, ri) : undefined;
  // The IR's node already has C's type, and each operand converts to it without change of value.
  if (node?.dtype === t && lossless(li!, t) && lossless(ri!, t) && literalFits(l, t) && literalFits(r, t)) return build(l, r);
  return build(convert(l, t, facts), convert(r, t, facts));
}

/**
 * Operands of an operation that C computes in the floating type `t`, converted where the IR's
 * typing would compute in another: a float operand meeting a weak double literal (C: `x * 0.5` is
 * double), an integer with a float function (`fmin(i, 3)` is double in C++). A weak float literal
 * is kept where an operand of dtype `t` makes it take `t` (it prints as `0.5`, not `(double)0.5`);
 * operands are unchanged where the IR already computes in `t`.
 */
function floatOperands(xs: readonly Expr[], t: Dtype, facts: CTypeFacts): readonly Expr[] {
  const types = new Array<TypeInfo>(xs.length);
  for (let k = 0; k < xs.length; k++) {
    const it = irType(xs[k]!, facts);
    if (it === undefined) return xs;
    types[k] = it;
  }
  if (computesIn(types, t)) return xs;
  // Floats first (a weak double literal stays, it takes t from the converted operand), then what is still not t.
  let out = xs.map((x, k) => (isFloat(types[k]!.dtype) && !(types[k]!.weak && t === "float64") && types[k]!.dtype !== t ? toFloat(x, t) : x));
  // (Each is typed: a cast of a typed operand or that operand.)
  const outTypes = out.map((x) => irType(x, facts)!);
  if (!computesIn(outTypes, t)) {
    out = out.map((x, k) => (outTypes[k]!.dtype === t && !outTypes[k]!.weak ? x : toFloat(x, t)));
  }
  return out;
}

/** Whether operands of types `ts` compute in `t` by the IR's rules (a weak result only where `t` is float64). */
function computesIn(ts: readonly TypeInfo[], t: Dtype): boolean {
  let j = ts[0]!;
  for (let k = 1; k < ts.length; k++) j = combined(j, ts[k]!);
  return j.dtype === t && (!j.weak || t === "float64");
}

/** `x` in the floating type `t`: a literal as a constant of `t`, anything else cast. */
function toFloat(x: Expr, t: Dtype): Expr {
  return x.kind === "const" && x.dtype === undefined ? c(x.value, t, true) : { kind: "cast", dtype: t, value: x };
}

/**
 * C's `cond ? a : b`: the branches converted to their common type (C11 6.5.15), so that `c ? x : 0.1`
 * with float x is a double and `c ? -1 : 2u` an unsigned int, as C has them before any use.
 */
export function cConditional(cond: Expr, a: Expr, b: Expr, facts: CTypeFacts): Expr {
  return cBinary("+", a, b, facts, (x, y) => ({ kind: "if", cond, then: x, else: y }));
}

/**
 * A math call `name(args)` (IR function `fn`) with C++'s <cmath> overloads: `sqrt(float)` is float,
 * `pow(float, int)`, `fmin(float, double)` and `fmin(int, int)` double; C's float functions (`sqrtf`,
 * `powf`, `fminf`) convert their arguments to float; `min`, `max` and `abs` take the usual arithmetic
 * conversions. Arguments are converted only where the IR's typing of the call would differ.
 *
 *   cMathCall("pow", "pow", [x, c(2)], types)   // pow((float64)x, 2) when x is float32
 *   cMathCall("sqrtf", "sqrt", [d], types)      // sqrt((float32)d) when d is float64
 */
export function cMathCall(name: string, fn: string, args: readonly Expr[], facts: CTypeFacts): Expr {
  const rule = MATH_FUNCTIONS[fn];
  const call = (xs: readonly Expr[]): Expr => ({ kind: "call", fn, args: [...xs] });
  if (rule === undefined || args.length === 0) return call(args);
  const single = fn !== name && name.endsWith("f"); // sqrtf, powf, fminf, …
  if (single) return call(args.map((x) => { const it = irType(x, facts); return it && !it.weak && it.dtype === "float32" ? x : toFloat(x, "float32"); }));
  const ts = args.map((x) => cType(x, facts));
  if (ts.some((x) => x === undefined)) return call(args);
  const ds = ts.map((x) => x!.dtype);
  const cmath = rule === "float" || name === "fmin" || name === "fmax";
  const t = cmath ? cMathType(ds) : ds.reduce((a, b) => usualConversion(a, b));
  if (!isFloat(t)) return call(args);
  const it = irType(call(args), facts);
  return it?.dtype === t && (!it.weak || t === "float64") ? call(args) : call(floatOperands(args, t, facts));
}

/** C's unary `-` or `~`: the operand promoted first. */
export function cUnary(op: "-" | "~", x: Expr, facts: CTypeFacts): Expr {
  const t = cType(x, facts);
  const k = op === "-" ? "neg" : "bitnot";
  if (!t || t.literal || isFloat(t.dtype)) return { kind: k, operand: x };
  const p = promoted(t.dtype);
  return { kind: k, operand: irType(x, facts)?.dtype === p ? x : { kind: "cast", dtype: p, value: x } };
}

/** Every value of `from` is a value of `to` (integers). */
function lossless(from: TypeInfo, to: Dtype): boolean {
  if (from.weak) return true; // checked by literalFits
  if (from.dtype === to) return true;
  const bf = BITS[from.dtype], bt = BITS[to];
  if (bf === undefined || bt === undefined) return false;
  if (UNSIGNED(from.dtype)) return UNSIGNED(to) ? bt >= bf : bt > bf;
  return !UNSIGNED(to) && bt >= bf;
}

function literalFits(e: Expr, t: Dtype): boolean {
  return !(e.kind === "const" && e.dtype === undefined && !e.isFloat) || fits(e.value, t);
}

/** C's dtype of an integer literal's suffix (`u`, `l`, `ul`, `ll`, `ull`), or undefined for none. */
export function suffixDtype(value: number, suffix: string): Dtype | undefined {
  if (suffix === "") return undefined;
  const u = suffix.includes("u");
  const long = suffix.includes("l");
  if (long) return u ? "uint64" : "int64";
  return u ? (value < 2 ** 32 ? "uint32" : "uint64") : undefined;
}
