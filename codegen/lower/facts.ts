/**
 * What a context says cheaply (issue 21: guards proven redundant by interval and divisibility
 * reasoning before any exact gist): per row's terms the least constant the context has, each
 * variable's interval, its rows over several variables, constants tightened by divisibility.
 * Built once per context set, from its coefficient rows directly (no object per row's terms: a
 * context of twenty rows costs a few microseconds, not the tens that dynamic-key objects cost).
 */
import { affIsConstant, type BasicSet } from "../../src/poly/index.js";
import type { Row } from "./rows.js";

/**
 * For each row's terms `t` (names sorted) the least constant `c` of a row `t + c >= 0` the context
 * has (an equality counts both ways); each variable's interval; its rows over several variables.
 * Every fact is implied by the context (a proof from them is a proof from the context). A loop's
 * facts are its parent's and a level of their own (`extendFacts`): nothing is copied, a lookup
 * reads the few levels of the nest.
 */
export class ContextFacts {
  private constructor(
    private readonly parent: ContextFacts | undefined,
    private readonly least: ReadonlyMap<string, number>,
    private readonly lo: ReadonlyMap<string, number>,
    private readonly hi: ReadonlyMap<string, number>,
    /** This level's rows over two or more variables: `sum coefs[k]*names[k] + c >= 0`. */
    private readonly own: readonly FactRow[],
    /** The variables known to be multiples of a number above 1 (`n mod 64 = 0`), for rows added later (`extendFacts`). */
    readonly mod: ReadonlyMap<string, number>,
    /** The number of levels (a nest deeper than `MAX_LEVELS` starts a new chain). */
    private readonly levels: number,
  ) {
    this.empty = (parent?.empty ?? false) || this.emptyAt(lo) || this.emptyAt(hi);
  }

  /** Whether the intervals are empty for some variable (the context is then empty: no cheap proof is taken from it). */
  readonly empty: boolean;

  /**
   * `inContext`'s answers from these facts, by row object (filled as asked): the facts' own, not a
   * module WeakMap keyed by them (a new facts object per loop level of every variant; its lookups
   * were the larger part of `inContext`'s own time).
   */
  answers: Map<Row, boolean> | undefined = undefined;

  /** Facts of one level over `mod`, over `parent`'s (flattened where the chain is long). */
  static of(parent: ContextFacts | undefined, b: Building, mod: ReadonlyMap<string, number>): ContextFacts {
    if (parent !== undefined && parent.levels >= MAX_LEVELS) {
      const flat = parent.flat();
      merge(flat, b.least, b.lo, b.hi, b.rows);
      return new ContextFacts(undefined, flat.least, flat.lo, flat.hi, flat.rows, mod, 1);
    }
    return new ContextFacts(parent, b.least, b.lo, b.hi, b.rows, mod, (parent?.levels ?? 0) + 1);
  }

  // The three lookups below are written out rather than one over a map chosen by name: they are the
  // cheap proofs' inner loop (that form's sweep A/B read CPU 1.03-1.12, at the edge of the noise).

  /** The least constant of a row with the terms `key` (`termsKey`), if any. */
  leastOf(key: string): number | undefined {
    let out: number | undefined;
    for (let f: ContextFacts | undefined = this; f !== undefined; f = f.parent) {
      const c = f.least.get(key);
      if (c !== undefined && (out === undefined || c < out)) out = c;
    }
    return out;
  }

  /** The least value of `n` (its interval's lower end), if bounded. */
  loOf(n: string): number | undefined {
    let out: number | undefined;
    for (let f: ContextFacts | undefined = this; f !== undefined; f = f.parent) {
      const l = f.lo.get(n);
      if (l !== undefined && (out === undefined || l > out)) out = l;
    }
    return out;
  }

  /** The greatest value of `n`, if bounded. */
  hiOf(n: string): number | undefined {
    let out: number | undefined;
    for (let f: ContextFacts | undefined = this; f !== undefined; f = f.parent) {
      const h = f.hi.get(n);
      if (h !== undefined && (out === undefined || h < out)) out = h;
    }
    return out;
  }

  /** Whether `p(row)` holds for one of the rows over two or more variables. */
  someRow(p: (row: FactRow) => boolean): boolean {
    for (let f: ContextFacts | undefined = this; f !== undefined; f = f.parent) for (const row of f.own) if (p(row)) return true;
    return false;
  }

