/**
 * The OKL parser: preprocessed tokens -> `TranslationUnit` (ast.ts), with OKL attributes in every
 * legal position (prefix, the 4th `for` clause, postfix on declarators, `[[okl_name("args")]]`).
 *
 * Why hand-written recursive descent (with a Pratt loop for binary operators, parse-expr.ts) and not
 * the project's nearley stack: C's grammar is context-sensitive (`a * b;` and `(T)(x)` depend on
 * whether `a`/`T` name a type), which an Earley parser can only express as ambiguity resolved after
 * the fact, and Earley's chart costs work per token per live item where a predictive parser decides
 * with one symbol-table lookup. The budget is 0.3 ms per example kernel for parse + validate +
 * lower; this front end takes a median of about 0.15 ms per OCCA example kernel (bench/okl.ts), which
 * leaves the lowering its share. (No nearley C grammar was written to compare against.)
 * moo still does the lexing.
 *
 * Constructs outside Loom's C subset (templates, classes, namespaces, references beyond parameters,
 * lambdas, `new`, ...) are OklErrors naming the construct, rule "OKL subset".
 */
import type {
  Attribute, AttributeArg, AttributePlacement, BaseType, Compound, Declaration, Declarator, Expr,
  FunctionDef, Param, PointerLevel, Pos, Pragma, Stmt, StorageClass, StructField, TopLevel,
  TranslationUnit, TypeName, TypeQualifier, TypeSpec, EnumMember,
} from "./ast.js";
import { HANDLERS, checkAttribute, decodeLoop, decodeLoopHints, decodeVar, type AttrTarget } from "./attributes.js";
import { oklError, type Sources } from "./diag.js";
import { lex, type Tok } from "./lexer.js";
import { ExprParser } from "./parse-expr.js";
import { lookupQualified, newCxxState, qualify, substitute, typeTokens, type CxxState, type StructTemplate, type TemplateParam } from "./cxx.js";
import type { OklError } from "../errors.js";

export interface ParseOptions {
  readonly filename?: string;
  /** Attribute names accepted besides OKL's (OCCA lets hosts register their own). */
  readonly extraAttributes?: readonly string[];
}

