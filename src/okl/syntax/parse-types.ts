/**
 * The OKL parser, declarations: type specifiers, declarators, initializers.
 */
import type { Attribute, BaseType, Declaration, Declarator, Expr, PointerLevel, StorageClass, TypeName, TypeQualifier, TypeSpec } from "./ast.js";
import { checkAttribute, decodeVar } from "./attributes.js";
import type { Tok } from "./lexer.js";
import { lookupQualified, qualify, type StructTemplate } from "./cxx.js";
import { STORAGE_OF, QUALIFIER_OF, BUILTIN_WORDS, CXX_OF, STMT_KEYWORDS, VECTOR_TYPES, canonicalBuiltin, EMPTY_VAR } from "./parse-base.js";
import { AttributeParser } from "./parse-attributes.js";

/** An empty list shared by the type specifiers without storage classes or qualifiers (read-only in the AST). */
const NONE: readonly never[] = Object.freeze([]);
/** The builtin types one word names as it is (canonicalBuiltin's answer for them, without its lists). */
const ONE_WORD = new Set(["void", "char", "short", "int", "long", "float", "double", "bool", "size_t", "ptrdiff_t", "half"]);

export abstract class TypeParser extends AttributeParser {
  protected abstract parseStruct(): BaseType;
  protected abstract parseEnum(): BaseType;
  protected abstract instantiate(tpl: StructTemplate, at: Tok): BaseType;
  protected abstract constructorCall(inst: string): Expr;

  // ─── declarations ──────────────────────────────────────────────────────────────────────────────

  /** Does a declaration (a type) start at the current token? */
  override isTypeStart(): boolean {
    const t = this.peek();
    if (t.type !== "ident") return false;
    const w = t.text;
    if (w === "half") return this.halfIsType(0);
    if (STORAGE_OF.has(w) || QUALIFIER_OF.has(w) || BUILTIN_WORDS.has(w) || w === "struct" || w === "union" || w === "enum") return true;
    if ((w === "class" && this.peek(1).type === "ident") || (w === "auto" && this.peek(1).type === "ident" && this.peek(2).text === "=")) return true;
    return VECTOR_TYPES.has(w) || this.peekTypeName() !== undefined;
  }

  /**
   * Whether `half` at `peek(k)` is the (OpenCL/CUDA) type rather than an ordinary C identifier
   * (`const dfloat half = 0.5;`, `half * x`): it is a type before a declarator name, before
   * `*name` in a declaration, and in a cast `(half) x`.
   */
  protected halfIsType(k: number): boolean {
    const n = this.peek(k + 1);
    if (n.type === "ident" && !STMT_KEYWORDS.has(n.text)) return true;
    if (n.text === "*") return this.peek(k + 2).type === "ident" && ["=", ";", ",", ")", "["].includes(this.peek(k + 3).text);
    if (n.text === ")") {
      const a = this.peek(k + 2);
      return a.type === "ident" || a.type === "number" || a.text === "(";
    }
    return false;
  }

  /** A type name (maybe qualified, `A::B::S`) at the current token: its qualified name and length in tokens. */
  protected peekTypeName(): { readonly name: string; readonly len: number } | undefined {
    const t = this.peek();
    if (t.type !== "ident") return undefined;
    let text = t.text;
    let len = 1;
    while (this.peek(len).text === "::" && this.peek(len + 1).type === "ident") {
      text += "::" + this.peek(len + 1).text;
      len += 2;
    }
    const known = (q: string) => this.typedefs.has(q) || this.cxx.templates.has(q) || this.cxx.aliases.has(q) || this.cxx.declared.has(q);
    const name = lookupQualified(this.ns, text, known);
    return name === undefined ? undefined : { name, len };
  }

