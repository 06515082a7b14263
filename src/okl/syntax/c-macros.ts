/**
 * C's macro expansion for the OKL preprocessor (c-preprocessor.ts): object- and function-like
 * macros, `#` stringification, `##` pasting, `__VA_ARGS__`, with hide sets so that a macro is
 * not expanded inside its own expansion. A token made by an expansion carries the place of the
 * macro's invocation.
 */
import { lex, TokenList, tokEnd, type Tok } from "./lexer.js";
import type { OklError } from "../../errors.js";

/** Tokens that are not trivia (whitespace, line breaks, comments). */
export const SIGNIFICANT = new Set(["number", "string", "char", "ident", "punct", "other"]);

export interface Macro {
  readonly name: string;
  /** undefined: object-like. */
  readonly params: readonly string[] | undefined;
  readonly variadic: boolean;
  readonly body: readonly Tok[];
}

/**
 * The macro of a `#define` line: `rest` its tokens after `#define` (`name` the first). Function-like
 * only when "(" follows the name without a space.
 */
export function parseDefine(name: string, rest: readonly Tok[], at: Tok, error: (detail: string, at: Tok) => OklError): Macro {
  const nameTok = rest[0]!;
  let params: string[] | undefined;
  let variadic = false;
  let k = 1;
  const open = rest[1];
  // The tokens of a `@directive` string are all placed at the string (one offset): there the
  // lexer's spaceBefore decides. A line splice between them (`F\\⏎(x)`) leaves no space: then "("
  // is on a later line.
  const adjacent = open !== undefined && !open.spaceBefore && (open.offset === tokEnd(nameTok) || open.offset === nameTok.offset || open.line > nameTok.line);
  if (open?.text === "(" && adjacent) {
    params = [];
    k = 2;
    while (k < rest.length && rest[k]!.text !== ")") {
      const p = rest[k]!;
      if (p.text === "...") {
        variadic = true;
        params.push("__VA_ARGS__");
      } else if (p.type === "ident") params.push(p.text);
      else if (p.text !== ",") throw error(`bad parameter "${p.text}" in #define ${name}`, p);
      k++;
    }
    if (rest[k]?.text !== ")") throw error(`unclosed parameter list in #define ${name}`, at);
    k++;
  }
  return { name, params, variadic, body: rest.slice(k) };
}

/** Expands tokens with the macros of `macros` (the preprocessor's table, as it is when asked). */
export class MacroExpander {
  constructor(
    private readonly macros: ReadonlyMap<string, Macro>,
    private readonly error: (detail: string, at: Tok) => OklError,
    /** What OCCA accepts and C does not: a warning (or the OklError in the preprocessor's "error" mode). */
    private readonly warn: (detail: string, at: Tok) => void = (detail, at) => { throw error(detail, at); },
  ) {}

  /**
   * Macro-expand `input` (C's algorithm with hide sets). With `trivia`, whitespace, comments and
   * line breaks pass through (the normalizer prints them), except inside macro arguments. Only
   * `input[from .. to)` is read (the preprocessor's run between two directives, not copied).
   */
  expand(input: readonly Tok[], trivia = false, from = 0, to = input.length): Tok[] {
    const list = new TokenList();
    this.expandTo(input, trivia, list, from, to);
    return list.toArray();
  }

