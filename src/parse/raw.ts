/**
 * The syntax tree the instruction grammar (grammar/instructions.ne) builds: expressions and
 * statements as written, each node with `at`, its 0-based offset in the parsed text. Name
 * resolution (reduction or call, rule or function, typed literal) happens later, in lower.ts.
 */

/** A name with its place. */
export interface RName {
  readonly name: string;
  readonly at: number;
}

export type RExpr =
  | { readonly k: "num"; readonly text: string; readonly at: number; readonly negated?: boolean }
  /** `tag`: loopy's `name$tag` on a read or a call (`h$one(i)`, `a$x[i]`). */
  | { readonly k: "name"; readonly name: string; readonly tag?: string; readonly at: number }
  | { readonly k: "bin"; readonly op: string; readonly a: RExpr; readonly b: RExpr; readonly at: number }
  | { readonly k: "neg" | "not" | "bitnot"; readonly e: RExpr; readonly at: number }
  | { readonly k: "call"; readonly fn: string; readonly tag?: string; readonly args: readonly RExpr[]; readonly at: number }
  | { readonly k: "sub"; readonly name: string; readonly tag?: string; readonly idx: readonly RExpr[]; readonly at: number }
  | { readonly k: "lin"; readonly name: string; readonly tag?: string; readonly idx: RExpr; readonly at: number }
  /** `(k, l)` or `[k, l]`: only meaningful as the iname list of a reduction. */
  | { readonly k: "tuple"; readonly items: readonly RExpr[]; readonly at: number };

/** The `{…}` block after a statement, braces included. */
export interface RAttrs {
  readonly text: string;
  readonly at: number;
}

/** `<>` (dtype null) or `<float32>` before an assignee. */
export interface RTempDecl {
  readonly dtype: RName | null;
  readonly at: number;
}

export type RStatement =
  | {
      readonly k: "assign";
      readonly temp: RTempDecl | null;
      readonly lhs: readonly RExpr[];
      readonly rhs: RExpr;
      readonly attrs: RAttrs | null;
      readonly at: number;
    }
  | { readonly k: "rule"; readonly name: RName; readonly params: readonly RName[]; readonly body: RExpr; readonly at: number }
  /** `... lbarrier`, `... gbarrier`, `... nop`. */
  | { readonly k: "special"; readonly what: RName; readonly attrs: RAttrs | null; readonly at: number };
