/**
 * The instruction grammar (grammar/instructions.ne) by recursive descent, for the inputs it
 * accepts: the same raw tree as nearley's (the same nodes, keys in the same order, the same
 * offsets) at a fraction of an Earley parse's cost, which was most of makeKernel's front end
 * on kernels of thousands of instructions (issue 21). It answers only what it is sure of: any
 * input it does not parse (an error, or a form it does not know) gives undefined, and syntax.ts
 * runs nearley, so every message and every corner stays the grammar's. Its tokens are the
 * grammar's moo lexer's, scanned by hand (moo's regular expressions were a fifth of makeKernel
 * after nearley had gone). test/parse/syntax-fast.test.ts checks it against nearley on random
 * inputs, valid and not.
 *
 *   fastStatement("out[i] = 2*a[i] {id=s}")  // { k: "assign", temp: null, lhs: [{ k: "sub", … }], … }
 */
import type { RAttrs, RExpr, RName, RStatement } from "./raw.js";

/** A token: its type as the grammar's moo lexer names it, its text and its offset. */
interface MooToken {
  readonly type: string;
  readonly value: string;
  readonly offset: number;
}


/** Thrown where this parser gives the input up (nearley decides it). */
const GIVE_UP: unique symbol = Symbol("give up");

const COMPARISONS = new Set(["lt", "le", "gt", "ge", "eqeq", "ne"]);
const SHIFTS = new Set(["shl", "shr"]);
const SUMS = new Set(["plus", "minus"]);
const TERMS = new Set(["star", "slash", "floordiv", "percent"]);

/** `h$one` → name h, tag one (one `$`: the lexer's `tagged` token). */
function tagOf(t: MooToken): { name: string; tag: string } {
  const k = t.value.indexOf("$");
  return { name: t.value.slice(0, k), tag: t.value.slice(k + 1) };
}

const nm = (t: MooToken): RName => ({ name: t.value, at: t.offset });

class FastParser {
  private p = 0;

  constructor(private readonly ts: readonly MooToken[]) {}

  private type(k = 0): string | undefined {
    return this.ts[this.p + k]?.type;
  }

  private take(type: string): MooToken {
    const t = this.ts[this.p];
    if (t === undefined || t.type !== type) throw GIVE_UP;
    this.p++;
    return t;
  }

  end(): void {
    if (this.p !== this.ts.length) throw GIVE_UP;
  }

  statement(): RStatement {
    const t0 = this.ts[0];
    if (t0 === undefined) throw GIVE_UP;
    if (t0.type === "ellipsis") {
      this.p++;
      const what = nm(this.take("ident"));
      return { k: "special", what, attrs: this.attrs(), at: t0.offset };
    }
    if (t0.type === "ident" && this.type(1) === "assign") {
      this.p += 2;
      return { k: "rule", name: nm(t0), params: [], body: this.expr(), at: t0.offset };
    }
    if (t0.type === "ident" && this.type(1) === "lparen") {
      this.p += 2;
      const params: RName[] = [];
      if (this.type() !== "rparen") {
        params.push(nm(this.take("ident")));
        while (this.type() === "comma") {
          this.p++;
          params.push(nm(this.take("ident")));
        }
      }
      this.take("rparen");
      this.take("assign");
      return { k: "rule", name: nm(t0), params, body: this.expr(), at: t0.offset };
    }
    let temp: { dtype: RName | null; at: number } | null = null;
    if (t0.type === "tempOpen") {
      this.p++;
      temp = { dtype: null, at: t0.offset };
    } else if (t0.type === "lt") {
      this.p++;
      const dtype = nm(this.take("ident"));
      this.take("gt");
      temp = { dtype, at: t0.offset };
    }
    const lhs: RExpr[] = [this.lhs()];
    while (this.type() === "comma") {
      this.p++;
      lhs.push(this.lhs());
    }
    this.take("eq");
    const rhs = this.expr();
    const attrs = this.attrs();
    return { k: "assign", temp, lhs, rhs, attrs, at: temp?.at ?? lhs[0]!.at };
  }

  private attrs(): RAttrs | null {
    if (this.type() !== "attrs") return null;
    const t = this.ts[this.p++]!;
    return { text: t.value, at: t.offset };
  }

  private lhs(): RExpr {
    const t = this.take("ident");
    if (this.type() === "lbrack") return this.subscript(t.value, undefined, t.offset);
    return { k: "name", name: t.value, at: t.offset };
  }

  /** After `name` (at `at`): `[exprList]` or `[[expr]]`. */
  private subscript(name: string, tag: string | undefined, at: number): RExpr {
    this.take("lbrack");
    if (this.type() === "lbrack") {
      this.p++;
      const idx = this.expr();
      this.take("rbrack");
      this.take("rbrack");
      return tag === undefined ? { k: "lin", name, idx, at } : { k: "lin", name, tag, idx, at };
    }
    const idx = this.exprList();
    this.take("rbrack");
    return tag === undefined ? { k: "sub", name, idx, at } : { k: "sub", name, tag, idx, at };
  }

