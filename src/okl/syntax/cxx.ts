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
 * argument is its own tokens in parentheses. Anything else about templates (function templates,
 * specializations, member functions) stays an "OKL subset" error naming the construct.
 */
import type { BaseType, Declaration, TypeName } from "./ast.js";
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
  readonly statics: Declaration[];
}

export function newCxxState(): CxxState {
  return { templates: new Map(), aliases: new Map(), specialized: new Set(), declared: new Set(), statics: [] };
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
