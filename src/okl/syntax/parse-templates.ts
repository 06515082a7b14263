/**
 * The OKL parser, C++ struct templates and namespaces (cxx.ts).
 */
import type { BaseType, Expr, Stmt, TopLevel } from "./ast.js";
import type { Tok } from "./lexer.js";
import { classMembers, isClassBody, memberFunctionName, lookupQualified, qualify, substitute, typeTokens, valueInits, type StructTemplate, type TemplateParam } from "./cxx.js";
import { StructParser } from "./parse-structs.js";
import { OklError } from "../../errors.js";

export abstract class TemplateParser extends StructParser {
  protected abstract parseExternal(fragment: boolean): TopLevel | Stmt | undefined;

  // ─── C++: struct templates and namespaces (cxx.ts) ─────────────────────────────────────────────

  /** `template <class T, int N> struct Name { … };`: recorded, instantiated where `Name<…>` is used. */
  protected parseTemplate(): void {
    const t = this.next();
    this.expect("<");
    const params: TemplateParam[] = [];
    while (!this.at(">")) {
      const p = this.peek();
      let kind: TemplateParam["kind"];
      if (this.at("class") || this.at("typename")) {
        this.next();
        kind = "type";
      } else if (this.at("template")) {
        throw this.unsupported("C++ template template parameters", p);
      } else if (this.isTypeStart()) {
        this.parseTypeSpec();
        kind = "value";
      } else throw this.unexpected("a template parameter (`class T`, `typename T` or `int N`)");
      if (this.at("...")) throw this.unsupported("C++ variadic templates", this.peek());
      const n = this.peek();
      if (n.type !== "ident") throw this.unexpected("a template parameter name");
      this.next();
      if (this.at("=")) throw this.unsupported("C++ default template arguments", this.peek());
      params.push({ kind, name: n.text });
      if (!this.eat(",")) break;
    }
    this.expect(">", '"," or ">"');
    const k = this.peek();
    if (k.text !== "struct" && k.text !== "class" && k.text !== "union") {
      throw this.unsupported("C++ templates (only struct templates are supported, not function templates)", t);
    }
    this.next();
    const n = this.peek();
    if (n.type !== "ident") throw this.unexpected("a struct template name");
    this.next();
    if (this.at("<") || !params.length) {
      // A (partial) specialization `template <int b> struct S<0, b> { … };`: skipped; instantiating S
      // would have to choose among the specializations, which is the error (instantiate).
      if (this.at("<")) this.skipAngles();
      this.skipBalanced("{", "}");
      this.expect(";", '";" after the struct template');
      this.cxx.specialized.add(lookupQualified(this.ns, n.text, (q) => this.cxx.templates.has(q)) ?? qualify(this.ns, n.text));
      return;
    }
    if (this.at(":")) throw this.unsupported("C++ inheritance", this.peek());
    // A declaration without a definition declares nothing Loom can instantiate: using it fails as an unknown type.
    if (this.eat(";")) {
      this.cxx.declared.add(qualify(this.ns, n.text));
      return;
    }
    const open = this.expect("{");
    const body: Tok[] = [open];
    for (let depth = 1; depth > 0; ) {
      const b = this.next();
      if (b.type === "eof") throw this.err(`unclosed body of struct template "${n.text}"`, open, "syntax");
      if (b.text === "{") depth++;
      if (b.text === "}") depth--;
      body.push(b);
    }
    this.expect(";", '";" after the struct template');
    const name = qualify(this.ns, n.text);
    if (this.cxx.templates.has(name)) throw this.err(`struct template "${name}" is defined twice`, n, "redefinition");
    const tag = k.text === "union" ? "union" : "struct";
    this.cxx.templates.set(name, { name, tag, params, body, ns: [...this.ns], instances: new Map() });
  }

