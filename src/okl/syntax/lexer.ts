/**
 * The OKL/C lexer: moo rules for C preprocessing tokens plus OKL's `@`. One pass over a file gives
 * every token with its offset, line and column in that file; whitespace, comments and line breaks are
 * tokens too (the preprocessor needs line breaks, the normalizer keeps comments).
 */
import moo from "moo";

export type TokType = "ws" | "nl" | "comment" | "number" | "string" | "char" | "ident" | "punct" | "other";

/** A token. `offset`/`line`/`col` are in `file` (undefined: the main source). */
export interface Tok {
  readonly type: TokType | "pragma" | "eof";
  readonly text: string;
  readonly offset: number;
  readonly line: number;
  readonly col: number;
  readonly file?: string;
  /** Whitespace or a comment came right before this token (for `#` stringification and printing). */
  readonly spaceBefore?: boolean;
  /** Macros whose expansion produced this token (not expanded again: C's "hide set"). */
  readonly hide?: ReadonlySet<string>;
  /** Set on tokens produced by a macro expansion: the name of the outermost macro. */
  readonly fromMacro?: string;
}

const PUNCT = [
  "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
  "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##", "::",
  "+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^", "?", ":", ";", ",", ".",
  "(", ")", "[", "]", "{", "}", "#", "@",
];

const rules: moo.Rules = {
  nl: { match: /\r?\n/, lineBreaks: true },
  ws: { match: /(?:[ \t\f\v\r]|\\\r?\n)+/, lineBreaks: true },
  comment: [
    { match: /\/\/[^\n]*/ },
    { match: /\/\*[\s\S]*?\*\//, lineBreaks: true },
  ],
  number: /\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.'])*/,
  string: /(?:u8|[uUL])?"(?:\\[\s\S]|[^"\\\n])*"/,
  char: /(?:[uUL])?'(?:\\[\s\S]|[^'\\\n])*'/,
  ident: /[A-Za-z_$][A-Za-z0-9_$]*/,
  punct: PUNCT,
  other: { match: /[\s\S]/, lineBreaks: true },
};

const lexer = moo.compile(rules);

/** Every token of `text` (including whitespace, comments and line breaks), in order. */
export function lex(text: string, file?: string): Tok[] {
  lexer.reset(text);
  const out: Tok[] = [];
  let space = false;
  for (let t = lexer.next(); t; t = lexer.next()) {
    const type = t.type as TokType;
    out.push(
      file === undefined
        ? { type, text: t.text, offset: t.offset, line: t.line, col: t.col, spaceBefore: space }
        : { type, text: t.text, offset: t.offset, line: t.line, col: t.col, file, spaceBefore: space },
    );
    space = type === "ws" || type === "comment" || type === "nl";
  }
  return out;
}
