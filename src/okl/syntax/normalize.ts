/**
 * `normalizeOkl`: legacy `@attr(args)` -> `[[okl_attr("args")]]`, as the new OCCA transpiler's
 * normalizer does (corpus `data/normalize`): macros are expanded in active code, `#define`s are
 * dropped, conditionals become `#if 0`/`#elif 1`, inactive text is kept as written, and every
 * attribute moves to the front of its statement, declaration or parameter (4th-clause loop
 * attributes before the `for`, postfix declarator attributes before the declaration). The argument
 * string is the parenthesised argument text without whitespace, `"` escaped.
 *
 * ```ts
 * normalizeOkl("for (int i = 0; i < n; ++i; @outer(0)) {}")
 * // '[[okl_outer("(0)")]] for (int i = 0; i < n; ++i) {}'
 * ```
 *
 * Token-level on purpose: it needs no full parse, so it also passes C++ it does not understand.
 */
import type { Tok } from "./lexer.js";
import { Preprocessor, type PreprocessOptions } from "./c-preprocessor.js";
import { guardDepth } from "../../errors.js";

interface Item {
  readonly text: string;
  /** A significant token (not whitespace, comment or a directive line). */
  readonly sig: boolean;
  /** Printed with a space before it (a token from a macro expansion). */
  readonly space: boolean;
  removed: boolean;
  before: string[];
}

const SIG = new Set(["number", "string", "char", "ident", "punct", "other"]);

/** Normalize legacy OKL attribute syntax; see the module comment. Throws OklError on preprocessor errors. */
export function normalizeOkl(source: string, opts: PreprocessOptions = {}): string {
  return guardDepth("normalizeOkl", () => {
    const items: Item[] = [];
    const push = (text: string, sig: boolean, space = false) => items.push({ text, sig, space, removed: false, before: [] });
    const pp = new Preprocessor(opts, {
      token: (t: Tok) => push(t.text, SIG.has(t.type), t.fromMacro !== undefined && !!t.spaceBefore),
      raw: (t: Tok) => push(t.text, false),
      directive: (_first, _end, replacement) => {
        if (replacement !== undefined) push(replacement, false);
      },
    });
    pp.run(source);
    rewriteAttributes(items);
    let out = "";
    for (const it of items) {
      for (const b of it.before) out += b;
      if (!it.removed) out += (it.space ? " " : "") + it.text;
    }
    return out;
  });
}

/** Rewrite every `@name(args)` among the significant items, in place. */
function rewriteAttributes(items: Item[]): void {
  const sig: number[] = [];
  items.forEach((it, k) => {
    if (it.sig) sig.push(k);
  });
  const text = (s: number) => items[sig[s]!]!.text;
  // Paren/for bookkeeping for the 4th clause: the stack holds, per open "(", its for-ness and the ";" count.
  const parens: { forHeader: boolean; semis: number; forTok: number; lastSemi: number }[] = [];
  for (let s = 0; s < sig.length; s++) {
    const t = text(s);
    if (t === "(") {
      parens.push({ forHeader: s > 0 && text(s - 1) === "for", semis: 0, forTok: s - 1, lastSemi: -1 });
      continue;
    }
    if (t === ")") {
      parens.pop();
      continue;
    }
    if (t === ";" && parens.length) {
      const p = parens[parens.length - 1]!;
      p.semis++;
      p.lastSemi = s;
      continue;
    }
    if (t !== "@" || s + 1 >= sig.length || !/^[A-Za-z_]\w*$/.test(text(s + 1))) continue;
    // The attribute's extent: "@", name, and a balanced "( ... )".
    const name = text(s + 1);
    let end = s + 1;
    let args = "";
    if (s + 2 < sig.length && text(s + 2) === "(") {
      let depth = 0;
      let k = s + 2;
      for (; k < sig.length; k++) {
        const x = text(k);
        if (x === "(") depth++;
        else if (x === ")" && --depth === 0) break;
        args += x;
      }
      args += ")";
      end = k;
    }
    const norm = `[[okl_${name}(${JSON.stringify(args)})]] `;
    for (let k = sig[s]!; k <= sig[end]!; k++) items[k]!.removed = true;
    const top = parens[parens.length - 1];
    if (top?.forHeader && top.semis >= 3) {
      // 4th clause: drop the third ";" and move the attribute before "for".
      if (top.lastSemi >= 0) items[sig[top.lastSemi]!]!.removed = true;
      items[sig[top.forTok]!]!.before.push(norm);
    } else {
      const prev = s > 0 ? text(s - 1) : ";";
      const isPrefix = [";", "{", "}", ")", "(", ",", ":", "]]"].includes(prev) || s === 0 || prevIsAttributeEnd(items, sig, s);
      if (isPrefix) items[sig[s]!]!.before.push(norm);
      else items[sig[startOf(items, sig, s)]!]!.before.push(norm);
    }
    s = end;
  }
}

/** Whether the significant token before `s` ends an attribute that was already rewritten. */
function prevIsAttributeEnd(items: readonly Item[], sig: readonly number[], s: number): boolean {
  return s > 0 && items[sig[s - 1]!]!.removed;
}

/**
 * The first significant token of the declaration or parameter that contains position `s`: after the
 * nearest unmatched "(" or depth-0 "," inside parentheses, else after the nearest ";", "{" or "}".
 */
function startOf(items: readonly Item[], sig: readonly number[], s: number): number {
  let depth = 0;
  let comma = -1;
  for (let k = s - 1; k >= 0; k--) {
    const it = items[sig[k]!]!;
    if (it.removed) continue;
    const t = it.text;
    if (t === ")" || t === "]") depth++;
    else if (t === "(" || t === "[") {
      if (depth === 0) return comma >= 0 ? comma : k + 1;
      depth--;
    } else if (depth === 0 && t === "," && comma < 0) comma = k + 1;
    else if (depth === 0 && (t === ";" || t === "{" || t === "}")) return k + 1;
  }
  return 0;
}
