/**
 * Expressions written as text inside transformation arguments (the template of extractSubst).
 * transforms/ may not import the instruction grammar (src/parse), so this is a small recursive
 * descent parser of the same expression language with the same trees as `parseExpr` without
 * inames (test/transforms/subst.test.ts checks the two agree).
 */
import { LoomError, ParseError, TransformError } from "../src/errors.js";
import { c, isFloat, parseDtype, withTag, type ArithOp, type CompareOp, type Expr, type ReductionOp } from "../src/ir/index.js";

interface Tok { readonly t: string; readonly v: string; readonly at: number }

const NUMBER = /^(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?[fd]?/;
// A name, maybe tagged as loopy's `name$tag` (`h$one`, `a$x`).
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\$[A-Za-z_][A-Za-z0-9_]*)?/;
const PUNCT = ["**", "//", "<=", ">=", "==", "!=", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", ","];

function lex(text: string, fail: (d: string, at: number) => never): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) { i++; continue; }
    const rest = text.slice(i);
    const num = NUMBER.exec(rest);
    const id = num ? null : IDENT.exec(rest);
    const p = num || id ? undefined : PUNCT.find((q) => rest.startsWith(q));
    if (num) out.push({ t: "num", v: num[0], at: i });
    else if (id) out.push({ t: ["and", "or", "not"].includes(id[0]) ? id[0] : "ident", v: id[0], at: i });
    else if (p) out.push({ t: p, v: p, at: i });
    else fail(`unexpected character "${text[i]}"`, i);
    i += num?.[0].length ?? id?.[0].length ?? p!.length;
  }
  out.push({ t: "end", v: "", at: text.length });
  return out;
}

/** A literal as the instruction language types it: `2.5f` float32, `2d` float64, `2`/`2.0` implicit. */
function literal(text: string): Expr {
  const suffix = /[fd]$/.test(text) ? text[text.length - 1] : "";
  const body = suffix ? text.slice(0, -1) : text;
  const value = Number(body);
  if (suffix === "f") return c(value, "float32");
  if (suffix === "d") return c(value, "float64");
  return c(value, undefined, /[.eE]/.test(body));
}

type Arg = Expr | { readonly tuple: Expr[]; readonly at: number };

/**
 * Parse one expression of the instruction language: `parseTemplate("alpha*b[i]**2", "extractSubst")`.
 * Malformed text is a TransformError naming `who`, with the column and a caret.
 */
