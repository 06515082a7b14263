/**
 * The OKL/C lexer: C's preprocessing tokens plus OKL's `@`, scanned by hand. One pass over a file gives
 * every token with its offset, line and column in that file; whitespace, comments and line breaks are
 * tokens too (the preprocessor needs line breaks, the normalizer keeps comments).
 */

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

/** Punctuators by first character, longest first (C's maximal munch). */
const PUNCT_BY_FIRST = new Map<string, string[]>();
for (const p of PUNCT) {
  const list = PUNCT_BY_FIRST.get(p[0]!) ?? [];
  list.push(p);
  PUNCT_BY_FIRST.set(p[0]!, list);
}
for (const list of PUNCT_BY_FIRST.values()) list.sort((a, b) => b.length - a.length);

const WS = /(?:[ \t\f\v\r]|\\\r?\n)+/y;
const LINE_COMMENT = /\/\/[^\n]*/y;
const BLOCK_COMMENT = /\/\*[\s\S]*?\*\//y;
const NUMBER = /\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.'])*/y;
const STRING = /(?:u8|[uUL])?"(?:\\[\s\S]|[^"\\\n])*"/y;
const CHAR = /(?:[uUL])?'(?:\\[\s\S]|[^'\\\n])*'/y;
const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*/y;

function sticky(re: RegExp, text: string, at: number): string | undefined {
  re.lastIndex = at;
  return re.exec(text)?.[0];
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;

/**
 * The token at `at` and its type, trying the rules in the order C's preprocessing tokens need:
 * line break, whitespace (with line splices), comment, number, string, character, identifier,
 * punctuator, and any other single character. Dispatched on the first character (a hand-written
 * scanner: a combined regular expression per token was most of the front end's lexing time).
 */
function scan(text: string, at: number): [TokType, string] {
  const ch = text[at]!;
  const c = ch.charCodeAt(0);
  if (ch === "\n") return ["nl", ch];
  if (ch === "\r" && text[at + 1] === "\n") return ["nl", "\r\n"];
  if (ch === " " || ch === "\t" || ch === "\r" || ch === "\f" || ch === "\v" || ch === "\\") {
    const w = sticky(WS, text, at);
    if (w) return ["ws", w];
  } else if (ch === "/") {
    const next = text[at + 1];
    const m = next === "/" ? sticky(LINE_COMMENT, text, at) : next === "*" ? sticky(BLOCK_COMMENT, text, at) : undefined;
    if (m) return ["comment", m];
  } else if (isDigit(c) || (ch === "." && isDigit(text.charCodeAt(at + 1)))) {
    return ["number", sticky(NUMBER, text, at)!];
  } else if (ch === '"' || ch === "'" || ch === "u" || ch === "U" || ch === "L") {
    const s = sticky(STRING, text, at);
    if (s) return ["string", s];
    const q = sticky(CHAR, text, at);
    if (q) return ["char", q];
  }
  if (isIdentStart(c)) return ["ident", sticky(IDENT, text, at)!];
  for (const p of PUNCT_BY_FIRST.get(ch) ?? []) if (text.startsWith(p, at)) return ["punct", p];
  return ["other", ch];
}

/**
 * Every token of `text` (including whitespace, comments and line breaks), in order. `trivia: false`
 * leaves out whitespace and comments (line breaks stay; `spaceBefore` still says what preceded), for
 * readers that skip them anyway: a third of a kernel's tokens are the spaces between the others.
 */
export function lex(text: string, file?: string, trivia = true): Tok[] {
  const out: Tok[] = [];
  let space = false;
  let line = 1;
  let col = 1;
  for (let at = 0; at < text.length;) {
    const [type, t] = scan(text, at);
    if (trivia || (type !== "ws" && type !== "comment")) out.push(
      file === undefined
        ? { type, text: t, offset: at, line, col, spaceBefore: space }
        : { type, text: t, offset: at, line, col, file, spaceBefore: space },
    );
    space = type === "ws" || type === "comment" || type === "nl";
    const nl = t.lastIndexOf("\n");
    if (nl < 0) col += t.length;
    else {
      for (let k = 0; k < t.length; k++) if (t.charCodeAt(k) === 10) line++;
      col = t.length - nl;
    }
    at += t.length;
  }
  return out;
}
