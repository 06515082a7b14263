/**
 * The bounding box of a footprint (ALGORITHMS.md §2): per axis, the faces that hold in every piece
 * and the tightest base and extent; the box as a set; and whether the footprint is its box.
 */
import { LoomError } from "../errors.js";
import { affToExpr, NATURAL_ORDER, type Expr } from "../ir/index.js";
import {
  aff, affAdd, affIsConstant, affScale, affSub, dimBounds, intersect, isEmptyWith, isSubset,
  projectOut, universe, addConstraints, contentMemo, memoized, setContentId, type Aff, type BasicSet,
} from "../poly/index.js";
import { FootprintError } from "./footprint-piece.js";

/** One axis of the bounding box: `base <= index <= base + extent - 1`. */
export interface BoxAxis {
  /** Affine in the fixed inames and the kernel's parameters. */
  readonly base: Expr;
  readonly baseAff: Aff;
  /** A number when constant; otherwise an expression in the fixed inames and parameters. */
  readonly extent: number | Expr;
  readonly extentAff: Aff;
  /** Every lower / upper bound of the index that holds in all accesses (the box's faces). */
  readonly lowers: readonly Aff[];
  readonly uppers: readonly Aff[];
}

/** The box of a footprint's pieces over `dims`. */
export interface FootprintBox {
  readonly box: readonly BoxAxis[];
  /** The box as a basic set over `dims`: every face of `box`. */
  readonly boxSet: BasicSet;
  /** Whether the footprint equals its bounding box (one piece, and the box adds no point). */
  readonly isBox: boolean;
}

/**
 * The bounding box of `pieces` (non-empty, over `dims`). A function of the pieces' content and the
 * dims: remembered by content, as the pieces are (a variant rebuilt, or the same reads fetched
 * again, asks with new objects).
 *
 *   footprintBox([parseSet("[i_outer] -> { [a_index0]: 16*i_outer <= a_index0 < 16*i_outer + 16 }")], ["a_index0"]).box[0].extent   // 16
 */
export function footprintBox(pieces: readonly BasicSet[], dims: readonly string[]): FootprintBox {
  let boxKey = dims.join(",");
  for (const p of pieces) boxKey += `|${setContentId(p)}`;
  return memoized(boxMemo, boxKey, () => boxOf(pieces, dims));
}

const boxMemo = contentMemo<FootprintBox>();

/** The content of `a` whatever the order of its terms (faces found in different pieces compare equal). */
function affKeyOf(a: Aff): string {
  const names = Object.keys(a.terms);
  if (names.length > 1) names.sort();
  let k = "";
  for (const n of names) k += `${n}:${a.terms[n]},`;
  return k + a.constant;
}

/** The bounding box of a union of pieces along `dim`: faces valid for every piece, and the tightest base/extent. */
function boxAxis(pieces: readonly BasicSet[], dim: string, axis: number): BoxAxis {
  const lowers = new Map<string, Aff>();
  const uppers = new Map<string, Aff>();
  for (const p of pieces) {
    const b = dimBounds(p, dim, []);
    for (const l of b.lower) if (l.denom === 1) lowers.set(affKeyOf(l.aff), l.aff);
    for (const u of b.upper) if (u.denom === 1) uppers.set(affKeyOf(u.aff), u.aff);
  }
  const x = aff({ [dim]: 1 });
  // L is a face when no piece has a point with index < L; U when none has one with index > U.
  // The bounds of a lone piece hold in it by construction: no emptiness test needed.
  const one = pieces.length === 1;
  const validL = [...lowers.values()].filter((L) => one || pieces.every((p) => isEmptyWith(p, affSub(affSub(L, x), aff({}, 1)))));
  const validU = [...uppers.values()].filter((U) => one || pieces.every((p) => isEmptyWith(p, affSub(affSub(x, U), aff({}, 1)))));
  if (validL.length === 0 || validU.length === 0) {
    throw new FootprintError(`axis ${axis} of the footprint has no ${validL.length === 0 ? "lower" : "upper"} bound affine in the fixed inames and parameters`);
  }
  let best: { L: Aff; size: Aff } | undefined;
  for (const L of validL) {
    for (const U of validU) {
      const size = affAdd(affSub(U, L), aff({}, 1));
      const better = !best
        || (affIsConstant(size) && (!affIsConstant(best.size) || size.constant < best.size.constant));
      if (better) best = { L, size };
    }
  }
  const { L, size } = best!;
  return {
    base: affToExpr(L, NATURAL_ORDER), baseAff: L,
    extent: affIsConstant(size) ? Math.max(0, size.constant) : affToExpr(size, NATURAL_ORDER), extentAff: size,
    lowers: validL, uppers: validU,
  };
}

/** The bounding box of the pieces, as axes and as a set, and whether it is the (one) piece itself. */
function boxOf(pieces: readonly BasicSet[], dims: readonly string[]): FootprintBox {
  const box = dims.map((d, r) => boxAxis(pieces, d, r));
  const params = [...new Set(pieces.flatMap((p) => p.params))];
  const faces = box.flatMap((b, r) => [
    ...b.lowers.map((L) => ({ aff: affSub(aff({ [dims[r]!]: 1 }), L), eq: false })),
    ...b.uppers.map((U) => ({ aff: affSub(U, aff({ [dims[r]!]: 1 })), eq: false })),
  ]);
  const boxSet = addConstraints(universe(params, dims), faces);
  let isBox = false;
  if (pieces.length === 1 && boxByFaces(pieces[0]!, faces)) isBox = true;
  else if (pieces.length === 1) {
    const p = pieces[0]!;
    const ctx = projectOut(p, dims);
    try {
      isBox = isSubset(intersect(boxSet, ctx), p);
    } catch (e) {
      // Containment in a set with general existentials is undecided here: treat it as not a box.
      if (!(e instanceof LoomError)) throw e;
    }
  }
  return Object.freeze({ box: Object.freeze(box), boxSet, isBox });
}

/**
 * Whether a piece is its box without a containment test: every row that involves an index
 * dimension is a bound of one dimension with coefficient ±1, without existentials, that is a face
 * of the box (then the box, within the piece's own parameter constraints, is the piece; those may
 * have existentials, as `n mod 64 = 0` does).
 */
function boxByFaces(p: BasicSet, faces: readonly { aff: Aff; eq: boolean }[]): boolean {
  const keys = new Set(faces.map((f) => affKeyOf(f.aff)));
  const names = [...p.params, ...p.dims];
  const np = p.params.length;
  for (const con of p.constraints) {
    let dimsIn = 0;
    let unit = true;
    for (let j = np; j < names.length; j++) {
      const x = con.coeffs[j]!;
      if (x !== 0) {
        dimsIn++;
        if (x !== 1 && x !== -1) unit = false;
      }
    }
    // Rows over parameters and existentials only (`n mod 64 = 0`) say when the piece exists.
    if (dimsIn === 0) continue;
    if (dimsIn > 1 || !unit) return false;
    for (let j = names.length; j < con.coeffs.length; j++) if (con.coeffs[j] !== 0) return false;
    const terms: Record<string, number> = {};
    con.coeffs.forEach((x, j) => {
      if (x !== 0 && j < names.length) terms[names[j]!] = x;
    });
    const a = aff(terms, con.constant);
    if (con.eq ? !(keys.has(affKeyOf(a)) && keys.has(affKeyOf(affScale(a, -1)))) : !keys.has(affKeyOf(a))) return false;
  }
  return true;
}
