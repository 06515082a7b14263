/**
 * `Count`: a number of events symbolic in the kernel's parameters (loopy's `GuardedPwQPolynomial`).
 * A count is a sum of terms, each either
 * - a quasi-polynomial in the parameters (a polynomial in them and in floors `floor(A/d)` of
 *   affine expressions of them), valid where its guard holds and 0 elsewhere: the closed form of
 *   the points of an integer set (chambers.ts), or
 * - `factor ×` the number of points of an integer set that has no closed form here (existential
 *   variables, bounds with denominators that depend on outer inames, inexact projections): `eval`
 *   counts the points exactly, and `toString` names the set (`count{[n] -> { [i, j] : … }}`).
 */
import type { Fraction, MathNode } from "mathjs";
import { LoomError } from "../../errors.js";
import { containsPoint, count as countPoints, fixValues, gist, isEmpty, isSubset, printSet, type BasicSet } from "../../poly/index.js";
import { atomParams, atomsToText, isAtom, withAtomValues } from "./atoms.js";
import { countPieces } from "./chambers.js";
import { math, polyAdd, polyConst, polyEval, polyIsZero, polyScale, polyToMathNode, polyToString, polyVars, type Poly } from "./poly.js";

type Term =
  | { readonly kind: "poly"; readonly poly: Poly; readonly guard: BasicSet | undefined }
  | { readonly kind: "points"; readonly set: BasicSet; readonly factor: Fraction };

export class Count {
  /** Use `Count.constant`, `countPoints…` or the arithmetic below; the terms are internal. */
  private constructor(private readonly terms: readonly Term[]) {}

  static constant(n: number): Count {
    return new Count(n === 0 ? [] : [{ kind: "poly", poly: polyConst(n), guard: undefined }]);
  }

  /** @internal */
  static fromPoly(poly: Poly, guard?: BasicSet): Count {
    return new Count(polyIsZero(poly) ? [] : [{ kind: "poly", poly, guard }]);
  }

  /** @internal */
  static ofPoints(set: BasicSet): Count {
    return new Count([{ kind: "points", set, factor: math.fraction(1) }]);
  }

  add(other: Count): Count {
    const out: Term[] = [...this.terms];
    for (const t of other.terms) {
      const same = out.findIndex((u) => u.kind === t.kind && sameSet(termSet(u), termSet(t)));
      if (same < 0) {
        out.push(t);
        continue;
      }
      const u = out[same]!;
      const merged: Term | undefined = u.kind === "poly" && t.kind === "poly"
        ? (polyIsZero(polyAdd(u.poly, t.poly)) ? undefined : { ...u, poly: polyAdd(u.poly, t.poly) })
        : u.kind === "points" && t.kind === "points" ? { ...u, factor: math.add(u.factor, t.factor) as Fraction } : u;
      if (merged) out[same] = merged;
      else out.splice(same, 1);
    }
    return new Count(out);
  }

  scale(s: number): Count {
    if (s === 0) return new Count([]);
    return new Count(this.terms.map((t): Term => (t.kind === "poly" ? { ...t, poly: polyScale(t.poly, s) } : { ...t, factor: math.multiply(t.factor, math.fraction(s)) as Fraction })));
  }

  /** Whether the count is a closed form (no term counted by enumeration). */
  get isSymbolic(): boolean {
    return this.terms.every((t) => t.kind === "poly");
  }

  /** The parameters the count depends on. */
  get params(): string[] {
    const out = new Set<string>();
    for (const t of this.terms) {
      if (t.kind === "poly") {
        for (const v of polyVars(t.poly)) for (const p of atomParams(v)) out.add(p);
        for (const p of t.guard?.params ?? []) out.add(p);
      } else for (const p of t.set.params) out.add(p);
    }
    return [...out].sort();
  }

  /** The number for these parameter values (exact; a missing parameter is a LoomError). */
  eval(params: Readonly<Record<string, number>>): number {
    const missing = this.params.filter((p) => params[p] === undefined);
    if (missing.length > 0) throw new LoomError(`Count.eval: no value for parameter${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of ${this.toString()}`);
    let out = math.fraction(0);
    for (const t of this.terms) {
      if (t.kind === "poly") {
        if (t.guard === undefined || guardHolds(t.guard, params)) out = math.add(out, polyEval(t.poly, withAtomValues(polyVars(t.poly), params))) as Fraction;
      } else out = math.add(out, math.multiply(t.factor, math.fraction(countPoints(t.set, params)))) as Fraction;
    }
    return math.number(out);
  }

  /**
   * The closed form as a mathjs expression tree, or a LoomError when a term has no closed form
   * or holds only under a guard on the parameters (see `toString`).
   */
  toMathNode(): MathNode {
    if (this.terms.length === 0) return math.parse("0");
    let poly: Poly = new Map();
    for (const t of this.terms) {
      if (t.kind !== "poly" || t.guard !== undefined || [...polyVars(t.poly)].some(isAtom)) throw new LoomError(`Count.toMathNode: ${this.toString()} is not one polynomial (a piecewise count has no single expression tree)`);
      poly = polyAdd(poly, t.poly);
    }
    return polyToMathNode(poly);
  }

  /** `n^3 + 2*n`; a guarded piece `{ n^2 : n >= 1 }` (0 elsewhere); an enumerated one `count{…}`. */
  toString(): string {
    if (this.terms.length === 0) return "0";
    return this.terms.map((t) => {
      const text = t.kind === "poly" ? atomsToText(polyToString(t.poly)) : "";
      if (t.kind === "poly") return t.guard === undefined ? text : `{ ${text} : ${guardText(t.guard)} }`;
      const f = t.factor.toFraction();
      return `${f === "1" ? "" : `${f}*`}count{${printSet(t.set)}}`;
    }).join(" + ");
  }
}

/** A guard on the parameters holds, or a guard set with dimensions has points, at `params`. */
function guardHolds(g: BasicSet, params: Readonly<Record<string, number>>): boolean {
  if (g.dims.length === 0) return containsPoint(g, params);
  const own: Record<string, number> = {};
  for (const p of g.params) own[p] = params[p]!;
  return !isEmpty(fixValues(g, own));
}

function termSet(t: Term): BasicSet | undefined {
  return t.kind === "poly" ? t.guard : t.set;
}

function sameSet(a: BasicSet | undefined, b: BasicSet | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a === b || printSet(a) === printSet(b);
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
export function countSet(s: BasicSet, assumptions?: BasicSet): Count {
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
