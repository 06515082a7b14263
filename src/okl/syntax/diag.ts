/**
 * Building OklErrors: a place (line, column, file) plus the text of that file gives the message with
 * its caret excerpt. `Sources` maps a file name ("" for the main source) to its text.
 */
import { OklError, excerptAt } from "../../errors.js";

export type Sources = ReadonlyMap<string, string>;

/** Anything with a place: a token (`col`) or an AST position (`column`). */
export type Place = { readonly line: number; readonly file?: string } & ({ readonly col: number } | { readonly column: number });

/** The OklError for `detail` at `at`, with the excerpt of the right file. */
export function oklError(detail: string, at: Place, rule: string, sources: Sources, filename: string | undefined): OklError {
  const column = "col" in at ? at.col : at.column;
  const text = sources.get(at.file ?? "");
  const excerpt = text === undefined ? "" : excerptAt(text, at.line, column);
  return new OklError(detail, at.line, column, rule, at.file ?? filename, excerpt);
}

/**
 * What OCCA accepts but a C compiler would not (`#if X=1`, an `#if` left open at the end of a file):
 * Loom accepts it as OCCA does and reports it here. `message` reads like a compiler's
 * (`file:line:col: warning: detail [rule]` and the caret excerpt).
 */
export interface OklWarning {
  readonly message: string;
  readonly detail: string;
  readonly line: number;
  readonly column: number;
  readonly rule: string;
  readonly filename: string | undefined;
  readonly excerpt: string;
}

/** The OklWarning for `detail` at `at` (the excerpt from the right file, as for errors). */
export function oklWarning(detail: string, at: Place, rule: string, sources: Sources, filename: string | undefined): OklWarning {
  const column = "col" in at ? at.col : at.column;
  const text = sources.get(at.file ?? "");
  const excerpt = text === undefined ? "" : excerptAt(text, at.line, column);
  const file = at.file ?? filename;
  const message = `${file ?? "<okl>"}:${at.line}:${column}: warning: ${detail} [${rule}]${excerpt ? "\n" + excerpt : ""}`;
  return { message, detail, line: at.line, column, rule, filename: file, excerpt };
}
