/**
 * Raw tree → IR expressions: literals get their types, `if`/`cast`/reductions/rule calls are
 * recognised, and every name is reported (with its place) to the caller, which uses that to
 * infer arguments and to reject unknown variables.
 */
import { LoomError } from "../errors.js";
import { c, withTag, type ArithOp, type CompareOp, type Expr, type ReductionOp } from "../ir/expr.js";
import { isFloat, parseDtype, type Dtype } from "../ir/dtype.js";
import { MATH_FUNCTIONS } from "../ir/types.js";
import type { RExpr } from "./raw.js";
import type { Fail } from "./syntax.js";

/** How a name was used: a plain variable, a subscripted array, or a called rule. */
export type NameUse = "var" | "array" | "rule";

export interface LowerContext {
  readonly fail: Fail;
  /** Known inames; undefined when there is no kernel (`parseExpr`): `max(x, e)` is then a call. */
  readonly inames?: ReadonlySet<string>;
  /** Substitution rules (name → number of parameters); undefined: any unknown call is kept. */
  readonly rules?: ReadonlyMap<string, number>;
  /** Names bound around the expression (a rule's parameters). */
  readonly bound?: readonly string[];
  /** Told about every free name, in source order. */
  readonly onName?: (name: string, at: number, use: NameUse) => void;
}

const ARITH = new Set(["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"]);
const COMPARE = new Set(["<", "<=", ">", ">=", "==", "!="]);

/** A literal's value and type: `literal("2.5f", 0, fail)` is `c(2.5, "float32")`; `2` and `2.0` are implicitly typed. */
export function literal(text: string, at: number, fail: Fail): Expr {
  // Hexadecimal integers (masks: `0xff`), implicitly typed like decimal ones; `f`/`d` are digits here.
  if (/^-?0[xX]/.test(text)) {
    const value = (text.startsWith("-") ? -1 : 1) * Number(text.replace(/^-/, ""));
    if (!Number.isSafeInteger(value)) fail(`number ${text} is out of range`, at);
    return c(value);
  }
  const suffix = /[fd]$/.test(text) ? text[text.length - 1] : "";
  const body = suffix ? text.slice(0, -1) : text;
  const value = Number(body);
  if (!Number.isFinite(value)) fail(`number ${text} is out of range`, at);
  if (suffix === "f") return c(value, "float32");
  if (suffix === "d") return c(value, "float64");
  return c(value, undefined, /[.eE]/.test(body));
}

/**
 * Lower a raw expression in `ctx`: with `ctx.inames` = {k}, the raw tree of `max(k, a[k])`
 * becomes `{kind: "reduce", op: "max", inames: ["k"], body: a[k]}`.
 */
