/**
 * `parseOkl(source, opts)`: preprocess, parse and lower OKL to Loom kernels, one per `@kernel`.
 *
 *   parseOkl("@kernel void f(const int n, float *a) { for (…; @outer) for (…; @inner) a[i] = 1; }")
 */
import { checkOptionNames, guardDepth, LoomError, shown } from "../errors.js";
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
export function parseOkl(source: string, opts0: ParseOklOptions = {}): OklKernels {
  if (typeof source !== "string") throw new LoomError(`parseOkl: expected the OKL source text, got ${source === null ? "null" : typeof source}`);
  const opts = checkOklOptions(opts0);
  // The whole front end: preprocessing, parsing and every validation rule, before lowering.
  const unit = parseOklAst(source, opts);
  const sink: OklWarning[] = [...(unit.warnings ?? [])];
  // The lowering recurses over statements and expressions as the front end does: input nested
  // thousands deep (`if (…) if (…) …`) is a LoomError saying so, not a RangeError.
  const kernels = guardDepth("parseOkl", () => lowerOkl(unit, { ...(opts.filename !== undefined ? { filename: opts.filename } : {}), source, warningSink: sink, ...(opts.warnings ? { warnings: opts.warnings } : {}) }));
  // What the front end refuses though the lowering could express it (a value carried across iterations).
  if (unit.refusal) throw unit.refusal;
  return Object.assign(kernels, { warnings: sink });
}

type Kind = "string" | "boolean" | "function" | "strings" | "record" | "openers" | "warnings";
const OPTION_KINDS: Readonly<Record<keyof ParseOklOptions, Kind>> = {
  filename: "string", defines: "record", includes: "strings", includePaths: "strings", libraryPaths: "record",
  fileOpeners: "openers", readFile: "function", warnings: "warnings", validate: "boolean", extraAttributes: "strings",
  structure: "boolean", requireLoops: "boolean", requireKernel: "boolean",
};
const KIND_TEXT: Readonly<Record<Kind, string>> = {
  string: "a string", boolean: "true or false", function: "a function (path) => text", strings: "an array of strings",
  record: "an object of names to strings", openers: "an object of prefixes to a folder or an array of folders", warnings: `"collect" or "error"`,
};
const isStrings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === "string");
const isRecord = (x: unknown, value: (v: unknown) => boolean) =>
  typeof x === "object" && x !== null && !Array.isArray(x) && Object.values(x).every(value);
const FITS: Readonly<Record<Kind, (x: unknown) => boolean>> = {
  string: (x) => typeof x === "string",
  boolean: (x) => typeof x === "boolean",
  function: (x) => typeof x === "function",
  strings: isStrings,
  record: (x) => isRecord(x, (v) => typeof v === "string" || (typeof v === "number" && Number.isFinite(v))),
  openers: (x) => isRecord(x, (v) => typeof v === "string" || isStrings(v)),
  warnings: (x) => x === "collect" || x === "error",
};

/**
 * `opts` with every key known and every value of its kind, else a LoomError naming the option, what
 * it got and what it takes (before, `includes: { "x.h": … }` was a TypeError inside the preprocessor).
 */
function checkOklOptions(opts: ParseOklOptions): ParseOklOptions {
  const known = Object.fromEntries(Object.keys(OPTION_KINDS).map((k) => [k, true])) as Record<keyof ParseOklOptions, true>;
  const checked = checkOptionNames(opts, "parseOkl", known, (m) => new LoomError(m));
  for (const [key, value] of Object.entries(checked)) {
    const kind = OPTION_KINDS[key as keyof ParseOklOptions];
    if (value !== undefined && !FITS[kind](value)) throw new LoomError(`parseOkl: option "${key}" must be ${KIND_TEXT[kind]}; got ${shown(value)}`);
  }
  return checked;
}
