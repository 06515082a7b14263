/**
 * The OKL parser, statements: compound, if, loops (with OKL's loop attributes), jumps, @atomic.
 */
import type { Attribute, Compound, Declaration, Expr, Pragma, Stmt } from "./ast.js";
import { OCCA1_BARRIER_TYPES, checkAttribute, decodeLoop, decodeLoopHints, type AttrTarget } from "./attributes.js";
import type { Tok } from "./lexer.js";
import { TemplateParser } from "./parse-templates.js";

export abstract class StatementParser extends TemplateParser {
  // ─── statements ────────────────────────────────────────────────────────────────────────────────

  parseCompound(attrs: Attribute[]): Compound {
    const start = this.expect("{");
    const items: Stmt[] = [];
    this.blockTypes.push([]);
    while (!this.at("}")) {
      if (this.peek().type === "eof") throw this.err('"{" is never closed', start, "syntax");
      items.push(this.parseStatement());
    }
    for (const name of this.blockTypes.pop()!) this.typedefs.delete(name);
    this.next();
    return { kind: "compound", items, attributes: attrs, pos: this.span(start) };
  }

  protected check(attrs: readonly Attribute[], target: AttrTarget): void {
    for (const a of attrs) checkAttribute(a, target, this.attrFail, this.extra);
  }

  parseStatement(): Stmt {
    const start = this.peek();
    if (start.type === "pragma") {
      this.next();
      return { kind: "pragma", text: start.text, attributes: [], pos: this.span(start) } satisfies Pragma;
    }
    const attrs = this.parseAttributes("prefix");
    const t = this.peek();
    this.checkUnsupported(t);
    const w = t.type === "ident" ? t.text : t.type === "punct" ? t.text : "";
    switch (w) {
      case "{": {
        const body = this.parseCompound([]);
        return this.atomicOr(attrs, "compound", body, start);
      }
      case ";": {
        this.next();
        this.check(attrs, "empty");
        const barrier = attrs.find((a) => a.name === "barrier");
        if (barrier) {
          const arg = barrier.args[0];
          const type = arg?.kind === "exprArg" && arg.expr.kind === "string" ? arg.expr.value : undefined;
          if (type !== undefined && OCCA1_BARRIER_TYPES.has(type)) {
            this.warn(`@barrier("${type}") is OCCA 1.x's spelling (current OCCA accepts only "warp"): a work-group barrier, as OCCA 1.x compiled it`,
              barrier.pos, `[@barrier] has an invalid barrier type: ${type} (OCCA 1.x accepted it; write @barrier for a work-group barrier)`, "@barrier arguments");
          }
          return { kind: "barrier", scope: type === "warp" ? "warp" : "block", attributes: attrs, pos: this.span(start) };
        }
        return { kind: "empty", attributes: attrs, pos: this.span(start) };
      }
      case "if": {
        this.next();
        this.check(attrs, "statement");
        const cond = this.parenthesized();
        const then = this.parseStatement();
        const els = this.eat("else") ? this.parseStatement() : undefined;
        return { kind: "if", cond, then, else: els, attributes: attrs, pos: this.span(start) };
      }
      case "for":
        return this.parseFor(attrs, start);
      case "while": {
        this.next();
        this.check(attrs, "statement");
        const cond = this.parenthesized();
        const body = this.parseStatement();
        return { kind: "while", cond, body, attributes: attrs, pos: this.span(start) };
      }
      case "do": {
        this.next();
        this.check(attrs, "statement");
        const body = this.parseStatement();
        this.expect("while");
        const cond = this.parenthesized();
        this.expect(";");
        return { kind: "doWhile", body, cond, attributes: attrs, pos: this.span(start) };
      }
      case "switch": {
        this.next();
        this.check(attrs, "statement");
        const cond = this.parenthesized();
        const body = this.parseStatement();
        return { kind: "switch", cond, body, attributes: attrs, pos: this.span(start) };
      }
      case "case":
      case "default": {
        this.next();
        this.check(attrs, "statement");
        const value = w === "case" ? this.parseConditional() : undefined;
        this.expect(":");
        const body = this.at("}") ? ({ kind: "empty", attributes: [], pos: this.span(start) } as Stmt) : this.parseStatement();
        return { kind: "case", value, body, attributes: attrs, pos: this.span(start) };
      }
      case "break":
      case "continue":
        this.next();
        this.check(attrs, "statement");
        this.expect(";");
        return { kind: w, attributes: attrs, pos: this.span(start) };
      case "return": {
        this.next();
        this.check(attrs, "statement");
        const value = this.at(";") ? undefined : this.parseExpr();
        this.expect(";");
        return { kind: "return", value, attributes: attrs, pos: this.span(start) };
      }
      case "else":
        throw this.err('"else" without "if"', t, "syntax");
      default:
        break;
    }
    if (this.isDeclStart()) {
      if (attrs.some((a) => a.name === "kernel")) this.check(attrs.filter((a) => a.name === "kernel"), "statement");
      const spec = this.parseTypeSpec();
      const mid = this.parseAttributes("postfix");
      if (this.at(";")) {
        this.next();
        return this.finishDeclaration([...attrs, ...mid], spec, [], start);
      }
      const d = this.parseDeclarator(false);
      const constructed = spec.base.kind === "struct" && this.cxx.constructed.has(spec.base.name ?? ""); // `S<…> obj(a, b);` (cxx.ts)
      if (this.at("(") && d.pointers.length + d.arrayDims.length === 0 && spec.base.kind !== "builtin" && !constructed) {
        const b = spec.base;
        throw ((b.kind === "struct" || b.kind === "named") && this.cxx.refusedClasses.get(b.name ?? "")) || this.unsupported("C++ constructor-style initialization", this.peek());
      }
      if (this.at("(") && !constructed) throw this.err(`a function declaration ("${d.name}") inside a function`, this.peek(), "syntax");
      return this.parseDeclarationRest([...attrs, ...mid], spec, d, start);
    }
    const expr = this.parseExpr();
    this.expect(";", '";"');
    return this.atomicOr(attrs, "expr", { kind: "expr", expr, attributes: [], pos: this.span(start) }, start);
  }