const STORAGE: Readonly<Record<string, StorageClass>> = {
  typedef: "typedef", static: "static", extern: "extern", inline: "inline", __inline__: "inline",
  __inline: "inline", register: "register", constexpr: "constexpr", __forceinline__: "inline",
};
const QUALIFIERS: Readonly<Record<string, TypeQualifier>> = {
  const: "const", volatile: "volatile", restrict: "restrict", __restrict__: "restrict", __restrict: "restrict",
};
const BUILTIN_WORDS = new Set(["void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "bool", "_Bool", "size_t", "ptrdiff_t", "half"]);
/** C++ keywords that start constructs outside the subset, with their names for the message. */
const CXX: Readonly<Record<string, string>> = {
  template: "C++ templates", class: "C++ classes", namespace: "C++ namespaces", using: "C++ using-declarations",
  typename: "C++ templates (typename)", operator: "C++ operator overloading", new: "C++ new", delete: "C++ delete",
  this: "C++ classes (this)", virtual: "C++ classes (virtual)", public: "C++ classes (access specifiers)",
  private: "C++ classes (access specifiers)", protected: "C++ classes (access specifiers)", friend: "C++ classes (friend)",
  reinterpret_cast: "C++ casts", const_cast: "C++ casts", dynamic_cast: "C++ casts",
  auto: "C++ auto type deduction", decltype: "C++ decltype", static_assert: "static_assert", throw: "C++ exceptions",
  try: "C++ exceptions", nullptr: "C++ nullptr", goto: "goto", asm: "inline assembly", __asm__: "inline assembly",
  alignas: "alignas", __attribute__: "GNU __attribute__",
};
// Prototype-free tables: an identifier like "constructor" must not find Object.prototype members.
Object.setPrototypeOf(STORAGE, null);
Object.setPrototypeOf(QUALIFIERS, null);
Object.setPrototypeOf(CXX, null);
const STMT_KEYWORDS = new Set(["if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return", "sizeof"]);

/** OCCA's builtin vector types (float4, int2, ...), usable as type names without a typedef. */
const VECTOR_TYPES = new Set(
  ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "bool"].flatMap((b) =>
    [2, 3, 4, 8, 16].map((n) => b + n),
  ),
);

function canonicalBuiltin(words: readonly string[]): string {
  const count = (w: string) => words.filter((x) => x === w).length;
  const longs = count("long");
  const unsigned = count("unsigned") > 0;
  const signed = count("signed") > 0;
  let base = ["void", "char", "short", "float", "double", "bool", "_Bool", "size_t", "ptrdiff_t", "half"].find((w) => words.includes(w));
  if (base === "_Bool") base = "bool";
  if (base === "double" && longs) return "long double";
  if (!base) base = longs === 1 ? "long" : longs >= 2 ? "long long" : "int";
  if (base === "char" && signed) return "signed char";
  return unsigned ? `unsigned ${base}` : base;
}

const EMPTY_VAR = decodeVar([]);

export class Parser extends ExprParser {
  /** Type names visible here: typedefs and struct tags of this block and the enclosing ones. */
  readonly typedefs: Set<string>;
  /** Per open block, the type names it added (removed again when it closes, as C scopes them). */
  private readonly blockTypes: string[][] = [];
  private readonly extra: ReadonlySet<string>;
  /** The namespaces the parser is in, outermost first (`namespace A { namespace B {` -> ["A", "B"]). */
  private readonly ns: string[];

  constructor(
    toks: readonly Tok[],
    readonly sources: Sources,
    readonly opts: ParseOptions = {},
    typedefs?: Set<string>,
    private readonly cxx: CxxState = newCxxState(),
    ns: readonly string[] = [],
  ) {
    super(toks, (detail, at, rule) => oklError(detail, at, rule ?? "syntax", sources, opts.filename));
    this.typedefs = typedefs ?? new Set();
    this.extra = new Set(opts.extraAttributes ?? []);
    this.ns = [...ns];
  }

  err(detail: string, at: Tok | Pos, rule: string): OklError {
    return oklError(detail, at, rule, this.sources, this.opts.filename);
  }

  /** Make `name` a type name until the current block closes (for the whole file at the top level). */
  private declareType(name: string): void {
    if (this.typedefs.has(name)) return;
    this.typedefs.add(name);
    this.blockTypes[this.blockTypes.length - 1]?.push(name);
  }

  unsupported(construct: string, at: Tok): OklError {
    return this.err(`${construct}: outside Loom's OKL subset (C with OKL attributes)`, at, "OKL subset");
  }

  override checkUnsupported(t: Tok): void {
    // `auto x = e;` is supported (its type is the initializer's); other uses of auto are not.
    if (t.text === "auto" && t === this.peek() && this.isTypeStart()) return;
    if (t.type === "ident" && CXX[t.text]) throw this.unsupported(CXX[t.text]!, t);
    if (t.text === "::") throw this.unsupported("C++ scope resolution (::)", t);
  }

  // ─── translation unit ──────────────────────────────────────────────────────────────────────────

  parseUnit(): TranslationUnit {
    const start = this.peek();
    const items: TopLevel[] = [];
    while (this.peek().type !== "eof") {
      if (this.at("namespace")) items.push(...this.parseNamespace());
      else {
        const it = this.parseExternal(false);
        if (it) items.push(it as TopLevel);
      }
      items.push(...this.cxx.statics.splice(0));
    }
    return { kind: "translationUnit", filename: this.opts.filename, items, pos: this.span(start) };
  }

  /** OCCA's parser tests: top-level items and statements mixed. */
  parseFragment(): (TopLevel | Stmt)[] {
    const items: (TopLevel | Stmt)[] = [];
    while (this.peek().type !== "eof") {
      if (this.at("namespace")) items.push(...this.parseNamespace());
      else {
        const it = this.parseExternal(true);
        if (it) items.push(it);
      }
      items.push(...this.cxx.statics.splice(0));
    }
    return items;
  }

  private parseExternal(fragment: boolean): TopLevel | Stmt | undefined {
    const t = this.peek();
    if (t.type === "pragma") {
      this.next();
      return { kind: "pragma", text: t.text, attributes: [], pos: this.span(t) };
    }
    if (this.eat(";")) return undefined;
    if (t.text === "extern" && this.peek(1).type === "string") throw this.unsupported('extern "C" blocks', t);
    if (t.text === "template") {
      this.parseTemplate();
      return undefined;
    }
    if (t.text !== "class") this.checkUnsupported(t);
    if (t.text === "[" && this.peek(1).text === "[" || t.text === "@") {
      // Attributes, then a function, a declaration or (in a fragment) a statement.
      const save = this.pos;
      const attrs = this.parseAttributes("prefix");
      if (this.isDeclStart()) return this.parseDeclOrFunction(attrs, t);
      if (!fragment && this.peek().type !== "eof") {
        for (const a of attrs) checkAttribute(a, "statement", this.attrFail, this.extra);
      }
      this.pos = save;
      if (!fragment) return this.parseStatement();
    }
    if (this.isDeclStart()) return this.parseDeclOrFunction([], t);
    if (fragment) return this.parseStatement();
    if (STMT_KEYWORDS.has(t.text) || t.text === "{") {
      throw this.err(`a "${t.text}" statement outside a function`, t, "syntax");
    }
    throw this.unexpected("a declaration or a function");
  }

  /** After prefix attributes and at a type: a function definition/prototype or a declaration. */
  private parseDeclOrFunction(attrs: Attribute[], start: Tok): FunctionDef | Declaration {
    const spec = this.parseTypeSpec();
    const mid = this.parseAttributes("postfix");
    if (this.at(";")) {
      this.next();
      return this.finishDeclaration([...attrs, ...mid], spec, [], start);
    }
    const dStart = this.peek();
    const d = this.parseDeclarator(false);
    if (this.at("(")) return this.parseFunction([...attrs, ...mid], spec, d, start, dStart);
    return this.parseDeclarationRest([...attrs, ...mid], spec, d, start);
  }

  private parseFunction(attrs: Attribute[], spec: TypeSpec, d: Declarator, start: Tok, dStart: Tok): FunctionDef {
    if (d.arrayDims.length) throw this.err("a function cannot return an array", dStart, "syntax");
    this.expect("(");
    const params: Param[] = [];
    if (this.at("void") && this.peek(1).text === ")") this.next();
    while (!this.at(")")) {
      if (this.at("...")) throw this.unsupported("variadic functions", this.peek());
      params.push(this.parseParam());
      if (!this.eat(",")) break;
    }
    this.expect(")", '"," or ")"');
    for (const a of [...attrs, ...d.attributes]) checkAttribute(a, "function", this.attrFail, this.extra);
    const isKernel = attrs.some((a) => a.name === "kernel");
    let body: Compound | undefined;
    if (this.at("{")) body = this.parseCompound([]);
    else if (this.at("const") || this.at(":")) throw this.unsupported("C++ member functions", this.peek());
    else this.expect(";", '"{" or ";"');
    return {
      kind: "function", attributes: [...attrs, ...d.attributes], returnType: spec, returnPointers: d.pointers,
      name: d.name, params, body, isKernel, pos: this.span(start),
    };
  }

  private parseParam(): Param {
    const start = this.peek();
    const attrs = this.parseAttributes("prefix");
    if (!this.isTypeStart() && this.peek(1).text === "::") throw this.unsupported(`C++ scope resolution (no namespace or type "${this.peek().text}" is declared)`, this.peek());
    if (!this.isTypeStart()) throw this.unexpected("a parameter type");
    const spec = this.parseTypeSpec();
    const mid = this.parseAttributes("postfix");
    const d = this.parseDeclarator(true);
    if (this.at("=")) throw this.unsupported("C++ default arguments", this.peek());
    const all = [...attrs, ...mid];
    for (const a of [...all, ...d.attributes]) checkAttribute(a, "variable", this.attrFail, this.extra);
    const declarator = all.length ? { ...d, okl: decodeVar([...all, ...d.attributes]) } : d;
    return { kind: "param", attributes: all, spec, declarator, pos: this.span(start) };
  }

  // ─── C++: struct templates and namespaces (cxx.ts) ─────────────────────────────────────────────

  /** `template <class T, int N> struct Name { … };`: recorded, instantiated where `Name<…>` is used. */
  private parseTemplate(): void {
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
  private skipAngles(): void {
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
  private skipBalanced(open: string, close: string): void {
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
  private skipMemberFunction(): "body" | "default" | "delete" | "declaration" {
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
  private instantiate(tpl: StructTemplate, at: Tok): BaseType {
    if (this.cxx.specialized.has(tpl.name)) {
      throw this.unsupported(`C++ template specializations (struct template "${tpl.name}" has specializations; choosing among them is not supported)`, at);
    }
    const count = `template "${tpl.name}" takes ${tpl.params.length} argument${tpl.params.length === 1 ? "" : "s"}`;
    if (!this.at("<")) throw this.unsupported(`C++ templates (struct template "${tpl.name}" used without arguments)`, this.peek());
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
    const toks = [{ ...at, type: "ident", text: tpl.tag } as Tok, ...substitute(tpl, args), end];
    const sub = new Parser(toks, this.sources, this.opts, this.typedefs, this.cxx, tpl.ns);
    const b = sub.parseStruct();
    const inst: BaseType = { ...b, name, pos: this.span(at) } as BaseType;
    tpl.instances.set(name, inst);
    return inst;
  }

  /** A one-token name for a struct given as a template argument (its tag when it has one). */
  private alias(b: BaseType): string {
    if ((b.kind === "struct" || b.kind === "enum") && b.name !== undefined && !this.cxx.aliases.has(b.name)) {
      if (b.kind === "enum" || b.fields === undefined || this.typedefs.has(b.name)) return b.name;
    }
    const name = b.kind === "struct" || b.kind === "enum" ? b.name ?? `(anonymous ${b.kind} ${this.cxx.aliases.size})` : "?";
    this.cxx.aliases.set(name, b);
    return name;
  }

  /** `namespace A { … }` (and `namespace A::B { … }`): its items, with the types declared in it qualified (`A::S`). */
  private parseNamespace(): TopLevel[] {
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

  // ─── declarations ──────────────────────────────────────────────────────────────────────────────

  /** Does a declaration (a type) start at the current token? */
  override isTypeStart(): boolean {
    const t = this.peek();
    if (t.type !== "ident") return false;
    const w = t.text;
    if (STORAGE[w] || QUALIFIERS[w] || BUILTIN_WORDS.has(w) || w === "struct" || w === "union" || w === "enum") return true;
    if ((w === "class" && this.peek(1).type === "ident") || (w === "auto" && this.peek(1).type === "ident" && this.peek(2).text === "=")) return true;
    return VECTOR_TYPES.has(w) || this.peekTypeName() !== undefined;
  }

  /** A type name (maybe qualified, `A::B::S`) at the current token: its qualified name and length in tokens. */
  private peekTypeName(): { readonly name: string; readonly len: number } | undefined {
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
    if (t.type !== "ident" || STMT_KEYWORDS.has(t.text) || CXX[t.text]) return false;
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
    const storage: StorageClass[] = [];
    const qualifiers: TypeQualifier[] = [];
    const words: string[] = [];
    let base: BaseType | undefined;
    let baseTok: Tok | undefined;
    let named: { readonly name: string; readonly len: number } | undefined;
    for (;;) {
      const t = this.peek();
      if (t.type !== "ident") break;
      const w = t.text;
      if (STORAGE[w]) {
        storage.push(STORAGE[w]!);
        this.next();
      } else if (QUALIFIERS[w]) {
        qualifiers.push(QUALIFIERS[w]!);
        this.next();
      } else if (BUILTIN_WORDS.has(w) && !base) {
        words.push(w);
        baseTok ??= t;
        this.next();
      } else if ((w === "struct" || w === "union" || w === "class") && !base && !words.length) {
        base = this.parseStruct();
      } else if (w === "auto" && !base && !words.length && this.peek(1).type === "ident" && this.peek(2).text === "=") {
        // C++'s `auto x = e;`: the type of the initializer, found when the declaration is lowered.
        this.next();
        base = { kind: "named", name: "auto", pos: this.span(t) };
      } else if (w === "enum" && !base && !words.length) {
        base = this.parseEnum();
      } else if (!base && !words.length && (named = this.peekTypeName()) !== undefined) {
        for (let k = 0; k < named.len; k++) this.next();
        base = this.namedType(named.name, t);
      } else if (!base && !words.length && (VECTOR_TYPES.has(w) || this.unknownTypeHere())) {
        this.checkUnsupported(t);
        this.next();
        if (this.at("::")) throw this.unsupported("C++ scope resolution (::)", this.peek());
        if (this.at("<")) throw this.unsupported("C++ templates", this.peek());
        base = { kind: "named", name: w, pos: this.span(t) };
      } else if (CXX[w]) {
        throw this.unsupported(CXX[w]!, t);
      } else break;
    }
    if (!base) {
      if (!words.length) throw this.unexpected("a type");
      base = { kind: "builtin", name: canonicalBuiltin(words), pos: this.span(baseTok!) };
    }
    return { kind: "typeSpec", storage, qualifiers, base, pos: this.span(start) };
  }

  /** The type a known name denotes: a template instance (`V<float>`), an instance's alias, or a typedef/struct name. */
  private namedType(name: string, at: Tok): BaseType {
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
  private qualifiedName(): Expr | undefined {
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

  /** C++'s functional cast `int(x)`, `float(n)`, `real_t(x)` (a one-word type) is the C cast `(int)(x)`. */
  override parsePrimary(): Expr {
    const t = this.peek();
    if (t.type === "ident" && this.peek(1).text === "::") {
      const q = this.qualifiedName();
      if (q) return q;
    }
    const word = t.type === "ident" && this.peek(1).text === "(" && (BUILTIN_WORDS.has(t.text) || this.typedefs.has(t.text));
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
  private unknownTypeHere(): boolean {
    const t = this.peek();
    if (t.type !== "ident" || STMT_KEYWORDS.has(t.text)) return false;
    let k = 1;
    while (this.peek(k).text === "*" || this.peek(k).text === "&" || QUALIFIERS[this.peek(k).text]) k++;
    const n = this.peek(k);
    return (n.type === "ident" && !STMT_KEYWORDS.has(n.text)) || (n.text === "@" && k === 1) || n.text === "::" || n.text === "<";
  }

  private parseStruct(): BaseType {
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
  private cxxMember(struct: string | undefined): boolean {
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
  private memberFunctionAhead(): boolean {
    let k = 0;
    while (this.peek(k).text === "*" || this.peek(k).text === "&") k++;
    return this.peek(k).text === "operator";
  }

  /** A member function or operator after its type, skipped (`T calc();`, `S &operator=(const S &) = default;`). */
  private skipMemberFunctionDecl(): void {
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

  private parseEnum(): BaseType {
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

  /** `* const * name [N] @attr...`; `abstract`: the name may be missing (parameters, type names). */
  parseDeclarator(abstract: boolean): Declarator {
    const start = this.peek();
    const pointers: PointerLevel[] = [];
    let reference = false;
    for (;;) {
      if (this.eat("*")) {
        const qualifiers: TypeQualifier[] = [];
        while (this.peek().type === "ident" && QUALIFIERS[this.peek().text]) qualifiers.push(QUALIFIERS[this.next().text]!);
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
    if (n.type === "ident" && !QUALIFIERS[n.text] && !STORAGE[n.text] && !BUILTIN_WORDS.has(n.text)) {
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

  private parseDeclarationRest(attrs: Attribute[], spec: TypeSpec, first: Declarator, start: Tok): Declaration {
    const declarators: Declarator[] = [];
    let d = first;
    for (;;) {
      if (this.eat("=")) d = { ...d, init: this.parseInitializer(), pos: this.spanFrom(d.pos) };
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

  private finishDeclaration(attrs: Attribute[], spec: TypeSpec, declarators: Declarator[], start: Tok): Declaration {
    for (const a of attrs) checkAttribute(a, "variable", this.attrFail, this.extra);
    for (const d of declarators) for (const a of d.attributes) checkAttribute(a, "variable", this.attrFail, this.extra);
    let ds = attrs.length ? declarators.map((d) => ({ ...d, okl: decodeVar([...attrs, ...d.attributes]) })) : declarators;
    if (spec.storage.includes("typedef")) {
      if (this.ns.length) ds = ds.map((d) => ({ ...d, name: qualify(this.ns, d.name) }));
      for (const d of ds) this.declareType(d.name);
    }
    return { kind: "declaration", attributes: attrs, spec, declarators: ds, pos: this.span(start) };
  }

  private parseInitializer(): Expr {
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

  private parseLegacyAttribute(placement: AttributePlacement): Attribute {
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

  private parseAttributeArgs(name: string): AttributeArg[] {
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

  private knownAttribute(name: string, at: Tok): void {
    if (HANDLERS[name] || this.extra.has(name)) return;
    const known = Object.keys(HANDLERS).map((n) => "@" + n).join(" ");
    throw this.err(`unknown attribute @${name} (OKL attributes: ${known})`, at, "attribute name");
  }

  /** `[[okl_a("(x)"), okl::b("")]]` */
  private parseNormalizedAttributes(placement: AttributePlacement): Attribute[] {
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
        const sub = new Parser(toks, this.sources, this.opts, this.typedefs, this.cxx, this.ns);
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
  private tokensText(from: Tok): string {
    const i = this.toks.indexOf(from, Math.max(0, this.pos - 4096));
    return this.toks.slice(i, this.pos).map((t, k) => (k > 0 && t.spaceBefore ? " " : "") + t.text).join("");
  }

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

  private check(attrs: readonly Attribute[], target: AttrTarget): void {
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
          const warp = arg?.kind === "exprArg" && arg.expr.kind === "string" && arg.expr.value === "warp";
          return { kind: "barrier", scope: warp ? "warp" : "block", attributes: attrs, pos: this.span(start) };
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
      if (this.at("(") && d.pointers.length + d.arrayDims.length === 0 && spec.base.kind !== "builtin") {
        throw this.unsupported("C++ constructor-style initialization", this.peek());
      }
      if (this.at("(")) throw this.err(`a function declaration ("${d.name}") inside a function`, this.peek(), "syntax");
      return this.parseDeclarationRest([...attrs, ...mid], spec, d, start);
    }
    const expr = this.parseExpr();
    this.expect(";", '";"');
    return this.atomicOr(attrs, "expr", { kind: "expr", expr, attributes: [], pos: this.span(start) }, start);
  }

  /** An `@atomic` statement, or `body` with its attributes. */
  private atomicOr(attrs: Attribute[], target: AttrTarget, body: Stmt & { kind: "expr" | "compound" }, start: Tok): Stmt {
    this.check(attrs, target);
    if (attrs.some((a) => a.name === "atomic")) return { kind: "atomic", body, attributes: attrs, pos: this.span(start) };
    return { ...body, attributes: attrs };
  }

  /** `( expr )`: the condition of `if`, `while`, `do … while` and `switch`. */
  private parenthesized(): Expr {
    this.expect("(");
    const e = this.parseExpr();
    this.expect(")");
    return e;
  }

  private parseFor(prefix: Attribute[], start: Tok): Stmt {
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

/** Parse preprocessed tokens as a translation unit. */
export function parseTokens(toks: readonly Tok[], sources: Sources, opts: ParseOptions = {}): TranslationUnit {
  return new Parser(toks, sources, opts).parseUnit();
}

/** Parse preprocessed tokens as a fragment (top-level items and statements mixed). */
export function parseFragmentTokens(toks: readonly Tok[], sources: Sources, opts: ParseOptions = {}): (TopLevel | Stmt)[] {
  return new Parser(toks, sources, opts).parseFragment();
}
