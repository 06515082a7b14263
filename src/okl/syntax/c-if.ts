/**
 * `#if`/`#elif` conditions of the OKL preprocessor (c-preprocessor.ts): `defined`, macro
 * expansion, names that are not macros as 0, C's integer constant expressions, and OCCA's
 * leniency for `#if X=1` (the assignment's value, the right-hand side, with a warning).
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
  // `#if X=1`: OCCA evaluates the assignment, whose value is the right-hand side's.
  let depth = 0;
  const assign = expanded.findIndex((x) => (x.text === "(" ? (depth++, false) : x.text === ")" ? (depth--, false) : depth === 0 && x.text === "="));
  if (assign > 0 && assign < expanded.length - 1) {
    const left = rest.map((x) => x.text).join(" ").split("=")[0]!.trim();
    pp.warn(`"=" in #if assigns, it does not compare: OCCA evaluates "${left}=…" as the assigned value (write "==" to compare)`, expanded[assign]!);
    return evalTokens(expanded.slice(assign + 1), pp);
  }
  return evalTokens(expanded, pp);
}

/** The value of expanded `#if` tokens as a C integer constant expression. */
function evalTokens(expanded: readonly Tok[], pp: IfHost): boolean {
  const e = parseConstExprTokens(expanded, (d, tok) => pp.error(`in #if: ${d}`, tok));
  const v = evalConst(e, () => 0);
  if (v === undefined) throw pp.error("#if condition is not an integer constant expression", expanded[0]!);
  return v !== 0;
}

