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
 * The lexer (lexer.ts) is hand-written too.
 *
 * Constructs outside Loom's C subset (templates, classes, namespaces, references beyond parameters,
 * lambdas, `new`, ...) are OklErrors naming the construct, rule "OKL subset".
 */
import type { Pos, StorageClass, TypeQualifier } from "./ast.js";
import { decodeVar } from "./attributes.js";
import { oklError, oklWarning, type OklWarning, type Sources } from "./diag.js";
import type { Tok } from "./lexer.js";
import { ExprParser } from "./parse-expr.js";
import { newCxxState, type CxxState } from "./cxx.js";
import type { OklError } from "../../errors.js";

export interface ParseOptions {
  readonly filename?: string;
  /** Attribute names accepted besides OKL's (OCCA lets hosts register their own). */
  readonly extraAttributes?: readonly string[];
  /** What OCCA accepts and its current version does not: "collect" (default) as warnings, "error" as OklErrors. */
  readonly warnings?: "collect" | "error";
  /** Where the parser (and its sub-parsers) put their warnings; parseTokens supplies it. */
  readonly warningSink?: OklWarning[];
}

export const STORAGE: Readonly<Record<string, StorageClass>> = {
  typedef: "typedef", static: "static", extern: "extern", inline: "inline", __inline__: "inline",
  __inline: "inline", register: "register", constexpr: "constexpr", __forceinline__: "inline",
};
export const QUALIFIERS: Readonly<Record<string, TypeQualifier>> = {
  const: "const", volatile: "volatile", restrict: "restrict", __restrict__: "restrict", __restrict: "restrict",
};
export const BUILTIN_WORDS = new Set(["void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "bool", "_Bool", "size_t", "ptrdiff_t", "half"]);
/** C++ keywords that start constructs outside the subset, with their names for the message. */
export const CXX: Readonly<Record<string, string>> = {
  template: "C++ templates", class: "C++ classes", namespace: "C++ namespaces", using: "C++ using-declarations",
  typename: "C++ templates (typename)", operator: "C++ operator overloading", new: "C++ new", delete: "C++ delete",
  this: "C++ classes (this)", virtual: "C++ classes (virtual)", public: "C++ classes (access specifiers)",
  private: "C++ classes (access specifiers)", protected: "C++ classes (access specifiers)", friend: "C++ classes (friend)",
  reinterpret_cast: "C++ casts", const_cast: "C++ casts", dynamic_cast: "C++ casts",
  auto: "C++ auto type deduction", decltype: "C++ decltype", static_assert: "static_assert", throw: "C++ exceptions",
  try: "C++ exceptions", goto: "goto (Loom lowers structured control flow only: rewrite a forward jump as if/else, or as a loop left with break)", asm: "inline assembly", __asm__: "inline assembly",
  alignas: "alignas", __attribute__: "GNU __attribute__",
};
// Prototype-free tables: an identifier like "constructor" must not find Object.prototype members.
Object.setPrototypeOf(STORAGE, null);
Object.setPrototypeOf(QUALIFIERS, null);
Object.setPrototypeOf(CXX, null);
/**
 * The same tables as Maps, for the parser's hot paths: looking an identifier's text up in a Map
 * uses the string's cached hash, where a keyed property load internalizes the string first
 * (a measurable share of parsing a kernel of thousands of statements).
 */
export const STORAGE_OF: ReadonlyMap<string, StorageClass> = new Map(Object.entries(STORAGE));
export const QUALIFIER_OF: ReadonlyMap<string, TypeQualifier> = new Map(Object.entries(QUALIFIERS));
export const CXX_OF: ReadonlyMap<string, string> = new Map(Object.entries(CXX));
export const STMT_KEYWORDS = new Set(["if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return", "sizeof"]);

/** OCCA's builtin vector types (float4, int2, ...), usable as type names without a typedef. */
export const VECTOR_TYPES = new Set(
  ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "bool"].flatMap((b) =>
    [2, 3, 4, 8, 16].map((n) => b + n),
  ),
);

export function canonicalBuiltin(words: readonly string[]): string {
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

export const EMPTY_VAR = decodeVar([]);

/** The parser's state and the helpers every layer uses; the layers (attributes, types, structs, templates, statements, translation unit) extend it in that order. */
export abstract class ParserBase extends ExprParser {
  /** Type names visible here: typedefs and struct tags of this block and the enclosing ones. */
  readonly typedefs: Set<string>;
  /** Per open block, the type names it added (removed again when it closes, as C scopes them). */
  protected readonly blockTypes: string[][] = [];
  protected readonly extra: ReadonlySet<string>;
  /** The namespaces the parser is in, outermost first (`namespace A { namespace B {` -> ["A", "B"]). */
  protected readonly ns: string[];

  constructor(
    toks: readonly Tok[],
    readonly sources: Sources,
    readonly opts: ParseOptions = {},
    typedefs?: Set<string>,
    protected readonly cxx: CxxState = newCxxState(),
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

  /**
   * Accepts what an older OCCA accepted, with a warning (rule "OCCA leniency"); in "error" mode the
   * OklError `strict` (under `rule`) instead.
   */
  warn(detail: string, at: Tok | Pos, strict: string, rule: string): void {
    if (this.opts.warnings === "error") throw this.err(strict, at, rule);
    this.opts.warningSink?.push(oklWarning(detail, at, "OCCA leniency", this.sources, this.opts.filename));
  }

  /** Make `name` a type name until the current block closes (for the whole file at the top level). */
  protected declareType(name: string): void {
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
    if (t.type === "ident") {
      const construct = CXX_OF.get(t.text);
      if (construct) throw this.unsupported(construct, t);
    }
    if (t.text === "::") throw this.unsupported("C++ scope resolution (::)", t);
  }

  /** A parser of `toks` sharing this one's type names and C++ state, in namespace `ns` (template instances, attribute arguments). */
  protected abstract subParser(toks: readonly Tok[], ns: readonly string[]): this;
}
