# loopy's instruction language, one statement at a time (block lines such as `for i`, `end`,
# `if c`, `with {…}` are recognised in src/parse/statements.ts). Start symbols: `statement`
# and `exprOnly`. The grammar only builds the raw tree of src/parse/raw.ts; names are resolved
# (reduction or call, rule, dtype) in src/parse/lower.ts. Each input has exactly one parse.
@preprocessor typescript

@{%
import moo from "moo";
import type { RExpr, RName, RAttrs, RStatement } from "../../src/parse/raw.js";

const base = moo.compile({
  ws: { match: /[ \t\r\n]+/, lineBreaks: true },
  ellipsis: "...",
  hex: /0[xX][0-9a-fA-F]+/,
  number: /(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?[fd]?/,
  // loopy's tagged use `name$tag`, one token: only reads and calls may carry a tag.
  tagged: /[A-Za-z_][A-Za-z0-9_]*\$[A-Za-z_][A-Za-z0-9_]*/,
  ident: {
    match: /[A-Za-z_][A-Za-z0-9_]*/,
    type: moo.keywords({ kwAnd: "and", kwOr: "or", kwNot: "not", kwIf: "if", kwElse: "else" }),
  },
  attrs: { match: /\{[^}]*\}/, lineBreaks: true },
  assign: ":=",
  tempOpen: "<>",
  pow: "**", floordiv: "//", shl: "<<", shr: ">>",
  le: "<=", ge: ">=", eqeq: "==", ne: "!=", lt: "<", gt: ">", eq: "=",
  plus: "+", minus: "-", star: "*", slash: "/", percent: "%",
  amp: "&", pipe: "|", caret: "^", tilde: "~",
  lparen: "(", rparen: ")", lbrack: "[", rbrack: "]", comma: ",",
  invalid: moo.error,
});

// Whitespace never reaches the parser.
const lexer = {
  reset: (chunk: string, info: any) => base.reset(chunk, info),
  next: () => {
    let t = base.next();
    while (t && t.type === "ws") t = base.next();
    return t;
  },
  save: () => base.save(),
  formatError: (t: any, msg?: string) => base.formatError(t, msg),
  has: (name: string) => base.has(name),
};

const nm = (t: any): RName => ({ name: t.value as string, at: t.offset as number });
/** `h$one` → name h, tag one. */
const tagOf = (t: any): { name: string; tag: string } => {
  const [name, tag] = (t.value as string).split("$");
  return { name: name!, tag: tag! };
};
const bin = (d: any[]): RExpr => ({ k: "bin", op: d[1].value as string, a: d[0] as RExpr, b: d[2] as RExpr, at: d[1].offset as number });
const attrsOf = (t: any): RAttrs | null => (t ? { text: t.value as string, at: t.offset as number } : null);
function neg(d: any[]): RExpr {
  const e = d[1] as RExpr;
  // `-3` is the literal -3 (as in pymbolic); `--3` stays a negation of it.
  if (e.k === "num" && !e.negated) return { k: "num", text: "-" + e.text, at: d[0].offset as number, negated: true };
  return { k: "neg", e, at: d[0].offset as number };
}
function assignStmt(temp: any, lhs: RExpr[], rhs: RExpr, a: any, at: number): RStatement {
  return { k: "assign", temp: temp ?? null, lhs, rhs, attrs: attrsOf(a), at };
}
%}

@lexer lexer

statement -> tempDecl:? lhsList %eq expr %attrs:?
    {% (d) => assignStmt(d[0], d[1], d[3], d[4], d[0]?.at ?? d[1][0].at) %}
  | %ident %assign expr
    {% (d) => ({ k: "rule", name: nm(d[0]), params: [], body: d[2], at: d[0].offset }) %}
  | %ident %lparen names:? %rparen %assign expr
    {% (d) => ({ k: "rule", name: nm(d[0]), params: d[2] ?? [], body: d[5], at: d[0].offset }) %}
  | %ellipsis %ident %attrs:?
    {% (d) => ({ k: "special", what: nm(d[1]), attrs: attrsOf(d[2]), at: d[0].offset }) %}

exprOnly -> expr {% id %}

tempDecl -> %tempOpen {% (d) => ({ dtype: null, at: d[0].offset }) %}
  | %lt %ident %gt {% (d) => ({ dtype: nm(d[1]), at: d[0].offset }) %}

lhsList -> lhs {% (d) => [d[0]] %}
  | lhsList %comma lhs {% (d) => [...d[0], d[2]] %}

lhs -> %ident {% (d) => ({ k: "name", name: d[0].value, at: d[0].offset }) %}
  | subscript {% id %}

names -> %ident {% (d) => [nm(d[0])] %}
  | names %comma %ident {% (d) => [...d[0], nm(d[2])] %}

