/**
 * The OKL/C lexer: C's preprocessing tokens plus OKL's `@`, scanned by hand. One pass over a file gives
 * every token with its offset, line and column in that file; whitespace, comments and line breaks are
 * tokens too (the preprocessor needs line breaks, the normalizer keeps comments).
 */

import { TokenList, type Tok, type TokType } from "./token-list.js";

export { TokenList, type Tok, type TokType } from "./token-list.js";

/** The offset right after `t` in its file (`t.end` where a line splice falls inside it). */
export const tokEnd = (t: Tok): number => t.end ?? t.offset + t.text.length;

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

// Character codes the scanner dispatches on.
const NL = 10, CR = 13, SPACE = 32, TAB = 9, FF = 12, VT = 11, BACKSLASH = 92, SLASH = 47, STAR = 42, DOT = 46;
const DQUOTE = 34, SQUOTE = 39;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c);
/** `[0-9a-zA-Z_.']`: what continues a preprocessing number (besides an exponent's sign). */
const isNumberPart = (c: number) => (isIdentStart(c) && c !== 36) || isDigit(c) || c === DOT || c === SQUOTE;
const isExponent = (c: number) => c === 101 || c === 69 || c === 112 || c === 80; // e E p P
const isSpace = (c: number) => c === SPACE || c === TAB || c === CR || c === FF || c === VT;

/** The end of whitespace with line splices (`(?:[ \t\f\v\r]|\\\r?\n)+`) from `at`, or `at` when there is none. */
function wsEnd(text: string, at: number): number {
  let k = at;
  for (;;) {
    const c = text.charCodeAt(k);
    if (isSpace(c)) k++;
    else if (c === BACKSLASH && text.charCodeAt(k + 1) === NL) k += 2;
    else if (c === BACKSLASH && text.charCodeAt(k + 1) === CR && text.charCodeAt(k + 2) === NL) k += 3;
    else return k;
  }
}

/** Whether the line break at `nl` is spliced away: a backslash right before it (or before its `\r`). */
function splicedAt(text: string, nl: number): boolean {
  const c = text.charCodeAt(nl - 1);
  return c === BACKSLASH || (c === CR && text.charCodeAt(nl - 2) === BACKSLASH);
}

/** The end of a quoted literal whose opening `quote` is at `at` (escapes skipped, no raw line break), or -1. */
function quotedEnd(text: string, at: number, quote: number): number {
  for (let k = at + 1; k < text.length;) {
    const c = text.charCodeAt(k);
    if (c === quote) return k + 1;
    if (c === NL) return -1;
    k += c === BACKSLASH ? 2 : 1;
  }
  return -1;
}

/** The end of a string (`quote` ") or character (') literal at `at` with its optional prefix (`u8`, `u`, `U`, `L`; no `u8` for characters), or -1. */
function literalEnd(text: string, at: number, quote: number): number {
  const c = text.charCodeAt(at);
  if (c === quote) return quotedEnd(text, at, quote);
  if (quote === DQUOTE && c === 117 && text.charCodeAt(at + 1) === 56 && text.charCodeAt(at + 2) === quote) return quotedEnd(text, at + 2, quote); // u8"
  if ((c === 117 || c === 85 || c === 76) && text.charCodeAt(at + 1) === quote) return quotedEnd(text, at + 1, quote); // u" U" L"
  return -1;
}

/** The type of the token `scan` found last; its end is `scanEnd` (no tuple per token). */
let scanEnd = 0;
/** The text of the punctuator `scan` found last: the table's own string (no copy per token, and comparing it with a literal is one pointer test). */
let scanPunct = "";

/**
 * The token at `at` (its type; its end in `scanEnd`), trying the rules in the order C's
 * preprocessing tokens need: line break, whitespace (with line splices), comment, number, string,
 * character, identifier, punctuator, and any other single character. Dispatched on the first
 * character code, scanned by hand (no regular expression, no allocation but the token's text).
 */
