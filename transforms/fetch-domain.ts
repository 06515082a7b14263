/**
 * The domain of a fetch's store (transforms/fetch-store.ts): its footprint shifted to the new
 * inames and gisted in the context of its outer loops, the predicates that keep it inside the
 * array, and those that tie a new iname to an outer loop.
 */
import { LoomError } from "../src/errors.js";
import { exprToAff, type Footprint } from "../src/analysis/index.js";
import { iterationDomain, uniqueName, type Expr, type Kernel } from "../src/ir/index.js";
import {
  aff, addConstraints, affKey, contentMemo, memoized, setContentId, eliminateExact, gist, intersect, isSubset, moveToParams, projectOut, rename, shiftDims,
  type Aff, type BasicSet, type Constraint,
} from "../src/poly/index.js";
import { clipIntNames, clipPredicates } from "./fetch-clip.js";
import { constraintExpr } from "./fetch-widen.js";

const outerContext = { shortcut: true, taken: 0 };

/**
 * Tests: whether a store whose domain is a piece of its footprint skips intersecting its context
 * with the outer inames' own domain (on, the default; see storeDomain) or takes that route too.
 */
export function useOuterContextShortcut(on: boolean): void {
  outerContext.shortcut = on;
}

/** How many stores took the shortcut (tests: the path is taken). */
export function outerContextShortcuts(): number {
  return outerContext.taken;
}

/** What storeDomain needs of the store besides the kernel and the footprint. */
export interface StoreDomainArgs {
  readonly boundingBox: boolean;
  /** Every name in use: existentials are renamed apart from them. */
  readonly taken: ReadonlySet<string>;
  /** The new inames, one per stored axis `stored[j]` of the footprint. */
  readonly dimNames: readonly string[];
  readonly stored: readonly number[];
  /** `0 <= n <= extent - 1` for the new iname `n` of footprint axis `r`. */
  readonly bounds: (n: string, r: number) => { aff: Aff; eq: boolean }[];
  /** The inames the store runs within. */
  readonly outer: readonly string[];
  /** The array's shape, when known: the store never reads outside it. */
  readonly shape: readonly Expr[] | undefined;
  readonly kernelInames: ReadonlySet<string>;
}

/** The store's domain, its clip predicates and the predicates moved out of its domain (see the module comment). */
export function storeDomain(k: Kernel, fp: Footprint, a: StoreDomainArgs): StoreDomain {
  const { taken, dimNames, stored, bounds } = a;
  // The domain of the new inames: the footprint shifted to start at 0, exactly (as loopy fetches
  // its footprint unless fetch_bounding_box; a triangle's fetch reads no element outside it, short
  // of a stride, see withoutStrides), or its box when asked (boundingBox) or when the footprint is
  // a union of pieces that none of them holds (a stencil's shifted reads), which one basic set
  // cannot. The temporary has the box's shape either way, and the reads' offsets are the box's base.
  const whole = a.boundingBox ? undefined : fp.isBox ? fp.set[0] : pieceHoldingAll(fp.set);
  let dom: BasicSet = whole === undefined ? fp.boxSet : fp.isBox ? whole : withoutStrides(whole, fp.boxSet);
  const isPiece = outerContext.shortcut && whole !== undefined && dom === whole;
  if (isPiece) outerContext.taken++;
  // Existentials renamed apart from the new inames (constraints name columns, existentials included).
  const exRename: Record<string, string> = {};
  for (const e of dom.exists) if (taken.has(e) || dimNames.includes(e)) exRename[e] = uniqueName(`${e}_ex`, new Set([...taken, ...dom.exists, ...dimNames]));
  const boundRows = dimNames.flatMap((n, j) => bounds(n, stored[j]!));
  // Where the domain is the piece itself, the answer is a function of the footprint's content and
  // of the few facts of the kernel that pieceDomainKey lists: a sweep's variants that share a tile
  // ask again with new objects.
  const key = isPiece && storeDomainMemo.on ? pieceDomainKey(k, fp, a, exRename, boundRows) : undefined;
  if (key === undefined) return computeStoreDomain(k, fp, a, dom, isPiece, exRename, boundRows);
  const known = pieceDomains.get(key);
  if (known !== undefined) {
    storeDomainMemo.hits++;
    return known;
  }
  return memoized(pieceDomains, key, () => computeStoreDomain(k, fp, a, dom, isPiece, exRename, boundRows));
}

