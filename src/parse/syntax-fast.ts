/**
 * The instruction grammar (grammar/instructions.ne) by recursive descent, for the inputs it
 * accepts: the same raw tree as nearley's (the same nodes, keys in the same order, the same
 * offsets) at a fraction of an Earley parse's cost, which was most of makeKernel's front end
 * on kernels of thousands of instructions (issue 21). It answers only what it is sure of: any
 * input it does not parse (an error, or a form it does not know) gives undefined, and syntax.ts
 * runs nearley, so every message and every corner stays the grammar's. Tokens come from the
 * grammar's own moo lexer. test/parse/syntax-fast.test.ts checks it against nearley on random
 * inputs, valid and not.
 *
 *   fastStatement("out[i] = 2*a[i] {id=s}")  // { k: "assign", temp: null, lhs: [{ k: "sub", … }], … }
 */
import grammar from "../../grammar/generated/instructions.js";
import type { RAttrs, RExpr, RName, RStatement } from "./raw.js";

interface MooToken {
  readonly type: string;
  readonly value: string;
  readonly offset: number;
}

interface MooLexer {
  reset(chunk: string): void;
  next(): MooToken | undefined;
}

/** The grammar's lexer (whitespace already left out), as nearley runs it. */
const lexer = (grammar as unknown as { Lexer: MooLexer }).Lexer;

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

/** The tokens of `text` as the grammar's lexer gives them, or undefined where it finds an invalid one. */
function tokens(text: string): MooToken[] | undefined {
  lexer.reset(text);
  const out: MooToken[] = [];
  for (let t = lexer.next(); t !== undefined; t = lexer.next()) {
    if (t.type === "invalid") return undefined;
    out.push(t);
  }
  return out;
}

function attempt<T>(text: string, f: (p: FastParser) => T): T | undefined {
  let ts: MooToken[] | undefined;
  try {
    ts = tokens(text);
  } catch {
    return undefined;
  }
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