  /** The variables of `bounds` whose interval (all levels) is empty: only they can make it so where the parent's is not. */
  private emptyAt(bounds: ReadonlyMap<string, number>): boolean {
    for (const n of bounds.keys()) if ((this.loOf(n) ?? -Infinity) > (this.hiOf(n) ?? Infinity)) return true;
    return false;
  }

  /** Every level's facts in one (fresh maps). */
  private flat(): Building {
    const b: Building = { least: new Map(), lo: new Map(), hi: new Map(), rows: [] };
    for (let f: ContextFacts | undefined = this; f !== undefined; f = f.parent) merge(b, f.least, f.lo, f.hi, f.own);
    return b;
  }
}

/** Adds one level's facts to `into`, keeping the tightest of each. */
function merge(
  into: Building, least: ReadonlyMap<string, number>, lo: ReadonlyMap<string, number>, hi: ReadonlyMap<string, number>, rows: readonly FactRow[],
): void {
  for (const [key, c] of least) into.least.set(key, Math.min(into.least.get(key) ?? Infinity, c));
  for (const [n, l] of lo) into.lo.set(n, Math.max(into.lo.get(n) ?? -Infinity, l));
  for (const [n, h] of hi) into.hi.set(n, Math.min(into.hi.get(n) ?? Infinity, h));
  into.rows.push(...rows);
}

/** Levels of facts one lookup reads at most (a deeper nest's facts are copied into one level). */
const MAX_LEVELS = 8;

/** A row over two or more variables: `sum coefs[k]*names[k] + c >= 0`. */
export interface FactRow { readonly names: readonly string[]; readonly coefs: readonly number[]; readonly c: number }

/** Facts being built. */
interface Building { least: Map<string, number>; lo: Map<string, number>; hi: Map<string, number>; rows: FactRow[] }

/**
 * The fact `terms + c >= 0` (`key` its terms; `single`: its one variable, with coefficient `a`;
 * `ns`, `as`: its variables and coefficients where it has several).
 */
function addFact(f: Building, key: string, c: number, single: string | undefined, a: number, ns: readonly string[] | undefined, as: readonly number[] | undefined): void {
  const had = f.least.get(key);
  if (had === undefined || c < had) f.least.set(key, c);
  if (single !== undefined) {
    if (a > 0) f.lo.set(single, Math.max(f.lo.get(single) ?? -Infinity, Math.ceil(-c / a)));
    else f.hi.set(single, Math.min(f.hi.get(single) ?? Infinity, Math.floor(c / -a)));
  } else if (ns) f.rows.push({ names: ns, coefs: as!, c });
}

const contextFacts = new WeakMap<BasicSet, ContextFacts>();

