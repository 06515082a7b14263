/**
 * The faces of a tile fetch's box (transforms/fetch-tile.ts) beyond its base and its top: whether
 * they are implied where the footprint has points (a small exact question on the parameters,
 * remembered by its content), and whether the array's shape needs a clip.
 */
import { exprToAff, type BoxAxis } from "../src/analysis/index.js";
import type { Expr, Kernel } from "../src/ir/index.js";
import { aff, affAdd, affKey, affSub, addConstraints, contentMemo, intersect, isEmptyWith, memoized, setContentId, universe, type Aff, type BasicSet } from "../src/poly/index.js";
import { boundByFace, isClipIntName } from "./fetch-clip.js";

/**
 * The faces of each axis other than its base and its top, where the footprint has points (per
 * axis, within the assumptions and `L <= U` for every pair of faces: an index exists): none may
 * have a lower face above the base; an upper face below the top somewhere is allowed once per
 * axis, by parameters alone (the last tile of a split whose size does not divide the extent), and
 * returned; the store domain then keeps `base + a_dim <= U` (the general route's gist keeps that
 * row, and `a_dim <= extent - 1` too, asked here: U - base is above it somewhere). Undefined:
 * anything else (the general route decides). Exact integer questions over a few names,
 * remembered by their content.
 */
export function otherFaces(k: Kernel, box: readonly BoxAxis[], kernelInames: ReadonlySet<string>): (Aff | undefined)[] | undefined {
  const out: (Aff | undefined)[] = [];
  for (let r = 0; r < box.length; r++) {
    const b = box[r]!;
    const top = affSub(affAdd(b.baseAff, aff({}, b.extent as number)), aff({}, 1));
    if (b.lowers.length + b.uppers.length <= 2) {
      out.push(undefined);
      continue;
    }
    let key = `${setContentId(k.assumptions)}|${affKey(b.baseAff)}|${affKey(top)}|`;
    for (const L of b.lowers) key += `${affKey(L)};`;
    key += "|";
    for (const U of b.uppers) key += `${affKey(U)};`;
    const { face } = memoized(impliedMemo, key, () => ({ face: facesImplied(k, b, top) }));
    if (face === false || (face !== true && usesIname(face, kernelInames))) return undefined;
    out.push(face === true ? undefined : face);
  }
  return out;
}

const impliedMemo = contentMemo<{ readonly face: boolean | Aff }>();

/** true: every other face implied; an upper face: that one alone is not (see otherFaces); false: the route does not hold. */
function facesImplied(k: Kernel, b: BoxAxis, top: Aff): boolean | Aff {
  const names = new Set<string>();
  for (const f of [...b.lowers, ...b.uppers]) for (const n in f.terms) names.add(n);
  for (const p of k.assumptions.params) names.delete(p);
  let ctx: BasicSet = universe([...k.assumptions.params, ...[...names].sort()], []);
  if (k.assumptions.constraints.length > 0) ctx = intersect(ctx, k.assumptions);
  const rows: { aff: Aff; eq: boolean }[] = [];
  for (const L of b.lowers) for (const U of b.uppers) rows.push({ aff: affSub(U, L), eq: false });
  ctx = addConstraints(ctx, rows);
  // A lower face L above the base somewhere: L - base - 1 >= 0; an upper face U below the top: top - U - 1 >= 0.
  for (const L of b.lowers) if (L !== b.baseAff && !isEmptyWith(ctx, affSub(affSub(L, b.baseAff), aff({}, 1)))) return false;
  let face: Aff | undefined;
  for (const U of b.uppers) {
    if (isEmptyWith(ctx, affSub(affSub(top, U), aff({}, 1)))) continue;
    if (face !== undefined) return false;
    face = U;
  }
  if (face === undefined) return true;
  // The top stays a row of the store's domain where the face is above it somewhere: U - top - 1 >= 0.
  return isEmptyWith(ctx, affSub(affSub(face, top), aff({}, 1))) ? false : face;
}

/** Whether each bound of the array's shape follows from a face (fetch-clip.ts): then the store needs no clip. */
export function clipByFaces(k: Kernel, shape: readonly Expr[], box: readonly BoxAxis[], kernelInames: ReadonlySet<string>): boolean {
  return box.every((b, r) => {
    const ext = exprToAff(shape[r]!, (n) => isClipIntName(k, kernelInames, n));
    return !ext || (boundByFace(b, "lower", ext) && boundByFace(b, "upper", ext));
  });
}

/** Whether `a` names an iname of the kernel. */
export function usesIname(a: Aff, kernelInames: ReadonlySet<string>): boolean {
  for (const n in a.terms) if (kernelInames.has(n)) return true;
  return false;
}