  expr(): RExpr {
    const then = this.disj();
    if (this.type() !== "kwIf") return then;
    const at = this.ts[this.p++]!.offset;
    const cond = this.disj();
    this.take("kwElse");
    const els = this.expr();
    return { k: "call", fn: "if", args: [cond, then, els], at };
  }

  private exprList(): RExpr[] {
    const out = [this.expr()];
    while (this.type() === "comma") {
      this.p++;
      out.push(this.expr());
    }
    return out;
  }

  /** A left-associative level: `operand (op operand)*` for the token types in `ops`. */
  private level(ops: ReadonlySet<string> | string, operand: () => RExpr): RExpr {
    let a = operand();
    for (;;) {
      const t = this.ts[this.p];
      if (t === undefined || (typeof ops === "string" ? t.type !== ops : !ops.has(t.type))) return a;
      this.p++;
      const b = operand();
      a = { k: "bin", op: t.value, a, b, at: t.offset };
    }
  }

  private disj = (): RExpr => this.level("kwOr", this.conj);
  private conj = (): RExpr => this.level("kwAnd", this.negation);
  private negation = (): RExpr => {
    const t = this.ts[this.p];
    if (t?.type === "kwNot") {
      this.p++;
      return { k: "not", e: this.negation(), at: t.offset };
    }
    return this.bitor();
  };
  private bitor = (): RExpr => this.level("pipe", this.bitxor);
  private bitxor = (): RExpr => this.level("caret", this.bitand);
  private bitand = (): RExpr => this.level("amp", this.comparison);
  private comparison = (): RExpr => this.level(COMPARISONS, this.shift);
  private shift = (): RExpr => this.level(SHIFTS, this.sum);
  private sum = (): RExpr => this.level(SUMS, this.term);
  private term = (): RExpr => this.level(TERMS, this.unary);

  private unary = (): RExpr => {
    const t = this.ts[this.p];
    switch (t?.type) {
      case "minus": {
        this.p++;
        const e = this.unary();
        // `-3` is the literal -3 (as in pymbolic); `--3` stays a negation of it.
        if (e.k === "num" && !e.negated) return { k: "num", text: "-" + e.text, at: t.offset, negated: true };
        return { k: "neg", e, at: t.offset };
      }
      case "plus":
        this.p++;
        return this.unary();
      case "tilde":
        this.p++;
        return { k: "bitnot", e: this.unary(), at: t.offset };
      default: {
        const base = this.postfix();
        const op = this.ts[this.p];
        if (op?.type !== "pow") return base;
        this.p++;
        return { k: "bin", op: op.value, a: base, b: this.unary(), at: op.offset };
      }
    }
  };

  private postfix(): RExpr {
    const t = this.ts[this.p];
    if (t === undefined) throw GIVE_UP;
    this.p++;
    switch (t.type) {
      case "number":
      case "hex":
        return { k: "num", text: t.value, at: t.offset };
      case "ident":
        if (this.type() === "lparen") return { k: "call", fn: t.value, args: this.args(), at: t.offset };
        if (this.type() === "lbrack") return this.subscript(t.value, undefined, t.offset);
        return { k: "name", name: t.value, at: t.offset };
      case "kwIf":
        if (this.type() !== "lparen") throw GIVE_UP;
        return { k: "call", fn: "if", args: this.args(), at: t.offset };
      case "tagged": {
        const { name, tag } = tagOf(t);
        if (this.type() === "lparen") return { k: "call", fn: name, tag, args: this.args(), at: t.offset };
        if (this.type() === "lbrack") return this.subscript(name, tag, t.offset);
        return { k: "name", name, tag, at: t.offset };
      }
      case "lparen": {
        const e = this.expr();
        this.take("rparen");
        return e;
      }
      default:
        throw GIVE_UP;
    }
  }

  /** `(args?)`: the call's arguments, which may be tuples `(k, l)` or lists `[k, l]`. */
  private args(): RExpr[] {
    this.take("lparen");
    const out: RExpr[] = [];
    if (this.type() !== "rparen") {
      out.push(this.arg());
      while (this.type() === "comma") {
        this.p++;
        out.push(this.arg());
      }
    }
    this.take("rparen");
    return out;
  }

  private arg(): RExpr {
    const t = this.ts[this.p];
    if (t === undefined) throw GIVE_UP;
    if (t.type === "lbrack") {
      this.p++;
      const items = this.type() === "rbrack" ? [] : this.exprList();
      this.take("rbrack");
      return { k: "tuple", items, at: t.offset };
    }
    if (t.type === "lparen") {
      // `(e, …)` is a tuple; `(e)` opens an expression (`(a) + b`): parsed again as one.
      const save = this.p;
      this.p++;
      const first = this.expr();
      if (this.type() === "comma") {
        this.p++;
        const items = this.type() === "rparen" ? [first] : [first, ...this.exprList()];
        this.take("rparen");
        return { k: "tuple", items, at: t.offset };
      }
      this.p = save;
    }
    return this.expr();
  }
}

const KEYWORDS: ReadonlyMap<string, string> = new Map([["and", "kwAnd"], ["or", "kwOr"], ["not", "kwNot"], ["if", "kwIf"], ["else", "kwElse"]]);

