/**
 * The OKL preprocessor: `#define` (object- and function-like, `#`, `##`, `__VA_ARGS__`), `#undef`,
 * `#if/#ifdef/#ifndef/#elif/#else/#endif` with `defined()`, `#include "..."` through an injectable
 * reader, OCCA's predefined macros and user defines, `@directive("#...")` and
 * `#pragma occa attributes @...`. It works on tokens, so every output token keeps the place of its
 * source text; a token made by a macro expansion carries the place of the macro's invocation.
 *
 * The same engine drives the normalizer (`normalize.ts`) through the `Emit` hooks.
 */
import { lex, lexLines, TokenList, type Tok } from "./lexer.js";
import { oklError, oklWarning, type OklWarning, type Sources } from "./diag.js";
import { evalIfCondition } from "./c-if.js";
import { defaultReader, findInclude, unquote, type FileReader, type IncludeOptions } from "./c-paths.js";
import { MacroExpander, parseDefine, place, SIGNIFICANT, type Macro } from "./c-macros.js";
import type { OklError } from "../../errors.js";

export type { FileReader } from "./c-paths.js";

export interface PreprocessOptions extends IncludeOptions {
  readonly filename?: string;
  /**
   * `#define NAME VALUE` before the source, as OCCA's `defines/NAME` kernel properties; a key with
   * parameters is a function-like macro (`{ "OGS_OP(a,b)": "a+b" }`).
   */
  readonly defines?: Readonly<Record<string, string | number>>;
  /**
   * Headers included before the source, as OCCA's `includes` kernel property: each is searched
   * like `#include "…"` (the main file's folder, then `includePaths`); their lines keep their own
   * file names, so the source's line numbers do not move.
   */
  readonly includes?: readonly string[];
  /** How include files are read (default: the file system). */
  readonly readFile?: FileReader;
  /**
   * What to do with what OCCA accepts but C does not (`#if X=1`, an `#if` left open at the end
   * of a file) and with reads C leaves undefined (an `@exclusive` never written): "collect"
   * (default) accepts it as OCCA does and lists it in the result's `warnings`; "error" makes each
   * one an OklError.
   */
  readonly warnings?: "collect" | "error";
}

/** Predefined by both OCCA tools (OKL.md §1). */
export const PREDEFINED: Readonly<Record<string, string>> = {
  __OKL__: "1",
  __OCCA__: "1",
  OKL_VERSION: "20000",
  OCCA_MAJOR_VERSION: "2",
  OCCA_MINOR_VERSION: "0",
  OCCA_PATCH_VERSION: "0",
};

/** What the normalizer wants to hear besides tokens: directive lines and conditional decisions. */
export interface Emit {
  /** An active-region token after macro expansion (with the raw source token that produced it). */
  token(t: Tok): void;
  /** A directive line (`#if ...`) as written, and how the normalizer should print it (undefined: drop). */
  directive(first: Tok, lastEnd: number, replacement: string | undefined): void;
  /** Raw source tokens of an inactive region or kept verbatim. */
  raw(t: Tok): void;
}

const CONDITIONALS = new Set(["if", "ifdef", "ifndef", "elif", "else", "endif"]);

/** Runs the preprocessor over one translation unit. */
export class Preprocessor {
  readonly sources = new Map<string, string>();
  readonly out = new TokenList();
  /** What OCCA accepts and C does not, accepted here (PreprocessOptions.warnings). */
  readonly warnings: OklWarning[] = [];
  private readonly macros = new Map<string, Macro>();
  private readonly expander = new MacroExpander(this.macros, (detail, at) => this.error(detail, at), (detail, at) => this.warn(detail, at));
  private readonly reader: FileReader;
  private includeDepth = 0;

  constructor(
    private readonly opts: PreprocessOptions = {},
    private emit?: Emit,
  ) {
    this.reader = opts.readFile ?? defaultReader();
    for (const [k, v] of Object.entries(PREDEFINED)) this.defineText(k, v);
    for (const [k, v] of Object.entries(opts.defines ?? {})) this.defineText(k, String(v));
  }

  error(detail: string, at: Tok, rule = "preprocessor"): OklError {
    return oklError(detail, at, rule, this.sources as Sources, this.opts.filename);
  }

  /** Accepts what OCCA accepts (a warning), or fails with `detail` in "error" mode. */
  warn(detail: string, at: Tok, rule = "OCCA leniency"): void {
    if (this.opts.warnings === "error") throw this.error(detail, at, rule);
    this.warnings.push(oklWarning(detail, at, rule, this.sources as Sources, this.opts.filename));
  }

