/**
 * A loop's context (issue 21): what the loops and guards around a point of the kernel enforce,
 * as the context around them and the rows a loop or guard adds. Its facts (facts.ts, what the cheap
 * proofs read) are its parent's with the new rows; its set (what the exact operations read:
 * gists, emptiness tests) is made only when one of them asks. Most contexts are the innermost
 * loops' and guards', which only cheap proofs read: they are never made sets. Questions about a few
 * inames (a loop's bounds, a guard over its inames) read the context's factor of those inames
 * (`factor`), built from the rows that reach them: the whole context is not made a set for them.
 */
import { extendSet, factorOf, type BasicSet } from "../../src/poly/index.js";
import { emptyInterval, extendFacts, factsOf, termsKey, type ContextFacts } from "./facts.js";
import { rowVars, withRowsSet, type Row } from "./rows.js";

/**
 * A context level's rows, where its factors can be read from the rows of the levels up to the root
 * set: the root set has no dimensions, and no row is an equality, constant, or meets a row of the
 * opposite terms (no implicit equality, no empty pair): the normal form then changes each row
 * alone or rows with the same terms, never moving a fact from one factor to another through the
 * parameters.
 */
interface Flat {
  readonly up: Flat | undefined;
  /** The root set (the same at every level). */
  readonly root: BasicSet;
  readonly rows: readonly Row[];
  /** The context set's parameters, in its order. */
  readonly params: readonly string[];
  /** The least constant of this level's rows of each terms (`termsKey`), made prime, for the opposite-row test. */
  readonly terms: ReadonlyMap<string, number>;
}

function gcd(x: number, y: number): number {
  let a = Math.abs(x);
  let b = Math.abs(y);
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export class LoopContext {
  private made: BasicSet | undefined;
  private madeFacts: ContextFacts | undefined;
  /** `flat()`: undefined until asked, null where the factors are not read from rows. */
  private madeFlat: Flat | null | undefined;
  private readonly factors = new Map<string, BasicSet>();

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

  /** Whether the context has been made a set (by `set`, or it was one). */
  get hasSet(): boolean {
    return this.made !== undefined;
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
        this.madeFacts = emptyInterval(f) ? factsOf(this.set) : f;
      }
    }
    return this.madeFacts;
  }

  /**
   * `factorOf(this.set, names)`: the rows that reach `names` through shared dimensions, and the
   * root's (parameters only), as a set over those dimensions, without making the whole context a
   * set (a loop over `k_inner` reads `k_outer`'s rows, not the hardware ranges of the work-group).
   */
  factor(names: readonly string[]): BasicSet {
    const key = names.join(",");
    let f = this.factors.get(key);
    if (f === undefined) this.factors.set(key, (f = this.computeFactor(names)));
    return f;
  }

  private computeFactor(names: readonly string[]): BasicSet {
    const flat = this.flat();
    if (flat === null || this.made !== undefined) return factorOf(this.set, names);
    const dims = new Set(this.dims);
    // The rows in the order the levels added them (root first), as the context set has them.
    const levels: (readonly Row[])[] = [];
    for (let at: Flat | undefined = flat; at !== undefined; at = at.up) levels.push(at.rows);
    const rows: Row[] = [];
    for (let l = levels.length - 1; l >= 0; l--) rows.push(...levels[l]!);
    const rowDims = rows.map((r) => Object.keys(r.aff.terms).filter((n) => dims.has(n)));
    const want = new Set(names.filter((n) => dims.has(n)));
    const taken = new Array<boolean>(rows.length).fill(false);
    for (let grew = true; grew;) {
      grew = false;
      for (let j = 0; j < rows.length; j++) {
        if (taken[j]) continue;
        const ds = rowDims[j]!;
        if (ds.length > 0 && !ds.some((d) => want.has(d))) continue;
        taken[j] = true;
        for (const d of ds) {
          if (!want.has(d)) {
            want.add(d);
            grew = true;
          }
        }
      }
    }
    return extendSet(flat.root, flat.params, this.dims.filter((n) => want.has(n)), rows.filter((_, j) => taken[j]));
  }

  private flat(): Flat | null {
    if (this.madeFlat !== undefined) return this.madeFlat;
    if (this.parent === undefined) {
      const s = this.made!;
      this.madeFlat = s.dims.length > 0 ? null : { up: undefined, root: s, rows: [], params: s.params, terms: new Map() };
      return this.madeFlat;
    }
    const up = this.parent.flat();
    if (up === null) return (this.madeFlat = null);
    const terms = new Map<string, number>();
    for (const r of this.rows) {
      const t = r.aff.terms;
      if (r.eq) return (this.madeFlat = null);
      let g = 0;
      for (const n in t) g = gcd(g, t[n]!);
      if (g === 0) return (this.madeFlat = null);
      // The constant as the normal form tightens it (the terms divided by their gcd).
      const c = Math.floor(r.aff.constant / g);
      const opposite = termsKey(t, -1);
      for (let at: Flat | undefined = up; at !== undefined; at = at.up) {
        const o = at.terms.get(opposite);
        if (o !== undefined && o + c <= 0) return (this.madeFlat = null);
      }
      const o = terms.get(opposite);
      if (o !== undefined && o + c <= 0) return (this.madeFlat = null);
      const mine = termsKey(t, 1);
      const had = terms.get(mine);
      if (had === undefined || c < had) terms.set(mine, c);
    }
    // Parameters as `withRowsSet` makes them, level by level.
    const params = [...new Set([...up.params, ...rowVars(this.rows)])].filter((n) => !this.dims.includes(n));
    return (this.madeFlat = { up, root: up.root, rows: this.rows, params, terms });
  }
}

/** A context as a set or a loop's context. */
export type Ctx = BasicSet | LoopContext;

/** The set of a context. */
export function setOf(ctx: Ctx): BasicSet {
  return ctx instanceof LoopContext ? ctx.set : ctx;
}

/** `factorOf(setOf(ctx), names)`. */
export function factorOfCtx(ctx: Ctx, names: readonly string[]): BasicSet {
  return ctx instanceof LoopContext ? ctx.factor(names) : factorOf(ctx, names);
}
