/**
 * The hand-written OKL lexer (src/okl/syntax/lexer.ts) gives exactly the tokens of the moo rules it
 * replaced (kept here as the oracle): type, text, offset, line, column and spaceBefore, on random
 * C-like text and on every file of the OKL corpus.
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

/** Pieces of C-like text; joined, they make strings and character constants that span line splices too. */
const PIECES = [" ", "\t", "\n", "\r\n", "\r", "\\\n", "/", "*", "//x", "/*a\nb*/", "/*", ".", "..", "...", "1", ".5", "0x1fULL", "1e+5f", "'", "'a'", "L'\\''",
  '"', '"s\\"t"', 'u8"x"', "u", "U", "L", "u8", "x_1", "$a", "@", "#", "##", "<", "<<", "<<=", "-", "->", "+", "=", "&", "|", "?", ":", ";", "`", "é", "\u2028", "\\"];

describe("the hand-written OKL lexer", () => {
  it("property: the same tokens as the moo rules on random C-like text", () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (parts) => {
      const text = parts.join("");
      expect(mine(text)).toEqual(reference(text));
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
