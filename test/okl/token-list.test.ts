/**
 * The lexer's and preprocessor's token lists are built in chunks (TokenList, lexer.ts) and read
 * whole: the order and the tokens are those pushed, whatever the count (across the small first
 * chunk and the full ones), and a file of tens of thousands of tokens lexes as its lines do.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lex, TokenList, type Tok } from "../../src/okl/syntax/lexer.js";
import { preprocess } from "../../src/okl/syntax/c-preprocessor.js";
import { assemblyKernel } from "../../bench/okl-scale.js";

const tok = (k: number): Tok => ({ type: "number", text: String(k), offset: k, line: 1, col: k + 1 });

describe("TokenList", () => {
  it("property: toArray gives every pushed token once, in order, for any count", () => {
    fc.assert(fc.property(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 8000, max: 25000 })), (n) => {
      const list = new TokenList();
      for (let k = 0; k < n; k++) list.push(tok(k));
      const all = list.toArray();
      expect(all.length).toBe(n);
      expect(all.every((t, k) => t.offset === k)).toBe(true);
    }), { numRuns: 30 });
  });
});

describe("a file of more tokens than one chunk", () => {
  const src = assemblyKernel(1000);

  it("lexes as its lines lexed one by one (offsets and lines moved to the file's)", () => {
    const whole = lex(src, undefined, false).map((t) => `${t.type} ${t.offset} ${t.line}:${t.col} ${t.text}`);
    expect(whole.length).toBeGreaterThan(3 * 8192);
    const byLine: string[] = [];
    let offset = 0;
    src.split("\n").forEach((line, k, lines) => {
      const text = k < lines.length - 1 ? `${line}\n` : line;
      for (const t of lex(text, undefined, false)) byLine.push(`${t.type} ${t.offset + offset} ${t.line + k}:${t.col} ${t.text}`);
      offset += text.length;
    });
    expect(whole).toEqual(byLine);
  });

  it("preprocesses to the tokens of the macro-free text, each at its place", () => {
    const plain = src.replace(/^#define.*$/gm, "").replace(/\bdfloat\b/g, "double").replace(/\bp_Np\b/g, "16").replace(/\bp_Nacc\b/g, "64");
    const texts = (s: string) => preprocess(s).tokens.map((t) => t.text);
    expect(texts(src)).toEqual(texts(plain));
    const tokens = preprocess(src).tokens;
    expect(tokens.every((t, k) => k === 0 || t.offset >= tokens[k - 1]!.offset)).toBe(true);
  });
});

describe("constructs across the end of a chunk of lines", () => {
  // The first chunk ends at the first line break after 64 tokens: a line of 70 tokens ends it.
  const filler = Array.from({ length: 30 }, (_, k) => `f${k} +`).join(" ");
  const texts = (s: string) => preprocess(s).tokens.map((t) => t.text).join(" ");

  it("a function-like macro's call continues on the next chunk's lines", () => {
    const src = `#define F(a, b) ((a) * (b))\nint x = ${filler} F(1,\n 2);\n`;
    expect(texts(src)).toBe(texts(`#define F(a, b) ((a) * (b))\nint x = ${filler} F(1, 2);\n`));
    expect(texts(src)).toContain("( ( 1 ) * ( 2 ) )");
  });

  it("@directive's string on the next chunk's line", () => {
    const src = `int x = ${filler} 0; @directive(\n"#define X 7"\n)\nint y = X;\n`;
    expect(texts(src)).toContain("int y = 7 ;");
  });

  it("a directive at the start of the next chunk, and a macro defined before it used after", () => {
    const src = `#define A 3\nint x = ${filler} A;\n#define B A\nint y = B;\n`;
    expect(texts(src)).toContain("int y = 3 ;");
    expect(texts(src)).toContain("f29 + 3 ;");
  });
});