/** storeDomain's work, from the domain chosen (a piece, or the box) and the existentials' new names on. */
function computeStoreDomain(
  k: Kernel, fp: Footprint, a: StoreDomainArgs, dom: BasicSet, isPiece: boolean, exRename: Readonly<Record<string, string>>, boundRows: readonly { aff: Aff; eq: boolean }[],
): StoreDomain {
  const { dimNames, stored, bounds, outer, kernelInames } = a;
  if (Object.keys(exRename).length > 0) dom = rename(dom, exRename);
  // Each footprint index becomes base + new iname (or base alone, an axis not stored), with
  // 0 <= a_dim_j < extent, the new inames the dimensions (shiftDims: one normalization).
  dom = shiftDims(dom, fp.dims.map((d, r) => {
    const j = stored.indexOf(r);
    return { dim: d, base: fp.box[r]!.baseAff, to: j >= 0 ? dimNames[j]! : undefined };
  }), boundRows);
  // Constraints on the parameters alone say when a reader runs, not what to fetch.
  // So are those the outer inames' own domain (the loops around the store) implies.
  //
  // Where the store's domain is a piece of the footprint itself (not its box, nor a piece
  // without its strides), that domain adds nothing: every outer iname among the piece's
  // parameters was a dimension of the iteration domain D the piece projects (accessPiece's
  // `used`: the access's inames), so the piece's projection onto the parameters lies inside D's
  // projection onto them, which lies inside the outer inames' own iteration domain (D's chain
  // holds theirs: a chain of more domains is an intersection of more sets). Shifting the
  // indices and bounding the new inames only narrows it. And the piece holds the assumptions
  // (computeAccessPiece intersects them). So ctx is the same set either way, and gist and the
  // clip's emptiness tests are exact (they depend on ctx's points, not its rows): skipping the
  // outer domain (a projection of each new variant's domain) changes no answer.
  let ctx: BasicSet | undefined;
  if (dimNames.length > 0) {
    ctx = projectOut(dom, dimNames);
    const outerHere = isPiece ? [] : outer.filter((o) => ctx!.params.includes(o));
    if (outerHere.length > 0) ctx = intersect(ctx, moveToParams(iterationDomain(k, outerHere), outerHere));
    if (!isPiece && k.assumptions.constraints.length > 0) ctx = intersect(ctx, k.assumptions);
    dom = gist(dom, ctx);
  }
  dom = projectOutStray(dom, new Set(outer), kernelInames);
  // The store never reads outside the array: each bound of the shape that the store's domain
  // (in the context of its outer loops) does not imply becomes a predicate.
  const clip = a.shape !== undefined && a.shape.length === fp.box.length
    ? clipPredicates(k, a.shape, fp.box, stored, dimNames, dom, ctx, kernelInames)
    : [];
  const moved = moveLoopTies(k, dom, outer, dimNames.flatMap((n, j) => bounds(n, stored[j]!)));
  return Object.freeze({ dom: moved.dom, clip: Object.freeze(clip), predicates: Object.freeze(moved.predicates) });
}

/**
 * Constraints of a store's domain `dom` that tie a new iname to an outer iname that is a loop (not
 * a g iname) become predicates of the store: in the domain they would make that loop's bounds
 * depend on the new (often local) inames, and a loop with a barrier in it must be the same for all
 * work-items. `boundRows`: the new inames' own bounds, restored where rows were moved (a gist may
 * have dropped them as implied by the moved rows). Shared by both routes of a fetch (fetch-tile.ts).
 */
export function moveLoopTies(k: Kernel, dom: BasicSet, outer: readonly string[], boundRows: readonly { aff: Aff; eq: boolean }[]): { dom: BasicSet; predicates: Expr[] } {
  const predicates: Expr[] = [];
  const loopOuter = new Set(outer.filter((o) => k.inameTags[o]?.kind !== "g"));
  const np = dom.params.length;
  const nd = dom.dims.length;
  const keep: Constraint[] = [];
  const moved: Constraint[] = [];
  for (const con of dom.constraints) {
    const hasEx = con.coeffs.some((x, j) => j >= np + nd && x !== 0);
    const tiesLoop = con.coeffs.some((x, j) => j < np && x !== 0 && loopOuter.has(dom.params[j]!));
    const hasDim = con.coeffs.some((x, j) => j >= np && j < np + nd && x !== 0);
    (tiesLoop && hasDim && !hasEx ? moved : keep).push(con);
  }
  if (moved.length === 0) return { dom, predicates };
  const names = [...dom.params, ...dom.dims];
  for (const con of moved) {
    const terms: Record<string, number> = {};
    con.coeffs.forEach((x, j) => {
      if (x !== 0 && j < names.length) terms[names[j]!] = x;
    });
    predicates.push(constraintExpr(aff(terms, con.constant), con.eq));
  }
  return { dom: addConstraints({ ...dom, constraints: keep } as BasicSet, boundRows), predicates };
}

/** A store domain, its clip and its moved predicates (frozen: shared by every kernel that asks again). */
export interface StoreDomain {
  readonly dom: BasicSet;
  readonly clip: readonly Expr[];
  readonly predicates: readonly Expr[];
}