  private defineText(name: string, value: string): void {
    if (name.includes("(")) {
      // A function-like define: `NAME(a,b)` and its body read as the line of a #define.
      const line = lex(`${name} ${value}`, "<defines>").filter((t) => SIGNIFICANT.has(t.type));
      if (line[0]?.type !== "ident" || line[1]?.text !== "(" || line[1].offset !== line[0].text.length) {
        throw this.error(`define "${name}": a function-like define is written NAME(a, b) with no space before "("`, line[0] ?? { type: "ident", text: name, offset: 0, line: 1, col: 1 }, "defines");
      }
      this.define(line, line[0]);
      return;
    }
    const body = lex(value, "<defines>").filter((t) => SIGNIFICANT.has(t.type));
    this.macros.set(name, { name, params: undefined, variadic: false, body });
  }

  /** Conditional stack of the file being read: active = this branch is compiled; taken = some branch was. */
  private conds: { active: boolean; taken: boolean; outer: boolean; elseSeen: boolean; at: Tok; name: string }[] = [];
  private active = true;

  /** Preprocess `text` (file `file`, undefined for the main source). */
  run(text: string, file?: string): void {
    this.sources.set(file ?? "", text);
    const savedConds = this.conds;
    const savedActive = this.active;
    this.conds = [];
    this.active = true;
    // Only the normalizer (an emitter) keeps whitespace and comments; otherwise they are not even made.
    // The file's tokens come in chunks of whole lines (lexer.ts: one array of them all costs more
    // than lexing), read here one after the other.
    const chunks = lexLines(text, file, this.emit !== undefined);
    if (file === undefined) {
      // The output is about the main file's tokens (macros mostly give one for one): one array for them.
      let n = 64;
      for (const c of chunks) n += c.length;
      this.out.reserve(n + (n >> 4));
    }
    let chunk = 0;
    let toks = chunks[0]!;
    let n = toks.length;
    // The active tokens between two directives are toks[from .. i), expanded as one run (no copy):
    // the expander passes line breaks by, or prints them with the whitespace (the normalizer).
    let from = 0;
    let atLineStart = true;
    let i = 0;
    const flush = (to: number) => {
      if (to > from) this.expandInto(toks, from, to);
    };
    /** The pending tokens toks[from .. n) and all later chunks as one array (what a construct across a chunk's end needs). */
    const joinRest = () => {
      const rest = toks.slice(from);
      for (let c = chunk + 1; c < chunks.length; c++) for (const x of chunks[c]!) rest.push(x);
      i -= from;
      toks = rest;
      n = rest.length;
      from = 0;
      chunk = chunks.length - 1;
    };
    for (;;) {
      if (i >= n) {
        if (chunk + 1 >= chunks.length) break;
        // A function-like macro's call may continue on the next chunk's lines: then read on as one array.
        if (this.active && from < n && this.functionMacros()) joinRest();
        else {
          if (this.active) flush(n);
          toks = chunks[++chunk]!;
          n = toks.length;
          i = from = 0;
        }
        continue;
      }
      const t = toks[i]!;
      if (t.type === "nl" || t.type === "ws" || t.type === "comment") {
        if (t.type === "nl") atLineStart = true;
        if (!this.active) this.emit?.raw(t);
        i++;
        continue;
      }
      if (atLineStart && t.text === "#" && t.type === "punct") {
        // A directive: the significant tokens up to the end of the line.
        let j = i + 1;
        const line: Tok[] = [];
        while (j < n && toks[j]!.type !== "nl") {
          if (SIGNIFICANT.has(toks[j]!.type)) line.push(toks[j]!);
          j++;
        }
        const lastEnd = j < n ? toks[j]!.offset : text.length;
        const name = line[0]?.text ?? "";
        if (!this.active && !CONDITIONALS.has(name)) {
          for (let k = i; k < j; k++) this.emit?.raw(toks[k]!);
          i = from = j;
          continue;
        }
        if (this.active) flush(i);
        this.directive(name, line.slice(1), t, line[0] ?? t, lastEnd, text, file);
        i = from = j;
        continue;
      }
      atLineStart = false;
      // @directive("#...") injects a directive line.
      if (t.text === "@" && toks[i + 1]?.text === "directive") {
        let j = i + 2;
        while (j < n && (toks[j]!.type === "ws" || toks[j]!.type === "comment")) j++;
        if (toks[j]?.text === "(") {
          let k = j + 1;
          while (k < n && (toks[k]!.type === "ws" || toks[k]!.type === "nl")) k++;
          const s = toks[k];
          let m = k + 1;
          while (m < n && (toks[m]!.type === "ws" || toks[m]!.type === "nl")) m++;
          if (m >= n && chunk + 1 < chunks.length) {
            // Its string or ")" is on a later chunk's lines: read on as one array, and look again.
            joinRest();
            continue;
          }
          if (s?.type === "string" && toks[m]?.text === ")") {
            const body = unquote(s.text).trim();
            const dname = /^#\s*(\w*)/.exec(body)?.[1] ?? "";
            if (this.active || CONDITIONALS.has(dname)) {
              if (this.active) flush(i);
              this.injectDirective(body, s, file);
            }
            i = from = m + 1;
            continue;
          }
        }
        if (this.active) throw this.error('@directive expects one string argument: @directive("#define X 1")', t, "@directive");
      }
      if (!this.active) this.emit?.raw(t);
      i++;
    }
    if (this.active) flush(n);
    // OCCA closes conditionals left open at the end of a file.
    for (const c of this.conds) this.warn(`#${c.name} without #endif: closed at the end of ${file === undefined ? "the file" : `"${file}"`}, as OCCA does`, c.at);
    this.conds = savedConds;
    this.active = savedActive;
  }

