/**
 * `parseOklAst(source, opts)` = C preprocessing + parsing + validation -> the AST of ast.ts, and
 * `parseOklFragment` for OCCA-style fragments (statements and declarations at the top level).
 */
import type { Stmt, TopLevel, TranslationUnit } from "./ast.js";
import { preprocess, type PreprocessOptions } from "./c-preprocessor.js";
import { parseFragmentTokens, parseTokens } from "./parse-unit.js";
import { Validator, type ValidateOptions } from "./validate.js";
import { splitAssignValues } from "./assign-values.js";
import { pushHostBranches } from "./host-branches.js";
import { foldSizeof } from "./sizeof.js";
import { atomicCalls, isAtomicCallName } from "./atomic-calls.js";
import { oklError, oklWarning } from "./diag.js";
import { unwrittenExclusives } from "./unwritten-exclusive.js";
import { carriedPrivateReads } from "./carried-privates.js";
import { guardDepth } from "../../errors.js";

export interface OklAstOptions extends PreprocessOptions, Omit<ValidateOptions, "filename"> {
  /**
   * Validate at all (default true). false returns the parsed unit without the semantic checks of
   * validate.ts (attribute arguments and placement are still checked while parsing).
   */
  readonly validate?: boolean;
  /** Attribute names accepted besides OKL's (OCCA lets hosts register custom attributes). */
  readonly extraAttributes?: readonly string[];
}

const UNWRITTEN_RULE = "unwritten @exclusive";
const CARRIED_RULE = "value carried across iterations";

/**
 * Preprocess, parse and validate OKL `source`. Throws `OklError` (line, column, caret excerpt, rule)
 * for malformed input and for constructs outside Loom's C subset.
 */
export function parseOklAst(source: string, opts: OklAstOptions = {}): TranslationUnit {
  return guardDepth("parseOkl", () => {
    const { tokens, sources, warnings } = preprocess(source, opts);
    let unit = parseTokens(tokens, sources, opts);
    let sizeofs = false, atomics = false;
    // An index loop: this runs once per import, seldom optimized, and an unoptimized for-of
    // allocates an iterator result per token.
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k]!;
      if (t.type !== "ident") continue; // (both are names: no set lookup per punctuator and number)
      if (t.text === "sizeof") sizeofs = true;
      else if (isAtomicCallName(t.text)) atomics = true;
    }
    // Before validation: array sizes and loop bounds may use sizeof; CUDA's atomicAdd(p, v) is an @atomic update.
    if (sizeofs) unit = foldSizeof(unit, (detail, at) => oklError(detail, at.pos, "sizeof", sources, opts.filename));
    if (atomics) unit = atomicCalls(unit);
    if (opts.validate ?? true) new Validator(sources, opts).validate(unit);
    // A private value one @outer/@inner iteration hands to another (OCCA's serial and GPU modes disagree):
    // refused once the lowering accepts the unit (its own refusal of the same code is the better message).
    const carried = opts.validate ?? true ? carriedPrivateReads(unit)[0] : undefined;
    const refusal = carried ? oklError(carried.detail, carried.at, CARRIED_RULE, sources, opts.filename) : undefined;
    // An @exclusive read and never written: a warning (C leaves its value undefined), an OklError under warnings: "error".
    const unwritten = unwrittenExclusives(unit).map((u) => {
      if (opts.warnings === "error") throw oklError(u.detail, u.at, UNWRITTEN_RULE, sources, opts.filename);
      return oklWarning(u.detail, u.at, UNWRITTEN_RULE, sources, opts.filename);
    });
    return { ...pushHostBranches(splitAssignValues(unit)), warnings: [...warnings, ...(unit.warnings ?? []), ...unwritten], ...(refusal ? { refusal } : {}) };
  });
}

/**
 * A fragment as in OCCA's parser unit tests: declarations, functions and statements mixed at the top
 * level (`@dim(2, 3) int *x; x(1, 2);`). Validated like the body of a non-kernel function; no
 * kernel is required.
 */
export function parseOklFragment(source: string, opts: OklAstOptions = {}): readonly (TopLevel | Stmt)[] {
  return guardDepth("parseOkl", () => {
    const { tokens, sources } = preprocess(source, opts);
    const items = parseFragmentTokens(tokens, sources, opts);
    if (opts.validate ?? true) {
      const v = new Validator(sources, { ...opts, requireKernel: false });
      v.validate({ kind: "translationUnit", filename: opts.filename, items: items.filter((x): x is TopLevel => x.kind === "function" || x.kind === "pragma"), pos: { line: 1, column: 1, offset: 0, end: source.length } });
      v.validateStatements(items.filter((x): x is Stmt => x.kind !== "function"));
    }
    return items;
  });
}
