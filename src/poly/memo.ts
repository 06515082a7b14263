/**
 * Memoization by canonical content (ALGORITHMS.md §6). Every operation is a pure function of its
 * sets' fields (names, existentials, constraint rows in order), and sets are frozen values, so an
 * answer can be reused for any set with the same content: a sweep of variants rebuilds the same
 * domains again and again, each time as new objects. A set's key is computed once per identity
 * (WeakMap); answers live in bounded Maps keyed by the keys of the arguments.
 */
import type { Aff, BasicSet } from "./types.js";

/** Entries per cache before it is emptied (bounds memory over long sweeps). */
const LIMIT = 50_000;

let keys = new WeakMap<BasicSet, string>();
/** Content -> a short id, so that keys of answers stay short (cheap to hash and compare). */
const ids = new Map<string, string>();
let nextId = 0;
/** Bumped by `clearPolyMemos`: keys remembered before then are computed afresh. */
let generation = 0;

/**
 * Where a set built by `rawSet` remembers its key: a hidden (non-enumerable, symbol-named) slot
 * holding a mutable box, so the frozen set needs no WeakMap entry (a lookup and an insertion per
 * set, and work for the garbage collector) to find its key again.
 */
export const KEY_SLOT: unique symbol = Symbol("loom.poly.key");

export interface KeyBox {
  key: string | undefined;
  gen: number;
}

/**
 * A short key standing for the content of `s` (names, existentials and rows, in order): two sets
 * get the same key exactly when their contents are equal.
 */
export function setKey(s: BasicSet): string {
  const box = (s as { [KEY_SLOT]?: KeyBox })[KEY_SLOT];
  if (box !== undefined) {
    if (box.key !== undefined && box.gen === generation) return box.key;
    box.key = keyOfContent(s);
    box.gen = generation;
    return box.key;
  }
  // A set not built by rawSet (a literal): remembered by identity.
  let k = keys.get(s);
  if (k === undefined) keys.set(s, (k = keyOfContent(s)));
  return k;
}

function keyOfContent(s: BasicSet): string {
  const content = contentOf(s);
  let k = ids.get(content);
  if (k === undefined) {
    // Ids are never reused: forgetting contents (below) only loses sharing, never confuses sets.
    if (ids.size >= LIMIT) ids.clear();
    ids.set(content, (k = `@${(nextId++).toString(36)}`));
  }
  return k;
}

/** Small entries, one character each: the common case, and cheap to build and to hash. */
const SMALL = 16000;
const OFFSET = 16384;

function contentOf(s: BasicSet): string {
  const head = `${s.params.join(",")}|${s.dims.join(",")}|${s.exists.join(",")}|`;
  const codes: number[] = [];
  for (const c of s.constraints) {
    codes.push(c.eq ? 1 : 2, c.coeffs.length + 3);
    for (const v of c.coeffs) {
      if (v < -SMALL || v > SMALL) return wideContent(head, s);
      codes.push(v + OFFSET);
    }
    if (c.constant < -SMALL || c.constant > SMALL) return wideContent(head, s);
    codes.push(c.constant + OFFSET);
  }
  // (apply spreads its arguments on the stack: huge sets take the decimal form.)
  return codes.length > 8192 ? wideContent(head, s) : head + String.fromCharCode.apply(null, codes);
}

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

/** Any entries: decimal text (a leading "!" keeps it apart from the compact form). */
function wideContent(head: string, s: BasicSet): string {
  let content = `!${head}`;
  for (const c of s.constraints) content += `${c.eq ? "=" : ">"}${c.coeffs.join(",")},${c.constant};`;
  return content;
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
  if (memo.size >= LIMIT) memo.clear();
  memo.set(key, v);
  return v;
}

/** Forget every memoized answer (benchmarks measuring cold work; tests). */
export function clearPolyMemos(): void {
  for (const m of all) m.clear();
  ids.clear();
  keys = new WeakMap();
  generation++;
}
