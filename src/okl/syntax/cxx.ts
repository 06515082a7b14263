/**
 * The C++ Loom's OKL front end accepts beyond C: struct templates and namespaces of types. Both are
 * resolved in the parser, so the AST stays C: a struct template is instantiated where it is used
 * (`ComplexType<float>` becomes the struct its body makes with `T` replaced by `float`, named
 * `ComplexType<float>`), and a type declared in `namespace A { namespace B { … } }` is the type
 * `A::B::Name`, found from inside the namespaces as C++ finds it (innermost namespace first).
 *
 *   template <class T, int N> struct V { T v[N]; };   V<float, 4> *a   // a: struct { float v[4]; } *
 *   namespace A { struct S { float x; }; }             A::S *s          // struct "A::S"
 *
 * Instantiation substitutes tokens (as C++ does conceptually): a type argument is rendered as tokens
 * that name it from anywhere (a qualified name, or a synthesized name for a struct), a value
 * argument is its own tokens in parentheses. A class template with a constructor or member
 * functions is the struct of its data fields plus one device function per member taking the object
 * by address (classMembers). Anything else about templates (function templates, specializations,
 * virtual functions, operators) stays an "OKL subset" error naming the construct.
 */
import type { BaseType, TopLevel, TypeName } from "./ast.js";
import type { Tok } from "./lexer.js";

/** One template parameter: `class T` / `typename T` (type) or `int N` (value). */
export interface TemplateParam {
  readonly kind: "type" | "value";
  readonly name: string;
}

/** A struct template: its parameters and the tokens of its body, from `{` to `}`. */
export interface StructTemplate {
  readonly name: string;
  readonly tag: "struct" | "union";
  readonly params: readonly TemplateParam[];
  readonly body: readonly Tok[];
  /** The namespace path it was defined in (names in its body are looked up from there). */
  readonly ns: readonly string[];
  /** Instances by their name (`ComplexType<float>`): one struct per distinct argument list. */
  readonly instances: Map<string, BaseType>;
}

/** C++ state a parser shares with the sub-parsers it starts (a template body is parsed by one). */
export interface CxxState {
  readonly templates: Map<string, StructTemplate>;
  /** Types known by a synthesized one-token name (a template instance given as a type argument). */
  readonly aliases: Map<string, BaseType>;
  /** Struct templates with (partial or full) specializations: instantiating one would have to choose. */
  readonly specialized: Set<string>;
  /** Struct templates declared without a definition (`template <class T> struct S;`). */
  readonly declared: Set<string>;
  /**
   * Static constant members (`static constexpr int a = 4;` in `struct S`), as file-scope
   * declarations of `S::a`, waiting to be placed after the declaration that defined them.
   */
  readonly statics: TopLevel[];
  /** Class template instances with a constructor (`S<float, 4> s{a, b};` calls it). */
  readonly constructed: Set<string>;
  /**
   * Classes without template parameters whose members are outside the class subset, with the
   * refusal: the class is a struct of its data (its members skipped, as before classes were read)
   * until its constructor is called, which is that refusal.
   */
  readonly refusedClasses: Map<string, Error>;
}

export function newCxxState(): CxxState {
  return { templates: new Map(), aliases: new Map(), specialized: new Set(), declared: new Set(), statics: [], constructed: new Set(), refusedClasses: new Map() };
}

/** `name` qualified by a namespace path: (["A", "B"], "S") -> "A::B::S". */
export function qualify(ns: readonly string[], name: string): string {
  return [...ns, name].join("::");
}

/**
 * The qualified name that `name` (itself maybe qualified, `B::S`) refers to from inside `ns`:
 * the innermost enclosing namespace that declares it, or undefined.
 */
export function lookupQualified(ns: readonly string[], name: string, known: (q: string) => boolean): string | undefined {
  for (let i = ns.length; i >= 0; i--) {
    const q = qualify(ns.slice(0, i), name);
    if (known(q)) return q;
  }
  return undefined;
}

/**
 * Tokens that spell the type `tn` wherever they are parsed (at `at`'s position, for messages):
 * qualifiers, the base type's words or one name token, then `*`s. `alias` registers a struct base
 * under a one-token name. Returns the tokens and the type's text for the instance name.
 */
