/**
 * Where the OKL corpus lives: `$LOOM_OKL_CORPUS`, else the copy vendored in
 * test/fixtures/okl-corpus (inputs, expected outputs and errors, and legacy OCCA's serial output
 * with its status.json, from the project's shared corpus; provenance in its INDEX.md).
 */
import { join } from "node:path";

export const CORPUS = process.env.LOOM_OKL_CORPUS ?? join(import.meta.dirname, "../fixtures/okl-corpus");
export const GENERATED = join(CORPUS, "occa-legacy-generated");
