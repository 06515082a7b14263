/** `parseExpr`: one expression of the instruction language, outside any kernel. */
import { guardDepth } from "../errors.js";
import type { Expr } from "../ir/expr.js";
import { lowerExpr } from "./lower.js";
import { failIn, parseExprRaw } from "./syntax.js";

/**
 * Parse one expression: `parseExpr("2*a[i, j+1] + sum(k, b[k])")`. Without `inames`,
 * `max(x, e)`/`min(x, e)` with a single name are calls of the binary function; with them, a
 * reduction when `x` is one of the inames. Calls of unknown names are kept as calls (rules).
 * Throws a ParseError with line, column and caret on malformed text.
 */
function parseExprUnguarded(text: string, opts: { inames?: Iterable<string> } = {}): Expr {
  const fail = failIn(text, "expression");
  const raw = parseExprRaw(text, fail);
  return lowerExpr(raw, { fail, ...(opts.inames ? { inames: new Set(opts.inames) } : {}) });
}

/** parseExpr, with pathologically deep input reported as a LoomError (see guardDepth). */
export function parseExpr(text: string, opts: { inames?: Iterable<string> } = {}): Expr {
  return guardDepth("parseExpr", () => parseExprUnguarded(text, opts));
}