export function typeTokens(tn: TypeName, at: Tok, alias: (b: BaseType) => string): { toks: Tok[]; text: string } {
  const mk = (text: string, type: Tok["type"] = "ident"): Tok => ({
    type, text, offset: at.offset, line: at.line, col: at.col, ...(at.file !== undefined ? { file: at.file } : {}),
  });
  const words: string[] = [...tn.spec.qualifiers];
  const b = tn.spec.base;
  const toks: Tok[] = words.map((w) => mk(w));
  if (b.kind === "builtin") {
    for (const w of b.name.split(" ")) toks.push(mk(w));
    words.push(b.name);
  } else if (b.kind === "named") {
    toks.push(mk(b.name));
    words.push(b.name);
  } else {
    const name = alias(b);
    toks.push(mk(name));
    words.push(name);
  }
  let text = words.join(" ");
  for (const p of tn.pointers) {
    toks.push(mk("*", "punct"));
    for (const q of p.qualifiers) toks.push(mk(q));
    text += p.qualifiers.length ? ` * ${p.qualifiers.join(" ")}` : "*";
  }
  return { toks, text };
}

/** The body of `t` with each parameter token replaced by its argument's tokens. */
export function substitute(t: StructTemplate, args: readonly (readonly Tok[])[]): Tok[] {
  const index = new Map(t.params.map((p, i) => [p.name, i]));
  const out: Tok[] = [];
  for (const tok of t.body) {
    const i = tok.type === "ident" ? index.get(tok.text) : undefined;
    if (i === undefined) out.push(tok);
    else out.push(...args[i]!);
  }
  return out;
}

// ─── class templates with a constructor and member functions ─────────────────────────────────────

/** The name of the device function a member function (or the constructor: `ctor`) of struct `inst` becomes. */
export function memberFunctionName(inst: string, member: string): string {
  return `${inst}::${member}`;
}

/** Whether a function name is one memberFunctionName made for a constructor. */
export function isConstructorName(name: string): boolean {
  return name.endsWith("::ctor");
}

/** The members of a class body that are not data: each as tokens ready to parse as a C function. */
export interface ClassMembers {
  /** The body with only its data fields (and `{`, `}`), to parse as a struct. */
  readonly data: Tok[];
  /** Device function definitions (tokens), one per member function and the constructor. */
  readonly functions: Tok[][];
  readonly hasConstructor: boolean;
}

/** A refusal of a C++ construct at a token (the parser's `unsupported`). */
type Refuse = (construct: string, at: Tok) => Error;

/**
 * Whether the body of struct template `short` defines a constructor or a member function (a `(`
 * at the top level of the body that is followed by a body `{`), so that it is read as a class.
 */
export function isClassBody(short: string, body: readonly Tok[]): boolean {
  let depth = 0;
  for (let k = 0; k < body.length; k++) {
    const t = body[k]!;
    if (t.text === "{" || t.text === "(" || t.text === "[") depth++;
    else if (t.text === "}" || t.text === ")" || t.text === "]") depth--;
    else if (depth === 1 && t.type === "ident" && t.text === short && body[k + 1]?.text === "(") return true;
    if (depth === 2 && t.text === "(" && body[k - 1]?.type === "ident" && body[k - 1]!.text !== "operator") {
      // `name (` at member level: a member function when a body follows its parameter list.
      let d = 1, j = k + 1;
      for (; j < body.length && d > 0; j++) d += body[j]!.text === "(" ? 1 : body[j]!.text === ")" ? -1 : 0;
      while (body[j]?.text === "const" || body[j]?.text === "noexcept") j++;
      if (body[j]?.text === "{") return true;
    }
  }
  return false;
}

/**
 * The members of class `short` (its body tokens after template substitution, `{ … }`): data fields
 * kept, the constructor and each member function rewritten as a device function taking the object
 * by address (`self`): fields and member calls inside them become `self->f` and `S::m(self, …)`,
 * `this` becomes `self`. `inst` names the struct type (a one-token alias) and the functions.
 */
