/**
 * `parseOkl(source, opts)`: preprocess, parse and lower OKL to Loom kernels, one per `@kernel`.
 *
 *   parseOkl("@kernel void f(const int n, float *a) { for (…; @outer) for (…; @inner) a[i] = 1; }")
 */
import { LoomError } from "../errors.js";
import type { Kernel } from "../ir/index.js";
import { parseOklAst, type OklAstOptions } from "./syntax/parse-okl-ast.js";
import { lowerOkl } from "./lower/lower-okl.js";
import type { OklWarning } from "./syntax/diag.js";

/** `filename`, `defines`, `includePaths`, `libraryPaths`, `readFile` and the front end's other options. */
export interface ParseOklOptions extends OklAstOptions {
  readonly filename?: string;
  readonly defines?: Readonly<Record<string, string | number>>;
  readonly includePaths?: readonly string[];
}

/**
 * The kernels of an OKL source, one per `@kernel`, with `warnings`: what OCCA accepts and C does
 * not, accepted as OCCA does (`opts.warnings: "error"` makes each an OklError instead).
 */
export type OklKernels = Kernel[] & { readonly warnings: readonly OklWarning[] };

/** The kernels of an OKL source. Malformed or unsupported OKL throws an OklError with line and column. */
export function parseOkl(source: string, opts: ParseOklOptions = {}): OklKernels {
  if (typeof source !== "string") throw new LoomError(`parseOkl: expected the OKL source text, got ${source === null ? "null" : typeof source}`);
  // The whole front end: preprocessing, parsing and every validation rule, before lowering.
  const unit = parseOklAst(source, opts);
  const sink: OklWarning[] = [...(unit.warnings ?? [])];
  const kernels = lowerOkl(unit, { ...(opts.filename !== undefined ? { filename: opts.filename } : {}), source, warningSink: sink, ...(opts.warnings ? { warnings: opts.warnings } : {}) });
  // What the front end refuses though the lowering could express it (a value carried across iterations).
  if (unit.refusal) throw unit.refusal;
  return Object.assign(kernels, { warnings: sink });
}
