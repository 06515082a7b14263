/**
 * `Count`: a number of events symbolic in the kernel's parameters (loopy's `GuardedPwQPolynomial`):
 * a sum of terms `[guards hold] × q × Π count(set)`, where
 * - `q` is a quasi-polynomial in the parameters (a polynomial in them and in floors `floor(A/d)` of
 *   affine expressions of them), exact rational coefficients;
 * - a guard is a set over the parameters (the term is 0 where it fails), or a set with dimensions
 *   meaning "where it has points";
 * - `count(set)` is the number of points of a set that has no closed form here (existential
 *   variables, bounds with denominators that depend on outer inames, inexact projections),
 *   counted exactly by enumeration at `eval` and printed `count{[n] -> { [i, j] : … }}`.
 * A term with no such sets is a closed form (`isSymbolic`). `countSet` multiplies the counts of a
 * set's independent factors, each the pieces chambers.ts finds.
 */
import type { MathNode } from "mathjs";
import { LoomError } from "../../errors.js";
import {
  containsPoint, contentMemo, count as countPoints, factorOf, fixValues, gist, intersect, isEmpty, isSubset, memoized, printSet, removeRedundancies,
  setContentId, type BasicSet,
} from "../../poly/index.js";
import { atomParams, atomsToText, isAtom, withAtomValues } from "./atoms.js";
import { countPieces } from "./chambers.js";
import { collapseSplits } from "./splits.js";
import { polyAdd, polyConst, polyEval, polyIsZero, polyMul, polyScale, polyToMathNode, polyToString, polyVars, type Poly } from "./poly.js";
import { ZERO, rat, ratAdd, ratMul, ratToNumber } from "./rational.js";

/**
 * `[every guard holds] × poly × Π (points of each set)`: a guard is a set over the parameters
 * (or, with dims, "has points"); `sets` are counted by enumeration (empty for a closed form).
 */
interface Term {
  readonly poly: Poly;
  readonly guards: readonly BasicSet[];
  readonly sets: readonly BasicSet[];
}

const printed = new WeakMap<BasicSet, string>();
function setText(x: BasicSet): string {
  let hit = printed.get(x);
  if (hit === undefined) printed.set(x, (hit = printSet(x)));
  return hit;
}
const setsKey = (xs: readonly BasicSet[]): string => xs.map(setText).sort().join(" & ");
const keys = new WeakMap<Term, string>();
function termKey(t: Term): string {
  let hit = keys.get(t);
  if (hit === undefined) keys.set(t, (hit = `${setsKey(t.guards)}|${setsKey(t.sets)}`));
  return hit;
}

export class Count {
  /** Use `Count.constant`, `countSet` or the arithmetic below; the terms are internal. */
  private constructor(private readonly terms: readonly Term[]) {}

  static constant(n: number): Count {
    return new Count(n === 0 ? [] : [{ poly: polyConst(n), guards: [], sets: [] }]);
  }

  /** @internal */
  static fromPoly(poly: Poly, guard?: BasicSet): Count {
    return new Count(polyIsZero(poly) ? [] : [{ poly, guards: guard ? [guard] : [], sets: [] }]);
  }

  /** @internal */
  static ofPoints(set: BasicSet): Count {
    return new Count([{ poly: polyConst(1), guards: [], sets: [set] }]);
  }

  add(other: Count): Count {
    const out: Term[] = [...this.terms];
    const at = new Map(out.map((t, i) => [termKey(t), i]));
    for (const t of other.terms) {
      const same = at.get(termKey(t));
      if (same === undefined) {
        at.set(termKey(t), out.length);
        out.push(t);
      } else out[same] = { ...out[same]!, poly: polyAdd(out[same]!.poly, t.poly) };
    }
    return new Count(out.filter((t) => !polyIsZero(t.poly)));
  }

  /** The product (a domain that is the product of independent factors counts as theirs). */
  mul(other: Count): Count {
    const terms: Term[] = [];
    for (const a of this.terms) {
      for (const b of other.terms) {
        const guards = combineGuards([...a.guards, ...b.guards]);
        if (guards) terms.push({ poly: polyMul(a.poly, b.poly), guards, sets: [...a.sets, ...b.sets] });
      }
    }
    return new Count([]).add(new Count(terms));
  }

  scale(s: number): Count {
    if (s === 0) return new Count([]);
    return new Count(this.terms.map((t) => ({ ...t, poly: polyScale(t.poly, s) })));
  }

  /** Whether the count is a closed form (no term counted by enumeration). */
  get isSymbolic(): boolean {
    return this.terms.every((t) => t.sets.length === 0);
  }

  /** The parameters the count depends on. */
  get params(): string[] {
    const out = new Set<string>();
    for (const t of this.terms) {
      for (const v of polyVars(t.poly)) for (const p of atomParams(v)) out.add(p);
      for (const g of [...t.guards, ...t.sets]) for (const p of g.params) out.add(p);
    }
    return [...out].sort();
  }

  /** The number for these parameter values (exact; a missing parameter is a LoomError). */
  eval(params: Readonly<Record<string, number>>): number {
    const missing = this.params.filter((p) => params[p] === undefined);
    if (missing.length > 0) throw new LoomError(`Count.eval: no value for parameter${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of ${this.toString()}`);
    let out = ZERO;
    for (const t of this.terms) {
      if (!t.guards.every((g) => guardHolds(g, params))) continue;
      let v = polyEval(t.poly, withAtomValues(polyVars(t.poly), params));
      for (const set of t.sets) v = ratMul(v, rat(countPoints(set, params)));
      out = ratAdd(out, v);
    }
    return ratToNumber(out);
  }

