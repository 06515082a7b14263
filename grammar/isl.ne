# ISL / loopy domain syntax: sets `[n] -> { [i, j] : 0 <= i,j < n }`, maps `{ [i] -> [io, ii] : ... }`
# and bare condition lists (start symbol `condOnly`, for assumptions). The grammar only builds an
# AST; semantic checks (affinity, convexity, integer constants) live in src/poly/parse.ts, which
# reports them with positions. Each input has exactly one parse (no ambiguity).
@preprocessor typescript

@{%
import moo from "moo";

const base = moo.compile({
  ws: { match: /[ \t\r\n]+/, lineBreaks: true },
  comment: /#[^\n]*/,
  float: /[0-9]+\.[0-9]+/,
  int: /[0-9]+/,
  ident: {
    match: /[A-Za-z_][A-Za-z0-9_']*/,
    type: moo.keywords({
      and: "and", or: "or", exists: "exists", mod: "mod", floor: "floor", ceil: "ceil",
      kwTrue: "true", kwFalse: "false",
    }),
  },
  arrow: "->",
  le: "<=", ge: ">=", lt: "<", gt: ">", eq: "=",
  lbrace: "{", rbrace: "}", lbrack: "[", rbrack: "]", lparen: "(", rparen: ")",
  comma: ",", colon: ":", plus: "+", minus: "-", star: "*", slash: "/", percent: "%",
  invalid: moo.error,
});

// Whitespace and comments never reach the parser.
const lexer = {
  reset: (chunk: string, info: any) => base.reset(chunk, info),
  next: () => {
    let t = base.next();
    while (t && (t.type === "ws" || t.type === "comment")) t = base.next();
    return t;
  },
  save: () => base.save(),
  formatError: (t: any, msg?: string) => base.formatError(t, msg),
  has: (name: string) => base.has(name),
};

const name = (t: any) => ({ name: t.value as string, at: t.offset as number });
const bin = (k: string) => (d: any[]) => ({ k, a: d[0], b: d[2], at: d[1].offset as number });
%}

@lexer lexer

main -> top {% id %}

top -> params:? %lbrace space cond:? %rbrace
  {% (d) => ({ params: d[0], tuples: d[2], cond: d[3] ?? null, end: d[4].offset }) %}

params -> %lbrack names:? %rbrack %arrow {% (d) => d[1] ?? [] %}

space -> null {% () => [] %}
  | tuple {% (d) => [d[0]] %}
  | tuple %arrow tuple {% (d) => [d[0], d[2]] %}

tuple -> %lbrack names:? %rbrack {% (d) => d[1] ?? [] %}

names -> %ident {% (d) => [name(d[0])] %}
  | names %comma %ident {% (d) => [...d[0], name(d[2])] %}

cond -> %colon {% () => null %}
  | %colon disj {% (d) => d[1] %}

condOnly -> disj {% id %}

disj -> conj {% id %}
  | disj %or conj {% (d) => ({ k: "or", a: d[0], b: d[2], at: d[1].offset }) %}

# An `exists x: ...` without parentheses extends to the end of the conjunction.
conj -> andList {% id %}
  | andList %and exq {% (d) => ({ k: "and", a: d[0], b: d[2] }) %}
  | exq {% id %}

andList -> atom {% id %}
  | andList %and atom {% (d) => ({ k: "and", a: d[0], b: d[2] }) %}

exq -> %exists names %colon conj {% (d) => ({ k: "exists", names: d[1], body: d[3], at: d[0].offset }) %}

atom -> chain {% id %}
  | %lparen disj %rparen {% (d) => d[1] %}
  | %kwTrue {% () => ({ k: "true" }) %}
  | %kwFalse {% () => ({ k: "false" }) %}
  | %exists %lparen names %colon disj %rparen
      {% (d) => ({ k: "exists", names: d[2], body: d[4], at: d[0].offset }) %}

chain -> exprs rel exprs {% (d) => ({ k: "chain", items: [d[0], d[2]], ops: [d[1]] }) %}
  | chain rel exprs {% (d) => ({ k: "chain", items: [...d[0].items, d[2]], ops: [...d[0].ops, d[1]] }) %}

rel -> (%le | %lt | %ge | %gt | %eq) {% (d) => ({ op: d[0][0].value, at: d[0][0].offset }) %}

exprs -> expr {% (d) => [d[0]] %}
  | exprs %comma expr {% (d) => [...d[0], d[2]] %}

expr -> term {% id %}
  | expr %plus term {% bin("add") %}
  | expr %minus term {% bin("sub") %}

term -> unary {% id %}
  | term %star unary {% bin("mul") %}
  | term %mod unary {% bin("mod") %}
  | term %percent unary {% bin("mod") %}

unary -> primary {% id %}
  | %minus unary {% (d) => ({ k: "neg", e: d[1], at: d[0].offset }) %}

primary -> %int {% (d) => ({ k: "int", text: d[0].value, at: d[0].offset }) %}
  | %float {% (d) => ({ k: "float", text: d[0].value, at: d[0].offset }) %}
  | %ident {% (d) => ({ k: "var", name: d[0].value, at: d[0].offset }) %}
  | %int %ident
      {% (d) => ({ k: "mul", a: { k: "int", text: d[0].value, at: d[0].offset }, b: { k: "var", name: d[1].value, at: d[1].offset }, at: d[1].offset }) %}
  | %lparen expr %rparen {% (d) => d[1] %}
  | (%floor | %ceil) %lparen expr %slash unary %rparen
      {% (d) => ({ k: d[0][0].value, e: d[2], d: d[4], at: d[0][0].offset }) %}
