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
