/**
 * Running the instruction grammar on one statement or expression, and turning nearley's failures
 * into ParseErrors with a place and a short "expected …" list (never a parser stack dump).
 */
import grammar from "../../grammar/generated/instructions.js";
import { GrammarDriver, expectedText } from "../../grammar/driver.js";
import { InternalError, ParseError } from "../errors.js";
import type { RExpr, RStatement } from "./raw.js";
import { fastExpr, fastStatement } from "./syntax-fast.js";

/** Reports an error at an offset of the text being parsed; never returns. */
export type Fail = (detail: string, offset: number) => never;

/** A Fail for a standalone text: `failIn(src, "expression")("bad", 3)` throws a ParseError at offset 3 of `src`. */
export function failIn(source: string, what: string, base = 0): Fail {
  return (detail, offset) => {
    throw ParseError.at(detail, source, base + offset, what);
  };
}

const TOKEN_NAMES: Readonly<Record<string, string>> = {
  ellipsis: '"..."', number: "a number", hex: "a number", ident: "a name", tagged: "a name", kwAnd: '"and"', kwOr: '"or"', kwNot: '"not"', kwIf: '"if"', kwElse: '"else"',
  attrs: "an attribute block {…}", assign: '":="', tempOpen: '"<>"', pow: '"**"', floordiv: '"//"',
  le: '"<="', ge: '">="', eqeq: '"=="', ne: '"!="', lt: '"<"', gt: '">"', eq: '"="', plus: '"+"',
  minus: '"-"', star: '"*"', slash: '"/"', percent: '"%"', lparen: '"("', rparen: '")"',
  lbrack: '"["', rbrack: '"]"', comma: '","', shl: '"<<"', shr: '">>"', amp: '"&"', pipe: '"|"',
  caret: '"^"', tilde: '"~"',
};

const driver = new GrammarDriver(grammar, TOKEN_NAMES);

function run(text: string, start: "statement" | "exprOnly", fail: Fail): unknown {
  const r = driver.run(text, start);
  if (!r.ok) {
    const { token, expected } = r.failure;
    const want = expectedText(expected, "the end of the statement");
    if (!token) return fail(`unexpected end of statement; expected ${want}`, text.trimEnd().length);
    if (token.type === "invalid") {
      const ch = token.text[0]!;
      if (ch === "{") fail('unclosed "{": an attribute block ends with "}"', token.offset);
      fail(`unexpected character "${ch}"; expected ${want}`, token.offset);
    }
    const hint = token.type === "attrs" ? " (attributes come last, after the whole statement)" : "";
    return fail(`unexpected "${token.text.split("\n")[0]}"; expected ${want}${hint}`, token.offset);
  }
  if (r.results.length > 1) throw new InternalError(`ambiguous instruction grammar: ${r.results.length} parses of "${text}"`);
  return r.results[0];
}

/** One statement as a raw tree: `parseStatementRaw("f(x) := x*x", fail).k` is "rule"; also assignments and `... lbarrier`. */
export function parseStatementRaw(text: string, fail: Fail): RStatement {
  // Recursive descent where it is sure of the answer (syntax-fast.ts); nearley for the rest and every error.
  return fast(fastStatement, text) ?? run(text, "statement", fail) as RStatement;
}

/** One expression as a raw tree: `parseExprRaw("a + 1", fail)` is `{k: "bin", op: "+", …}`. */
export function parseExprRaw(text: string, fail: Fail): RExpr {
  if (text.trim() === "") fail("expected an expression", 0);
  return fast(fastExpr, text) ?? run(text, "exprOnly", fail) as RExpr;
}

/**
 * The fast parser's answer, or undefined where it gives up, nearley deciding: also where its
 * recursion exhausts the stack (nearley's chart parse does not recurse, so a thousand nested
 * parentheses, which it parses, must not be refused here).
 */
function fast<T>(parse: (text: string) => T | undefined, text: string): T | undefined {
  try {
    return parse(text);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}