  /** `expand` onto `list` (the preprocessor's output, or expand's array). */
  expandTo(input: readonly Tok[], trivia: boolean, out: TokenList, from: number, to: number): void {
    const pending: Tok[] = []; // a stack: the next token is pending[pending.length - 1]
    let i = from;
    const next = (): Tok | undefined => (pending.length ? pending.pop() : i < to ? input[i++] : undefined);
    const peekSignificant = (): Tok | undefined => {
      for (let k = pending.length - 1; k >= 0; k--) if (SIGNIFICANT.has(pending[k]!.type)) return pending[k];
      for (let k = i; k < to; k++) if (SIGNIFICANT.has(input[k]!.type)) return input[k];
      return undefined;
    };
    let steps = 0;
    for (;;) {
      const t = pending.length ? pending.pop() : i < to ? input[i++] : undefined;
      if (!t) break;
      const ty = t.type;
      if (ty !== "ident") {
        if (trivia || (ty !== "ws" && ty !== "nl" && ty !== "comment")) out.push(t);
        continue;
      }
      const m = this.macros.get(t.text);
      if (!m || (t.hide !== undefined && t.hide.has(t.text))) {
        out.push(t);
        continue;
      }
      if (++steps > 100000) throw this.error(`macro expansion of "${t.text}" takes more than 100,000 steps: a macro that expands without end, or to exponentially many tokens (each doubling the last); define fewer levels`, t);
      const hide = this.hideWith(t.hide, m.name);
      let repl: Tok[];
      if (m.params === undefined) {
        if (plainBody(m)) {
          // An object-like macro without # or ##: its body at the invocation, hidden from itself (the common case, no copies).
          for (let k = m.body.length - 1; k >= 0; k--) pending.push(placed(m.body[k]!, t, m.name, hide));
          continue;
        }
        repl = this.substitute(m, [], t);
      } else {
        if (peekSignificant()?.text !== "(") {
          out.push(t);
          continue;
        }
        // Skip trivia up to "(" (dropped: the invocation is replaced as a whole).
        for (let s = next(); s && s.text !== "("; s = next());
        const args: Tok[][] = [[]];
        let depth = 0;
        for (;;) {
          const a = next();
          if (!a) throw this.error(`unterminated call of macro ${m.name}`, t);
          if (!SIGNIFICANT.has(a.type)) {
            const cur = args[args.length - 1]!;
            if (cur.length) cur.push(a);
            continue;
          }
          if (a.text === "(") depth++;
          else if (a.text === ")") {
            if (depth === 0) break;
            depth--;
          } else if (a.text === "," && depth === 0 && !(m.variadic && args.length === m.params.length)) {
            args.push([]);
            continue;
          }
          args[args.length - 1]!.push(a);
        }
        const sig = args.map((a) => a.filter((x) => SIGNIFICANT.has(x.type)));
        if (sig.length === 1 && sig[0]!.length === 0 && m.params.length === 0) sig.length = 0;
        if (m.variadic && sig.length === m.params.length - 1) sig.push([]);
        if (!m.variadic && m.params.length > 0 && sig.length === m.params.length + 1 && sig[sig.length - 1]!.length === 0) {
          // OCCA's preprocessor makes an argument only when a token arrives for it, so a trailing
          // empty argument is no argument there (nekRS's ogs kernels: `GENERATE(float,float,)`).
          this.warn(`macro ${m.name} takes ${m.params.length} argument(s): the empty argument after the last comma is dropped, as OCCA does (C counts ${sig.length})`, t);
          sig.pop();
        }
        if (sig.length !== m.params.length) {
          throw this.error(`macro ${m.name} expects ${m.params.length} argument(s), got ${sig.length}`, t);
        }
        repl = this.substitute(m, sig, t);
      }
      for (let k = repl.length - 1; k >= 0; k--) {
        const r = repl[k]!;
        // Tokens of the macro's body share the invocation's hide set (never mutated once made).
        let h: ReadonlySet<string> = hide;
        if (r.hide !== undefined && r.hide.size > 0) {
          const u = new Set(r.hide);
          for (const x of hide) u.add(x);
          h = u;
        }
        pending.push({ ...r, hide: h });
      }
    }
  }

  /**
   * `hide` plus `name`, one set per distinct result (hide sets are never mutated once made): a
   * token without a hide set expanding macro `name` gets the same `{name}` every time.
   */
  private hideWith(hide: ReadonlySet<string> | undefined, name: string): ReadonlySet<string> {
    const key = hide ?? NO_HIDE;
    let byName = this.hideSets.get(key);
    if (!byName) this.hideSets.set(key, (byName = new Map()));
    let h = byName.get(name);
    if (!h) {
      const u = new Set(key);
      u.add(name);
      byName.set(name, (h = u));
    }
    return h;
  }
  private readonly hideSets = new WeakMap<ReadonlySet<string>, Map<string, ReadonlySet<string>>>();