/** Store domains by content (see pieceDomainKey); emptied with the poly memos. */
const pieceDomains = contentMemo<StoreDomain>();

const storeDomainMemo = { on: true, hits: 0 };

/** Tests: storeDomain's memo of a piece's store domain on (default) or off (each computed anew). */
export function useStoreDomainMemo(on: boolean): void {
  storeDomainMemo.on = on;
}

/** How many store domains were found in that memo (tests: the path is taken). */
export function storeDomainMemoHits(): number {
  return storeDomainMemo.hits;
}

/**
 * The memo key of a store whose domain is a footprint piece (storeDomain's shortcut): everything
 * storeDomain then computes is a function of the footprint's content (its dims and pieces, of
 * which the box is a function, footprint.ts's boxMemo), the new inames, the axes they store and
 * their bounds, the renamed existentials, the outer inames and which of them are g inames (the
 * others' rows become predicates), which parameters of the pieces are inames (projected out where
 * not outer), the assumptions, and the shape's bounds as affine expressions in the integer names
 * (the clip). Undefined: no key (the answer is computed, not remembered).
 */
function pieceDomainKey(
  k: Kernel, fp: Footprint, a: StoreDomainArgs, exRename: Readonly<Record<string, string>>, boundRows: readonly { aff: Aff; eq: boolean }[],
): string | undefined {
  let key = `${fp.dims.join(",")}|`;
  for (const p of fp.set) key += `${setContentId(p)},`;
  key += `|${a.dimNames.join(",")}|${a.stored.join(",")}|`;
  for (const o of a.outer) key += `${o}${k.inameTags[o]?.kind === "g" ? "^g" : ""},`;
  key += "|";
  for (const e in exRename) key += `${e}>${exRename[e]},`;
  key += "|";
  for (const row of boundRows) key += `${row.eq ? "=" : ">"}${affKey(row.aff)};`;
  key += `|${setContentId(k.assumptions)}|`;
  for (const p of fp.set) for (const x of p.params) if (a.kernelInames.has(x)) key += `${x},`;
  key += "|";
  if (a.shape !== undefined) {
    const intNames = clipIntNames(k, a.kernelInames);
    for (const e of a.shape) {
      const x = exprToAff(e, (n) => intNames.has(n));
      key += x === undefined ? "?;" : `${affKey(x)};`;
    }
  } else key += "none";
  return key;
}

/**
 * The piece of a footprint that contains every other (the footprint itself: one piece, or reads
 * repeated, `a[i, j]*a[i, j]`), if any. Containment that cannot be decided (existentials that are
 * no floor definitions) counts as not contained.
 */
function pieceHoldingAll(pieces: readonly BasicSet[]): BasicSet | undefined {
  if (pieces.length === 1) return pieces[0];
  const holds = (p: BasicSet, q: BasicSet): boolean => {
    try {
      return isSubset(q, p);
    } catch (e) {
      if (e instanceof LoomError) return false;
      throw e;
    }
  };
  return pieces.find((p) => pieces.every((q) => q === p || holds(p, q)));
}

/**
 * A footprint piece (not its box) as the fetch's domain: the piece itself when no existential ties
 * its indices (`0 <= y <= x < 8`, a triangle), or when those existentials can be eliminated
 * exactly; otherwise (a strided read `a[2*i]`: `x = 2e`) the piece without the rows that tie an
 * index to an existential, within the box: a superset of the footprint without its stride. (The
 * CPU targets' lowerForCpu cannot guard a fetch iname whose domain has a stride where it shares a
 * hardware axis with the readers' inames, so a stride is not fetched exactly.)
 */
function withoutStrides(piece: BasicSet, box: BasicSet): BasicSet {
  const np = piece.params.length;
  const nd = piece.dims.length;
  const tiesIndex = (con: Constraint) => con.coeffs.some((x, j) => j >= np && j < np + nd && x !== 0) && con.coeffs.some((x, j) => j >= np + nd && x !== 0);
  if (!piece.constraints.some(tiesIndex)) return piece;
  const flat = eliminateExact(piece, piece.exists);
  if (flat.exact && flat.set.exists.length === 0) return flat.set;
  return intersect({ ...piece, constraints: piece.constraints.filter((con) => !tiesIndex(con)) } as BasicSet, box);
}

/** Project out parameters that are inames but not outer inames (cannot happen after projection; kept for safety). */
function projectOutStray(dom: BasicSet, outer: ReadonlySet<string>, inames: ReadonlySet<string>): BasicSet {
  const stray = dom.params.filter((p) => inames.has(p) && !outer.has(p));
  return stray.length > 0 ? projectOut(dom, stray) : dom;
}