# Python's conditional `x if c else y` (right-associative, lowest precedence) is loopy's if(c, x, y).
expr -> disj {% id %}
  | disj %kwIf disj %kwElse expr
    {% (d) => ({ k: "call", fn: "if", args: [d[2], d[0], d[4]], at: d[1].offset }) %}

disj -> conj {% id %}
  | disj %kwOr conj {% bin %}

conj -> negation {% id %}
  | conj %kwAnd negation {% bin %}

negation -> bitor {% id %}
  | %kwNot negation {% (d) => ({ k: "not", e: d[1], at: d[0].offset }) %}

# C's (and pymbolic's) levels: | below ^ below & below comparisons below shifts below + -.
# `and`/`or`/`not` stay logical; `&`/`|`/`^`/`~` are bitwise.
bitor -> bitxor {% id %}
  | bitor %pipe bitxor {% bin %}

bitxor -> bitand {% id %}
  | bitxor %caret bitand {% bin %}

bitand -> comparison {% id %}
  | bitand %amp comparison {% bin %}

comparison -> shift {% id %}
  | comparison (%lt | %le | %gt | %ge | %eqeq | %ne) shift
    {% (d) => ({ k: "bin", op: d[1][0].value, a: d[0], b: d[2], at: d[1][0].offset }) %}

shift -> sum {% id %}
  | shift (%shl | %shr) sum
    {% (d) => ({ k: "bin", op: d[1][0].value, a: d[0], b: d[2], at: d[1][0].offset }) %}

sum -> term {% id %}
  | sum (%plus | %minus) term
    {% (d) => ({ k: "bin", op: d[1][0].value, a: d[0], b: d[2], at: d[1][0].offset }) %}

term -> unary {% id %}
  | term (%star | %slash | %floordiv | %percent) unary
    {% (d) => ({ k: "bin", op: d[1][0].value, a: d[0], b: d[2], at: d[1][0].offset }) %}

unary -> power {% id %}
  | %minus unary {% neg %}
  | %plus unary {% (d) => d[1] %}
  | %tilde unary {% (d) => ({ k: "bitnot", e: d[1], at: d[0].offset }) %}

# Right-associative, and binds tighter than a unary minus on its left: -a**b is -(a**b).
power -> postfix {% id %}
  | postfix %pow unary {% bin %}

postfix -> primary {% id %}
  | subscript {% id %}
  | %ident %lparen args:? %rparen
    {% (d) => ({ k: "call", fn: d[0].value, args: d[2] ?? [], at: d[0].offset }) %}
  | %kwIf %lparen args:? %rparen
    {% (d) => ({ k: "call", fn: "if", args: d[2] ?? [], at: d[0].offset }) %}
  | %tagged %lparen args:? %rparen
    {% (d) => { const t = tagOf(d[0]); return { k: "call", fn: t.name, tag: t.tag, args: d[2] ?? [], at: d[0].offset }; } %}
  | %tagged %lbrack exprList %rbrack
    {% (d) => { const t = tagOf(d[0]); return { k: "sub", name: t.name, tag: t.tag, idx: d[2], at: d[0].offset }; } %}
  | %tagged %lbrack %lbrack expr %rbrack %rbrack
    {% (d) => { const t = tagOf(d[0]); return { k: "lin", name: t.name, tag: t.tag, idx: d[3], at: d[0].offset }; } %}

subscript -> %ident %lbrack exprList %rbrack
    {% (d) => ({ k: "sub", name: d[0].value, idx: d[2], at: d[0].offset }) %}
  | %ident %lbrack %lbrack expr %rbrack %rbrack
    {% (d) => ({ k: "lin", name: d[0].value, idx: d[3], at: d[0].offset }) %}

primary -> %number {% (d) => ({ k: "num", text: d[0].value, at: d[0].offset }) %}
  | %hex {% (d) => ({ k: "num", text: d[0].value, at: d[0].offset }) %}
  | %ident {% (d) => ({ k: "name", name: d[0].value, at: d[0].offset }) %}
  | %tagged {% (d) => { const t = tagOf(d[0]); return { k: "name", name: t.name, tag: t.tag, at: d[0].offset }; } %}
  | %lparen expr %rparen {% (d) => d[1] %}

exprList -> expr {% (d) => [d[0]] %}
  | exprList %comma expr {% (d) => [...d[0], d[2]] %}

# Call arguments may be tuples `(k, l)` / lists `[k, l]`: the iname lists of reductions.
args -> arg {% (d) => [d[0]] %}
  | args %comma arg {% (d) => [...d[0], d[2]] %}

arg -> expr {% id %}
  | %lparen expr %comma exprList:? %rparen
    {% (d) => ({ k: "tuple", items: [d[1], ...(d[3] ?? [])], at: d[0].offset }) %}
  | %lbrack exprList:? %rbrack
    {% (d) => ({ k: "tuple", items: d[1] ?? [], at: d[0].offset }) %}