  /** Skip `< … >` (nested angle brackets and parentheses included). */
  protected instantiate(tpl: StructTemplate, at: Tok): BaseType {
    if (this.cxx.specialized.has(tpl.name)) {
      throw this.unsupported(`C++ template specializations (struct template "${tpl.name}" has specializations; choosing among them is not supported)`, at);
    }
    const count = `template "${tpl.name}" takes ${tpl.params.length} argument${tpl.params.length === 1 ? "" : "s"}`;
    if (!this.at("<")) {
      throw this.unsupported(`C++ templates (struct template "${tpl.name}" used without arguments; write \`${tpl.name}<${tpl.params.map((p) => p.name).join(", ")}>\`)`, this.peek());
    }
    this.next();
    const args: Tok[][] = [];
    const texts: string[] = [];
    for (const [i, p] of tpl.params.entries()) {
      if (i > 0) this.expect(",", `"," (${count})`);
      const a = this.peek();
      const mk = (text: string): Tok => ({ ...a, type: "punct", text });
      if (p.kind === "type") {
        if (!this.isTypeStart()) throw this.unexpected(`a type for template parameter "${p.name}"`);
        const tn = this.parseTypeName();
        if (tn.arrayDims.length) throw this.unsupported("C++ templates (array type arguments)", a);
        const r = typeTokens(tn, a, (b) => this.alias(b));
        args.push(r.toks);
        texts.push(r.text);
      } else {
        const from = this.pos;
        this.parseBinary(8); // shifts and tighter: `>` ends the argument list, as in C++
        const toks = this.toks.slice(from, this.pos);
        args.push([mk("("), ...toks, mk(")")]);
        texts.push(toks.map((x) => x.text).join(" "));
      }
    }
    if (this.at(">>")) throw this.unsupported("C++ templates (write nested template arguments with a space: `> >`)", this.peek());
    this.expect(">", `">" (${count})`);
    const name = `${tpl.name}<${texts.join(", ")}>`;
    const memo = tpl.instances.get(name);
    if (memo) return memo;
    const end: Tok = { ...at, type: "eof", text: "" };
    const short = tpl.name.split("::").pop()!;
    if (isClassBody(short, tpl.body)) return this.instantiateClass(tpl, short, name, args, at);
    const toks = [{ ...at, type: "ident", text: tpl.tag } as Tok, ...substitute(tpl, args), end];
    const sub = this.subParser(toks, tpl.ns);
    const b = sub.parseStruct();
    const inst: BaseType = { ...b, name, pos: this.span(at) } as BaseType;
    tpl.instances.set(name, inst);
    return inst;
  }

  /**
   * An instance of a class template with a constructor or member functions: the struct of its data
   * fields (named `name`, which is also a one-token alias of it), and one device function per
   * member function and constructor taking the object by address, placed after the current
   * top-level item (cxx.ts, classMembers).
   */
  private instantiateClass(tpl: StructTemplate, short: string, name: string, args: readonly (readonly Tok[])[], at: Tok): BaseType {
    const end: Tok = { ...at, type: "eof", text: "" };
    const body = substitute({ ...tpl, body: valueInits(tpl.body, tpl.params) }, args);
    const cls = classMembers(short, name, body, (what, t) => this.unsupported(what, t));
    const b = this.subParser([{ ...at, type: "ident", text: tpl.tag } as Tok, ...cls.data, end], tpl.ns).parseStruct();
    const inst: BaseType = { ...b, name, pos: this.span(at) } as BaseType;
    tpl.instances.set(name, inst);
    this.cxx.aliases.set(name, inst);
    if (cls.hasConstructor) this.cxx.constructed.add(name);
    for (const f of cls.functions) {
      const it = this.subParser([...f, end], tpl.ns).parseExternal(false);
      if (it) this.cxx.statics.push(it as TopLevel);
    }
    return inst;
  }

