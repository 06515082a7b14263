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
import type { Attribute, Compound, Declaration, Declarator, FunctionDef, Param, Stmt, TopLevel, TranslationUnit, TypeSpec } from "./ast.js";
import { checkAttribute, decodeVar } from "./attributes.js";
import type { Sources } from "./diag.js";
import type { Tok } from "./lexer.js";
import { STMT_KEYWORDS, type ParseOptions } from "./parse-base.js";
import { StatementParser } from "./parse-statements.js";

/** The OKL parser: the translation unit and its external declarations, on top of the layers below. */
export class Parser extends StatementParser {
  protected subParser(toks: readonly Tok[], ns: readonly string[]): this {
    return new Parser(toks, this.sources, this.opts, this.typedefs, this.cxx, ns) as this;
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

  protected parseExternal(fragment: boolean): TopLevel | Stmt | undefined {
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
    if ((t.text === "kernel" || t.text === "occaKernel") && this.peek(1).text === "void") throw this.err(legacyDetail(t.text), t, LEGACY_RULE);
    if (t.text === "[" && this.peek(1).text === "[" || t.text === "@") {
      // Attributes, then a function, a declaration or (in a fragment) a statement.
      const save = this.pos;
      const attrs = this.parseAttributes("prefix");
      if (this.isDeclStart()) return this.parseDeclOrFunction(attrs, t);
      if (!fragment && this.peek().type !== "eof") {
        const kernel = attrs.find((a) => a.name === "kernel");
        if (kernel && this.peek().type === "ident" && this.peek(1).text === "(") {
          // libParanumal's meshGeometricFactorsQuad2D: `@kernel meshGeometricFactorsQuad2D(…)`.
          throw this.attrFail(`'kernel' attribute cannot be applied to a statement: "${this.peek().text}(" has no return type; a kernel is declared \`@kernel void ${this.peek().text}(…)\``, kernel, "@kernel placement");
        }
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
  protected parseDeclOrFunction(attrs: Attribute[], start: Tok): FunctionDef | Declaration {
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

  protected parseFunction(attrs: Attribute[], spec: TypeSpec, d: Declarator, start: Tok, dStart: Tok): FunctionDef {
    if (d.arrayDims.length) throw this.err("a function cannot return an array", dStart, "syntax");
    this.expect("(");
    const params: Param[] = [];
    if (this.at("void") && this.peek(1).text === ")") this.next();
    while (!this.at(")")) {
      if (this.at("...")) throw this.unsupported("variadic functions", this.peek());
      params.push(this.parseParam());
      if (!this.eat(",")) break;
      // `f(int n, )`: C rejects it; OCCA's parser drops the empty argument (its unit test testArgs
      // expects three arguments from `foo(A, B, C, )`). A warning, an OklError in "error" mode.
      if (this.at(")")) {
        this.warn(`the trailing comma in the parameter list of "${d.name}" is dropped, as OCCA's parser does (C rejects it)`, this.peek(),
          `expected a parameter type after ",", got ")": a parameter list of "${d.name}" cannot end with a comma in C (remove it)`, "syntax");
      }
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

  protected parseParam(): Param {
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
}

export function parseTokens(toks: readonly Tok[], sources: Sources, opts: ParseOptions = {}): TranslationUnit {
  const sink = opts.warningSink ?? [];
  const parser = new Parser(toks, sources, { ...opts, warningSink: sink });
  const legacy = legacyKernel(toks);
  if (legacy) throw parser.err(legacyDetail(legacy.text), legacy, LEGACY_RULE);
  const unit = parser.parseUnit();
  return sink.length ? { ...unit, warnings: sink } : unit;
}

/** Parse preprocessed tokens as a fragment (top-level items and statements mixed). */
export function parseFragmentTokens(toks: readonly Tok[], sources: Sources, opts: ParseOptions = {}): (TopLevel | Stmt)[] {
  return new Parser(toks, sources, opts).parseFragment();
}

const LEGACY_RULE = "OKL version";

function legacyDetail(word: string): string {
  return `"${word} void" is OCCA 0.x's kernel language (kernel, outer0/inner0 loops, shared, exclusive, barrier(localMemFence)), ` +
    "which OCCA 1.0 and later do not read: write @kernel, @outer(0)/@inner(0) as the loop's 4th clause, @shared, @exclusive and @barrier";
}

/**
 * The first `kernel void` / `occaKernel void` of a file that has no `@kernel`: OCCA 0.x's language,
 * refused for its version before a syntax error its other 0.x or OpenCL forms would raise earlier in
 * the file (libCEED's 2018 kernels declare `typedef __global double gCeedScalar;` above their
 * `kernel void`; OCCA's old examples open with `occaConstant tFloat …`). undefined for OKL 1.x.
 */
function legacyKernel(toks: readonly Tok[]): Tok | undefined {
  let found: Tok | undefined;
  for (let k = 0; k + 1 < toks.length; k++) {
    const t = toks[k]!;
    if (t.type !== "ident") continue;
    const afterAt = k > 0 && toks[k - 1]!.text === "@";
    if ((t.text === "kernel" && afterAt) || t.text === "okl_kernel") return undefined;
    if (!found && !afterAt && (t.text === "kernel" || t.text === "occaKernel") && toks[k + 1]!.text === "void") found = t;
  }
  return found;
}