  /** One directive `#name rest...` (`t` is the `#`, `lastEnd` the end of its line in `text`). */
  private directive(name: string, rest: readonly Tok[], t: Tok, nameTok: Tok, lastEnd: number, text: string, file: string | undefined): void {
    const active = this.active;
    switch (name) {
      case "if":
      case "ifdef":
      case "ifndef": {
        let value = false;
        if (active) value = name === "if" ? this.evalIf(rest, t) : this.macros.has(this.nameOf(rest, t)) === (name === "ifdef");
        this.conds.push({ active: active && value, taken: value, outer: active, elseSeen: false, at: t, name });
        this.emit?.directive(t, lastEnd, active ? `#if ${value ? 1 : 0}` : "#if 0");
        this.active = active && value;
        return;
      }
      case "elif":
      case "else": {
        const c = this.conds[this.conds.length - 1];
        if (!c) throw this.error(`#${name} without #if`, t);
        if (c.elseSeen) throw this.error(`#${name} after #else`, t);
        let value = false;
        if (c.outer && !c.taken) value = name === "else" ? true : this.evalIf(rest, t);
        if (name === "else") c.elseSeen = true;
        c.active = c.outer && !c.taken && value;
        c.taken ||= value;
        this.active = c.active;
        this.emit?.directive(t, lastEnd, name === "else" ? "#else" : `#elif ${value ? 1 : 0}`);
        return;
      }
      case "endif": {
        const c = this.conds.pop();
        if (!c) throw this.error("#endif without #if", t);
        this.active = c.outer;
        this.emit?.directive(t, lastEnd, "#endif");
        return;
      }
      case "define":
        this.define(rest, t);
        this.emit?.directive(t, lastEnd, undefined);
        return;
      case "undef":
        this.macros.delete(this.nameOf(rest, t));
        this.emit?.directive(t, lastEnd, undefined);
        return;
      case "include":
        this.emit?.directive(t, lastEnd, this.emit ? text.slice(t.offset, lastEnd) : undefined);
        this.include(rest, t, file);
        return;
      case "pragma":
        this.pragma(rest, t, text.slice(rest[0]?.offset ?? t.offset, lastEnd).trim(), lastEnd);
        return;
      case "error":
        throw this.error(`#error ${text.slice(rest[0]?.offset ?? lastEnd, lastEnd).trim()}`, t, "#error");
      case "warning":
      case "line":
      case "":
        this.emit?.directive(t, lastEnd, undefined);
        return;
      default:
        throw this.error(`unknown preprocessor directive "#${name}"`, nameTok);
    }
  }