function scan(text: string, at: number): TokType {
  const c = text.charCodeAt(at);
  if (isIdentStart(c)) {
    // Strings and characters may start with an identifier letter (u8"", L'x').
    if (c === 117 || c === 85 || c === 76) {
      const s = literalEnd(text, at, DQUOTE);
      if (s >= 0) return (scanEnd = s), "string";
      const q = literalEnd(text, at, SQUOTE);
      if (q >= 0) return (scanEnd = q), "char";
    }
    let k = at + 1;
    while (isIdentPart(text.charCodeAt(k))) k++;
    scanEnd = k;
    return "ident";
  }
  if (c === NL) return (scanEnd = at + 1), "nl";
  if (c === CR && text.charCodeAt(at + 1) === NL) return (scanEnd = at + 2), "nl";
  if (isSpace(c) || c === BACKSLASH) {
    const w = wsEnd(text, at);
    if (w > at) return (scanEnd = w), "ws";
  } else if (c === SLASH) {
    const next = text.charCodeAt(at + 1);
    if (next === SLASH) {
      // C splices lines before it removes comments (and OCCA's tokenizer steps over a backslash and
      // the character after it): a `//` comment whose line ends in `\` goes on (gcc: "multi-line comment").
      let e = text.indexOf("\n", at + 2);
      while (e >= 0 && splicedAt(text, e)) e = text.indexOf("\n", e + 1);
      return (scanEnd = e < 0 ? text.length : e), "comment";
    }
    if (next === STAR) {
      const e = blockCommentEnd(text, at + 2);
      if (e >= 0) return (scanEnd = e), "comment";
    }
  } else if (isDigit(c) || (c === DOT && isDigit(text.charCodeAt(at + 1)))) {
    let k = c === DOT ? at + 2 : at + 1;
    for (;;) {
      const d = text.charCodeAt(k);
      if (isExponent(d)) {
        const s = text.charCodeAt(k + 1);
        k += s === 43 || s === 45 ? 2 : 1; // e+ e- or the letter alone
      } else if (isNumberPart(d)) k++;
      else break;
    }
    scanEnd = k;
    return "number";
  } else if (c === DQUOTE || c === SQUOTE) {
    const e = quotedEnd(text, at, c);
    if (e >= 0) return (scanEnd = e), c === DQUOTE ? "string" : "char";
  }
  const list = PUNCT_BY_FIRST.get(text[at]!);
  if (list) for (const p of list) if (text.startsWith(p, at)) return (scanEnd = at + p.length), (scanPunct = p), "punct";
  scanEnd = at + 1;
  return "other";
}

/**
 * Every token of `text` (including whitespace, comments and line breaks), in order. `trivia: false`
 * leaves out whitespace and comments (line breaks stay; `spaceBefore` still says what preceded), for
 * readers that skip them anyway: a third of a kernel's tokens are the spaces between the others.
 */
export function lex(text: string, file?: string, trivia = true): Tok[] {
  const out = new TokenList();
  lexInto(out, text, file, trivia);
  return out.toArray();
}

/**
 * `lex`'s tokens in chunks of whole lines (each chunk but the last ends with a line break; about
 * 8,192 tokens each): the preprocessor reads a file chunk by chunk, never as one array.
 */
export function lexLines(text: string, file?: string, trivia = true): readonly Tok[][] {
  const out = new TokenList(true);
  lexInto(out, text, file, trivia);
  return out.parts();
}

function lexInto(out: TokenList, text: string, file: string | undefined, trivia: boolean): void {
  let space = false;
  let line = 1;
  let col = 1;
  for (let at = 0; at < text.length;) {
    let type = scan(text, at);
    let end = scanEnd;
    let t = type === "punct" ? scanPunct : undefined;
    // A backslash right after the token (after `..` for `.`: `..\\⏎.` is `...`), or a literal or stray
    // character (rare): a line splice may fall inside the token.
    let joined = false;
    const after = t === "." && text.charCodeAt(end) === DOT ? end + 1 : end;
    if (type === "string" || type === "char" || type === "other" || (text.charCodeAt(after) === BACKSLASH && type !== "ws" && type !== "nl" && type !== "comment")) {
      const s = splicedToken(text, at, end);
      if (s !== undefined) {
        type = s.type;
        t = s.text;
        end = s.end;
        joined = true;
      }
    }
    if (trivia || (type !== "ws" && type !== "comment")) {
      t ??= type === "ident" || type === "number" ? interned(text, at, end) : text.slice(at, end);
      out.push(
        joined
          ? file === undefined ? { type, text: t, offset: at, line, col, spaceBefore: space, end } : { type, text: t, offset: at, line, col, file, spaceBefore: space, end }
          : file === undefined
          ? { type, text: t, offset: at, line, col, spaceBefore: space }
          : { type, text: t, offset: at, line, col, file, spaceBefore: space },
      );
    }
    // Whitespace that is only line splices is no space in C (`F\\⏎(x)` defines a function-like F).
    space = type === "ws" ? space || text.charCodeAt(at) !== BACKSLASH || !splicesOnly(text, at, end) : type === "comment" || type === "nl";
    if (type === "nl") {
      line++;
      col = 1;
      out.lineEnd();
    } else if (!joined && (type === "ident" || type === "punct" || type === "number")) col += end - at; // never a line break
    else {
      // Whitespace with splices, comments, literals with escaped line breaks, any other character.
      let nl = -1;
      for (let k = at; k < end; k++) {
        if (text.charCodeAt(k) === NL) {
          line++;
          nl = k;
        }
      }
      col = nl < 0 ? col + end - at : end - nl;
    }
    at = end;
  }
}

