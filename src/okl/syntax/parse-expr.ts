/**
 * C expressions over preprocessed tokens: a Pratt parser for binary operators with recursive
 * descent for unary, postfix and primary forms. The statement/declaration parser (`parse-*.ts`, `parse-unit.ts` on top)
 * extends it and supplies type names (casts, `sizeof(T)`).
 */
import type { AssignOp, BinaryOp, Expr, Pos, TypeName, UnaryOp } from "./ast.js";
import { tokEnd, type Tok } from "./lexer.js";
import type { OklError } from "../../errors.js";
import { evalConst } from "./consteval.js";

/** Binding power of each binary operator (higher binds tighter). */
const BINARY: ReadonlyMap<string, number> = new Map(Object.entries({
  "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
  "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}));
const ASSIGN = new Set(["=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="]);
const UNARY = new Set(["-", "+", "!", "~", "*", "&", "++", "--"]);

/** Builds the OklError for a message at a token. */
export type ErrorAt = (detail: string, at: Tok, rule?: string) => OklError;

/** Whether `e` may be assigned to (`x`, `a[i]`, `s.f`, `*p`, and `x(i, j)` on a `@dim` variable). */
export function isAssignable(e: Expr): boolean {
  switch (e.kind) {
    case "ident":
    case "index":
    case "member":
    case "call":
      return true;
    case "unary":
      return e.op === "*";
    case "cast":
      return isAssignable(e.operand);
    default:
      return false;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", "0": "\0", a: "\x07", b: "\b", f: "\f", v: "\v" };

function unescape(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]+|[0-7]{1,3}|[\s\S])/g, (_, c: string) => {
    if (c[0] === "x") return String.fromCharCode(parseInt(c.slice(1), 16));
    if (/^[0-7]+$/.test(c)) return String.fromCharCode(parseInt(c, 8));
    return ESCAPES[c] ?? c;
  });
}

/** The token stream and expression grammar; `pos` is always a valid index (the last token is eof). */
export class ExprParser {
  pos = 0;

  constructor(
    readonly toks: readonly Tok[],
    readonly fail: ErrorAt,
  ) {}

  peek(k = 0): Tok {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)]!;
  }
  next(): Tok {
    const t = this.peek();
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }
  at(text: string): boolean {
    const t = this.peek();
    return t.text === text && t.type !== "string" && t.type !== "char" && t.type !== "eof";
  }
  eat(text: string): boolean {
    if (!this.at(text)) return false;
    this.next();
    return true;
  }
  expect(text: string, what?: string): Tok {
    if (!this.at(text)) throw this.unexpected(what ?? `"${text}"`);
    return this.next();
  }
  unexpected(expected: string): OklError {
    const t = this.peek();
    const got = t.type === "eof" ? "end of input" : t.type === "pragma" ? "#pragma" : `"${t.text}"`;
    return this.fail(`expected ${expected}, got ${got}`, t, "syntax");
  }

  /** The span from token `from` to the last consumed token. */
  span(from: Tok): Pos {
    const last = this.toks[Math.max(0, this.pos - 1)]!;
    const end = last.file === from.file && last.offset >= from.offset ? tokEnd(last) : tokEnd(from);
    return from.file === undefined
      ? { line: from.line, column: from.col, offset: from.offset, end }
      : { line: from.line, column: from.col, offset: from.offset, end, file: from.file };
  }

  /** Overridden by the full parser: does a type name start here (for casts and sizeof)? */
  isTypeStart(): boolean {
    return false;
  }
  /** Overridden by the full parser. */
  parseTypeName(): TypeName {
    throw this.unexpected("an expression");
  }
  /** Overridden by the full parser: an error for C++ constructs seen in expressions. */
  checkUnsupported(_t: Tok): void {}

  /** expression := assignment (',' assignment)* */
  parseExpr(): Expr {
    const start = this.peek();
    const first = this.parseAssign();
    if (!this.at(",")) return first;
    const exprs = [first];
    while (this.eat(",")) exprs.push(this.parseAssign());
    return { kind: "comma", exprs, pos: this.span(start) };
  }

  parseAssign(): Expr {
    const start = this.peek();
    const target = this.parseConditional();
    const op = this.peek();
    if (op.type === "punct" && ASSIGN.has(op.text)) {
      if (!isAssignable(target)) throw this.fail("expression is not assignable", start, "lvalue");
      this.next();
      const value = this.parseAssign();
      return { kind: "assign", op: op.text as AssignOp, target, value, pos: this.span(start) };
    }
    return target;
  }

  parseConditional(): Expr {
    const start = this.peek();
    const cond = this.parseBinary(1);
    if (!this.at("?")) return cond;
    this.next();
    const then = this.parseExpr();
    this.expect(":");
    const els = this.parseConditional();
    // C's integer constant expression `A ? B : C` (macro-made sizes like gslib's
    // `(NR > NS ? NR : NS)` as an @inner bound) is the branch it selects: bounds stay affine.
    const picked = pickConstBranch(cond, then, els);
    if (picked) return picked;
    return { kind: "conditional", cond, then, else: els, pos: this.span(start) };
  }

  parseBinary(minPrec: number): Expr {
    const start = this.peek();
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      const prec = t.type === "punct" ? BINARY.get(t.text) : undefined;
      if (prec === undefined || prec < minPrec) return left;
      this.next();
      const right = this.parseBinary(prec + 1);
      left = { kind: "binary", op: t.text as BinaryOp, left, right, pos: this.span(start) };
    }
  }

  parseUnary(): Expr {
    const t = this.peek();
    if (t.type === "punct" && UNARY.has(t.text)) {
      this.next();
      const operand = this.parseUnary();
      if ((t.text === "++" || t.text === "--") && !isAssignable(operand)) throw this.fail("expression is not assignable", t, "lvalue");
      return { kind: "unary", op: t.text as UnaryOp, operand, pos: this.span(t) };
    }
    if (t.type === "ident" && t.text === "sizeof") {
      this.next();
      if (this.at("(") && this.lookaheadType(1)) {
        this.next();
        const type = this.parseTypeName();
        this.expect(")");
        return { kind: "sizeof", type, operand: undefined, pos: this.span(t) };
      }
      const operand = this.parseUnary();
      return { kind: "sizeof", type: undefined, operand, pos: this.span(t) };
    }
    if (t.text === "(" && t.type === "punct" && this.lookaheadType(1)) {
      this.next();
      const type = this.parseTypeName();
      this.expect(")");
      const operand = this.parseUnary();
      return { kind: "cast", type, operand, pos: this.span(t) };
    }
    return this.parsePostfix(this.parsePrimary());
  }

  /** Whether a type name starts `k` tokens ahead. */
  private lookaheadType(k: number): boolean {
    const save = this.pos;
    this.pos = Math.min(this.pos + k, this.toks.length - 1);
    const r = this.isTypeStart();
    this.pos = save;
    return r;
  }

  parsePostfix(e: Expr): Expr {
    const start = e.pos;
    for (;;) {
      const t = this.peek();
      if (t.type !== "punct") return e;
      if (t.text === "[") {
        this.next();
        const index = this.parseExpr();
        this.expect("]");
        e = { kind: "index", target: e, index, pos: this.spanFrom(start) };
      } else if (t.text === "(") {
        this.next();
        const args: Expr[] = [];
        if (!this.at(")")) {
          do args.push(this.parseAssign());
          while (this.eat(","));
        }
        this.expect(")", '"," or ")"');
        e = { kind: "call", callee: e, args, pos: this.spanFrom(start) };
      } else if (t.text === "." || t.text === "->") {
        this.next();
        const name = this.next();
        if (name.type !== "ident") throw this.fail(`expected a member name after "${t.text}"`, name, "syntax");
        e = { kind: "member", target: e, name: name.text, arrow: t.text === "->", pos: this.spanFrom(start) };
      } else if (t.text === "++" || t.text === "--") {
        if (!isAssignable(e)) throw this.fail("expression is not assignable", t, "lvalue");
        this.next();
        e = { kind: "postfix", op: t.text, operand: e, pos: this.spanFrom(start) };
      } else {
        return e;
      }
    }
  }

  /** The span from an earlier node position to the last consumed token. */
  spanFrom(start: Pos): Pos {
    const last = this.toks[Math.max(0, this.pos - 1)]!;
    const end = last.file === start.file && last.offset >= start.offset ? tokEnd(last) : start.end;
    // Built field by field (one map for every position, as span makes them), not spread.
    return start.file === undefined
      ? { line: start.line, column: start.column, offset: start.offset, end }
      : { line: start.line, column: start.column, offset: start.offset, end, file: start.file };
  }

  parsePrimary(): Expr {
    const t = this.peek();
    switch (t.type) {
      case "number":
        this.next();
        return this.number(t);
      case "char": {
        this.next();
        const body = unescape(t.text.slice(t.text.indexOf("'") + 1, -1));
        return { kind: "char", value: body.charCodeAt(0) || 0, text: t.text, pos: this.span(t) };
      }
      case "string": {
        this.next();
        let value = unescape(t.text.slice(t.text.indexOf('"') + 1, -1));
        let text = t.text;
        while (this.peek().type === "string") {
          const s = this.next();
          value += unescape(s.text.slice(s.text.indexOf('"') + 1, -1));
          text += " " + s.text;
        }
        return { kind: "string", value, text, pos: this.span(t) };
      }
      case "ident": {
        if (t.text === "static_cast" && this.peek(1).text === "<") {
          // C++'s static_cast<T>(e) is the C cast (T)(e) for the scalar types OKL kernels use.
          this.next();
          this.next();
          const type = this.parseTypeName();
          this.expect(">");
          this.expect("(");
          const operand = this.parseExpr();
          this.expect(")");
          return { kind: "cast", type, operand, pos: this.span(t) };
        }
        this.checkUnsupported(t);
        this.next();
        if (t.text === "true" || t.text === "false") return { kind: "bool", value: t.text === "true", pos: this.span(t) };
        return { kind: "ident", name: t.text, pos: this.span(t) };
      }
      case "punct":
        if (t.text === "(") {
          this.next();
          const e = this.parseExpr();
          this.expect(")");
          return e;
        }
        if (t.text === "::") this.checkUnsupported(t);
        break;
      default:
        break;
    }
    throw this.unexpected("an expression");
  }

  private number(t: Tok): Expr {
    const text = t.text;
    if (isDecimal(text)) return { kind: "int", value: Number(text), text, suffix: "", pos: this.span(t) };
    const m = /^(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)$/.exec(text);
    if (m) {
      const digits = m[1]!;
      const value = /^0[xX]/.test(digits)
        ? parseInt(digits.slice(2), 16)
        : /^0[bB]/.test(digits)
          ? parseInt(digits.slice(2), 2)
          : digits.length > 1 && digits[0] === "0"
            ? parseInt(digits, 8)
            : Number(digits);
      if (Number.isNaN(value)) throw this.fail(`malformed integer literal "${text}"`, t, "syntax");
      return { kind: "int", value, text, suffix: m[2]!.toLowerCase(), pos: this.span(t) };
    }
    const f = /^((?:[0-9]*\.[0-9]*|[0-9]+)(?:[eE][+-]?[0-9]+)?|0[xX][0-9a-fA-F.]+[pP][+-]?[0-9]+)([fFlL]?)$/.exec(text);
    if (f && f[1] !== ".") {
      return { kind: "float", value: Number(f[1]), text, suffix: f[2]!.toLowerCase(), pos: this.span(t) };
    }
    throw this.fail(`malformed number "${text}"`, t, "syntax");
  }
}