  /** A declaration starts here: a known type, or `Unknown name`/`Unknown *name =` (a type from a header we did not see). */
  isDeclStart(): boolean {
    if (this.isTypeStart()) return true;
    const t = this.peek();
    if (t.type !== "ident" || STMT_KEYWORDS.has(t.text) || CXX_OF.get(t.text)) return false;
    let k = 1;
    while (this.peek(k).text === "*" || this.peek(k).text === "&") k++;
    const n = this.peek(k);
    if (n.type === "ident" && !STMT_KEYWORDS.has(n.text)) {
      if (k === 1) return true;
      const after = this.peek(k + 1).text;
      return ["=", ";", ",", "[", "@", ")"].includes(after);
    }
    return k === 1 && n.text === "@" && this.peek(2).type === "ident";
  }

  parseTypeSpec(): TypeSpec {
    const start = this.peek();
    // Made only when needed (most declarations have no storage class, one qualifier at most and one word).
    let storage: StorageClass[] | undefined;
    let qualifiers: TypeQualifier[] | undefined;
    let word: string | undefined;
    let words: string[] | undefined;
    let base: BaseType | undefined;
    let baseTok: Tok | undefined;
    let named: { readonly name: string; readonly len: number } | undefined;
    for (;;) {
      const t = this.peek();
      if (t.type !== "ident") break;
      const w = t.text;
      const st = STORAGE_OF.get(w);
      const qu = st === undefined ? QUALIFIER_OF.get(w) : undefined;
      if (st) {
        (storage ??= []).push(st);
        this.next();
      } else if (qu) {
        (qualifiers ??= []).push(qu);
        this.next();
      } else if (BUILTIN_WORDS.has(w) && !base && (w !== "half" || (word === undefined && this.halfIsType(0)))) {
        if (word === undefined) word = w;
        else (words ??= [word]).push(w);
        baseTok ??= t;
        this.next();
      } else if ((w === "struct" || w === "union" || w === "class") && !base && word === undefined) {
        base = this.parseStruct();
      } else if (w === "auto" && !base && word === undefined && this.peek(1).type === "ident" && this.peek(2).text === "=") {
        // C++'s `auto x = e;`: the type of the initializer, found when the declaration is lowered.
        this.next();
        base = { kind: "named", name: "auto", pos: this.span(t) };
      } else if (w === "enum" && !base && word === undefined) {
        base = this.parseEnum();
      } else if (!base && word === undefined && (named = this.peekTypeName()) !== undefined) {
        for (let k = 0; k < named.len; k++) this.next();
        base = this.namedType(named.name, t);
      } else if (!base && word === undefined && (VECTOR_TYPES.has(w) || this.unknownTypeHere())) {
        this.checkUnsupported(t);
        this.next();
        if (this.at("::")) throw this.unsupported("C++ scope resolution (::)", this.peek());
        if (this.at("<")) throw this.unsupported("C++ templates", this.peek());
        base = { kind: "named", name: w, pos: this.span(t) };
      } else if (CXX_OF.get(w)) {
        throw this.unsupported(CXX_OF.get(w)!, t);
      } else break;
    }
    if (!base) {
      if (word === undefined) throw this.unexpected("a type");
      base = { kind: "builtin", name: words ? canonicalBuiltin(words) : ONE_WORD.has(word) ? word : canonicalBuiltin([word]), pos: this.span(baseTok!) };
    }
    return { kind: "typeSpec", storage: storage ?? NONE, qualifiers: qualifiers ?? NONE, base, pos: this.span(start) };
  }

  /** The type a known name denotes: a template instance (`V<float>`), an instance's alias, or a typedef/struct name. */
  protected namedType(name: string, at: Tok): BaseType {
    const tpl = this.cxx.templates.get(name);
    if (tpl) return this.instantiate(tpl, at);
    const alias = this.cxx.aliases.get(name);
    if (alias) return alias;
    if (this.cxx.declared.has(name)) throw this.unsupported(`C++ template declarations without a definition ("${name}" is declared, never defined)`, at);
    if (this.at("<")) throw this.unsupported(`C++ templates ("${name}" is not a struct template)`, this.peek());
    return { kind: "named", name, pos: this.span(at) };
  }

