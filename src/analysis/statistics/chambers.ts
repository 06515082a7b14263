/**
 * Closed-form point counts: the integer points of a set as a sum of guarded quasi-polynomials.
 * Dimensions are summed innermost first, `Σ_{x=lo}^{hi} p(x)` by Faulhaber's formulas (poly.ts).
 * Where a dimension has several lower or upper bounds (a max or min), the set is cut into
 * chambers, one per choice of the active bounds (`L_i >= L_k`, ties to the first), each summed with
 * its own bounds; a bound `floor(A/d)` / `ceil(A/d)` with `A` in the parameters only becomes a
 * floor atom (atoms.ts). A chamber's guard is its projection onto the parameters (or, where that
 * projection is not exact, the chamber itself). When a bound's projection is not exact, a bound with a denominator depends on an outer dimension, or there are
 * too many chambers, there is no closed form here (undefined): the caller counts the points.
 */
import {
  addConstraints, aff, affAdd, affScale, affSub, dimBounds, eliminateExact, isEmpty, removeRedundancies,
  type Aff, type BasicSet, type Bound,
} from "../../poly/index.js";
import { floorAtom } from "./atoms.js";
import { polyAdd, polyConst, polyFromAff, polyScale, polySumOver, polyVar, type Poly } from "./poly.js";

export interface Piece {
  readonly poly: Poly;
  /**
   * Where the piece counts (0 elsewhere): constraints on the parameters only, or a set with
   * dimensions, meaning "where this set has points".
   */
  readonly guard: BasicSet;
}

const MAX_PIECES = 64;

function distinct(bounds: readonly Bound[]): Bound[] {
  const key = (b: Bound) => `${b.denom}|${JSON.stringify(Object.entries(b.aff.terms).sort())}|${b.aff.constant}`;
  const seen = new Set<string>();
  return bounds.filter((b) => !seen.has(key(b)) && (seen.add(key(b)), true));
}

/**
 * The affine constraint (`>= 0`) saying `F >= G + s` for two lower bounds (`ceil(A/d)`), or for two
 * upper bounds (`floor(A/d)`) `G >= F + s`; undefined when both have a denominator.
 */
function activeLower(f: Bound, g: Bound, s: number): Aff | undefined {
  // ceil(A/d) >= B + s  <=>  A > d(B + s - 1)  <=>  A - d(B + s - 1) - 1 >= 0   (B unit)
  // A >= ceil(B/e) + s  <=>  e(A - s) - B >= 0                                 (A unit)
  if (g.denom === 1) return affAdd(affSub(f.aff, affScale(affAdd(g.aff, aff({}, s - 1)), f.denom)), aff({}, -1));
  if (f.denom === 1) return affSub(affScale(affAdd(f.aff, aff({}, -s)), g.denom), g.aff);
  return undefined;
}

function activeUpper(f: Bound, g: Bound, s: number): Aff | undefined {
  // F <= G - s with F = floor(A/d), G = floor(B/e):
  // A unit, B/e: floor(B/e) >= A + s  <=>  B - e(A + s) >= 0
  // A/d, B unit: B - s >= floor(A/d)  <=>  d(B - s + 1) - A - 1 >= 0
  if (f.denom === 1) return affSub(g.aff, affScale(affAdd(f.aff, aff({}, s)), g.denom));
  if (g.denom === 1) return affSub(affScale(affAdd(g.aff, aff({}, 1 - s)), f.denom), affAdd(f.aff, aff({}, 1)));
  return undefined;
}

/** The chambers of `set` in which bound `i` of `bounds` is the active one (a list of constraints). */
function activeConstraints(bounds: readonly Bound[], i: number, lower: boolean): Aff[] | undefined {
  const out: Aff[] = [];
  for (let k = 0; k < bounds.length; k++) {
    if (k === i) continue;
    const c = (lower ? activeLower : activeUpper)(bounds[i]!, bounds[k]!, k < i ? 1 : 0);
    if (!c) return undefined;
    out.push(c);
  }
  return out;
}

/** A bound as a polynomial: the affine expression, or a floor atom of the parameters. */
function boundPoly(b: Bound, lower: boolean, params: readonly string[]): Poly | undefined {
  if (b.denom === 1) return polyFromAff(b.aff);
  if (Object.keys(b.aff.terms).some((v) => !params.includes(v))) return undefined;
  // ceil(A/d) = -floor(-A/d)
  return lower ? polyScale(polyVar(floorAtom(affScale(b.aff, -1), b.denom)), -1) : polyVar(floorAtom(b.aff, b.denom));
}

/** The pieces of the count of `set`'s points, or undefined (see the module comment). */
export function countPieces(set: BasicSet): Piece[] | undefined {
  if (set.exists.length > 0) return undefined;
  const out: Piece[] = [];
  const rec = (s: BasicSet, k: number, poly: Poly): boolean => {
    if (out.length > MAX_PIECES) return false;
    if (k < 0) {
      // The guard is the chamber's projection onto the parameters where that is exact, else the
      // chamber itself (Count.eval then tests it for points at the given parameters).
      const proj = eliminateExact(s, s.dims);
      out.push({ poly, guard: proj.exact && proj.set.exists.length === 0 ? removeRedundancies(proj.set) : s });
      return true;
    }
    const dim = s.dims[k]!;
    const b = dimBounds(s, dim, s.dims.slice(0, k));
    const lowers = distinct(b.lower);
    const uppers = distinct(b.upper);
    if (!b.exact || lowers.length === 0 || uppers.length === 0) return false;
    for (let i = 0; i < lowers.length; i++) {
      for (let j = 0; j < uppers.length; j++) {
        const cs = [...(activeConstraints(lowers, i, true) ?? [undefined as never]), ...(activeConstraints(uppers, j, false) ?? [undefined as never])];
        if (cs.some((c) => c === undefined)) return false;
        const chamber = cs.length === 0 ? s : removeRedundancies(addConstraints(s, cs.map((a) => ({ aff: a, eq: false }))));
        if (cs.length > 0 && isEmpty(chamber)) continue;
        const lo = boundPoly(lowers[i]!, true, s.params);
        const hi = boundPoly(uppers[j]!, false, s.params);
        if (!lo || !hi) return false;
        if (!rec(chamber, k - 1, polySumOver(poly, dim, lo, hi))) return false;
      }
    }
    return true;
  };
  const s = removeRedundancies(set);
  if (isEmpty(s)) return [];
  return rec(s, s.dims.length - 1, polyConst(1)) ? mergePieces(out) : undefined;
}

/** Pieces with the same guard added together. */
function mergePieces(pieces: readonly Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const same = out.findIndex((q) => JSON.stringify(q.guard) === JSON.stringify(p.guard));
    if (same < 0) out.push(p);
    else out[same] = { ...out[same]!, poly: polyAdd(out[same]!.poly, p.poly) };
  }
  return out;
}
