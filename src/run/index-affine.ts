/**
 * A relational bound on an affine index expression, for the int32 check of native code
 * (index-range.ts) where interval arithmetic over-approximates: the partial sum
 * `80*i_outer_outer + 16*i_outer_inner` of a subscript, with `i_outer_outer <= floor((m + n - 1 -
 * 16*i_outer_inner)/80)`, has intervals that reach `m + n - 1 + 64` (each counter at its own
 * largest value), while in every iteration that runs it is at most `m + n - 1`.
 *
 * The bound eliminates the counters innermost first, as Fourier–Motzkin does: in `max(c·v + rest)`,
 * a counter `v` with `c > 0` is replaced by its loop's upper bound (`v <= hi`), with `c < 0` by its
 * lower bound; a bound `floor(A/d)` by `A/d` from above or `(A - d + 1)/d` from below, and a `min`
 * or `max` of bounds by each of its operands (the answers combined as the bound's operator says).
 * What is left (parameters, hardware ids) is bounded by its interval. Every step only widens: the
 * answer holds in every iteration that runs (a loop that does not run bounds nothing). Coefficients
 * are exact (BigInt, one common denominator), so no rounding can pass a value over the limit.
 */
import type { Ex } from "../../codegen/ast.js";

/** A closed interval of integers. */
export type Range = readonly [number, number];

/** What a name in scope is known to satisfy: its depth (loops nest deeper), and bounds as written. */
export interface SymBound {
  readonly depth: number;
  readonly lo?: Ex | undefined;
  readonly hi?: Ex | undefined;
}

/** `(Σ terms[v]·v + c) / den`, den > 0. */
interface Lin {
  readonly terms: ReadonlyMap<string, bigint>;
  readonly c: bigint;
  readonly den: bigint;
}

const lit = (c: bigint, den = 1n): Lin => ({ terms: new Map(), c, den });

/** `a·num/den` (den > 0). */
function scale(a: Lin, num: bigint, den: bigint): Lin {
  const terms = new Map<string, bigint>();
  for (const [v, k] of a.terms) terms.set(v, k * num);
  return { terms, c: a.c * num, den: a.den * den };
}

function plus(a: Lin, b: Lin): Lin {
  const terms = new Map<string, bigint>();
  for (const [v, k] of a.terms) terms.set(v, k * b.den);
  for (const [v, k] of b.terms) terms.set(v, (terms.get(v) ?? 0n) + k * a.den);
  return { terms, c: a.c * b.den + b.c * a.den, den: a.den * b.den };
}

/** The name a hardware id has in the check's environment. */
export const hwName = (e: Ex & { k: "hw" }): string => `hw:${e.tag}${e.axis}`;

/**
 * `e` as an affine form, widened in direction `dir` where it divides: `floor(A/d) <= A/d` ("up"),
 * `floor(A/d) >= (A - d + 1)/d` ("down"). undefined: not affine (or a min/max inside a sum).
 */
function linOf(e: Ex, dir: "up" | "down"): Lin | undefined {
  switch (e.k) {
    case "var": return { terms: new Map([[e.name, 1n]]), c: 0n, den: 1n };
    case "hw": return { terms: new Map([[hwName(e), 1n]]), c: 0n, den: 1n };
    case "lit": return Number.isSafeInteger(e.value) ? lit(BigInt(e.value)) : undefined;
    case "neg": {
      const a = linOf(e.e, dir === "up" ? "down" : "up");
      return a && scale(a, -1n, 1n);
    }
    case "cast": return e.to === "int32" || e.to === "int64" ? linOf(e.e, dir) : undefined;
    case "bin": {
      if (e.op === "+" || e.op === "-") {
        const l = linOf(e.l, dir);
        const r = linOf(e.r, e.op === "+" ? dir : dir === "up" ? "down" : "up");
        return l && r && plus(l, e.op === "+" ? r : scale(r, -1n, 1n));
      }
      if (e.op === "*") {
        const [k, x] = e.l.k === "lit" ? [e.l.value, e.r] : e.r.k === "lit" ? [e.r.value, e.l] : [undefined, undefined];
        if (k === undefined || x === undefined || !Number.isSafeInteger(k)) return undefined;
        const a = linOf(x, k >= 0 ? dir : dir === "up" ? "down" : "up");
        return a && scale(a, BigInt(k), 1n);
      }
      if (e.op === "//" && e.r.k === "lit" && Number.isSafeInteger(e.r.value) && e.r.value > 0) {
        const d = BigInt(e.r.value);
        const a = linOf(e.l, dir);
        if (!a) return undefined;
        return dir === "up" ? scale(a, 1n, d) : scale(plus(a, lit(1n - d)), 1n, d);
      }
      return undefined;
    }
    default: return undefined;
  }
}

