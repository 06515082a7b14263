/**
 * C string literals passed where a device function takes `const char *` (nekRS 26's
 * `isField("fluid velocity")` compares bcData's fieldName with a literal through its own
 * `nekrs_strcmp`): the literal is a constant table of its characters' codes and the terminating 0,
 * read like a file-scope constant table (tables.ts); a pointer walking it moves an offset
 * (moving-pointers.ts). Writing through it, or binding it to a pointer to non-const `char`, is an
 * OklError, as C makes writing a string literal undefined.
 *
 *   stringTable("ab")   // table "\"ab\"" of 97, 98, 0
 */
import { c } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { Binding } from "./bindings.js";

type Table = Extract<Binding, { kind: "table" }>;

/** The tables made for string literals (and pointers into them: offsets keep the table's identity in `literal`). */
const literals = new WeakMap<readonly unknown[], string>();

/** The table binding of string literal `e`: its bytes as C stores them and a final 0. */
export function stringTable(e: A.StringLit): Table {
  const bytes = [...literalBytes(e.text), 0];
  const values = bytes.map((b) => c(b > 127 ? b - 256 : b)); // C's char (int8 here) is signed
  literals.set(values, e.text);
  return { kind: "table", name: e.text, shape: [bytes.length], values };
}

const ESCAPES: Readonly<Record<string, number>> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, e: 27 };

/**
 * The bytes of a literal as written (`"a\377" "b"`, adjacent pieces joined by spaces): an escape is
 * one byte (`\377` and `\xff` are 0xff, as C stores them), any
 * other character its UTF-8 bytes (the source's encoding).
 */
export function literalBytes(text: string): number[] {
  const out: number[] = [];
  const enc = new TextEncoder();
  for (const m of text.matchAll(/"((?:[^"\\]|\\[\s\S])*)"/g)) {
    const body = m[1]!;
    for (let k = 0; k < body.length; k++) {
      const ch = body[k]!;
      if (ch !== "\\") {
        const cp = body.codePointAt(k)!;
        if (cp > 0xffff) k++;
        out.push(...enc.encode(String.fromCodePoint(cp)));
        continue;
      }
      const rest = body.slice(k + 1);
      const oct = /^[0-7]{1,3}/.exec(rest), hex = /^x[0-9a-fA-F]+/.exec(rest);
      if (oct) out.push(parseInt(oct[0], 8) & 0xff), (k += oct[0].length);
      else if (hex) out.push(parseInt(hex[0].slice(1), 16) & 0xff), (k += hex[0].length);
      else out.push(ESCAPES[rest[0]!] ?? rest.charCodeAt(0) & 0xff), k++;
    }
  }
  return out;
}

/** The literal as written, where `b` is (a pointer into) a string literal's table; else undefined. */
export function stringLiteralOf(b: Binding | undefined): string | undefined {
  return b?.kind === "table" ? literals.get(b.values) : undefined;
}

/** Why string literal `e` cannot be bound to a pointer declared with `spec` (not `const char`), or undefined where it can. */
export function literalRefusal(e: A.Expr, spec: A.TypeSpec, what: string): string | undefined {
  if (e.kind !== "string" || spec.qualifiers.includes("const")) return undefined;
  return `string literal ${e.text} bound to "${what}", a pointer to non-const char: C makes writing a string literal undefined, so Loom accepts literals only for \`const char *\` (declare "${what}" const)`;
}