  /** An `@atomic` statement, or `body` with its attributes. */
  protected atomicOr(attrs: Attribute[], target: AttrTarget, body: Stmt & { kind: "expr" | "compound" }, start: Tok): Stmt {
    this.check(attrs, target);
    if (attrs.some((a) => a.name === "atomic")) return { kind: "atomic", body, attributes: attrs, pos: this.span(start) };
    return { ...body, attributes: attrs };
  }

  /** `( expr )`: the condition of `if`, `while`, `do … while` and `switch`. */
  protected parenthesized(): Expr {
    this.expect("(");
    const e = this.parseExpr();
    this.expect(")");
    return e;
  }

  protected parseFor(prefix: Attribute[], start: Tok): Stmt {
    this.next();
    this.expect("(");
    let init: Declaration | Expr | undefined;
    if (this.eat(";")) init = undefined;
    else {
      const s = this.peek();
      const attrs = this.parseAttributes("prefix");
      if (this.isDeclStart()) {
        const spec = this.parseTypeSpec();
        const d = this.parseDeclarator(false);
        init = this.parseDeclarationRest(attrs, spec, d, s);
      } else {
        this.check(attrs, "expr");
        init = this.parseExpr();
        this.expect(";");
      }
    }
    const cond = this.at(";") ? undefined : this.parseExpr();
    this.expect(";");
    const update = this.at(")") || this.at(";") ? undefined : this.parseExpr();
    const clause: Attribute[] = [];
    if (this.eat(";")) {
      clause.push(...this.parseAttributes("forClause"));
      if (!this.at(")")) {
        if (this.at(";")) throw this.err("Too many statements, expected 3", this.peek(), "for loop form");
        throw this.unexpected(clause.length ? '")" after the loop attributes' : "OKL attributes (@outer, @inner, @tile) in the 4th clause");
      }
    }
    this.expect(")", clause.length ? '")"' : '";" or ")"');
    const attrs = [...prefix, ...clause];
    this.check(attrs, "for");
    const body = this.parseStatement();
    return {
      kind: "for", init, cond, update, body, attributes: attrs,
      okl: decodeLoop(attrs, this.attrFail), nobarrier: attrs.some((a) => a.name === "nobarrier"),
      loopHints: decodeLoopHints(attrs), pos: this.span(start),
    };
  }
}