export function classMembers(short: string, inst: string, body: readonly Tok[], refuse: Refuse): ClassMembers {
  const members: Tok[][] = [];
  let cur: Tok[] = [];
  let depth = 0;
  for (let k = 1; k < body.length - 1; k++) {
    const t = body[k]!;
    cur.push(t);
    if (t.text === "{" || t.text === "(" || t.text === "[") depth++;
    else if (t.text === "}" || t.text === ")" || t.text === "]") {
      depth--;
      // A function body ends its member (a `;` after it is an empty member).
      if (depth === 0 && t.text === "}" && cur.some((x) => x.text === "(")) members.push(cur), (cur = []);
    } else if (depth === 0 && t.text === ";") members.push(cur), (cur = []);
    else if (depth === 0 && t.text === ":" && cur.length === 2 && ["public", "private", "protected"].includes(cur[0]!.text)) cur = [];
  }
  if (cur.some((x) => x.text !== ";")) members.push(cur);
  const data: Tok[] = [body[0]!];
  const fields: string[] = [];
  const fns: { name: string; ret: Tok[]; params: Tok[]; inits: Tok[][]; body: Tok[]; at: Tok }[] = [];
  for (const m of members) {
    const first = m[0];
    if (first === undefined || (m.length === 1 && first.text === ";")) continue;
    for (const [word, what] of [["virtual", "C++ virtual member functions"], ["operator", "C++ operator overloading"], ["template", "C++ member templates"], ["friend", "C++ friend declarations"], ["static", "C++ static members of a class with member functions"], ["~", "C++ destructors"], ["throw", "C++ exceptions"], ["try", "C++ exceptions"]] as const) {
      const at = m.find((x) => x.text === word && x.type !== "string");
      if (at) throw refuse(what, at);
    }
    const open = topParen(m);
    const close = open < 0 ? -1 : matching(m, open);
    const bodyAt = close < 0 ? -1 : m.findIndex((x, j) => j > close && x.text === "{");
    if (open < 0 || bodyAt < 0) {
      // A data field (or a member function declared only, which has no body to inline).
      if (open >= 0) throw refuse("C++ member functions declared in the class and defined outside it", first);
      if (m.some((x) => x.text === "=")) throw refuse("C++ default member initializers", m.find((x) => x.text === "=")!);
      data.push(...m);
      for (let j = 0; j < m.length; j++) if (m[j]!.type === "ident" && [";", ",", "["].includes(m[j + 1]?.text ?? "")) fields.push(m[j]!.text);
      continue;
    }
    const nameTok = m[open - 1]!;
    const ctor = open === 1 && nameTok.text === short;
    const after = m.slice(close + 1, bodyAt);
    const inits: Tok[][] = [];
    if (ctor && after[0]?.text === ":") {
      // Member initializers `: a(x), b{y}`, each `a` a field.
      let k = 1;
      while (k < after.length) {
        const f = after[k]!;
        const o = after[k + 1];
        if (f.type !== "ident" || (o?.text !== "(" && o?.text !== "{")) throw refuse("C++ member initializers other than `field(value)`", f);
        const end = matching(after, k + 1);
        inits.push([f, ...after.slice(k + 2, end)]);
        k = end + 1;
        if (after[k]?.text === ",") k++;
      }
    } else if (after.some((x) => x.text !== "const" && x.text !== "noexcept")) throw refuse(`C++ "${after.find((x) => x.text !== "const")!.text}" after a member function's parameters`, after[0]!);
    fns.push({ name: ctor ? "ctor" : nameTok.text, ret: ctor ? [] : m.slice(0, open - 1), params: m.slice(open + 1, close), inits, body: m.slice(bodyAt + 1, m.length - 1), at: nameTok });
  }
  data.push(body[body.length - 1]!);
  const methods = new Set(fns.filter((f) => f.name !== "ctor").map((f) => f.name));
  const mk = (at: Tok, text: string, type: Tok["type"] = "ident"): Tok => ({ type, text, offset: at.offset, line: at.line, col: at.col, ...(at.file !== undefined ? { file: at.file } : {}) });
  const SELF = "self__";
  /** `f` -> `self__->f`, `m(` -> `S::m(self__, `, `this` -> `self__`, except for the parameters' own names. */
  const rewrite = (toks: readonly Tok[], own: ReadonlySet<string>): Tok[] => {
    const out: Tok[] = [];
    for (let k = 0; k < toks.length; k++) {
      const t = toks[k]!;
      const member = k > 0 && (toks[k - 1]!.text === "." || toks[k - 1]!.text === "->");
      if (t.type !== "ident" && t.text !== "this" || member || own.has(t.text)) { out.push(t); continue; }
      if (t.text === "this") out.push(mk(t, SELF));
      else if (methods.has(t.text) && toks[k + 1]?.text === "(") {
        out.push(mk(t, memberFunctionName(inst, t.text)), mk(t, "(", "punct"), mk(t, SELF));
        if (toks[k + 2]?.text !== ")") out.push(mk(t, ",", "punct"));
        k++;
      } else if (fields.includes(t.text)) out.push(mk(t, SELF), mk(t, "->", "punct"), mk(t, t.text));
      else out.push(t);
    }
    return out;
  };
  const functions = fns.map((f) => {
    const own = new Set(f.params.filter((x, j) => x.type === "ident" && [",", "[", undefined].includes(f.params[j + 1]?.text)).map((x) => x.text));
    const head = [...(f.ret.length ? f.ret : [mk(f.at, "void")]), mk(f.at, memberFunctionName(inst, f.name)), mk(f.at, "(", "punct"), mk(f.at, inst), mk(f.at, "*", "punct"), mk(f.at, SELF)];
    if (f.params.length > 0 && !(f.params.length === 1 && f.params[0]!.text === "void")) head.push(mk(f.at, ",", "punct"), ...f.params);
    head.push(mk(f.at, ")", "punct"), mk(f.at, "{", "punct"));
    // Member initializers in the order of the fields (C++ initializes in declaration order).
    const inits = [...f.inits].sort((a, b) => fields.indexOf(a[0]!.text) - fields.indexOf(b[0]!.text));
    const initToks = inits.flatMap(([field, ...value]) => {
      if (!fields.includes(field!.text)) throw refuse(`C++ member initializer of "${field!.text}", which is not a data field of "${short}"`, field!);
      return [mk(field!, SELF), mk(field!, "->", "punct"), field!, mk(field!, "=", "punct"), mk(field!, "(", "punct"), ...rewrite(value, own), mk(field!, ")", "punct"), mk(field!, ";", "punct")];
    });
    return [...head, ...initToks, ...rewrite(f.body, own), mk(f.at, "}", "punct")];
  });
  return { data, functions, hasConstructor: fns.some((f) => f.name === "ctor") };
}

