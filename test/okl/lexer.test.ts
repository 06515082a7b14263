/**
 * The hand-written OKL lexer (src/okl/syntax/lexer.ts) gives exactly the tokens of the moo rules it
 * replaced (kept here as the oracle): type, text, offset, line, column and spaceBefore, on random
 * C-like text (its line splices taken out first, as C's translation phase 2 does) and on every file
 * of the OKL corpus.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import moo from "moo";
import { describe, expect, it } from "vitest";
import { lex } from "../../src/okl/syntax/lexer.js";
import { CORPUS } from "./corpus-path.js";

const PUNCT = [
  "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
  "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##", "::",
  "+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^", "?", ":", ";", ",", ".",
  "(", ")", "[", "]", "{", "}", "#", "@",
];

const oracle = moo.compile({
  nl: { match: /\r?\n/, lineBreaks: true },
  ws: { match: /(?:[ \t\f\v\r]|\\\r?\n)+/, lineBreaks: true },
  // A `//` comment goes on over a line splice (C splices lines before it removes comments).
  comment: [{ match: /\/\/(?:[^\n]|(?<=\\\r?)\n)*/, lineBreaks: true }, { match: /\/\*[\s\S]*?\*\//, lineBreaks: true }],
  number: /\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.'])*/,
  // A string may span lines through a line splice ("a\<newline>b"): its line breaks count.
  string: { match: /(?:u8|[uUL])?"(?:\\[\s\S]|[^"\\\n])*"/, lineBreaks: true },
  char: { match: /(?:[uUL])?'(?:\\[\s\S]|[^'\\\n])*'/, lineBreaks: true },
  ident: /[A-Za-z_$][A-Za-z0-9_$]*/,
  punct: PUNCT,
  other: { match: /[\s\S]/, lineBreaks: true },
});

function reference(text: string): string[] {
  oracle.reset(text);
  const out: string[] = [];
  let space = false;
  for (let t = oracle.next(); t; t = oracle.next()) {
    out.push(`${t.type} ${t.offset} ${t.line}:${t.col} ${space} ${t.text}`);
    space = t.type === "ws" || t.type === "comment" || t.type === "nl";
  }
  return out;
}

const mine = (text: string) => lex(text).map((t) => `${t.type} ${t.offset} ${t.line}:${t.col} ${t.spaceBefore} ${t.text}`);

/** The rules on text with its line splices taken out first (C's translation phase 2): no splice is left to step over. */
const splicedOracle = moo.compile({
  nl: { match: /\r?\n/, lineBreaks: true },
  ws: /[ \t\f\v\r]+/,
  comment: [{ match: /\/\/[^\n]*/ }, { match: /\/\*[\s\S]*?\*\//, lineBreaks: true }],
  number: /\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.'])*/,
  string: /(?:u8|[uUL])?"(?:\\[^\n]|[^"\\\n])*"/,
  char: /(?:[uUL])?'(?:\\[^\n]|[^'\\\n])*'/,
  ident: /[A-Za-z_$][A-Za-z0-9_$]*/,
  punct: PUNCT,
  other: { match: /[\s\S]/, lineBreaks: true },
});

/**
 * The tokens but whitespace of `text` spliced (one pass, as C does), each placed at its first
 * character in `text` (offset, line, column); line breaks without a place.
 */
function splicedReference(text: string): string[] {
  let joined = "";
  const from: number[] = [];
  for (let k = 0; k < text.length;) {
    const m = /^\\\r?\n/.exec(text.slice(k, k + 3));
    if (m) k += m[0].length;
    else (joined += text[k]), from.push(k++);
  }
  const place = (offset: number) => {
    const before = text.slice(0, offset);
    const nl = before.lastIndexOf("\n");
    return `${offset} ${before.split("\n").length}:${offset - nl}`;
  };
  splicedOracle.reset(joined);
  const out: string[] = [];
  let space = false;
  for (let t = splicedOracle.next(); t; t = splicedOracle.next()) {
    if (t.type === "nl") out.push("nl");
    else if (t.type !== "ws") out.push(`${t.type} ${place(from[t.offset]!)} ${space} ${t.text}`);
    space = t.type === "ws" || t.type === "comment" || t.type === "nl";
  }
  return out;
}

/** The lexer's tokens but whitespace, a comment's text with its splices taken out (a line break's place aside: whitespace before it takes its `\r`). */
const mineSpliced = (text: string) => lex(text).filter((t) => t.type !== "ws")
  .map((t) => t.type === "nl" ? "nl" : `${t.type} ${t.offset} ${t.line}:${t.col} ${t.spaceBefore} ${t.type === "comment" ? t.text.replace(/\\\r?\n/g, "") : t.text}`);

/** Pieces of C-like text; joined, they make strings and character constants that span line splices too. */
const PIECES = [" ", "\t", "\n", "\r\n", "\r", "\\\n", "/", "*", "//x", "/*a\nb*/", "/*", ".", "..", "...", "1", ".5", "0x1fULL", "1e+5f", "'", "'a'", "L'\\''",
  '"', '"s\\"t"', 'u8"x"', "u", "U", "L", "u8", "x_1", "$a", "@", "#", "##", "<", "<<", "<<=", "-", "->", "+", "=", "&", "|", "?", ":", ";", "`", "é", "\u2028", "\\"];

describe("the hand-written OKL lexer", () => {
  it("property: the same tokens as the moo rules on random C-like text with its line splices taken out first (a splice may fall inside a token)", () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (parts) => {
      const text = parts.join("");
      expect(mineSpliced(text)).toEqual(splicedReference(text));
    }), { numRuns: 300 });
  });

  it("the same tokens as the moo rules on every file of the OKL corpus", () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) {
          if (n !== "occa-legacy-generated") walk(p); // OCCA's outputs, not OKL inputs
        }
        else if (/\.(okl|cpp|c|h|hpp)$/.test(n)) files.push(p);
      }
    };
    walk(CORPUS);
    expect(files.length).toBeGreaterThan(100);
    const differ = files.filter((f) => {
      const text = readFileSync(f, "utf8");
      return mine(text).join("\n") !== reference(text).join("\n");
    });
    expect(differ).toEqual([]);
  });
});
