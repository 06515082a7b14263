/**
 * Memoization by canonical content (ALGORITHMS.md §6). Every operation is a pure function of its
 * sets' fields (names, existentials, constraint rows in order), and sets are frozen values, so an
 * answer can be reused for any set with the same content: a sweep of variants rebuilds the same
 * domains again and again, each time as new objects. A set's key is computed once per identity
 * (a hidden slot, or a WeakMap for literals) by interning: a table from a hash of the content to
 * the first set seen with that content, compared in full, so equal contents share one key and one
 * canonical object (`internSet`). Answers live in bounded Maps keyed by the keys of the arguments.
 */
import type { Aff, BasicSet, Constraint } from "./types.js";

/** Entries per cache before it is emptied. */
const LIMIT = 50_000;

/**
 * Entries held by all the memos together (answers and interned sets) before every memo is emptied
 * (`clearPolyMemos`): what bounds memory over a long sweep. Each entry keeps sets alive, and what is
 * remembered per set object (rows, factors, bounds) with them: about 2 KB in all. Per-cache limits
 * alone let a 27,000-variant tiled-matmul sweep hold 2 GB (some forty caches, each filling towards
 * its own limit). 100,000 entries is about 200 MB, and some 2,800 never-seen variants of that sweep
 * between clears: a clear costs the next variants what a never-seen variant of a fresh sweep costs.
 */
let budget = 100_000;

/** Entries added to the memos since they were last emptied (a cache emptied alone subtracts its own). */
let held = 0;

/** Tests: set the budget (entries held by all memos before they are emptied); returns the previous one. */
export function setPolyMemoBudget(entries: number): number {
  const was = budget;
  budget = entries;
  return was;
}

/** Entries the memos hold now (answers and interned sets), at most the budget. */
export function polyMemoHeld(): number {
  return held;
}

/** Count one more entry held; past the budget, forget everything (keys are never reused, so nothing is confused). */
function hold(): void {
  if (++held > budget) clearPolyMemos();
}

let keys = new WeakMap<BasicSet, string>();
/**
 * The intern table: a hash of a set's content -> the first set seen with each content under that
 * hash, and its key. Equal contents find the same entry, so they get one key; the hash only picks
 * the bucket, the full content comparison (`sameContent`) decides. No string is built per set.
 */
let table = new Map<number, Interned[]>();
let interned = 0;
let nextId = 0;
/** Bumped by `clearPolyMemos`: keys remembered before then are computed afresh. */
let generation = 0;

interface Interned {
  readonly set: BasicSet;
  readonly key: string;
}

/**
 * Where a set built by `rawSet` remembers its key: private fields stamped on the plain object
 * before it is frozen (a base class whose constructor returns its argument installs a subclass's
 * private fields on any object). Invisible to keys, JSON, equality and structured clones; the set
 * keeps Object.prototype. Cheaper than a WeakMap entry (a lookup and an insertion per set, and
 * work for the garbage collector) and than a non-enumerable property (`Object.defineProperty`
 * goes through the runtime: a third of the cost of building a set).
 */
class Stamp {
  constructor(o: object) {
    return o;
  }
}

class KeySlot extends Stamp {
  #key: string | undefined = undefined;
  /** The interned set with this content (see `internSet`), valid with `key`. */
  #canon: BasicSet | undefined = undefined;
  #gen = 0;

  static has(s: object): boolean {
    return #key in s;
  }

  static key(s: BasicSet): string | undefined {
    const o = s as unknown as KeySlot;
    return o.#gen === generation ? o.#key : undefined;
  }

  static canon(s: BasicSet): BasicSet | undefined {
    const o = s as unknown as KeySlot;
    return o.#gen === generation ? o.#canon : undefined;
  }

  static remember(s: BasicSet, e: Interned): void {
    const o = s as unknown as KeySlot;
    o.#key = e.key;
    o.#canon = e.set;
    o.#gen = generation;
  }
}

/** Give a new (not yet frozen) set object its key slot: called by `rawSet` only. */
export function stampSet(s: object): void {
  new KeySlot(s);
}

