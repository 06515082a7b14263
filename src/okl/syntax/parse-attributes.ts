/**
 * The OKL parser, attributes: `@name(args)`, the 4th `for` clause, `[[okl_name("args")]]`.
 */
import type { Attribute, AttributeArg, AttributePlacement } from "./ast.js";
import { HANDLERS, unknownAttributeMessage } from "./attributes.js";
import { lex, type Tok } from "./lexer.js";
import type { OklError } from "../../errors.js";
import { ParserBase } from "./parse-base.js";


export abstract class AttributeParser extends ParserBase {
  // ─── attributes ────────────────────────────────────────────────────────────────────────────────

  readonly attrFail = (detail: string, a: Attribute, rule: string): OklError => this.err(detail, a.pos, rule);

  /** Zero or more attributes: `@name(args)` and `[[okl_name("args")]]`. */
  parseAttributes(placement: AttributePlacement): Attribute[] {
    const out: Attribute[] = [];
    for (;;) {
      if (this.at("@") && this.peek(1).type === "ident") out.push(this.parseLegacyAttribute(placement));
      else if (this.at("[") && this.peek(1).text === "[") out.push(...this.parseNormalizedAttributes(placement));
      else return out;
    }
  }

  protected parseLegacyAttribute(placement: AttributePlacement): Attribute {
    const at = this.next();
    const nameTok = this.next();
    const name = nameTok.text;
    this.knownAttribute(name, at);
    let args: AttributeArg[] = [];
    let argsText: string | undefined;
    if (this.at("(")) {
      const open = this.next();
      args = this.parseAttributeArgs(name);
      const close = this.expect(")", `"," or ")" in the arguments of @${name}`);
      argsText = this.textBetween(open, close);
    }
    return { kind: "attribute", name, args, argsText, syntax: "legacy", placement, pos: this.span(at) };
  }

  protected parseAttributeArgs(name: string): AttributeArg[] {
    const args: AttributeArg[] = [];
    if (this.at(")")) return args;
    for (;;) {
      const s = this.peek();
      if (this.at(",") || this.at(")")) throw this.err(`[@${name}] has an empty argument`, s, `@${name} arguments`);
      let arg: AttributeArg;
      if (this.at("@")) {
        const attr = this.parseLegacyAttribute("nested");
        arg = { kind: "attrArg", raw: "", attr, pos: attr.pos };
      } else if (s.type === "ident" && this.peek(1).text === "=" && this.peek(1).type === "punct") {
        this.next();
        this.next();
        const value = this.parseConditional();
        arg = { kind: "kwArg", raw: "", name: s.text, value, pos: this.span(s) };
      } else {
        const expr = this.parseConditional();
        arg = { kind: "exprArg", raw: "", expr, pos: this.span(s) };
      }
      args.push({ ...arg, raw: this.tokensText(s) });
      if (!this.eat(",")) return args;
    }
  }

  protected knownAttribute(name: string, at: Tok): void {
    if (HANDLERS[name] || this.extra.has(name)) return;
    throw this.err(unknownAttributeMessage(name), at, "attribute name");
  }

  /** `[[okl_a("(x)"), okl::b("")]]` */
  protected parseNormalizedAttributes(placement: AttributePlacement): Attribute[] {
    const open = this.next();
    this.next();
    const out: Attribute[] = [];
    do {
      const n = this.next();
      let name = n.text;
      if (n.type !== "ident") throw this.err(`expected an attribute name after "[[", got "${n.text}"`, n, "syntax");
      if (name === "okl" && this.at("::")) {
        this.next();
        name = this.next().text;
      } else if (name.startsWith("okl_")) name = name.slice(4);
      else throw this.unsupported(`C++ attribute [[${name}]]`, n);
      this.knownAttribute(name, n);
      this.expect("(");
      const s = this.next();
      if (s.type !== "string") throw this.err(`[[okl_${name}]] takes one string argument, e.g. [[okl_${name}("")]]`, s, "normalized attribute");
      this.expect(")");
      const text = JSON.parse(s.text.replace(/^[uUL8]*/, "")) as string;
      let args: AttributeArg[] = [];
      let argsText: string | undefined;
      if (text.trim() !== "") {
        const toks: Tok[] = lex(text)
          .filter((t) => t.type !== "ws" && t.type !== "nl" && t.type !== "comment")
          .map((t) => ({ ...t, offset: s.offset, line: s.line, col: s.col, ...(s.file !== undefined ? { file: s.file } : {}) }));
        toks.push({ type: "eof", text: "", offset: s.offset, line: s.line, col: s.col });
        const sub = this.subParser(toks, this.ns);
        const o = sub.expect("(", `"(" at the start of the arguments of [[okl_${name}]]`);
        args = sub.parseAttributeArgs(name);
        const c = sub.expect(")");
        if (sub.peek().type !== "eof") throw sub.unexpected("the end of the attribute arguments");
        argsText = sub.textBetween(o, c);
      }
      out.push({ kind: "attribute", name, args, argsText, syntax: "normalized", placement, pos: this.span(n) });
    } while (this.eat(","));
    this.expect("]");
    this.expect("]");
    void open;
    return out;
  }

  /** The source text strictly between two tokens (tokens joined when they came from a macro). */
  textBetween(open: Tok, close: Tok): string {
    const src = this.sources.get(open.file ?? "");
    const i = this.toks.indexOf(open);
    const j = this.toks.indexOf(close, i);
    const macro = this.toks.slice(i, j + 1).some((t) => t.fromMacro !== undefined);
    if (src !== undefined && !macro && open.file === close.file && close.offset > open.offset && src.slice(open.offset, open.offset + 1) === "(") {
      return src.slice(open.offset + 1, close.offset);
    }
    return this.toks.slice(i + 1, j).map((t, k) => (k > 0 && t.spaceBefore ? " " : "") + t.text).join("");
  }

  /** The consumed tokens from `from` on, as text. */
  protected tokensText(from: Tok): string {
    const i = this.toks.indexOf(from, Math.max(0, this.pos - 4096));
    return this.toks.slice(i, this.pos).map((t, k) => (k > 0 && t.spaceBefore ? " " : "") + t.text).join("");
  }
}
