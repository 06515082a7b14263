/**
 * Integer expressions and affine forms: the one conversion every folder uses (shape inference in
 * src/parse and src/okl, footprints in src/analysis, bounds proofs in src/run).
 */
import { aff, affAdd, affIsConstant, affScale, affSub, varAff, type Aff, type Bound } from "../poly/index.js";
import { arith, c, v, type Expr } from "./expr.js";
import { naturalCompare } from "./print.js";

/**
 * The affine form of an integer expression, or undefined when it is not affine (products of
 * variables, division, subscripts, calls…). `isIndexVar(name)` says which variables may appear.
 */
export function exprToAff(e: Expr, isIndexVar?: (name: string) => boolean): Aff | undefined {
  // Remembered per (frozen) expression, for every variable allowed: footprints, stores, lowering
  // and device checks all read the same index expressions. Which variables are allowed decides
  // only whether the answer stands: any variable the conversion meets that is not allowed makes
  // it undefined (every case passes an undefined operand up), so the answer for `isIndexVar` is
  // the remembered form when each variable met is allowed.
  if (e.kind === "var") return isIndexVar === undefined || isIndexVar(e.name) ? varAff(e.name) : undefined;
  if (!Object.isFrozen(e)) return affOf(e, isIndexVar ?? anyVar);
  let hit = affMemo.get(e);
  if (hit === undefined) {
    const met: string[] = [];
    let a: Aff | undefined;
    try {
      a = affOf(e, (name) => (met.push(name), true));
    } catch {
      // Coefficients past the safe integers: a variable not allowed may stop the conversion
      // before that happens, so ask as asked, unremembered.
      return affOf(e, isIndexVar ?? anyVar);
    }
    affMemo.set(e, (hit = a === undefined ? NOT_AFFINE : { aff: a, vars: met }));
  }
  if (hit === NOT_AFFINE) return undefined;
  if (isIndexVar !== undefined) for (const name of hit.vars) if (!isIndexVar(name)) return undefined;
  return hit.aff;
}

const anyVar = (): boolean => true;

/** The affine form of an expression with every variable allowed, and the variables read on the way. */
interface AffEntry {
  readonly aff: Aff;
  readonly vars: readonly string[];
}

const NOT_AFFINE: AffEntry = Object.freeze({ aff: Object.freeze({ terms: Object.freeze({}), constant: 0 }), vars: Object.freeze([]) });
const affMemo = new WeakMap<Expr, AffEntry>();

/** `exprToAff` computed (no memo). */
function affOf(e: Expr, isIndexVar: (name: string) => boolean): Aff | undefined {
  switch (e.kind) {
    case "var": return isIndexVar(e.name) ? varAff(e.name) : undefined;
    case "const": return Number.isSafeInteger(e.value) && !e.isFloat ? aff({}, e.value) : undefined;
    case "neg": {
      const a = affOf(e.operand, isIndexVar);
      return a && affScale(a, -1);
    }
    // A cast to an index dtype keeps the value; any other wraps (uint8, uint32 of a negative) or rounds.
    case "cast": return e.dtype === "int32" || e.dtype === "int64" ? affOf(e.value, isIndexVar) : undefined;
    case "arith": {
      const l = affOf(e.left, isIndexVar);
      const r = affOf(e.right, isIndexVar);
      if (!l || !r) return undefined;
      switch (e.op) {
        case "+": return affAdd(l, r);
        case "-": return affSub(l, r);
        case "*":
          if (affIsConstant(l)) return affScale(r, l.constant);
          if (affIsConstant(r)) return affScale(l, r.constant);
          return undefined;
        default:
          if (affIsConstant(l) && affIsConstant(r) && r.constant !== 0) {
            if (e.op === "//") return aff({}, Math.floor(l.constant / r.constant));
            if (e.op === "/") return aff({}, Math.trunc(l.constant / r.constant));
            if (e.op === "%") return aff({}, l.constant - r.constant * Math.floor(l.constant / r.constant));
          }
          return undefined;
      }
    }
    default: return undefined;
  }
}

/** How `affToExpr` writes a form. */
export interface AffToExprOptions {
  /**
   * Term order: the form's own (insertion, the default), `"natural"` (by name: `i_inner` before
   * `i_outer`), or these names first in this order and then the rest by name.
   */
  readonly order?: "insertion" | "natural" | readonly string[];
  /** Whether a coefficient follows its name (`i*16`, as written in index expressions) instead of preceding it (`16*i`). */
  readonly coefficientAfter?: boolean;
}

/**
 * An affine form as a readable expression: `n`, `n + 1`, `2*n - m`, `-2*i + 3`, `16`. Negative
 * terms are subtracted (a leading one negated), zero terms dropped.
 *
 *   affToExpr({ terms: { i_outer: 16, i_inner: 1 }, constant: -1 }, { order: "natural" })  // i_inner + 16*i_outer - 1
 */
export function affToExpr(a: Aff, opts: AffToExprOptions = {}): Expr {
  const { order = "insertion", coefficientAfter = false } = opts;
  let names = Object.keys(a.terms);
  if (order === "natural") {
    // (By name alone: the comparator below with no names first, without its lookups.)
    if (names.length > 1) names = names.sort(naturalCompare);
  } else if (order !== "insertion") {
    const first = order;
    names = names.sort((x, y) => {
      const ix = first.indexOf(x);
      const iy = first.indexOf(y);
      return ix >= 0 && iy >= 0 ? ix - iy : ix >= 0 ? -1 : iy >= 0 ? 1 : naturalCompare(x, y);
    });
  }
  let out: Expr | undefined;
  for (const name of names) {
    const k = a.terms[name]!;
    if (k === 0) continue;
    const mag = Math.abs(k);
    const term: Expr = mag === 1 ? v(name) : coefficientAfter ? arith("*", v(name), c(mag)) : arith("*", c(mag), v(name));
    if (out !== undefined) out = arith(k < 0 ? "-" : "+", out, term);
    // A leading negative term: `-i`, `-2*i` (a negative coefficient), `-(i*2)`.
    else out = k > 0 ? term : mag === 1 || coefficientAfter ? { kind: "neg", operand: term } : arith("*", c(k), v(name));
  }
  if (out === undefined) return c(a.constant);
  if (a.constant === 0) return out;
  return arith(a.constant < 0 ? "-" : "+", out, c(Math.abs(a.constant)));
}

/** Terms by name (`i_inner + 16*i_outer`), as footprints and transformations write them. */
export const NATURAL_ORDER: AffToExprOptions = Object.freeze({ order: "natural" });

/** `affToExpr` with the form's own term order. */
export const affToReadableExpr = (a: Aff): Expr => affToExpr(a);

/**
 * A bound from `dimBounds` as an expression: a lower bound `ceil(aff/d)` as `(aff + d - 1)//d`,
 * an upper bound `floor(aff/d)` as `aff//d` (`//` floors, so both are exact for any sign).
 */
export function boundToExpr(b: Bound, lower: boolean): Expr {
  if (b.denom === 1) return affToExpr(b.aff);
  return arith("//", affToExpr(lower ? { terms: b.aff.terms, constant: b.aff.constant + b.denom - 1 } : b.aff), c(b.denom));
}
