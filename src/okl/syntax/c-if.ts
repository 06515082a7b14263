/**
 * `#if`/`#elif` conditions of the OKL preprocessor (c-preprocessor.ts): `defined`, macro
 * expansion, names that are not macros as 0, C's integer constant expressions, and OCCA's
 * leniencies: `=` evaluated as an assignment's value (the right-hand side, with a warning), and
 * floating constants (`#if MACH==2.0`).
 */
import type { OklError } from "../../errors.js";
import { evalConst } from "./consteval.js";
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
  const v = evalConst(e, () => 0, { floats: true });
  if (v === undefined) throw pp.error("#if condition is not a constant expression of numbers", expanded[0]!);
  return v !== 0;
}