/**
 * A short key standing for the content of `s` (names, existentials and rows, in order): two sets
 * get the same key exactly when their contents are equal.
 */
export function setKey(s: BasicSet): string {
  if (KeySlot.has(s)) return KeySlot.key(s) ?? boxed(s).key;
  // A set not built by rawSet (a literal): remembered by identity, interned as a frozen copy (the
  // literal itself may still change, and the table must keep the content it was keyed by).
  let k = keys.get(s);
  if (k === undefined) keys.set(s, (k = intern(s, true).key));
  return k;
}

/**
 * The one set (first seen since the memos were last emptied) with the content of `s`: equal sets
 * built twice give the same object, so callers may compare or key by identity.
 */
export function internSet(s: BasicSet): BasicSet {
  if (!KeySlot.has(s)) return intern(s, true).set;
  return KeySlot.canon(s) ?? boxed(s).set;
}

/** The entry of a set built by rawSet, remembered in its slot until the memos are emptied. */
function boxed(s: BasicSet): Interned {
  const e = intern(s);
  KeySlot.remember(s, e);
  return e;
}

function intern(s: BasicSet, literal = false): Interned {
  const h = hashOf(s);
  const bucket = table.get(h);
  if (bucket !== undefined) for (const e of bucket) if (sameContent(e.set, s)) return e;
  return enter(h, bucket, literal ? frozenCopy(s) : s);
}

/** A new entry for `s` (content not in the table) under hash `h`, whose bucket is `bucket`. */
function enter(h: number, bucket: Interned[] | undefined, s: BasicSet): Interned {
  if (bucket === undefined) {
    // Keys are never reused: forgetting sets (below) only loses sharing, never confuses sets.
    if (interned >= LIMIT) {
      held -= interned;
      table = new Map();
      interned = 0;
    }
    table.set(h, (bucket = []));
  }
  const e: Interned = { set: s, key: `@${(nextId++).toString(36)}` };
  bucket.push(e);
  interned++;
  held++;
  return e;
}

/**
 * Interning at creation (hash-consing) of a set made of some rows of `src` with columns picked
 * from it (a factor, `factorOf`): names `params`, `dims`, `exists`; its constraints are those of
 * `src` at the indices `rows`, in order, new column `j` being `src`'s column `cols[j]` (an entry
 * missing from a short literal row reads 0). The set interned before with that content when there is one: hashed and
 * compared through the mapping, so a repeated factor (most are) allocates nothing, and equal sets
 * built this way are one object, which memos keyed by identity (`factorOf`'s) find again. Else
 * `build()` (which must return a set built by `rawSet` with that content) is entered as the
 * canonical set of it, its key remembered.
 */
export function internPicked(
  params: readonly string[], dims: readonly string[], exists: readonly string[],
  src: BasicSet, rows: readonly number[], cols: readonly number[], build: () => BasicSet,
): BasicSet {
  const cs = src.constraints;
  const n = cols.length;
  let h = hashNames(hashNames(hashNames(0x811c9dc5, params), dims), exists);
  for (let i = 0; i < rows.length; i++) {
    const c = cs[rows[i]!]!;
    const xs = c.coeffs;
    h = mix(h, c.eq ? 1 : 2);
    h = mix(h, n);
    for (let j = 0; j < n; j++) h = mix(h, (xs[cols[j]!] ?? 0) | 0);
    h = mix(h, c.constant | 0);
  }
  const bucket = table.get(h);
  if (bucket !== undefined) {
    for (const e of bucket) {
      const s = e.set;
      if (sameNames(s.params, params) && sameNames(s.dims, dims) && sameNames(s.exists, exists) && samePicked(s.constraints, cs, rows, cols)) return s;
    }
  }
  tally.factorsBuilt++;
  const s = build();
  KeySlot.remember(s, enter(h, bucket, s));
  return s;
}