function gcd(x: number, y: number): number {
  let a = Math.abs(x);
  let b = Math.abs(y);
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/**
 * The facts of `ctx` (remembered per set: contexts are frozen values). Moduli: an equality
 * `a*v + m*e = 0` of one variable and one existential makes v a multiple of m / gcd(a, m),
 * whatever else e satisfies, and a row's terms, all multiples of g, are at least the next multiple
 * of g above `-c` (`n mod 64 = 0` makes `n - 16*k_outer - 1 >= 0` say `n - 16*k_outer - 16 >= 0`).
 */
export function factsOf(ctx: BasicSet): ContextFacts {
  let f = contextFacts.get(ctx);
  if (f) return f;
  const names = ctx.params.length === 0 ? ctx.dims : ctx.dims.length === 0 ? ctx.params : [...ctx.params, ...ctx.dims];
  const nv = names.length;
  const modulus = new Array<number>(nv).fill(1);
  for (const con of ctx.constraints) {
    if (!con.eq || con.constant !== 0) continue;
    let v = -1;
    let e = -1;
    let bad = false;
    const cs = con.coeffs;
    for (let k = 0; k < cs.length && !bad; k++) {
      if (cs[k] === 0) continue;
      if (k < nv) {
        if (v >= 0) bad = true;
        v = k;
      } else {
        if (e >= 0) bad = true;
        e = k;
      }
    }
    if (bad || v < 0 || e < 0) continue;
    const m = Math.abs(cs[e]!) / gcd(cs[v]!, cs[e]!);
    modulus[v] = (modulus[v]! * m) / gcd(modulus[v]!, m);
  }
  // Variables in name order: a row's key lists its terms so (`termsKey`).
  const order = Array.from({ length: nv }, (_, k) => k);
  order.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
  const b: Building = { least: new Map(), lo: new Map(), hi: new Map(), rows: [] };
  const add = (key: string, c: number, single: number, a: number, ns: string[] | undefined, as: number[] | undefined) =>
    addFact(b, key, c, single >= 0 ? names[single]! : undefined, a, ns, as);
  for (const con of ctx.constraints) {
    const cs = con.coeffs;
    let ex = false;
    for (let k = nv; k < cs.length; k++) if (cs[k] !== 0) ex = true;
    if (ex) continue;
    let key = "";
    let neg = "";
    let g = 0;
    let count = 0;
    let single = -1;
    for (const k of order) {
      const a = cs[k]!;
      if (a === 0) continue;
      const n = names[k]!;
      key += `${n},${a};`;
      if (con.eq) neg += `${n},${-a};`;
      g = gcd(g, a * modulus[k]!);
      count++;
      single = k;
    }
    let ns: string[] | undefined;
    let as: number[] | undefined;
    if (count > 1) {
      ns = [];
      as = [];
      for (const k of order) {
        if (cs[k] === 0) continue;
        ns.push(names[k]!);
        as.push(cs[k]!);
      }
    }
    // The terms are a multiple of g: at least -c, so at least the next multiple of g.
    const tight = (c0: number) => (g > 1 ? g * Math.floor(c0 / g) : c0);
    const one = count === 1 ? single : -1;
    add(key, tight(con.constant), one, one >= 0 ? cs[one]! : 0, ns, as);
    if (con.eq) add(neg, tight(-con.constant), one, one >= 0 ? -cs[one]! : 0, ns, as?.map((a) => -a));
  }
  const mod = new Map<string, number>();
  for (let k = 0; k < nv; k++) if (modulus[k]! > 1) mod.set(names[k]!, modulus[k]!);
  contextFacts.set(ctx, (f = ContextFacts.of(undefined, b, mod)));
  return f;
}

/**
 * The facts of a context `f` is the facts of, with `rows` (no existentials) added: implied by that
 * set with the rows, built without it (a loop's context from its parent's and its bounds: the
 * innermost loops' contexts are never made sets). Constants tightened by divisibility as in `factsOf`.
 */
export function extendFacts(f: ContextFacts, rows: readonly Row[]): ContextFacts {
  if (rows.length === 0) return f;
  // This level's facts only: a lookup reads the parent's too (nothing copied).
  const b: Building = { least: new Map(), lo: new Map(), hi: new Map(), rows: [] };
  for (const r of rows) {
    const t = r.aff.terms;
    const ns = Object.keys(t);
    if (ns.length > 1) ns.sort();
    const as: number[] = [];
    let key = "";
    let neg = "";
    let g = 0;
    for (const n of ns) {
      const a = t[n]!;
      as.push(a);
      key += `${n},${a};`;
      if (r.eq) neg += `${n},${-a};`;
      g = gcd(g, a * (f.mod.get(n) ?? 1));
    }
    const tight = (c0: number) => (g > 1 ? g * Math.floor(c0 / g) : c0);
    const one = ns.length === 1 ? ns[0] : undefined;
    const many = ns.length > 1;
    addFact(b, key, tight(r.aff.constant), one, as[0] ?? 0, many ? ns : undefined, many ? as : undefined);
    if (r.eq) addFact(b, neg, tight(-r.aff.constant), one, -(as[0] ?? 0), many ? ns : undefined, many ? as.map((a) => -a) : undefined);
  }
  return ContextFacts.of(f, b, f.mod);
}

/** The terms of a row (times `sign`) as a key, names sorted. */
export function termsKey(t: Readonly<Record<string, number>>, sign: 1 | -1): string {
  // The names sorted into a reused array (insertion: rows have a few terms), as `sort` orders strings.
  let m = 0;
  for (const n in t) {
    let j = m++;
    while (j > 0 && sorted[j - 1]! > n) {
      sorted[j] = sorted[j - 1]!;
      j--;
    }
    sorted[j] = n;
  }
  let k = "";
  for (let j = 0; j < m; j++) k += `${sorted[j]!},${sign * t[sorted[j]!]!};`;
  return k;
}

/** `termsKey`'s scratch array of names (not reentrant: nothing is called while it is filled). */
const sorted: string[] = [];

/** A row that remembers its terms' keys (rows of `rowsOf` are extensible: a row is asked of many contexts). */
type KeyedTerms = Row & { tpos?: string; tneg?: string };

/** `termsKey(r.aff.terms, sign)`, remembered on the row where it can be. */
function keyOfTerms(r: Row, sign: 1 | -1): string {
  const kr = r as KeyedTerms;
  const had = sign === 1 ? kr.tpos : kr.tneg;
  if (had !== undefined) return had;
  const k = termsKey(r.aff.terms, sign);
  if (Object.isExtensible(kr)) {
    if (sign === 1) kr.tpos = k;
    else kr.tneg = k;
  }
  return k;
}

/** The least value of `terms + c` over the context's intervals (-Infinity where one is open). */
function boxMin(f: ContextFacts, terms: Readonly<Record<string, number>>, c: number): number {
  let v = c;
  for (const n in terms) {
    const a = terms[n]!;
    if (a === 0) continue;
    const b = a > 0 ? f.loOf(n) : f.hiOf(n);
    if (b === undefined) return -Infinity;
    v += a * b;
  }
  return v;
}

/**
 * Whether the context implies the row `r` by a cheap proof: one of its rows with the same terms
 * and a constant no larger (`n >= 64` implies `n >= 1`), its variables' intervals
 * (`2*i_outer + i_inner >= 0`), or one of its rows plus the intervals (`n - 16*k_outer - 16 >= 0`
 * and `k_inner <= 15` give `n - 16*k_outer - k_inner - 1 >= 0`); constants tightened by
 * divisibility. Then an exact gist against `ctx` drops `r` too. An equality needs the first proof
 * both ways. A row without variables is left to the gist (the canonical empty context is the row
 * `-1 >= 0`, and a gist keeps every row against it). false: no cheap proof (the gist decides).
 */
export function inContext(r: Row, ctx: BasicSet | { readonly facts: ContextFacts }): boolean {
  if (affIsConstant(r.aff)) return false;
  const f = "facts" in ctx ? ctx.facts : factsOf(ctx);
  // Remembered per facts and row object (ContextFacts.answers): the hoisted guards of each level of
  // a loop nest, and each instruction's own guard, ask the rows of the same domains again of the
  // same contexts (35 of 82 questions per tiled-matmul variant). Facts never change once built.
  const mine = (f.answers ??= new Map());
  let yes = mine.get(r);
  if (yes === undefined) {
    yes = implied(r, f);
    // Bounded: a context shared by many variants is asked rows made for one question too.
    if (mine.size < MAX_ANSWERS) mine.set(r, yes);
  }
  return yes;
}

const MAX_ANSWERS = 512;

/** `inContext` of `r` from the facts `f`. */
function implied(r: Row, f: ContextFacts): boolean {
  const t = r.aff.terms;
  const c = r.aff.constant;
  const least = f.leastOf(keyOfTerms(r, 1));
  if (least !== undefined && least <= c) {
    if (!r.eq) return true;
    const other = f.leastOf(keyOfTerms(r, -1));
    return other !== undefined && other <= -c;
  }
  if (r.eq) return false;
  if (boxMin(f, t, c) >= 0) return true;
  // r = row + rest: implied when rest is nonnegative on the intervals.
  return f.someRow((row) => restMin(f, t, row, c - row.c) >= 0);
}

/** `boxMin` of `t - row + c`, without building it. */
function restMin(f: ContextFacts, t: Readonly<Record<string, number>>, row: FactRow, c: number): number {
  let v = c;
  const term = (n: string, a: number): boolean => {
    if (a === 0) return true;
    const b = a > 0 ? f.loOf(n) : f.hiOf(n);
    if (b === undefined) return false;
    v += a * b;
    return true;
  };
  const { names, coefs } = row;
  for (const n in t) {
    const at = names.indexOf(n);
    if (!term(n, t[n]! - (at >= 0 ? coefs[at]! : 0))) return -Infinity;
  }
  for (let k = 0; k < names.length; k++) if (!(names[k]! in t) && !term(names[k]!, -coefs[k]!)) return -Infinity;
  return v;
}