/** A plain decimal integer literal without suffix (`0`, `16`; not octal `017`): the common literal, read without a regular expression. */
function isDecimal(text: string): boolean {
  if (text.length > 1 && text.charCodeAt(0) === 48) return false;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return text.length > 0;
}

/** Parse a whole token list as one constant expression (used by `#if`). */
export function parseConstExprTokens(toks: readonly Tok[], fail: (detail: string, at: Tok) => OklError): Expr {
  const last = toks[toks.length - 1]!;
  const all: Tok[] = [...toks, { type: "eof", text: "", offset: last.offset + last.text.length, line: last.line, col: last.col + last.text.length }];
  const p = new ExprParser(all, (d, at) => fail(d, at));
  const e = p.parseExpr();
  if (p.peek().type !== "eof") throw fail(`unexpected "${p.peek().text}"`, p.peek());
  return e;
}

/** Literal integers combined by operators only (no casts, floats, names or calls). */
function intConstant(e: Expr): boolean {
  switch (e.kind) {
    case "int": case "char": return true;
    case "unary": return e.op !== "*" && e.op !== "&" && e.op !== "++" && e.op !== "--" && intConstant(e.operand);
    case "binary": return intConstant(e.left) && intConstant(e.right);
    case "conditional": return intConstant(e.cond) && intConstant(e.then) && intConstant(e.else);
    default: return false;
  }
}

/**
 * The branch a conditional of integer constants selects (its value and, both branches being
 * integers, its type are the conditional's), or undefined.
 */
function pickConstBranch(cond: Expr, then: Expr, els: Expr): Expr | undefined {
  if (!intConstant(cond) || !intConstant(then) || !intConstant(els)) return undefined;
  const c = evalConst(cond, () => undefined);
  return c === undefined ? undefined : c ? then : els;
}
