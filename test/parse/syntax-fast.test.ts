import { describe, expect, it } from "vitest";
import fc from "fast-check";
import grammar from "../../grammar/generated/instructions.js";
import { GrammarDriver } from "../../grammar/driver.js";
import { fastExpr, fastStatement } from "../../src/parse/syntax-fast.js";

// The reference: nearley on the same grammar (what syntax.ts runs where the fast parser gives up).
const driver = new GrammarDriver(grammar, {});
const nearley = (text: string, start: "statement" | "exprOnly"): string | undefined => {
  const r = driver.run(text, start);
  if (!r.ok) return undefined;
  expect(r.results.length).toBe(1);
  return JSON.stringify(r.results[0]);
};

const sp = fc.constantFrom("", " ", "  ", "\n", "\t");
const name = fc.constantFrom("a", "b", "i", "j", "x1", "_t", "sum", "f", "if_", "andy");
const num = fc.constantFrom("0", "3", "12", "1.5", "2.", ".5", "1e3", "2.5e-2f", "1d", "0x1F", "7f");
const binop = fc.constantFrom("or", "and", "|", "^", "&", "<", "<=", ">", ">=", "==", "!=", "<<", ">>", "+", "-", "*", "/", "//", "%", "**");

/** Expression texts of every form of the grammar, written without extra parentheses (precedence decides). */
const { expr } = fc.letrec<{ expr: string; list: string; arg: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    num,
    name,
    fc.tuple(name, name).map(([n, t]) => `${n}$${t}`),
    fc.tuple(tie("expr"), sp, binop, sp, tie("expr")).map((p) => p.join(binopSpace(p[2]))),
    fc.tuple(fc.constantFrom("-", "+", "~", "not "), tie("expr")).map(([o, e]) => o + e),
    fc.tuple(tie("expr"), tie("expr"), tie("expr")).map(([t, c, e]) => `${t} if ${c} else ${e}`),
    tie("expr").map((e) => `(${e})`),
    fc.tuple(fc.constantFrom("f", "sum", "if", "h$one"), fc.option(fc.array(tie("arg"), { minLength: 1, maxLength: 3 }))).map(([f, a]) => `${f}(${(a ?? []).join(", ")})`),
    fc.tuple(fc.constantFrom("a", "b$x"), tie("list")).map(([a, l]) => `${a}[${l}]`),
    fc.tuple(fc.constantFrom("a", "b$x"), tie("expr")).map(([a, e]) => `${a}[[${e}]]`),
  ),
  list: fc.array(tie("expr"), { minLength: 1, maxLength: 3 }).map((xs) => xs.join(", ")),
  arg: fc.oneof(
    { depthSize: "small" },
    tie("expr"),
    fc.tuple(tie("expr"), fc.option(tie("list"))).map(([e, l]) => `(${e},${l === null ? "" : ` ${l}`})`),
    fc.option(tie("list")).map((l) => `[${l ?? ""}]`),
  ),
}));

/** `a or b` and `a and b` need spaces; operators do not. */
function binopSpace(op: string): string {
  return op === "or" || op === "and" ? " " : "";
}

const lhs = fc.oneof(name, fc.tuple(name, expr).map(([n, e]) => `${n}[${e}]`), fc.tuple(name, expr).map(([n, e]) => `${n}[[${e}]]`));
const statement = fc.oneof(
  fc.tuple(fc.constantFrom("", "<> ", "<float32> "), fc.array(lhs, { minLength: 1, maxLength: 2 }), expr, fc.constantFrom("", " {id=s, dep=t*}", "{}")).map(([t, l, e, a]) => `${t}${l.join(", ")} = ${e}${a}`),
  fc.tuple(name, fc.option(fc.array(name, { minLength: 1, maxLength: 3 })), expr).map(([f, ps, e]) => (ps === null ? `${f} := ${e}` : `${f}(${ps.join(", ")}) := ${e}`)),
  fc.tuple(fc.constantFrom("lbarrier", "gbarrier", "nop"), fc.constantFrom("", " {id=b}")).map(([w, a]) => `... ${w}${a}`),
);

/** Token soup, mostly not in the language: where the fast parser answers, nearley must agree. */
const soup = fc.tuple(fc.array(
  fc.constantFrom("a", "b$t", "f", "3", "1.5", "0x2", "if", "else", "and", "or", "not", "(", ")", "[", "]", ",", "=", ":=", "<>", "<", ">", "+", "-", "**", "*", "~", "...", "{id=x}", "?", "@", "{", " "),
  { maxLength: 12 },
), fc.constantFrom(" ", "")).map(([ts, sep]) => ts.join(sep));

/** Texts that stress the lexer: numbers, hex, tags, keywords inside names, attribute blocks, glued together. */
const lexemes = fc.array(
  fc.constantFrom("1", "1.", ".5", "1.5", "1e5", "1e", "1e+", "2.5e-3f", "1d", "7f", "0x", "0x1F", "0xg", "00", "..", "...", ".",
    "a", "a$", "a$b", "$b", "_x", "ifx", "if", "or", "andy", "not", "else", "{", "}", "{id=x}", "{\n}", "$", "!", "!=", "<<=", "//", "/", "=", "\t", " "),
  { maxLength: 10 },
).map((ts) => ts.join(""));

describe("the fast instruction parser builds nearley's tree", () => {
  // Equivalence: the fast parser accepts exactly what nearley accepts, with the same tree (a text
  // the generators make may be outside the language: `a if b if c else d else e`).
  it("for every form of the grammar (random statements and expressions)", () => {
    const same = (fast: unknown, text: string, start: "statement" | "exprOnly"): void => {
      expect(fast === undefined ? undefined : JSON.stringify(fast), text).toBe(nearley(text, start));
    };
    fc.assert(fc.property(statement, (text) => { same(fastStatement(text), text, "statement"); }), { numRuns: 1500 });
    fc.assert(fc.property(expr, (text) => { same(fastExpr(text), text, "exprOnly"); }), { numRuns: 1500 });
  });

  it("answers only what nearley accepts, with its tree (random token sequences)", () => {
    fc.assert(
      fc.property(soup, (text) => {
        for (const [fast, start] of [[fastStatement(text), "statement"], [fastExpr(text), "exprOnly"]] as const) {
          if (fast !== undefined) expect(JSON.stringify(fast), text).toBe(nearley(text, start));
        }
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.tuple(lexemes, fc.constantFrom("", "x = ", "f(", "a[")), ([text, prefix]) => {
        for (const [fast, start, t] of [[fastStatement(prefix + text), "statement", prefix + text], [fastExpr(text), "exprOnly", text]] as const) {
          expect(fast === undefined ? undefined : JSON.stringify(fast), t).toBe(nearley(t, start));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps nearley's corners: a negative literal, tuples, the conditional", () => {
    const cases: [string, "statement" | "exprOnly"][] = [
      ["--3", "exprOnly"], ["-3**2", "exprOnly"], ["f((a), b)", "exprOnly"], ["f((a,))", "exprOnly"], ["sum([], a)", "exprOnly"],
      ["x if c else y if d else z", "exprOnly"], ["not a and b or c", "exprOnly"], ["a < b < c", "exprOnly"], ["(a) + (b)", "exprOnly"],
      ["<float32> t, u[i] = a$x[[i]] {id=s}", "statement"], ["f() := 1", "statement"],
    ];
    for (const [text, start] of cases) {
      const fast = start === "statement" ? fastStatement(text) : fastExpr(text);
      expect(fast, text).toBeDefined();
      expect(JSON.stringify(fast), text).toBe(nearley(text, start));
    }
  });
});
