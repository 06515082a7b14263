/**
 * The OKL front end's public face. `syntax/` turns source into a validated AST (C preprocessor,
 * lexer, parser, validation); `lower/` turns the AST into Loom kernels. `syntax` never imports
 * `lower`.
 *
 *   parseOklAst(src)  // preprocess + parse + validate -> TranslationUnit (syntax/ast.ts)
 *   parseOkl(src)     // ... and lower -> Kernel[] (one per @kernel)
 *   normalizeOkl(src) // legacy `@attr(args)` -> `[[okl_attr("args")]]`
 *
 * ```ts
 * const unit = parseOklAst("@kernel void f(int n, float *x) { for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) x[i] = 0; }");
 * unit.items[0].kind === "function"
 * ```
 */
export * from "./syntax/ast.js";
export { parseOklAst, parseOklFragment, type OklAstOptions } from "./syntax/parse-okl-ast.js";
export { parseOkl, type ParseOklOptions, type OklKernels } from "./parse-okl.js";
export type { OklWarning } from "./syntax/diag.js";
export { normalizeOkl } from "./syntax/normalize.js";
export type { FileReader } from "./syntax/c-preprocessor.js";
export { stmtChildren, exprsOfStmt, exprChildren, walkExpr } from "./syntax/walk.js";
export { evalConst } from "./syntax/consteval.js";
export { lowerOkl, oklKernelOptions, type OklKernelOptions, type LowerOklOptions } from "./lower/lower-okl.js";
export { oklStructArg, oklStructArrays, oklStructBytes, oklStructPack } from "./struct-args.js";
export { oklStructUnpack } from "./struct-unpack.js";