  /**
   * A qualified name in an expression: `std::sqrt(x)` (C's math function), `S::a` (a static constant
   * member of struct or class S), `E::A` (an enumerator of enum class E); undefined for other `::`.
   */
  protected qualifiedName(): Expr | undefined {
    const t = this.peek();
    if (t.text === "std" && this.peek(2).type === "ident" && this.peek(3).text === "(") {
      this.next();
      this.next();
      const n = this.next();
      return { kind: "ident", name: n.text, pos: this.span(t) };
    }
    let len = 1;
    while (this.peek(len).text === "::" && this.peek(len + 1).type === "ident") len += 2;
    if (len === 1) return undefined;
    const parts = Array.from({ length: (len + 1) / 2 }, (_, k) => this.peek(2 * k).text);
    const member = parts.pop()!;
    const owner = lookupQualified(this.ns, parts.join("::"), (q) => this.typedefs.has(q));
    if (owner === undefined) return undefined;
    for (let k = 0; k < len; k++) this.next();
    return { kind: "ident", name: `${owner}::${member}`, pos: this.span(t) };
  }

  /**
   * C++'s functional cast `int(x)`, `float(n)`, `real_t(x)` (a one-word type) is the C cast `(int)(x)`.
   * `half(x)` is a call: `half` is an ordinary name in C (a device function `double half(double)`).
   */
  override parsePrimary(): Expr {
    const t = this.peek();
    if (t.type === "ident" && this.peek(1).text === "::") {
      const q = this.qualifiedName();
      if (q) return q;
    }
    const word = t.type === "ident" && this.peek(1).text === "(" && ((BUILTIN_WORDS.has(t.text) && t.text !== "half") || this.typedefs.has(t.text));
    if (!word || t.text === "void" || this.cxx.templates.has(t.text)) return super.parsePrimary();
    this.next();
    const pos = this.span(t);
    const base: BaseType = BUILTIN_WORDS.has(t.text) ? { kind: "builtin", name: canonicalBuiltin([t.text]), pos } : { kind: "named", name: t.text, pos };
    const type: TypeName = { kind: "typeName", spec: { kind: "typeSpec", storage: [], qualifiers: [], base, pos }, pointers: [], arrayDims: [], pos };
    this.expect("(");
    if (this.at(")")) throw this.unsupported(`C++ value initialization "${t.text}()"`, this.peek());
    const operand = this.parseAssign();
    this.expect(")", `")" closing the functional cast ${t.text}(…)`);
    return { kind: "cast", type, operand, pos: this.span(t) };
  }

  /** An identifier not known as a type but followed by a declarator: a type we did not see declared. */
  protected unknownTypeHere(): boolean {
    const t = this.peek();
    if (t.type !== "ident" || STMT_KEYWORDS.has(t.text)) return false;
    let k = 1;
    while (this.peek(k).text === "*" || this.peek(k).text === "&" || QUALIFIER_OF.get(this.peek(k).text)) k++;
    const n = this.peek(k);
    return (n.type === "ident" && !STMT_KEYWORDS.has(n.text)) || (n.text === "@" && k === 1) || n.text === "::" || n.text === "<";
  }

  /** `* const * name [N] @attr...`; `abstract`: the name may be missing (parameters, type names). */
  parseDeclarator(abstract: boolean): Declarator {
    const start = this.peek();
    const pointers: PointerLevel[] = [];
    let reference = false;
    for (;;) {
      if (this.eat("*")) {
        const qualifiers: TypeQualifier[] = [];
        while (this.peek().type === "ident" && QUALIFIER_OF.get(this.peek().text)) qualifiers.push(QUALIFIER_OF.get(this.next().text)!);
        pointers.push({ qualifiers });
      } else if (this.at("&") || this.at("&&")) {
        if (reference || this.at("&&")) throw this.unsupported("C++ rvalue references", this.peek());
        this.next();
        reference = true;
      } else break;
    }
    const attrs = this.parseAttributes("postfix");
    let name = "";
    const n = this.peek();
    if (n.type === "ident" && !QUALIFIER_OF.get(n.text) && !STORAGE_OF.get(n.text) && (!BUILTIN_WORDS.has(n.text) || n.text === "half")) {
      this.checkUnsupported(n);
      this.next();
      name = n.text;
      if (this.at("::")) throw this.unsupported("C++ scope resolution (::)", this.peek());
    } else if (n.text === "(" && this.peek(1).text === "*") {
      throw this.unsupported("function pointers", n);
    } else if (!abstract) {
      throw this.unexpected("a name");
    }
    const arrayDims: (Expr | undefined)[] = [];
    while (this.at("[")) {
      if (this.peek(1).text === "[") break; // [[okl_...]] after the name
      this.next();
      arrayDims.push(this.at("]") ? undefined : this.parseExpr());
      this.expect("]");
    }
    attrs.push(...this.parseAttributes("postfix"));
    const d: Declarator = {
      kind: "declarator", name, pointers, arrayDims, attributes: attrs, init: undefined,
      okl: attrs.length ? decodeVar(attrs) : EMPTY_VAR, pos: this.span(start),
      ...(reference ? { reference: true } : {}),
    };
    return d;
  }

