/** The interface between block lowering (opaque.ts, block-vectors.ts) and the kernel lowering around it. */
import type { Temporary } from "../../ir/index.js";
import type * as A from "../syntax/ast.js";
import type { ExprLowering } from "./expressions.js";
import type { FileContext } from "./file-context.js";

/** What block lowering needs of the kernel lowering around it. */
export interface BlockHost {
  readonly ex: ExprLowering;
  readonly file: FileContext;
  /** A name not used in the kernel yet (also not by any block local). */
  fresh(base: string): string;
  fail(detail: string, pos: A.Pos, rule?: string): never;
  addTemp(t: Temporary): void;
  /** Marks a temporary as a flat view (flat-views.ts: stored row-major, also used as a flat pointer). */
  flatView?(name: string): void;
  /** Whether a declarator the kernel's statements declare is a flat view (a declaration lowered as a block). */
  flatDecl?(d: A.Declarator): boolean;
}
