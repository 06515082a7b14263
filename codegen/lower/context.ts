/**
 * A loop's context (issue 21): what the loops and guards around a point of the kernel enforce,
 * as the context around them and the rows a loop or guard adds. Its facts (facts.ts, what the cheap
 * proofs read) are its parent's with the new rows; its set (what the exact operations read:
 * gists, emptiness tests) is made only when one of them asks. Most contexts are the innermost
 * loops' and guards', which only cheap proofs read: they are never made sets.
 */
import { extendSet, factorOf, setContentId, type BasicSet } from "../../src/poly/index.js";
import { isCanonicalEmpty } from "../../src/poly/normalize.js";
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

  /**
   * `factorOf(this.set, names)`, without making this context's set where it is one level (a
   * loop's bounds) over a made set whose rows are over its new dims and the parameters only: the
   * normal form of the whole is then the parent's rows and the normal form of the parameter part
   * with the new rows (`Q`), the two sharing no column but the parameters, so a factor of either
   * side is that side's (the same content: test/codegen/context-factor.test.ts). `Q` repeats across
   * a sweep's variants (an inner loop's factor is the same whenever its tile size is), while the
   * whole context is new in every variant.
   */
  factorOf(names: readonly string[]): BasicSet {
    if (this.made !== undefined) return factorOf(this.made, names);
    return this.levelFactor(names) ?? factorOf(this.set, names);
  }

  /** `factorOf`'s direct answer, undefined where its conditions do not hold. */
  private levelFactor(names: readonly string[]): BasicSet | undefined {
    const parent = this.parent!;
    const base = parent.made;
    if (base === undefined || isCanonicalEmpty(base)) return undefined;
    const fresh = this.dims.length > base.dims.length ? this.dims.slice(base.dims.length) : undefined;
    if (fresh === undefined || parent.dims.length !== base.dims.length) return undefined;
    for (const n of fresh) if (base.exists.includes(n) || base.params.includes(n)) return undefined;
    for (const r of this.rows) {
      for (const n in r.aff.terms) if (!fresh.includes(n) && !base.params.includes(n)) return undefined;
    }
    let old = false;
    let mine = false;
    for (const n of names) {
      if (fresh.includes(n)) mine = true;
      else if (base.dims.includes(n)) old = true;
    }
    if (old && mine) return undefined;
    const p = factorOf(base, []);
    const q = extendSet(p, base.params, fresh, this.rows);
    // Rows over the parameters alone made of the new rows (`k = n` and `k = 5`: `n = 5`) would
    // reach the parent's rows: only where the parameter part is unchanged are the two apart.
    if (isCanonicalEmpty(q) || setContentId(factorOf(q, [])) !== setContentId(p)) return undefined;
    return mine ? factorOf(q, names) : old ? factorOf(base, names) : p;
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