export function parseTemplate(text: string, who: string): Expr {
  const fail = (detail: string, at: number): never => {
    throw new TransformError(`${who}: ${ParseError.at(detail, text, at, "template").message}`);
  };
  const toks = lex(text, fail);
  // Literals written as a bare number (maybe in parentheses): a minus in front folds into them.
  const plainNumbers = new WeakMap<Expr, string>();
  let pos = 0;
  const peek = (o = 0) => toks[pos + o]!;
  const eat = (t: string): Tok => {
    const tok = peek();
    if (tok.t !== t) fail(`expected "${t}", got ${tok.t === "end" ? "the end" : `"${tok.v}"`}`, tok.at);
    pos++;
    return tok;
  };
  const binLoop = (ops: readonly string[], next: () => Expr, make: (op: string, l: Expr, r: Expr) => Expr): Expr => {
    let left = next();
    while (ops.includes(peek().t)) {
      const op = toks[pos++]!.t;
      left = make(op, left, next());
    }
    return left;
  };
  const expr = (): Expr => binLoop(["or"], conj, (op, left, right) => ({ kind: "logical", op: op as "or", left, right }));
  const conj = (): Expr => binLoop(["and"], negation, (op, left, right) => ({ kind: "logical", op: op as "and", left, right }));
  const negation = (): Expr => {
    if (peek().t !== "not") return comparison();
    pos++;
    return { kind: "not", operand: negation() };
  };
  const comparison = (): Expr => binLoop(["<", "<=", ">", ">=", "==", "!="], sum, (op, left, right) => ({ kind: "compare", op: op as CompareOp, left, right }));
  const arith = (op: string, left: Expr, right: Expr): Expr => ({ kind: "arith", op: op as ArithOp, left, right });
  const sum = (): Expr => binLoop(["+", "-"], term, arith);
  const term = (): Expr => binLoop(["*", "/", "//", "%"], unary, arith);
  // `-3` and `-(3)` are the literal -3; `--3` a negation of it; `-a**b` is -(a**b).
  const unary = (): Expr => {
    if (peek().t === "+") { pos++; return unary(); }
    if (peek().t !== "-") return power();
    pos++;
    const operand = unary();
    const text = plainNumbers.get(operand);
    return text === undefined ? { kind: "neg", operand } : literal("-" + text);
  };
  const power = (): Expr => {
    const base = postfix();
    if (peek().t !== "**") return base;
    pos++;
    return arith("**", base, unary());
  };
  const exprList = (close: string): Expr[] => {
    const items = [expr()];
    while (peek().t === ",") { pos++; items.push(expr()); }
    eat(close);
    return items;
  };
  const postfix = (): Expr => {
    const tok = peek();
    if (tok.t === "num") {
      pos++;
      const e = literal(tok.v);
      plainNumbers.set(e, tok.v);
      return e;
    }
    if (tok.t === "(") { pos++; const e = expr(); eat(")"); return e; }
    if (tok.t !== "ident") return fail(`expected a number, a name or "(", got ${tok.t === "end" ? "the end" : `"${tok.v}"`}`, tok.at);
    pos++;
    const [name, tag] = tok.v.split("$") as [string, string | undefined];
    if (peek().t === "[" && peek(1).t === "[") {
      pos += 2;
      const index = expr();
      eat("]"); eat("]");
      return withTag({ kind: "linear", array: name, index }, tag);
    }
    if (peek().t === "[") { pos++; return withTag({ kind: "subscript", array: name, indices: exprList("]") }, tag); }
    if (peek().t === "(") {
      pos++;
      const as = peek().t === ")" ? (pos++, []) : args();
      const e = call({ ...tok, v: name }, as);
      if (tag === undefined) return e;
      if (e.kind !== "call") return fail(`"${tok.v}": a tag marks a use of a variable, an array or a substitution rule, not of ${name}`, tok.at);
      return withTag(e, tag);
    }
    return withTag({ kind: "var", name }, tag);
  };
  const args = (): Arg[] => {
    const out: Arg[] = [arg()];
    while (peek().t === ",") { pos++; out.push(arg()); }
    eat(")");
    return out;
  };
  const arg = (): Arg => {
    const at = peek().at;
    if (peek().t === "[") {
      pos++;
      if (peek().t === "]") { pos++; return { tuple: [], at }; }
      return { tuple: exprList("]"), at };
    }
    if (peek().t === "(") {
      const save = pos;
      pos++;
      const first = expr();
      if (peek().t === ",") {
        pos++;
        if (peek().t === ")") { pos++; return { tuple: [first], at }; }
        return { tuple: [first, ...exprList(")")], at };
      }
      pos = save;
    }
    return expr();
  };
  const plain = (a: Arg): Expr => ("tuple" in a ? fail("a tuple is only allowed as the iname list of a reduction, as in sum((k, l), e)", a.at) : a);
  const call = (fn: Tok, as: Arg[]): Expr => {
    const first = as[0];
    const arity = (n: number, form: string) => { if (as.length !== n) fail(`${fn.v} takes ${n} arguments, as in ${form}; got ${as.length}`, fn.at); };
    if (fn.v === "if") {
      arity(3, "if(cond, then, else)");
      return { kind: "if", cond: plain(as[0]!), then: plain(as[1]!), else: plain(as[2]!) };
    }
    if (fn.v === "cast") {
      arity(2, "cast(float32, x)");
      if ("tuple" in first! || first.kind !== "var") return fail("the first argument of cast is a dtype, as in cast(float32, x)", fn.at);
      let dtype;
      try { dtype = parseDtype(first.name); } catch (e) { if (e instanceof LoomError) return fail(e.message, fn.at); throw e; }
      const value = plain(as[1]!);
      if (value.kind === "const" && value.dtype === undefined && (isFloat(dtype) || (!value.isFloat && Number.isInteger(value.value)))) return c(value.value, dtype);
      return { kind: "cast", dtype, value };
    }
    const isTuple = first !== undefined && "tuple" in first;
    const reduction = as.length === 2 && ((fn.v === "sum" || fn.v === "product") ? isTuple || (first as Expr).kind === "var" : (fn.v === "max" || fn.v === "min") && isTuple);
    if (reduction) {
      const items = isTuple ? (first as { tuple: Expr[] }).tuple : [first as Expr];
      if (items.length === 0 || items.some((x) => x.kind !== "var" || x.tag !== undefined)) fail("the inames of a reduction must be names", fn.at);
      return { kind: "reduce", op: fn.v as ReductionOp, inames: items.map((x) => (x as { name: string }).name), body: plain(as[1]!) };
    }
    if (fn.v === "sum" || fn.v === "product") {
      arity(2, `${fn.v}(k, expr)`);
      fail(`the first argument of ${fn.v} must be an iname or a tuple of inames`, fn.at);
    }
    return { kind: "call", fn: fn.v, args: as.map(plain) };
  };
  if (typeof text !== "string") throw new TransformError(`${who}: template must be an expression or its text; got ${JSON.stringify(text)}`);
  const e = expr();
  if (peek().t !== "end") fail(`expected an operator or the end, got "${peek().v}"`, peek().at);
  return e;
}
