/**
 * A loop's context (issue 21): what the loops and guards around a point of the kernel enforce,
 * as the context around them and the rows a loop or guard adds. Its facts (facts.ts, what the cheap
 * proofs read) are its parent's with the new rows; its set (what the exact operations read:
 * gists, emptiness tests) is made only when one of them asks. Most contexts are the innermost
 * loops' and guards', which only cheap proofs read: they are never made sets.
 */
import type { BasicSet } from "../../src/poly/index.js";
import { extendFacts, factsOf, type ContextFacts } from "./facts.js";
import { withRowsSet, type Row } from "./rows.js";

export class LoopContext {
  private made: BasicSet | undefined;
  private madeFacts: ContextFacts | undefined;

  private constructor(
    private readonly parent: LoopContext | undefined,
    /** The context's dimensions (the rest of its names are parameters). */
    private readonly dims: readonly string[],
    private readonly rows: readonly Row[],
    set: BasicSet | undefined,
  ) {
    this.made = set;
  }

  /** The context that is `set`. */
  static of(set: BasicSet): LoopContext {
    return new LoopContext(undefined, set.dims, [], set);
  }

  /** This context with `dims` as dimensions too and `rows` added (`withRowsSet`, when its set is asked for). */
  with(dims: readonly string[], rows: readonly Row[]): LoopContext {
    const more = dims.filter((n) => !this.dims.includes(n));
    if (rows.length === 0 && more.length === 0) return this;
    return new LoopContext(this, more.length > 0 ? [...this.dims, ...more] : this.dims, rows, undefined);
  }

  /** The context as a set: `withRowsSet` of the parent's set (made once). */
  get set(): BasicSet {
    return (this.made ??= withRowsSet(this.parent!.set, this.dims, this.rows));
  }

  /** What the cheap proofs read: the parent's facts with the new rows (those of the set where the intervals are empty: no proof from an empty context). */
  get facts(): ContextFacts {
    if (this.madeFacts === undefined) {
      if (this.parent === undefined) this.madeFacts = factsOf(this.set);
      else {
        const f = extendFacts(this.parent.facts, this.rows);
        this.madeFacts = f.empty ? factsOf(this.set) : f;
      }
    }
    return this.madeFacts;
  }
}

/** A context as a set or a loop's context. */
export type Ctx = BasicSet | LoopContext;

/** The set of a context. */
export function setOf(ctx: Ctx): BasicSet {
  return ctx instanceof LoopContext ? ctx.set : ctx;
}