  protected parseDeclarationRest(attrs: Attribute[], spec: TypeSpec, first: Declarator, start: Tok): Declaration {
    const declarators: Declarator[] = [];
    let d = first;
    for (;;) {
      if (this.eat("=")) d = { ...d, init: this.parseInitializer(), pos: this.spanFrom(d.pos) };
      else if ((this.at("(") || this.at("{")) && spec.base.kind === "struct" && this.cxx.constructed.has(spec.base.name ?? "")) d = { ...d, init: this.constructorCall(spec.base.name!), pos: this.spanFrom(d.pos) }; // cxx.ts
      else if (this.at("(")) throw this.unsupported("C++ constructor-style initialization", this.peek());
      else if (this.at("{")) throw this.unsupported("C++ brace initialization", this.peek());
      // Attributes after the initializer (`int x = 0 @dim(...)`) are not OKL.
      declarators.push(d);
      if (!this.eat(",")) break;
      d = this.parseDeclarator(false);
    }
    if (this.at(":") && declarators.length === 1) throw this.unsupported("range-based for loops / bit-fields", this.peek());
    this.expect(";", '";" or ","');
    return this.finishDeclaration(attrs, spec, declarators, start);
  }

  protected finishDeclaration(attrs: Attribute[], spec: TypeSpec, declarators: Declarator[], start: Tok): Declaration {
    for (const a of attrs) checkAttribute(a, "variable", this.attrFail, this.extra);
    for (const d of declarators) for (const a of d.attributes) checkAttribute(a, "variable", this.attrFail, this.extra);
    let ds = attrs.length ? declarators.map((d) => ({ ...d, okl: decodeVar([...attrs, ...d.attributes]) })) : declarators;
    if (spec.storage.includes("typedef")) {
      if (this.ns.length) ds = ds.map((d) => ({ ...d, name: qualify(this.ns, d.name) }));
      for (const d of ds) this.declareType(d.name);
    }
    return { kind: "declaration", attributes: attrs, spec, declarators: ds, pos: this.span(start) };
  }

  protected parseInitializer(): Expr {
    const start = this.peek();
    if (!this.eat("{")) return this.parseAssign();
    const items: Expr[] = [];
    const designators: (string | undefined)[] = [];
    while (!this.at("}")) {
      let des: string | undefined;
      if (this.at(".") && this.peek(1).type === "ident") {
        this.next();
        des = "." + this.next().text;
        this.expect("=");
      } else if (this.at("[")) {
        this.next();
        const e = this.parseConditional();
        this.expect("]");
        this.expect("=");
        des = `[${e.kind === "int" ? e.value : "?"}]`;
      }
      items.push(this.parseInitializer());
      designators.push(des);
      if (!this.eat(",")) break;
    }
    this.expect("}", '"," or "}"');
    return { kind: "initList", items, designators, pos: this.span(start) };
  }

  override parseTypeName(): TypeName {
    const start = this.peek();
    const spec = this.parseTypeSpec();
    const d = this.parseDeclarator(true);
    if (d.name) throw this.err(`unexpected name "${d.name}" in a type`, start, "syntax");
    return { kind: "typeName", spec, pointers: d.pointers, arrayDims: d.arrayDims, pos: this.span(start) };
  }
}