  /**
   * The closed form as a mathjs expression tree, or a LoomError when a term has no closed form,
   * holds only under a guard on the parameters, or has a floor (see `toString`).
   */
  toMathNode(): MathNode {
    if (this.terms.length === 0) return polyToMathNode(new Map());
    let poly: Poly = new Map();
    for (const t of this.terms) {
      if (t.guards.length > 0 || t.sets.length > 0 || [...polyVars(t.poly)].some(isAtom)) throw new LoomError(`Count.toMathNode: ${this.toString()} is not one polynomial (a piecewise count has no single expression tree)`);
      poly = polyAdd(poly, t.poly);
    }
    return polyToMathNode(poly);
  }

  /** `n^3 + 2*n`; a guarded piece `{ n^2 : n >= 1 }` (0 elsewhere); an enumerated factor `count{…}`. */
  toString(): string {
    if (this.terms.length === 0) return "0";
    return this.terms.map((t) => {
      let text = atomsToText(polyToString(t.poly));
      if (t.sets.length > 0) {
        const counted = t.sets.map((x) => `count{${printSet(x)}}`).join("*");
        text = text === "1" ? counted : `${t.poly.size > 1 ? `(${text})` : text}*${counted}`;
      }
      return t.guards.length === 0 ? text : `{ ${text} : ${t.guards.map(guardText).join(" and ")} }`;
    }).join(" + ");
  }
}

/**
 * The guards of a product: those over the parameters alone intersected into one (a guard implied
 * by another, or repeated, goes), the others as they are; undefined when that one is empty (the
 * product is 0 for every parameter value: `n <= 16` and `n >= 17`).
 */
function combineGuards(guards: readonly BasicSet[]): BasicSet[] | undefined {
  const onParams = guards.filter((g) => g.dims.length === 0);
  const rest = guards.filter((g) => g.dims.length > 0);
  if (onParams.length <= 1) return [...onParams, ...rest];
  const one = removeRedundancies(onParams.reduce((x, y) => intersect(x, y)));
  return isEmpty(one) ? undefined : [one, ...rest];
}

/** A guard on the parameters holds, or a guard set with dimensions has points, at `params`. */
function guardHolds(g: BasicSet, params: Readonly<Record<string, number>>): boolean {
  if (g.dims.length === 0) return containsPoint(g, params);
  const own: Record<string, number> = {};
  for (const p of g.params) own[p] = params[p]!;
  return !isEmpty(fixValues(g, own));
}

function guardText(g: BasicSet): string {
  const s = printSet(g);
  if (g.dims.length > 0) return `${s} has points`;
  const colon = s.indexOf(":");
  return colon < 0 ? s : s.slice(colon + 1).replace(/\s*}\s*$/, "").trim();
}

/**
 * The number of integer points of `s` (every dim counted, params symbolic). `assumptions` (a set
 * with no dims over some of the params) drops a guard it implies. A sum of guarded
 * quasi-polynomials where chambers.ts finds one, else a count by enumeration of `s`.
 */
export function countSet(s0: BasicSet, assumptions?: BasicSet): Count {
  // Counts are values of the sets' content: the variants of a sweep rebuild the same domains.
  return memoized(countMemo, `${setContentId(s0)}|${assumptions ? setContentId(assumptions) : ""}`, () => computeCountSet(s0, assumptions));
}

const countMemo = contentMemo<Count>();

function computeCountSet(s0: BasicSet, assumptions: BasicSet | undefined): Count {
  // A split pair counts as the one dimension it came from (splits.ts).
  const s = collapseSplits(s0);
  // Independent factors (a tiled domain: i_outer, i_inner apart from j_outer, j_inner) count apart.
  const factors: BasicSet[] = [];
  const seen = new Set<string>();
  for (const d of s.dims) {
    if (seen.has(d)) continue;
    const f = factorOf(s, d);
    for (const x of f.dims) seen.add(x);
    factors.push(f);
  }
  let out = Count.constant(1);
  for (const f of factors.length > 0 ? factors : [s]) out = out.mul(countFactor(f, assumptions));
  return out;
}

function countFactor(s: BasicSet, assumptions: BasicSet | undefined): Count {
  const pieces = countPieces(s);
  if (!pieces) return Count.ofPoints(s);
  let out = Count.constant(0);
  for (const p of pieces) out = out.add(Count.fromPoly(p.poly, simplifyGuard(p.guard, assumptions)));
  return out;
}

/**
 * `guard` without what `assumptions` imply (isl's gist, as loopy prints counts): undefined when
 * the assumptions imply all of it. Counts are meant for parameters that meet the assumptions.
 */
function simplifyGuard(guard: BasicSet, assumptions: BasicSet | undefined): BasicSet | undefined {
  if (guard.dims.length > 0) return guard;
  if (guard.constraints.length === 0) return undefined;
  if (!assumptions || assumptions.dims.length > 0 || assumptions.exists.length > 0) return guard;
  const names = [...new Set([...guard.params, ...assumptions.params])];
  const lift = (x: BasicSet): BasicSet => ({ ...x, params: names, constraints: x.constraints.map((c) => ({ ...c, coeffs: names.map((n) => { const i = x.params.indexOf(n); return i < 0 ? 0 : c.coeffs[i]!; }) })) });
  const a = lift(assumptions);
  const g = lift(guard);
  if (isSubset(a, g)) return undefined;
  const simpler = gist(g, a);
  return simpler.constraints.length === 0 ? undefined : simpler;
}