export function lowerExpr(r: RExpr, ctx: LowerContext): Expr {
  const bound: string[] = [...(ctx.bound ?? [])];
  const go = (n: RExpr): Expr => {
    switch (n.k) {
      case "num": return literal(n.text, n.at, ctx.fail);
      case "name": {
        if (!bound.includes(n.name)) {
          if (ctx.rules?.get(n.name) === 0) {
            ctx.onName?.(n.name, n.at, "rule");
            return withTag({ kind: "call", fn: n.name, args: [] }, n.tag);
          }
          ctx.onName?.(n.name, n.at, "var");
        }
        return withTag({ kind: "var", name: n.name }, n.tag);
      }
      case "bin": {
        const left = go(n.a);
        const right = go(n.b);
        if (ARITH.has(n.op)) return { kind: "arith", op: n.op as ArithOp, left, right };
        if (COMPARE.has(n.op)) return { kind: "compare", op: n.op as CompareOp, left, right };
        return { kind: "logical", op: n.op as "and" | "or", left, right };
      }
      case "neg": return { kind: "neg", operand: go(n.e) };
      case "not": return { kind: "not", operand: go(n.e) };
      case "bitnot": return { kind: "bitnot", operand: go(n.e) };
      case "sub":
        arrayUse(n.name, n.at);
        return withTag({ kind: "subscript", array: n.name, indices: n.idx.map(go) }, n.tag);
      case "lin":
        arrayUse(n.name, n.at);
        return withTag({ kind: "linear", array: n.name, index: go(n.idx) }, n.tag);
      case "tuple":
        return ctx.fail("a tuple is only allowed as the iname list of a reduction, as in sum((k, l), e)", n.at);
      case "call": return call(n);
    }
  };
  const arrayUse = (name: string, at: number): void => {
    if (ctx.rules?.has(name)) ctx.fail(`"${name}" is a substitution rule: call it as ${name}(…), not ${name}[…]`, at);
    if (bound.includes(name)) ctx.fail(`"${name}" is a rule parameter or reduction iname and cannot be subscripted`, at);
    ctx.onName?.(name, at, "array");
  };
  const call = (n: Extract<RExpr, { k: "call" }>): Expr => {
    const { fn, args, at } = n;
    // A tag marks a use of a rule (or, in a lone expression, of a call that may be one).
    if (n.tag !== undefined && (["if", "cast", "sum", "product"].includes(fn) || isReduction(fn, args) || (ctx.rules !== undefined && !ctx.rules.has(fn)))) {
      ctx.fail(`"${fn}$${n.tag}": a tag marks a use of a variable, an array or a substitution rule, not of ${MATH_FUNCTIONS[fn] !== undefined || !ctx.rules ? `the function ${fn}` : `"${fn}", which is not a substitution rule`}`, at);
    }
    const arity = (k: number, form: string): void => {
      if (args.length !== k) ctx.fail(`${fn} takes ${k} arguments, as in ${form}; got ${args.length}`, at);
    };
    if (fn === "if") {
      arity(3, "if(cond, then, else)");
      return { kind: "if", cond: go(args[0]!), then: go(args[1]!), else: go(args[2]!) };
    }
    if (fn === "cast") {
      arity(2, "cast(float32, x)");
      return cast(args[0]!, go(args[1]!));
    }
    if (isReduction(fn, args)) return reduction(fn as ReductionOp, args[0]!, args[1]!);
    if (fn === "sum" || fn === "product") {
      arity(2, `${fn}(k, expr)`);
      return ctx.fail(`the first argument of ${fn} must be an iname or a tuple of inames`, args[0]!.at);
    }
    const ruleArity = ctx.rules?.get(fn);
    if (ruleArity !== undefined) {
      if (ruleArity !== args.length) ctx.fail(`substitution rule ${fn} takes ${ruleArity} arguments, got ${args.length}`, at);
      ctx.onName?.(fn, at, "rule");
    } else if (ctx.rules !== undefined && MATH_FUNCTIONS[fn] === undefined) {
      const known = [...Object.keys(MATH_FUNCTIONS), "if", "cast", "sum", "product"].sort().join(", ");
      ctx.fail(`unknown function "${fn}"; known functions are ${known}, and the substitution rules`, at);
    }
    return withTag({ kind: "call", fn, args: args.map(go) }, n.tag);
  };
  const isReduction = (fn: string, args: readonly RExpr[]): boolean => {
    if (args.length !== 2) return false;
    const first = args[0]!;
    if (fn === "sum" || fn === "product") return first.k === "name" || first.k === "tuple";
    if (fn !== "max" && fn !== "min") return false;
    // max(x, e) is a reduction only over inames; otherwise the binary function.
    return first.k === "tuple" || (first.k === "name" && ctx.inames?.has(first.name) === true);
  };
  const reduction = (op: ReductionOp, first: RExpr, body: RExpr): Expr => {
    const items = first.k === "tuple" ? first.items : [first];
    if (items.length === 0) ctx.fail(`${op} needs at least one iname`, first.at);
    const inames: string[] = [];
    for (const it of items) {
      if (it.k !== "name") return ctx.fail(`the inames of a reduction must be names`, it.at);
      if (inames.includes(it.name)) ctx.fail(`iname "${it.name}" appears twice in the reduction`, it.at);
      if (bound.includes(it.name)) ctx.fail(`iname "${it.name}" is already reduced by an enclosing reduction`, it.at);
      if (ctx.inames && !ctx.inames.has(it.name)) {
        ctx.fail(`reduction over unknown iname "${it.name}"; inames are ${[...ctx.inames].join(", ") || "(none)"}`, it.at);
      }
      inames.push(it.name);
    }
    bound.push(...inames);
    const lowered = go(body);
    bound.splice(bound.length - inames.length, inames.length);
    return { kind: "reduce", op, inames, body: lowered };
  };
  const cast = (typeArg: RExpr, value: Expr): Expr => {
    if (typeArg.k !== "name") return ctx.fail("the first argument of cast is a dtype, as in cast(float32, x)", typeArg.at);
    let dtype: Dtype;
    try {
      dtype = parseDtype(typeArg.name);
    } catch (e) {
      if (e instanceof LoomError) return ctx.fail(e.message, typeArg.at);
      throw e;
    }
    // cast(int64, 3) is how an explicitly typed literal prints: read it back as that literal.
    if (value.kind === "const" && value.dtype === undefined && (isFloat(dtype) || (!value.isFloat && Number.isInteger(value.value)))) {
      return c(value.value, dtype);
    }
    return { kind: "cast", dtype, value };
  };
  return go(r);
}
