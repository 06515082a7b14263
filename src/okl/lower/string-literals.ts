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

/** The table binding of string literal `e`: its characters' codes (UTF-8 bytes) and a final 0. */
export function stringTable(e: A.StringLit): Table {
  const bytes = [...new TextEncoder().encode(e.value), 0];
  const values = bytes.map((b) => c(b));
  literals.set(values, e.text);
  return { kind: "table", name: e.text, shape: [bytes.length], values };
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