/** The first `(` of a member outside brackets, after a name (a function's parameter list), or -1. */
function topParen(m: readonly Tok[]): number {
  let d = 0;
  for (let k = 0; k < m.length; k++) {
    const t = m[k]!.text;
    if (d === 0 && t === "(" && k > 0 && m[k - 1]!.type === "ident") return k;
    if (t === "(" || t === "[" || t === "{") d++;
    else if (t === ")" || t === "]" || t === "}") d--;
  }
  return -1;
}

/** The index of the bracket closing the one at `open`. */
function matching(toks: readonly Tok[], open: number): number {
  const o = toks[open]!.text;
  const c = o === "(" ? ")" : o === "{" ? "}" : "]";
  let d = 0;
  for (let k = open; k < toks.length; k++) {
    if (toks[k]!.text === o) d++;
    else if (toks[k]!.text === c && --d === 0) return k;
  }
  return toks.length - 1;
}

/**
 * `T()` (value-initialization) of a type parameter `T` in a class body: `(T) 0`, before the
 * arguments are substituted. Other uses of the body's tokens are left as they are.
 */
export function valueInits(body: readonly Tok[], params: readonly TemplateParam[]): Tok[] {
  const types = new Set(params.filter((p) => p.kind === "type").map((p) => p.name));
  const out: Tok[] = [];
  for (let k = 0; k < body.length; k++) {
    const t = body[k]!;
    if (t.type === "ident" && types.has(t.text) && body[k + 1]?.text === "(" && body[k + 2]?.text === ")") {
      out.push({ ...t, type: "punct", text: "(" }, t, { ...t, type: "punct", text: ")" }, { ...t, type: "number", text: "0" } as Tok);
      k += 2;
    } else out.push(t);
  }
  return out;
}
