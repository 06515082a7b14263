/**
 * The OKL parser, structs, unions and enums (C, with C++ members skipped where harmless).
 */
import type { BaseType, Declarator, StructField, EnumMember } from "./ast.js";
import { lookupQualified, qualify } from "./cxx.js";
import type { Tok } from "./lexer.js";
import { TypeParser } from "./parse-types.js";

export abstract class StructParser extends TypeParser {
  /** `struct W { W(…) … }` at its `{`: the class's struct (its member functions made device functions), or undefined for a plain struct. */
  protected abstract plainClass(name: string, tag: "struct" | "union", at: Tok): BaseType | undefined;

  protected parseStruct(): BaseType {
    const start = this.next();
    const tag = start.text === "union" ? "union" : "struct"; // a C++ class is a struct whose members default to private
    let name: string | undefined;
    if (this.peek().type === "ident" && !this.at("{")) {
      const raw = this.next().text;
      // In a namespace, `struct S {` defines `A::S`; a bare `struct S` refers to the innermost one declared.
      const found = this.at("{") ? undefined : lookupQualified(this.ns, raw, (q) => this.typedefs.has(q));
      name = found ?? qualify(this.ns, raw);
    }
    if (this.at(":")) throw this.unsupported("C++ inheritance", this.peek());
    // As in C++ (and OCCA), a struct's tag names its type: `struct S {...}; S s;`.
    if (name) this.declareType(name);
    if (!this.at("{")) return { kind: "struct", tag, name, fields: undefined, pos: this.span(start) };
    // A class with a constructor or member functions is read as a class template's instance is (parse-templates.ts).
    const cls = name === undefined ? undefined : this.plainClass(name, tag, start);
    if (cls) return cls;
    this.next();
    const fields: StructField[] = [];
    while (!this.at("}")) {
      if (this.peek().type === "eof") throw this.unexpected('"}"');
      const fStart = this.peek();
      if (this.cxxMember(name)) continue;
      this.checkUnsupported(fStart);
      const attrs = this.parseAttributes("prefix");
      if (!this.isTypeStart() && !this.isDeclStart()) throw this.unexpected("a field declaration");
      const spec = this.parseTypeSpec();
      const declarators: Declarator[] = [];
      if (this.memberFunctionAhead()) {
        this.skipMemberFunctionDecl();
        continue;
      }
      if (!this.at(";")) {
        do {
          const d = this.parseDeclarator(false);
          if (this.at("(")) {
            if (declarators.length > 0) throw this.unexpected('";"');
            this.skipMemberFunction();
            break;
          }
          if (this.at("=")) throw this.unsupported("C++ default member initializers", this.peek());
          declarators.push(d);
        } while (this.eat(","));
        if (declarators.length === 0) continue;
      }
      this.expect(";");
      if (spec.storage.includes("static")) throw this.unsupported("C++ static data members (only `static const`/`static constexpr` ones with an initializer are supported)", fStart);
      fields.push({ kind: "field", attributes: attrs, spec, declarators, pos: this.span(fStart) });
    }
    this.next();
    return { kind: "struct", tag, name, fields, pos: this.span(start) };
  }

  /**
   * C++ members of a struct or class that are not fields, at the current token: access specifiers
   * (ignored: every field is data), member templates, constructors and destructors (skipped: Loom
   * never runs them, and initializing a struct with one is an error where it is written), and
   * static constants (`static constexpr int a = 4;`, the file-scope constant `S::a`). False otherwise.
   */
  protected cxxMember(struct: string | undefined): boolean {
    const t = this.peek();
    if ((t.text === "public" || t.text === "private" || t.text === "protected") && this.peek(1).text === ":") {
      this.next();
      this.next();
      return true;
    }
    if (t.text === "template") {
      this.next();
      this.skipAngles();
      return this.cxxMember(struct) || (this.parseTypeSpec(), this.skipMemberFunctionDecl(), true);
    }
    const own = struct?.split("::").pop();
    if ((t.text === "~" && this.peek(1).text === own) || (t.text === own && this.peek(1).text === "(")) {
      this.next();
      if (t.text === "~") this.next();
      this.skipMemberFunction();
      return true;
    }
    if (t.text !== "static" && !(t.text === "constexpr" && this.peek(1).text === "static")) return false;
    const spec = this.parseTypeSpec();
    if (this.memberFunctionAhead()) {
      this.skipMemberFunctionDecl();
      return true;
    }
    const d = this.parseDeclarator(false);
    if (this.at("(")) {
      this.skipMemberFunction();
      return true;
    }
    if (!spec.qualifiers.includes("const") && !spec.storage.includes("constexpr")) throw this.unsupported("C++ static data members that are not const", t);
    if (!this.eat("=")) throw this.unsupported("C++ static data members without an initializer in the class", this.peek());
    if (struct === undefined) throw this.unsupported("C++ static members of an anonymous struct", t);
    const init = this.parseInitializer();
    this.expect(";");
    const storage = spec.storage.filter((x) => x !== "static");
    this.cxx.statics.push({
      kind: "declaration", attributes: [], spec: { ...spec, storage, qualifiers: [...new Set([...spec.qualifiers, "const" as const])] },
      declarators: [{ ...d, name: `${struct}::${d.name}`, init }], pos: this.span(t),
    });
    return true;
  }