  /** A directive given as text by `@directive`: its tokens keep the place of the string literal. */
  private injectDirective(text: string, at: Tok, file: string | undefined): void {
    const toks = lex(text).filter((t) => SIGNIFICANT.has(t.type)).map((t) => place(t, at));
    if (toks[0]?.text !== "#") throw this.error(`@directive expects a preprocessor directive, got "${text}"`, at, "@directive");
    const rest = toks.slice(2);
    const pragmaText = text.replace(/^#\s*pragma\s*/, "");
    if (toks[1]?.text === "pragma") {
      this.pragma(rest, at, pragmaText, at.offset);
      return;
    }
    // Injected directives print nothing in the normalizer (their effect is applied).
    const emit = this.emit;
    this.emit = undefined;
    try {
      this.directive(toks[1]?.text ?? "", rest, at, toks[1] ?? at, at.offset, text, file);
    } finally {
      this.emit = emit;
    }
  }

  private nameOf(rest: readonly Tok[], at: Tok): string {
    const t = rest[0];
    if (!t || t.type !== "ident") throw this.error("expected a macro name", t ?? at);
    return t.text;
  }

  private define(rest: readonly Tok[], at: Tok): void {
    const m = parseDefine(this.nameOf(rest, at), rest, at, (d, t) => this.error(d, t));
    this.macros.set(m.name, m);
  }

  /** A header of `opts.includes`, read before the source (a missing one is an error naming it). */
  includeFile(name: string): void {
    const at: Tok = { type: "string", text: JSON.stringify(name), offset: 0, line: 1, col: 1, file: "<includes>" };
    this.sources.set("<includes>", JSON.stringify(name));
    this.include([at], at, undefined);
  }

  private include(rest: readonly Tok[], at: Tok, file: string | undefined): void {
    const t = rest[0];
    let name: string;
    let system = false;
    if (t?.type === "string") name = unquote(t.text);
    else if (t?.text === "<") {
      system = true;
      name = "";
      for (let k = 1; k < rest.length && rest[k]!.text !== ">"; k++) name += rest[k]!.text;
    } else throw this.error('#include expects "file" or <file>', t ?? at);
    const missing = findInclude(name, system, file ?? this.opts.filename ?? "", this.opts, (path) => this.readInclude(path, name, at));
    if (missing !== undefined) throw this.error(missing, t!, "#include");
  }

  /** Preprocesses the file at `path` in place of an `#include`; false when it does not exist. */
  private readInclude(path: string, name: string, at: Tok): boolean {
    const text = this.reader(path);
    if (text === undefined) return false;
    if (this.emit) return true; // the normalizer keeps #include lines as written
    if (++this.includeDepth > 64) throw this.error(`#include nested too deeply (at "${name}")`, at);
    this.run(text, path);
    this.includeDepth--;
    return true;
  }

  private pragma(rest: readonly Tok[], at: Tok, text: string, lastEnd: number): void {
    if (rest[0]?.text === "occa" && rest[1]?.text === "attributes") {
      this.emit?.directive(at, lastEnd, undefined);
      this.expandInto(rest.slice(2));
      return;
    }
    if (this.emit) {
      this.emit.directive(at, lastEnd, `#pragma ${text}`);
      return;
    }
    this.out.push({ type: "pragma", text, offset: at.offset, line: at.line, col: at.col, ...(at.file !== undefined ? { file: at.file } : {}) });
  }

  /** The value of a `#if`/`#elif` condition (c-if.ts). */
  private evalIf(rest: readonly Tok[], at: Tok): boolean {
    return evalIfCondition(rest, at, {
      defined: (n) => this.macros.has(n), expand: (t) => this.expand(t),
      error: (d, t) => this.error(d, t), warn: (d, t) => this.warn(d, t),
    });
  }

  /** Macro-expand `chunk[from .. to)` into the output (or the normalizer's hooks). */
  private expandInto(chunk: readonly Tok[], from = 0, to = chunk.length): void {
    if (this.emit) {
      for (const t of this.expander.expand(chunk, true, from, to)) this.emit.token(t);
      return;
    }
    this.expander.expandTo(chunk, false, this.out, from, to);
  }

  /** Whether a function-like macro is defined (its call may span lines, so a run of tokens cannot be cut). */
  private functionMacros(): boolean {
    for (const m of this.macros.values()) if (m.params !== undefined) return true;
    return false;
  }

  /** Macro-expand `input` with the macros defined so far (macros.ts). */
  expand(input: readonly Tok[], trivia = false): Tok[] {
    return this.expander.expand(input, trivia);
  }
}

/** Preprocess a translation unit: the significant tokens (and `#pragma` lines), ending in `eof`. */
export function preprocess(source: string, opts: PreprocessOptions = {}): { tokens: Tok[]; sources: Sources; warnings: readonly OklWarning[] } {
  const pp = new Preprocessor(opts);
  pp.sources.set("", source);
  for (const name of opts.includes ?? []) pp.includeFile(name);
  pp.run(source);
  // The end of the source: its last line (one more than its line breaks) and the column after it.
  let lines = 1;
  for (let k = source.indexOf("\n"); k >= 0; k = source.indexOf("\n", k + 1)) lines++;
  pp.out.push({ type: "eof", text: "", offset: source.length, line: lines, col: source.length - source.lastIndexOf("\n") });
  return { tokens: pp.out.toArray(), sources: pp.sources, warnings: pp.warnings };
}
