/**
 * A loop's context (issue 21): what the loops and guards around a point of the kernel enforce,
 * as the context around them and the rows a loop or guard adds. Its facts (facts.ts, what the cheap
 * proofs read) are its parent's with the new rows; its set (what the exact operations read:
 * gists, emptiness tests) is made only when one of them asks. Most contexts are the innermost
 * loops' and guards', which only cheap proofs read: they are never made sets.
 */
import { aff, extendSet, factorOf, isEmptyWith, isSubset, projectOut, setContentId, type Aff, type BasicSet } from "../../src/poly/index.js";
import { LoomError } from "../../src/errors.js";
import { gcd } from "../../src/poly/int.js";
import { isCanonicalEmpty } from "../../src/poly/normalize.js";
import { extendFacts, factsOf, inContext, type ContextFacts } from "./facts.js";
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
   * `factorOf(this.set, names)`, without making this context's set where the levels since the
   * nearest made set (loops' bounds over the kernel's context) add rows over their new dims and
   * the parameters only. The normal form of the whole is then the made set's
   * rows and, per group of new dims that rows link (a component), the normal form of the
   * parameter part with that group's rows (`Q`): they share no column but the parameters, so a
   * factor of one side is that side's (the same content: test/codegen/context-factor.test.ts).
   * Each `Q` repeats across a sweep's variants (a loop's is the same whenever its tile size is),
   * while the whole context is new in every variant.
   */
  factorOf(names: readonly string[]): BasicSet {
    if (this.made !== undefined) return factorOf(this.made, names);
    return this.levelFactor(names) ?? factorOf(this.set, names);
  }

  /** `factorOf`'s direct answer, undefined where its conditions do not hold. */
  private levelFactor(names: readonly string[]): BasicSet | undefined {
    const sp = this.split();
    if (sp === undefined) return undefined;
    let old = false;
    const wanted = new Set<number>();
    for (const n of names) {
      const j = sp.fresh.indexOf(n);
      if (j >= 0) wanted.add(sp.comp[j]!);
      else if (sp.base.dims.includes(n)) old = true;
    }
    if (old && wanted.size > 0) return undefined;
    if (wanted.size === 0) return old ? factorOf(sp.base, names) : sp.p;
    if (wanted.size === 1) for (const c of wanted) return factorOf(sp.q[c] ?? extendSet(sp.p, sp.base.params, compDims(sp, c), sp.rows[c]!), names);
    // Several components: their union, made the same way.
    const dims = sp.fresh.filter((_, j) => wanted.has(sp.comp[j]!));
    const rows: Row[] = [];
    for (const c of wanted) for (const r of sp.rows[c]!) rows.push(r);
    return factorOf(extendSet(sp.p, sp.base.params, dims, rows), names);
  }

  /**
   * `isEmptyWith(this.set, a)` (no point of the context has `a >= 0`), without making this set
   * where `a` is over the made set's names and each level's component admits every value of the
   * parameters that the made set's parameter part does (its Q projected onto the parameters holds
   * all of it): a point of the made set then extends to one of the whole, so the two answer alike.
   */
  emptyWith(a: Aff): boolean {
    if (this.made === undefined) {
      const sp = this.split();
      if (sp !== undefined) {
        if (overNames(a, sp.base)) {
          if (this.covering(sp)) return isEmptyWith(sp.base, a);
        } else if (sp.p === sp.base) {
          // The made set is its parameter part (the assumptions under the hardware ranges): `a`
          // over the parameters and some components' dims asks those components' Q alone, the
          // others extending each of its points where they cover the parameter part.
          const q = componentsOver(sp, a);
          if (q !== undefined && this.covering(sp)) return isEmptyWith(q, a);
        }
      }
    }
    return isEmptyWith(this.set, a);
  }

  private covers: boolean | undefined;

  /** Whether every component's Q projects onto all of the parameter part (remembered per context). */
  private covering(sp: Split): boolean {
    if (this.covers === undefined) {
      let all = true;
      for (let c = 0; c < sp.q.length && all; c++) {
        if (coversByBounds(sp, c)) continue;
        const q = sp.q[c] ?? extendSet(sp.p, sp.base.params, compDims(sp, c), sp.rows[c]!);
        try {
          all = isSubset(sp.p, projectOut(q, q.dims));
        } catch (e) {
          if (!(e instanceof LoomError)) throw e;
          all = false;
        }
      }
      this.covers = all;
    }
    return this.covers;
  }

  private splitMemo: Split | null | undefined;

  /**
   * The levels since the nearest made set as components (`factorOf`), each one's `Q` checked:
   * a parent's components are its child's, with the child's own (a loop's rows over its new dims
   * and the parameters; else the general route). undefined where a condition fails.
   */
  private split(): Split | undefined {
    if (this.splitMemo !== undefined) return this.splitMemo ?? undefined;
    const parent = this.parent!;
    let sp: Split | undefined;
    if (parent.made !== undefined) {
      const base = parent.made;
      if (!isCanonicalEmpty(base) && parent.dims.length === base.dims.length) {
        const p = factorOf(base, []);
        sp = { base, p, plainP: equalitiesOnExistentials(p), fresh: [], comp: [], rows: [], q: [] };
        sp = addLevel(sp, this.dims.slice(base.dims.length), this.rows);
      }
    } else {
      const up = parent.split();
      if (up !== undefined) sp = addLevel(up, this.dims.slice(parent.dims.length), this.rows);
    }
    this.splitMemo = sp ?? null;
    return sp;
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

/**
 * The made set below some loop levels (`base`), its parameter part `p`, the levels' new dims
 * (`fresh`) and their components (`comp[j]`: dim j's), each component's rows (outermost level
 * first) and its `Q` (`extendSet(p, base.params, its dims, its rows)`: not empty, the same
 * parameter part), undefined where that is known without making it (`plainBounds`).
 */
interface Split {
  readonly base: BasicSet;
  readonly p: BasicSet;
  /** Every equality of `p` has an existential (its pivot, the last column): none rewrites the new rows. */
  readonly plainP: boolean;
  readonly fresh: readonly string[];
  readonly comp: readonly number[];
  readonly rows: readonly (readonly Row[])[];
  readonly q: readonly (BasicSet | undefined)[];
}

/**
 * `sp` with one more level: new dims `dims`, rows `rows`, each row over new dims of this level
 * and the parameters only (at least one dim); undefined where that fails, or a component's `Q`
 * is empty or says more of the parameters.
 */
function addLevel(sp: Split, dims: readonly string[], rows: readonly Row[]): Split | undefined {
  const { base } = sp;
  for (const n of dims) if (base.exists.includes(n) || base.params.includes(n)) return undefined;
  const first = sp.q.length;
  // Union-find over this level's dims; component ids continue the parent's.
  const root = dims.map((_, j) => j);
  const find = (j: number): number => {
    while (root[j] !== j) j = root[j] = root[root[j]!]!;
    return j;
  };
  const rowAt: number[] = [];
  for (const r of rows) {
    let at = -1;
    for (const n in r.aff.terms) {
      const j = dims.indexOf(n);
      if (j < 0) {
        if (!base.params.includes(n)) return undefined;
        continue;
      }
      const x = find(j);
      if (at < 0) at = x;
      else if (x !== at) root[x] = at;
    }
    if (at < 0) return undefined;
    rowAt.push(at);
  }
  // Each dim's and row's component id (the parent's ids first), grouped in one pass each.
  const comp = [...sp.comp];
  const idOf: number[] = [];
  const groups: { dims: string[]; rows: Row[] }[] = [];
  for (let j = 0; j < dims.length; j++) {
    const r = find(j);
    if (idOf[r] === undefined) {
      idOf[r] = first + groups.length;
      groups.push({ dims: [], rows: [] });
    }
    comp.push(idOf[r]!);
    groups[idOf[r]! - first]!.dims.push(dims[j]!);
  }
  for (let x = 0; x < rows.length; x++) groups[idOf[find(rowAt[x]!)]! - first]!.rows.push(rows[x]!);
  const compRows: (readonly Row[])[] = [...sp.rows];
  const q = [...sp.q];
  const pid = setContentId(sp.p);
  for (const g of groups) {
    if (sp.plainP && plainBounds(g.rows)) {
      compRows.push(g.rows);
      q.push(undefined);
      continue;
    }
    const s = extendSet(sp.p, base.params, g.dims, g.rows);
    // Not empty, and no row over the parameters alone made of its rows (`k = n` and `k = 5`:
    // `n = 5`), which would reach the made set's rows.
    if (isCanonicalEmpty(s) || setContentId(factorOf(s, [])) !== pid) return undefined;
    compRows.push(g.rows);
    q.push(s);
  }
  return { base, p: sp.p, plainP: sp.plainP, fresh: [...sp.fresh, ...dims], comp, rows: compRows, q };
}

/**
 * Whether component `c` covers the parameter part by its bounds alone, with no set made (issue
 * 21: a loop's or hardware axis's range, `0 <= x` and `16*x <= n - 1`): one dim `x`, constant
 * lower bounds of unit coefficient (`x >= L`) and upper bounds `b*x <= U(params)` for which the
 * parameter part's facts prove `U - b*L >= 0` by a cheap proof. Then `x = max L` is a point of
 * the component for every value of the parameters the parameter part admits. false: not shown
 * so (the exact test decides).
 */
function coversByBounds(sp: Split, c: number): boolean {
  let x: string | undefined;
  for (let j = 0; j < sp.fresh.length; j++) {
    if (sp.comp[j] !== c) continue;
    if (x !== undefined) return false;
    x = sp.fresh[j]!;
  }
  if (x === undefined) return false;
  const rows = sp.rows[c]!;
  let lo: number | undefined;
  for (const r of rows) {
    if (r.eq) return false;
    const a = r.aff.terms[x] ?? 0;
    if (a === 0) return false;
    if (a > 0) {
      if (a !== 1) return false;
      for (const n in r.aff.terms) if (n !== x && r.aff.terms[n] !== 0) return false;
      lo = Math.max(lo ?? -Infinity, -r.aff.constant);
    }
  }
  if (lo === undefined) return false;
  const facts = factsOf(sp.p);
  for (const r of rows) {
    const b = -(r.aff.terms[x] ?? 0);
    if (b <= 0) continue;
    // U(params) + c - b*lo >= 0 over the parameter part.
    const terms: Record<string, number> = {};
    let any = false;
    for (const n in r.aff.terms) {
      if (n === x || r.aff.terms[n] === 0) continue;
      if (!sp.base.params.includes(n)) return false;
      terms[n] = r.aff.terms[n]!;
      any = true;
    }
    const constant = r.aff.constant - b * lo;
    if (!Number.isSafeInteger(constant)) return false;
    if (!any) {
      if (constant < 0) return false;
      continue;
    }
    if (!inContext({ aff: aff(terms, constant), eq: false }, { facts })) return false;
  }
  return true;
}

/** The dims of component `c`, in their order. */
function compDims(sp: Split, c: number): string[] {
  const out: string[] = [];
  for (let j = 0; j < sp.fresh.length; j++) if (sp.comp[j] === c) out.push(sp.fresh[j]!);
  return out;
}

/**
 * Whether rows (each over some new dim) are inequalities no two of which are opposite with
 * constants that meet (`a·x + c >= 0`, `-a·x + d >= 0`, tightened `c + d <= 0`: an equality or a
 * contradiction): the normal form with the parameter part then derives no row over the
 * parameters alone and finds no contradiction (both need an equality, given or made of two
 * opposite rows; it eliminates nothing else), so `Q` passes its check unmade.
 */
function plainBounds(rows: readonly Row[]): boolean {
  for (let x = 0; x < rows.length; x++) {
    const r = rows[x]!;
    if (r.eq) return false;
    for (let y = 0; y < x; y++) {
      const o = rows[y]!;
      if (opposite(r.aff.terms, o.aff.terms) && tightened(r) + tightened(o) <= 0) return false;
    }
  }
  return true;
}

/** The constant of inequality `r` divided by the gcd of its coefficients, rounded down (the normal form's tightening). */
function tightened(r: Row): number {
  let g = 0;
  for (const n in r.aff.terms) g = gcd(g, r.aff.terms[n]!);
  return g > 1 ? Math.floor(r.aff.constant / g) : r.aff.constant;
}

/** Whether `a` is a negative multiple of `b` (the same names, coefficients of opposite signs in one ratio). */
function opposite(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): boolean {
  let ratio = 0;
  let na = 0;
  for (const n in a) {
    if (a[n] === 0) continue;
    na++;
    const y = b[n];
    if (y === undefined || y === 0) return false;
    const r = a[n]! / y;
    if (r >= 0 || (ratio !== 0 && r !== ratio)) return false;
    ratio = r;
  }
  let nb = 0;
  for (const n in b) if (b[n] !== 0) nb++;
  return na === nb && na > 0;
}

/** Whether every equality of `s` has a nonzero existential coefficient (`n = 64·e`). */
function equalitiesOnExistentials(s: BasicSet): boolean {
  const nv = s.params.length + s.dims.length;
  for (const c of s.constraints) {
    if (!c.eq) continue;
    let ex = false;
    for (let k = nv; k < c.coeffs.length; k++) if (c.coeffs[k] !== 0) ex = true;
    if (!ex) return false;
  }
  return true;
}

/**
 * The set of the components whose dims `a` names, over the parameter part (`Q`, or the union of
 * several as `levelFactor` makes it); undefined where `a` names something else than those dims
 * and the parameters.
 */
function componentsOver(sp: Split, a: Aff): BasicSet | undefined {
  const wanted = new Set<number>();
  for (const n in a.terms) {
    if (a.terms[n] === 0) continue;
    const j = sp.fresh.indexOf(n);
    if (j >= 0) wanted.add(sp.comp[j]!);
    else if (!sp.base.params.includes(n)) return undefined;
  }
  if (wanted.size === 0) return undefined;
  if (wanted.size === 1) for (const c of wanted) return sp.q[c] ?? extendSet(sp.p, sp.base.params, compDims(sp, c), sp.rows[c]!);
  const dims = sp.fresh.filter((_, j) => wanted.has(sp.comp[j]!));
  const rows: Row[] = [];
  for (const c of wanted) for (const r of sp.rows[c]!) rows.push(r);
  return extendSet(sp.p, sp.base.params, dims, rows);
}

/** Whether every name of `a` is a parameter or dim of `s`. */
function overNames(a: Aff, s: BasicSet): boolean {
  for (const n in a.terms) if (a.terms[n] !== 0 && !s.params.includes(n) && !s.dims.includes(n)) return false;
  return true;
}