/** The grammar's operators (moo rules in its order: a longer one before its prefix). */
const OPERATORS: readonly (readonly [string, string])[] = [
  [":=", "assign"], ["<>", "tempOpen"], ["**", "pow"], ["//", "floordiv"], ["<<", "shl"], [">>", "shr"],
  ["<=", "le"], [">=", "ge"], ["==", "eqeq"], ["!=", "ne"], ["<", "lt"], [">", "gt"], ["=", "eq"],
  ["+", "plus"], ["-", "minus"], ["*", "star"], ["/", "slash"], ["%", "percent"], ["&", "amp"], ["|", "pipe"],
  ["^", "caret"], ["~", "tilde"], ["(", "lparen"], [")", "rparen"], ["[", "lbrack"], ["]", "rbrack"], [",", "comma"],
];
/** The operators by the code of their first character, in the grammar's order. */
const OPERATORS_BY_FIRST: (readonly (readonly [string, string])[] | undefined)[] = [];
for (const op of OPERATORS) OPERATORS_BY_FIRST[op[0].charCodeAt(0)] = [...(OPERATORS_BY_FIRST[op[0].charCodeAt(0)] ?? []), op];

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isIdentStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdentPart = (c: number): boolean => isIdentStart(c) || isDigit(c);
const digitsEnd = (text: string, k: number): number => {
  while (isDigit(text.charCodeAt(k))) k++;
  return k;
};
const identEnd = (text: string, k: number): number => {
  while (isIdentPart(text.charCodeAt(k))) k++;
  return k;
};

/**
 * The end of a number at `at` as the grammar's `number` rule reads it
 * (`(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?[fd]?`), or -1.
 */
function numberEnd(text: string, at: number): number {
  let k: number;
  if (isDigit(text.charCodeAt(at))) {
    k = digitsEnd(text, at + 1);
    if (text.charCodeAt(k) === 46) k = digitsEnd(text, k + 1); // 1. and 1.5
  } else if (text.charCodeAt(at) === 46 && isDigit(text.charCodeAt(at + 1))) k = digitsEnd(text, at + 2);
  else return -1;
  const e = text.charCodeAt(k);
  if (e === 101 || e === 69) {
    const s = text.charCodeAt(k + 1);
    const d = s === 43 || s === 45 ? k + 2 : k + 1;
    if (isDigit(text.charCodeAt(d))) k = digitsEnd(text, d + 1);
  }
  const f = text.charCodeAt(k);
  return f === 102 || f === 100 ? k + 1 : k;
}

/**
 * The tokens of `text` as the grammar's moo lexer gives them (whitespace left out: its rules in
 * its order, the first that matches wins), or undefined where it would find an invalid one.
 */
function tokens(text: string): MooToken[] | undefined {
  const out: MooToken[] = [];
  const n = text.length;
  for (let at = 0; at < n;) {
    const c = text.charCodeAt(at);
    if (c === 32 || c === 9 || c === 13 || c === 10) {
      at++;
      continue;
    }
    let end: number;
    let type: string;
    if (c === 46 && text.startsWith("...", at)) {
      end = at + 3;
      type = "ellipsis";
    } else if (c === 48 && (text.charCodeAt(at + 1) === 120 || text.charCodeAt(at + 1) === 88) && isHexDigit(text.charCodeAt(at + 2))) {
      end = at + 3;
      while (isHexDigit(text.charCodeAt(end))) end++;
      type = "hex";
    } else if ((end = numberEnd(text, at)) >= 0) {
      type = "number";
    } else if (isIdentStart(c)) {
      end = identEnd(text, at + 1);
      if (text.charCodeAt(end) === 36 && isIdentStart(text.charCodeAt(end + 1))) {
        end = identEnd(text, end + 2);
        type = "tagged";
      } else type = KEYWORDS.get(text.slice(at, end)) ?? "ident";
    } else if (c === 123) {
      const close = text.indexOf("}", at + 1);
      if (close < 0) return undefined;
      end = close + 1;
      type = "attrs";
    } else {
      const op = OPERATORS_BY_FIRST[c]?.find(([o]) => text.startsWith(o, at));
      if (op === undefined) return undefined;
      end = at + op[0].length;
      type = op[1];
    }
    out.push({ type, value: text.slice(at, end), offset: at });
    at = end;
  }
  return out;
}

function attempt<T>(text: string, f: (p: FastParser) => T): T | undefined {
  const ts = tokens(text);
  if (ts === undefined || ts.length === 0) return undefined;
  const p = new FastParser(ts);
  try {
    const r = f(p);
    p.end();
    return r;
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}

/** One statement's raw tree, as the grammar's start rule `statement` builds it, or undefined (nearley decides). */
export function fastStatement(text: string): RStatement | undefined {
  return attempt(text, (p) => p.statement());
}

/** One expression's raw tree, as the start rule `exprOnly` builds it, or undefined (nearley decides). */
export function fastExpr(text: string): RExpr | undefined {
  return attempt(text, (p) => p.expr());
}
