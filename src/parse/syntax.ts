/**
 * Running the instruction grammar on one statement or expression, and turning nearley's failures
 * into ParseErrors with a place and a short "expected …" list (never a parser stack dump).
 */
import nearley from "nearley";
import grammar from "../../grammar/generated/instructions.js";
import { InternalError, ParseError } from "../errors.js";
import type { RExpr, RStatement } from "./raw.js";

/** Reports an error at an offset of the text being parsed; never returns. */
export type Fail = (detail: string, offset: number) => never;

/** A Fail for a standalone text: `failIn(src, "expression")("bad", 3)` throws a ParseError at offset 3 of `src`. */
export function failIn(source: string, what: string, base = 0): Fail {
  return (detail, offset) => {
    throw ParseError.at(detail, source, base + offset, what);
  };
}

const TOKEN_NAMES: Readonly<Record<string, string>> = {
  ellipsis: '"..."', number: "a number", ident: "a name", kwAnd: '"and"', kwOr: '"or"', kwNot: '"not"',
  attrs: "an attribute block {…}", assign: '":="', tempOpen: '"<>"', pow: '"**"', floordiv: '"//"',
  le: '"<="', ge: '">="', eqeq: '"=="', ne: '"!="', lt: '"<"', gt: '">"', eq: '"="', plus: '"+"',
  minus: '"-"', star: '"*"', slash: '"/"', percent: '"%"', lparen: '"("', rparen: '")"',
  lbrack: '"["', rbrack: '"]"', comma: '","',
};

type Table = { states: { rule: { symbols: unknown[] }; dot: number }[] }[];

function expectedAt(parser: nearley.Parser, column: number): string {
  // The states of the last good column that wait for a terminal say what would have been accepted.
  const table = (parser as unknown as { table: Table }).table;
  const want = new Set<string>();
  for (const st of table[column]?.states ?? []) {
    const sym = st.rule.symbols[st.dot] as { type?: string; literal?: string } | string | undefined;
    if (sym && typeof sym !== "string") want.add(sym.type ? TOKEN_NAMES[sym.type] ?? sym.type : JSON.stringify(sym.literal));
  }
  const list = [...want].sort();
  return list.length === 0 ? "the end of the statement" : list.length === 1 ? list[0]! : `one of ${list.join(", ")}`;
}

const grammars = new Map<string, nearley.Grammar>();

function run(text: string, start: "statement" | "exprOnly", fail: Fail): unknown {
  let g = grammars.get(start);
  if (!g) {
    g = nearley.Grammar.fromCompiled(grammar as unknown as nearley.CompiledRules);
    g.start = start;
    grammars.set(start, g);
  }
  const parser = new nearley.Parser(g);
  try {
    parser.feed(text);
  } catch (e) {
    const tok = (e as { token?: { type?: string; text: string; offset: number } }).token;
    if (!tok) throw e;
    const table = (parser as unknown as { table: unknown[] }).table;
    if (tok.type === "invalid") {
      const ch = tok.text[0]!;
      if (ch === "{") fail('unclosed "{": an attribute block ends with "}"', tok.offset);
      fail(`unexpected character "${ch}"; expected ${expectedAt(parser, table.length - 2)}`, tok.offset);
    }
    const hint = tok.type === "attrs" ? " (attributes come last, after the whole statement)" : "";
    fail(`unexpected "${tok.text.split("\n")[0]}"; expected ${expectedAt(parser, table.length - 2)}${hint}`, tok.offset);
  }
  if (parser.results.length === 0) {
    const table = (parser as unknown as { table: unknown[] }).table;
    fail(`unexpected end of statement; expected ${expectedAt(parser, table.length - 1)}`, text.trimEnd().length);
  }
  if (parser.results.length > 1) throw new InternalError(`ambiguous instruction grammar: ${parser.results.length} parses of "${text}"`);
  return parser.results[0];
}

/** One statement as a raw tree: `parseStatementRaw("f(x) := x*x", fail).k` is "rule"; also assignments and `... lbarrier`. */
export function parseStatementRaw(text: string, fail: Fail): RStatement {
  return run(text, "statement", fail) as RStatement;
}

/** One expression as a raw tree: `parseExprRaw("a + 1", fail)` is `{k: "bin", op: "+", …}`. */
export function parseExprRaw(text: string, fail: Fail): RExpr {
  if (text.trim() === "") fail("expected an expression", 0);
  return run(text, "exprOnly", fail) as RExpr;
}