/** Whether a line splice (a backslash and a line break) starts at `k`; its length, else 0. */
function spliceAt(text: string, k: number): number {
  if (text.charCodeAt(k) !== BACKSLASH) return 0;
  const c = text.charCodeAt(k + 1);
  return c === NL ? 2 : c === CR && text.charCodeAt(k + 2) === NL ? 3 : 0;
}

/** The end of a block comment whose text starts at `from`: after the first `*` and `/` (line splices between them too), or -1. */
function blockCommentEnd(text: string, from: number): number {
  for (let k = from; ;) {
    const star = text.indexOf("*", k);
    if (star < 0) return -1;
    let j = star + 1;
    for (let s = spliceAt(text, j); s > 0; s = spliceAt(text, j)) j += s;
    if (text.charCodeAt(j) === SLASH) return j + 1;
    k = star + 1;
  }
}

/** Whether `text` from `at` to `end` is line splices and nothing else. */
function splicesOnly(text: string, at: number, end: number): boolean {
  for (let k = at; k < end;) {
    const s = spliceAt(text, k);
    if (s === 0) return false;
    k += s;
  }
  return true;
}

/**
 * C's translation phase 2 for the token at `at` (which `scan` ended at `end`): lines are spliced
 * before tokens are formed, so `dfl\\⏎oat`, `1.5\\⏎e3`, `+\\⏎=` and a string with a splice are one
 * token. The token is scanned again with the splices after it taken out, one physical line more at a
 * time until it ends before the text joined so far does (a literal or a stray character: to the end
 * of its logical line; a block comment: to the end of the file); undefined when that gives the same
 * token. Its offset, line and column stay those of its first character in the file; `end` is the
 * offset after its last.
 */
function splicedToken(text: string, at: number, end: number): { type: TokType; text: string; end: number } | undefined {
  let joined = "";
  const from: number[] = []; // the file's offset of each character of `joined`
  let type: TokType;
  let len: number;
  for (let k = at; ;) {
    while (k < text.length && text.charCodeAt(k) !== NL && spliceAt(text, k) === 0) {
      joined += text[k];
      from.push(k++);
    }
    type = scan(joined, 0);
    len = scanEnd;
    const open = joined.startsWith("/*") && type !== "comment";
    const s = spliceAt(text, k);
    if (s > 0) k += s;
    else if (open && k < text.length) {
      joined += text[k];
      from.push(k++);
      continue;
    } else break;
    // Read on where the token may go on after what is joined: a literal's prefix, `..` of `...`.
    const more = open || type === "other" || (type === "punct" && len + 2 >= joined.length) ||
      (type === "ident" && (joined.charCodeAt(len) === DQUOTE || joined.charCodeAt(len) === SQUOTE));
    if (len < joined.length && !more) break;
  }
  if (type === "ws" || type === "nl" || len === 0) return undefined;
  const last = from[len - 1]! + 1;
  const t = type === "punct" ? scanPunct : joined.slice(0, len);
  if (last === end && t === text.slice(at, end)) return undefined;
  return { type, text: t, end: last };
}

/**
 * The names and numbers met lately, by a hash of their characters: a kernel repeats a few hundred
 * names thousands of times, and a token whose text is found here shares that string instead of a
 * new copy (a short slice is a copy in V8) that the collector would copy again while the tokens live.
 */
const INTERNED = new Array<string | undefined>(4096).fill(undefined);

/** `text.slice(at, end)`, the string of INTERNED when it has those characters. */
function interned(text: string, at: number, end: number): string {
  let h = end - at;
  for (let k = at; k < end; k++) h = (Math.imul(h, 31) + text.charCodeAt(k)) | 0;
  const slot = (h ^ (h >>> 12)) & 4095;
  const s = INTERNED[slot];
  if (s !== undefined && s.length === end - at) {
    let k = 0;
    while (k < s.length && s.charCodeAt(k) === text.charCodeAt(at + k)) k++;
    if (k === s.length) return s;
  }
  return (INTERNED[slot] = text.slice(at, end));
}