  /** After a member's type: `&`/`*`s and `operator` (an operator overload) ahead. */
  protected memberFunctionAhead(): boolean {
    let k = 0;
    while (this.peek(k).text === "*" || this.peek(k).text === "&") k++;
    return this.peek(k).text === "operator";
  }

  /** A member function or operator after its type, skipped (`T calc();`, `S &operator=(const S &) = default;`). */
  protected skipMemberFunctionDecl(): void {
    while (this.at("*") || this.at("&")) this.next();
    const at = this.peek();
    if (this.eat("operator")) {
      // `operator=`, `operator+=`, `operator()`, `operator[]`: the operator's tokens up to its parameter list.
      if (this.at("(") && this.peek(1).text === ")" && this.peek(2).text === "(") this.next(), this.next();
      else while (!this.at("(") && this.peek().type !== "eof") this.next();
      const how = this.skipMemberFunction();
      // A defaulted copy assignment is the plain copy Loom does; any other would change what `=` means.
      if (how !== "default" && how !== "delete") throw this.unsupported("C++ operator overloading (only `= default` operators are supported)", at);
      return;
    }
    this.parseDeclarator(false);
    if (!this.at("(")) throw this.unexpected('"(" of a member function');
    this.skipMemberFunction();
  }

  protected parseEnum(): BaseType {
    const start = this.next();
    // C++'s scoped enum `enum class E { A }`: its enumerators are `E::A`; its values are ints as in C.
    const scoped = this.eat("class") || this.eat("struct");
    let name: string | undefined;
    if (this.peek().type === "ident") name = qualify(this.ns, this.next().text);
    if (scoped && name === undefined) throw this.unexpected("the name of the enum class");
    if (this.eat(":")) {
      const u = this.peek();
      const t = this.parseTypeSpec();
      if (t.base.kind !== "builtin" || t.base.name !== "int") throw this.unsupported("C++ enums with an underlying type other than int", u);
    }
    // As in C++, the enum's name is a type.
    if (name !== undefined) this.declareType(name);
    if (!this.eat("{")) return { kind: "enum", name, members: undefined, pos: this.span(start) };
    const members: EnumMember[] = [];
    while (!this.at("}")) {
      const m = this.next();
      if (m.type !== "ident") throw this.err(`expected an enumerator name, got "${m.text}"`, m, "syntax");
      const value = this.eat("=") ? this.parseConditional() : undefined;
      members.push({ kind: "enumMember", name: scoped ? `${name}::${m.text}` : m.text, value, pos: this.span(m) });
      if (!this.eat(",")) break;
    }
    this.expect("}");
    return { kind: "enum", name, members, pos: this.span(start) };
  }

  // ─── C++ constructs skipped inside structs and templates ──────────────────────────────────────

  protected skipAngles(): void {
    const open = this.expect("<");
    for (let depth = 1; depth > 0; ) {
      const b = this.next();
      if (b.type === "eof") throw this.err('unclosed "<"', open, "syntax");
      if (b.text === "<") depth++;
      if (b.text === ">") depth--;
      if (b.text === ">>") depth -= 2;
    }
  }

  /** Skip a balanced `open … close` group starting at the current token. */
  protected skipBalanced(open: string, close: string): void {
    const first = this.expect(open);
    for (let depth = 1; depth > 0; ) {
      const b = this.next();
      if (b.type === "eof") throw this.err(`unclosed "${open}"`, first, "syntax");
      if (b.text === open) depth++;
      if (b.text === close) depth--;
    }
  }

  /**
   * The rest of a member function after its name, from `(`: skipped. Returns how it ends: a body
   * (with a constructor's member initializers), `= default` / `= delete`, or `;` (declared only).
   */
  protected skipMemberFunction(): "body" | "default" | "delete" | "declaration" {
    this.skipBalanced("(", ")");
    while (this.at("const") || this.at("noexcept") || this.at("override") || this.at("final")) this.next();
    if (this.eat("=")) {
      const how = this.next();
      this.expect(";", '";" after "= default" / "= delete"');
      if (how.text !== "default" && how.text !== "delete") throw this.unsupported("C++ pure virtual functions", how);
      return how.text;
    }
    if (this.eat(";")) return "declaration";
    if (this.eat(":")) {
      // Member initializers `: a(x), b{y}` up to the body.
      while (!this.at("{")) {
        if (this.peek().type === "eof") throw this.unexpected("a constructor body");
        this.next();
        if (this.at("(")) this.skipBalanced("(", ")");
        else if (this.at("{") && this.peek(-1).type === "ident") this.skipBalanced("{", "}");
      }
    }
    this.skipBalanced("{", "}");
    this.eat(";");
    return "body";
  }

  /** `Name<args>` after a struct template's name: the struct its body makes with the arguments. */
}
