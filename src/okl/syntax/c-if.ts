/**
 * `#if`/`#elif` conditions of the OKL preprocessor (c-preprocessor.ts): `defined`, macro
 * expansion, names that are not macros as 0, C's integer constant expressions, and OCCA's
 * leniencies: `=` evaluated as an assignment's value (the right-hand side, with a warning), and
 * floating constants (`#if MACH==2.0`).
 */
import type { OklError } from "../../errors.js";
import { evalConst } from "./consteval.js";
import type { Expr } from "./ast.js";
import type { Tok } from "./lexer.js";
import { parseConstExprTokens } from "./parse-expr.js";

/** What `#if` evaluation needs of the preprocessor. */
export interface IfHost {
  /** Whether a macro of that name is defined. */
  defined(name: string): boolean;
  expand(toks: readonly Tok[]): Tok[];
  error(detail: string, at: Tok): OklError;
  /** Accepts what OCCA accepts with a warning (or fails in "error" mode). */
  warn(detail: string, at: Tok): void;
}

/** The value of a `#if`/`#elif` condition `rest` (the directive at `at`). */
export function evalIfCondition(rest: readonly Tok[], at: Tok, pp: IfHost): boolean {
  const toks: Tok[] = [];
  for (let k = 0; k < rest.length; k++) {
    const t = rest[k]!;
    if (t.text === "defined") {
      let name: Tok | undefined;
      if (rest[k + 1]?.text === "(") {
        name = rest[k + 2];
        if (rest[k + 3]?.text !== ")") throw pp.error("defined( expects a name and )", t);
        k += 3;
      } else {
        name = rest[k + 1];
        k += 1;
      }
      if (!name || name.type !== "ident") throw pp.error("defined expects a macro name", t);
      toks.push({ ...t, type: "number", text: pp.defined(name.text) ? "1" : "0" });
    } else toks.push(t);
  }
  const expanded = pp.expand(toks).map((t) =>
    t.type === "ident" ? { ...t, type: "number" as const, text: t.text === "true" ? "1" : "0" } : t,
  );
  if (expanded.length === 0) throw pp.error("#if with no expression", at);
  return evalTokens(withoutAssignments(expanded, rest, pp), pp);
}

/**
 * `expanded` with each `=` taken as OCCA takes it: OCCA's expression parser gives `=` the lowest
 * precedence and evaluates an assignment as its right-hand side, so within its parentheses (or the
 * whole condition) `L = R` is `R`: `#if OCCA_USE_CUDA=1` is `#if 1`, and benchParanumal's
 * `#if p_N>6 || (OCCA_USE_CUDA=1 && p_N>5)` is `#if p_N>6 || (1 && p_N>5)`. Each is a warning.
 */
function withoutAssignments(expanded: readonly Tok[], rest: readonly Tok[], pp: IfHost): Tok[] {
  if (!expanded.some((t) => t.text === "=")) return [...expanded];
  const groups: Tok[][] = [[]];
  for (const t of expanded) {
    const group = groups[groups.length - 1]!;
    if (t.text === "(") {
      group.push(t);
      groups.push([]);
    } else if (t.text === ")" && groups.length > 1) {
      groups.pop();
      groups[groups.length - 1]!.push(...group, t);
    } else if (t.text === "=" && group.length > 0) {
      pp.warn(`"=" in #if assigns, it does not compare: OCCA evaluates "${rest.map((x) => x.text).join(" ")}" taking each "L = R" as the assigned value R (write "==" to compare)`, t);
      group.length = 0;
    } else group.push(t);
  }
  // An unclosed "(" is left for the parser to report.
  return groups.flat();
}

/**
 * The value of expanded `#if` tokens: C's integer constant expression, and floating constants as
 * OCCA evaluates them (its `#if` reads literals as its primitive numbers: libParanumal's
 * `#define MACH 2.0` … `#if MACH==0.1` … `#elif MACH==2.0`, which C's preprocessor refuses).
 */
function evalTokens(expanded: readonly Tok[], pp: IfHost): boolean {
  const e = parseConstExprTokens(expanded, (d, tok) => pp.error(`in #if: ${d}`, tok));
  const v = evalConst(e, () => 0) ?? evalNumber(e);
  if (v === undefined) throw pp.error("#if condition is not a constant expression of numbers", expanded[0]!);
  return v !== 0;
}

/** A constant expression with floating literals: doubles where an operand is one, C's integer rules otherwise. */
function evalNumber(e: Expr): number | undefined {
  const num = (x: Expr): { v: number; f: boolean } | undefined => {
    switch (x.kind) {
      case "int": case "char": return { v: x.value, f: false };
      case "float": return { v: x.value, f: true };
      case "bool": return { v: x.value ? 1 : 0, f: false };
      case "unary": {
        const a = num(x.operand);
        if (!a) return undefined;
        if (x.op === "-") return { v: -a.v, f: a.f };
        if (x.op === "+") return a;
        if (x.op === "!") return { v: a.v ? 0 : 1, f: false };
        return a.f || x.op !== "~" ? undefined : { v: ~a.v, f: false };
      }
      case "binary": {
        const l = num(x.left);
        if (!l) return undefined;
        if (x.op === "&&" && !l.v) return { v: 0, f: false };
        if (x.op === "||" && l.v) return { v: 1, f: false };
        const r = num(x.right);
        if (!r) return undefined;
        const f = l.f || r.f;
        switch (x.op) {
          case "+": return { v: l.v + r.v, f };
          case "-": return { v: l.v - r.v, f };
          case "*": return { v: l.v * r.v, f };
          case "/": return r.v === 0 && !f ? undefined : { v: f ? l.v / r.v : Math.trunc(l.v / r.v), f };
          case "<": return { v: +(l.v < r.v), f: false };
          case ">": return { v: +(l.v > r.v), f: false };
          case "<=": return { v: +(l.v <= r.v), f: false };
          case ">=": return { v: +(l.v >= r.v), f: false };
          case "==": return { v: +(l.v === r.v), f: false };
          case "!=": return { v: +(l.v !== r.v), f: false };
          case "&&": return { v: +(l.v !== 0 && r.v !== 0), f: false };
          case "||": return { v: +(l.v !== 0 || r.v !== 0), f: false };
          default: return f ? undefined : { v: evalConst(x, () => 0) ?? NaN, f: false };
        }
      }
      case "conditional": {
        const c = num(x.cond);
        return c === undefined ? undefined : num(c.v ? x.then : x.else);
      }
      case "cast": return num(x.operand);
      default: return undefined;
    }
  };
  const r = num(e);
  return r === undefined || Number.isNaN(r.v) ? undefined : r.v;
}