  /**
   * A class without template parameters (`struct W { W(dfloat g) : s(g) {} dfloat f(dfloat x) {…} dfloat s; };`),
   * at its `{`: read as the instance of a class template without arguments, with the same subset and
   * refusals (classMembers); undefined (nothing consumed) for a struct without constructor or member function bodies.
   */
  protected plainClass(name: string, tag: "struct" | "union", at: Tok): BaseType | undefined {
    let end = this.pos;
    for (let depth = 0; end < this.toks.length; end++) {
      const t = this.toks[end]!;
      if (t.type === "eof") return undefined; // unclosed: parseStruct reports it
      if (t.text === "{") depth++;
      else if (t.text === "}" && --depth === 0) break;
    }
    const body = this.toks.slice(this.pos, end + 1);
    const short = name.split("::").pop()!;
    if (!isClassBody(short, body)) return undefined;
    const [from, statics] = [this.pos, this.cxx.statics.length];
    this.pos = end + 1;
    try {
      return this.instantiateClass({ name, tag, params: [], body, ns: [...this.ns], instances: new Map() }, short, name, [], at);
    } catch (e) {
      // Outside the subset: a struct of its data as before (members skipped) until its constructor is called (refusedClasses).
      if (!(e instanceof OklError)) throw e;
      this.cxx.aliases.delete(name);
      this.cxx.constructed.delete(name);
      this.cxx.statics.length = statics;
      this.cxx.refusedClasses.set(name, e);
      this.pos = from;
      return undefined;
    }
  }

  /** `(a, b)` or `{a, b}` after an object of class `inst`: the call of its constructor (the object's address is added where it is lowered). */
  protected constructorCall(inst: string): Expr {
    const start = this.peek();
    const close = this.next().text === "(" ? ")" : "}";
    const args: Expr[] = [];
    if (!this.at(close)) {
      do args.push(this.parseAssign());
      while (this.eat(",") && !this.at(close));
    }
    this.expect(close, `"," or "${close}"`);
    return { kind: "call", callee: { kind: "ident", name: memberFunctionName(inst, "ctor"), pos: this.span(start) }, args, pos: this.span(start) };
  }

  /** A one-token name for a struct given as a template argument (its tag when it has one). */
  protected alias(b: BaseType): string {
    if ((b.kind === "struct" || b.kind === "enum") && b.name !== undefined && !this.cxx.aliases.has(b.name)) {
      if (b.kind === "enum" || b.fields === undefined || this.typedefs.has(b.name)) return b.name;
    }
    const name = b.kind === "struct" || b.kind === "enum" ? b.name ?? `(anonymous ${b.kind} ${this.cxx.aliases.size})` : "?";
    this.cxx.aliases.set(name, b);
    return name;
  }

  /** `namespace A { … }` (and `namespace A::B { … }`): its items, with the types declared in it qualified (`A::S`). */
  protected parseNamespace(): TopLevel[] {
    this.next();
    const names: string[] = [];
    do {
      const n = this.peek();
      if (n.type !== "ident") throw this.unsupported("C++ anonymous namespaces", n);
      this.next();
      names.push(n.text);
    } while (this.eat("::"));
    if (this.at("=")) throw this.unsupported("C++ namespace aliases", this.peek());
    this.expect("{");
    this.ns.push(...names);
    const items: TopLevel[] = [];
    while (!this.at("}")) {
      if (this.peek().type === "eof") throw this.unexpected(`"}" closing namespace "${names.join("::")}"`);
      if (this.at("namespace")) {
        items.push(...this.parseNamespace());
        continue;
      }
      const start = this.peek();
      const it = this.parseExternal(false) as TopLevel | undefined;
      if (!it) continue;
      if (it.kind === "function") throw this.unsupported("C++ namespaces (functions in a namespace; only types are supported)", start);
      if (it.kind === "declaration" && it.declarators.length && !it.spec.storage.includes("typedef")) {
        throw this.unsupported("C++ namespaces (variables in a namespace; only types are supported)", start);
      }
      items.push(it);
    }
    this.next();
    this.ns.length -= names.length;
    return items;
  }
}