const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** Work allowed per question (min/max operands branch): past it, the question is not answered. */
const BUDGET = 256;

/**
 * The largest value `e` can take in an iteration that runs, at most: undefined where the counters'
 * bounds do not say (the caller keeps its interval). `sym`: the loops and values in scope; `env`:
 * the intervals of what is left (parameters, hardware ids).
 */
export function affineMax(e: Ex, sym: ReadonlyMap<string, SymBound>, env: ReadonlyMap<string, Range>): number | undefined {
  const a = linOf(e, "up");
  if (!a) return undefined;
  const budget = { left: BUDGET };
  const r = maxOf(a, sym, env, budget);
  return r === undefined ? undefined : Number(r);
}

/** The smallest value of `e`, at least (`-affineMax(-e)`). */
export function affineMin(e: Ex, sym: ReadonlyMap<string, SymBound>, env: ReadonlyMap<string, Range>): number | undefined {
  const a = linOf(e, "down");
  if (!a) return undefined;
  const r = maxOf(scale(a, -1n, 1n), sym, env, { left: BUDGET });
  return r === undefined ? undefined : -Number(r);
}

function maxOf(a: Lin, sym: ReadonlyMap<string, SymBound>, env: ReadonlyMap<string, Range>, budget: { left: number }): bigint | undefined {
  if (--budget.left < 0) return undefined;
  // The innermost counter of `a` with a bound on the side its coefficient needs.
  let pick: string | undefined;
  let depth = -1;
  for (const [v, k] of a.terms) {
    if (k === 0n) continue;
    const s = sym.get(v);
    if (s === undefined || (k > 0n ? s.hi : s.lo) === undefined) continue;
    if (s.depth > depth) (pick = v, depth = s.depth);
  }
  if (pick === undefined) {
    // Intervals for the rest: each term at its own extreme.
    let num = a.c;
    for (const [v, k] of a.terms) {
      if (k === 0n) continue;
      const r = env.get(v);
      if (r === undefined || !Number.isSafeInteger(r[0]) || !Number.isSafeInteger(r[1])) return undefined;
      num += k * BigInt(k > 0n ? r[1] : r[0]);
    }
    return floorDiv(num, a.den);
  }
  const k = a.terms.get(pick)!;
  const s = sym.get(pick)!;
  return substitute(a, pick, k, k > 0n ? s.hi! : s.lo!, k > 0n, sym, env, budget);
}

/**
 * `max(a)` with `v` (coefficient `k`) replaced by a bound `b` of it: an upper bound (`upper`, k > 0)
 * or a lower one (k < 0); a min or max bound splits into its operands.
 */
function substitute(
  a: Lin, v: string, k: bigint, b: Ex, upper: boolean, sym: ReadonlyMap<string, SymBound>, env: ReadonlyMap<string, Range>, budget: { left: number },
): bigint | undefined {
  if (b.k === "bin" && (b.op === "min" || b.op === "max")) {
    const l = substitute(a, v, k, b.l, upper, sym, env, budget);
    const r = substitute(a, v, k, b.r, upper, sym, env, budget);
    // v <= min(x, y): both are bounds, the smaller answer holds; v <= max(x, y): the larger one.
    // v >= max(x, y) (k < 0): both bound it, the smaller answer; v >= min(x, y): the larger.
    const both = (b.op === "min") === upper;
    if (both) return l === undefined ? r : r === undefined ? l : l < r ? l : r;
    return l === undefined || r === undefined ? undefined : l > r ? l : r;
  }
  const rest = new Map(a.terms);
  rest.delete(v);
  // A bound that is not affine (a load, a modulo): v at the end of its interval instead.
  const r = env.get(v);
  const bound = linOf(b, upper ? "up" : "down") ?? (r && Number.isSafeInteger(r[0]) && Number.isSafeInteger(r[1]) ? lit(BigInt(upper ? r[1] : r[0])) : undefined);
  if (!bound) return undefined;
  // a = (k·v + rest)/den, with k·v <= k·bound on either side.
  return maxOf(plus({ terms: rest, c: a.c, den: a.den }, scale(bound, k, a.den)), sym, env, budget);
}