/** `a` are the rows `rows` of `cs` with columns `cols` (see `internPicked`). */
function samePicked(a: readonly Constraint[], cs: readonly Constraint[], rows: readonly number[], cols: readonly number[]): boolean {
  if (a.length !== rows.length) return false;
  const n = cols.length;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = cs[rows[i]!]!;
    if (x.eq !== y.eq || x.constant !== y.constant || x.coeffs.length !== n) return false;
    const xs = x.coeffs;
    const ys = y.coeffs;
    for (let j = 0; j < n; j++) if (xs[j] !== (ys[cols[j]!] ?? 0)) return false;
  }
  return true;
}

/** A hash of names, existentials and rows (entries mixed as 32-bit integers; any number is exact in `sameContent`). */
function hashOf(s: BasicSet): number {
  let h = hashNames(hashNames(hashNames(0x811c9dc5, s.params), s.dims), s.exists);
  const cs = s.constraints;
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    const xs = c.coeffs;
    h = mix(h, c.eq ? 1 : 2);
    h = mix(h, xs.length);
    for (let k = 0; k < xs.length; k++) h = mix(h, xs[k]! | 0);
    h = mix(h, c.constant | 0);
  }
  return h;
}

function hashNames(h: number, names: readonly string[]): number {
  h = mix(h, names.length);
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!;
    h = mix(h, n.length);
    for (let k = 0; k < n.length; k++) h = mix(h, n.charCodeAt(k));
  }
  return h;
}

function mix(h: number, v: number): number {
  return Math.imul(h ^ v, 0x01000193) ^ (h >>> 15);
}

function frozenCopy(s: BasicSet): BasicSet {
  return Object.freeze({
    params: Object.freeze([...s.params]),
    dims: Object.freeze([...s.dims]),
    exists: Object.freeze([...s.exists]),
    constraints: Object.freeze(s.constraints.map((c) => Object.freeze({ eq: c.eq, coeffs: Object.freeze([...c.coeffs]), constant: c.constant }))),
  });
}