  /** The body of `m` with parameters replaced, `#` stringified and `##` pasted; placed at `at`. */
  private substitute(m: Macro, args: readonly (readonly Tok[])[], at: Tok): Tok[] {
    const params = m.params ?? [];
    const argOf = (t: Tok): number => (t.type === "ident" ? params.indexOf(t.text) : -1);
    const body = m.body;
    const res: (Tok | "paste")[] = [];
    for (let k = 0; k < body.length; k++) {
      const b = body[k]!;
      if (b.text === "#" && m.params !== undefined && body[k + 1] && argOf(body[k + 1]!) >= 0) {
        const arg = args[argOf(body[k + 1]!)]!;
        const s = arg.map((x, idx) => (idx > 0 && x.spaceBefore ? " " : "") + x.text).join("");
        res.push(place({ type: "string", text: JSON.stringify(s), offset: 0, line: 0, col: 0 }, at, m.name));
        k++;
        continue;
      }
      if (b.text === "##") {
        res.push("paste");
        continue;
      }
      const ai = argOf(b);
      if (ai >= 0) {
        const pasted = body[k - 1]?.text === "##" || body[k + 1]?.text === "##";
        const arg = pasted ? args[ai]! : this.expand(args[ai]!);
        for (const x of arg) res.push(x);
        continue;
      }
      res.push(place(b, at, m.name, b.hide));
    }
    // Token pasting.
    const out: Tok[] = [];
    for (let k = 0; k < res.length; k++) {
      const r = res[k]!;
      if (r === "paste") {
        const left = out.pop();
        const right = res[k + 1];
        k++;
        if (!left || !right || right === "paste") {
          if (left) out.push(left);
          if (right && right !== "paste") out.push(right);
          continue;
        }
        const glued = lex(left.text + right.text).filter((x) => SIGNIFICANT.has(x.type));
        for (const g of glued) out.push(place(g, at, m.name));
        continue;
      }
      out.push(r);
    }
    return out;
  }
}

const NO_HIDE: ReadonlySet<string> = new Set();

/** Whether the body of object-like macro `m` has no `#` or `##` (remembered per macro). */
const plainBodies = new WeakMap<Macro, boolean>();
function plainBody(m: Macro): boolean {
  let p = plainBodies.get(m);
  if (p === undefined) plainBodies.set(m, (p = m.body.every((b) => b.text !== "#" && b.text !== "##" && (b.hide === undefined || b.hide.size === 0))));
  return p;
}

/** Body token `b` of macro `macro` placed at invocation `at` with hide set `hide`: `place` and the hide set of `expand`, in one object. */
function placed(b: Tok, at: Tok, macro: string, hide: ReadonlySet<string>): Tok {
  return at.file === undefined
    ? { type: b.type, text: b.text, offset: at.offset, line: at.line, col: at.col, spaceBefore: b.spaceBefore ?? false, fromMacro: at.fromMacro ?? macro, hide }
    : { type: b.type, text: b.text, offset: at.offset, line: at.line, col: at.col, spaceBefore: b.spaceBefore ?? false, file: at.file, fromMacro: at.fromMacro ?? macro, hide };
}

export /** `t` moved to the place of `at` (a macro invocation or a `@directive` string). */
function place(t: Tok, at: Tok, macro?: string, hide?: ReadonlySet<string>): Tok {
  const r: Tok = {
    type: t.type,
    text: t.text,
    offset: at.offset,
    line: at.line,
    col: at.col,
    spaceBefore: t.spaceBefore ?? false,
    ...(at.file !== undefined ? { file: at.file } : {}),
    ...(macro !== undefined ? { fromMacro: at.fromMacro ?? macro } : {}),
    ...(hide !== undefined ? { hide } : {}),
  };
  return r;
}