/** Equal content: the same names in the same order, and the same rows (kind, width, entries, constant) in the same order. */
function sameContent(a: BasicSet, b: BasicSet): boolean {
  if (a === b) return true;
  if (!sameNames(a.params, b.params) || !sameNames(a.dims, b.dims) || !sameNames(a.exists, b.exists)) return false;
  const ca = a.constraints;
  const cb = b.constraints;
  if (ca.length !== cb.length) return false;
  for (let i = 0; i < ca.length; i++) {
    const x = ca[i]!;
    const y = cb[i]!;
    if (x.eq !== y.eq || x.constant !== y.constant) return false;
    const xs = x.coeffs;
    const ys = y.coeffs;
    if (xs.length !== ys.length) return false;
    for (let k = 0; k < xs.length; k++) if (xs[k] !== ys[k]) return false;
  }
  return true;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Small entries, one character each: the common case, and cheap to build and to hash. */
const SMALL = 16000;
const OFFSET = 16384;

/**
 * The content of inequality rows over `n` columns as a short string (one character per entry);
 * undefined when an entry is too large for that form (callers then compute without a memo).
 */
export function rowsKey(n: number, rows: readonly (readonly number[])[]): string | undefined {
  const codes: number[] = [n];
  for (const r of rows) {
    for (let k = 0; k <= n; k++) {
      const v = r[k]!;
      if (v < -SMALL || v > SMALL) return undefined;
      codes.push(v + OFFSET);
    }
  }
  return codes.length > 8192 ? undefined : String.fromCharCode.apply(null, codes);
}

/** An affine expression's content, terms in their (significant) insertion order. */
export function affKey(a: Aff): string {
  let k = "";
  for (const n in a.terms) k += `${n}:${a.terms[n]},`;
  return `${k}${a.constant}`;
}

const all: Map<string, unknown>[] = [];

/** A bounded answer cache; emptied wholesale when it grows past its limit. */
export function contentMemo<V>(): Map<string, V> {
  const m = new Map<string, V>();
  all.push(m as Map<string, unknown>);
  return m;
}

/** Answers computed (not found in a memo) since the process started: a deterministic measure of poly work. */
let computed = 0;

/**
 * Counts of the work under the answers, since the process started (issue 21: what a sweep's
 * never-seen variant costs, counted where time is noise). Plain integer fields, bumped in place by
 * the modules that do the work: sets built (`rawSet`), normalizations (`finishSys`), sets factored
 * (`factorOf`'s union-find on a new set object), factor restrictions, factors not interned
 * before (built), and intersections of sets over disjoint columns answered without normalizing.
 */
export const tally = { setsBuilt: 0, normalizations: 0, factorings: 0, restrictions: 0, factorsBuilt: 0, sideBySide: 0 };

/** What the poly core has done so far: `polyWork()` and the `tally` counts (differences measure a run). */
export interface PolyCounts {
  readonly answers: number;
  readonly setsBuilt: number;
  readonly normalizations: number;
  readonly factorings: number;
  readonly restrictions: number;
  readonly factorsBuilt: number;
  /** Intersections answered side by side, without a normalization (side-by-side.ts). */
  readonly sideBySide: number;
}

/** The counts so far (a copy): take one before and one after a run, and subtract. */
export function polyCounts(): PolyCounts {
  return Object.freeze({ answers: computed, ...tally });
}

/**
 * How many memoized poly answers have been computed so far (misses of every memo): benchmarks and
 * tests measure work with it where time is noisy (`polyWork()` before and after, the difference).
 */
export function polyWork(): number {
  return computed;
}

/** `memo.get(key)`, else `compute()` stored under `key` (a throw stores nothing). */
export function cached<V>(memo: Map<string, V>, key: string, compute: () => V): V {
  const hit = memo.get(key);
  if (hit !== undefined) return hit;
  computed++;
  const v = compute();
  if (memo.size >= LIMIT) {
    held -= memo.size;
    memo.clear();
  }
  memo.set(key, v);
  hold();
  return v;
}

/**
 * Answers keyed by identity: the canonical object of a set (`internSet`, known from the set's slot
 * once it has a key), then a second key (another set's canonical object, or a short string). No
 * key string is concatenated, flattened and hashed per question; equal contents are one
 * canonical object, so the answers are those of a memo keyed by `setKey` strings.
 */
export interface SetMemo<V> {
  readonly bySet: Map<BasicSet, Map<unknown, V>>;
  size: number;
}

const setMemos: SetMemo<unknown>[] = [];

/** A bounded answer cache keyed by sets (`cachedBySet`, `cachedBySets`); emptied with the others. */
export function setMemo<V>(): SetMemo<V> {
  const m: SetMemo<V> = { bySet: new Map(), size: 0 };
  setMemos.push(m as SetMemo<unknown>);
  return m;
}

/** `compute()` remembered under (the content of `s`, `sub`): `cached(memo, setKey(s) + sub, compute)` without the string. */
export function cachedBySet<V>(memo: SetMemo<V>, s: BasicSet, sub: string, compute: () => V): V {
  return lookup(memo, internSet(s), sub, compute);
}

/** `compute()` remembered under the contents of `a` and `b`. */
export function cachedBySets<V>(memo: SetMemo<V>, a: BasicSet, b: BasicSet, compute: () => V): V {
  return lookup(memo, internSet(a), internSet(b), compute);
}

function lookup<V>(memo: SetMemo<V>, canon: BasicSet, sub: unknown, compute: () => V): V {
  let inner = memo.bySet.get(canon);
  if (inner !== undefined) {
    const hit = inner.get(sub);
    if (hit !== undefined) return hit;
  }
  computed++;
  const v = compute();
  if (memo.size >= LIMIT) {
    held -= memo.size;
    memo.bySet.clear();
    memo.size = 0;
    inner = undefined;
  }
  // (Looked up again: `compute` may have emptied the memos.)
  inner = memo.bySet.get(canon);
  if (inner === undefined) memo.bySet.set(canon, (inner = new Map()));
  inner.set(sub, v);
  memo.size++;
  hold();
  return v;
}

/** Forget every memoized answer (benchmarks measuring cold work; tests). */
export function clearPolyMemos(): void {
  for (const m of all) m.clear();
  for (const m of setMemos) {
    m.bySet.clear();
    m.size = 0;
  }
  table = new Map();
  interned = 0;
  held = 0;
  keys = new WeakMap();
  generation++;
}
