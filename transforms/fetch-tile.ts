/**
 * A fetch's footprint and store domain known by construction (issue 21), for the common case: one
 * read whose every index is `g(fixed inames, parameters) + s` for its own sweep iname `s`, each
 * sweep iname ranging over constants `lo <= s <= hi` in the iteration domain, its other rows
 * bounding `s + g` by parameters alone (a split's `0 <= 16*i_outer + i_inner < n`). Then the
 * footprint is a box: along axis r, `g + lo <= index <= g + hi` and the parameter bounds, and the
 * store domain is `0 <= a_dim_r <= hi - lo`, when the other bounds are implied (the tile divides
 * the extent: a small exact question on the parameters, remembered by its content, which repeats
 * across a sweep's variants), and with `base + a_dim_r <= U` where one upper face U by parameters
 * alone is not (the last tile of a size that does not divide n: most of a sweep's variants). What
 * accessFootprint and storeDomain would compute for it with projections, a gist and memo keys of
 * whole domains, read off the rows instead.
 *
 * Anything else, or a bound that is not implied, takes the general route (undefined here): the
 * answers are the same either way (test/transforms/fetch-tile.test.ts compares both routes). The
 * answer is remembered by the rows it is read off (`rowsKey`): a sweep's variants that share the
 * fetched array's tile find it (test/transforms/fetch-tile-memo.test.ts).
 */
import { LoomError } from "../src/errors.js";
import { exprToAff, findAccesses, type Access, type BoxAxis } from "../src/analysis/index.js";
import { affToExpr, domainChain, findArg, findTemporary, freeVariables, iterationDomain, NATURAL_ORDER, naturalCompare, type Expr, type Kernel } from "../src/ir/index.js";
import {
  aff, affAdd, affIsConstant, affKey, affScale, affSub, contentMemo, intersect, isEmpty, memoized, setContentId, type Aff, type BasicSet,
} from "../src/poly/index.js";
import { isClipIntName } from "./fetch-clip.js";
import { insnById } from "./common.js";
import { isEmptyDomainUnder } from "./split-origin.js";
import { clipByFaces, otherFaces, usesIname } from "./fetch-tile-faces.js";

const tileRoute = { on: true, taken: 0 };

/** Tests: the footprint by construction on (default) or off (every fetch takes the general route). */
export function useTileFetch(on: boolean): void {
  tileRoute.on = on;
}

/** How many fetches took the route by construction (tests: the path is taken). */
export function tileFetches(): number {
  return tileRoute.taken;
}

/** What the general route would find, known before the loops the store runs within are chosen. */
export interface TileFootprint {
  /** The fixed inames the footprint depends on (the lean footprint's `dependsOn`). */
  readonly dependsOn: readonly string[];
  /** The footprint's bounding box (the full footprint's `box`): every extent a constant > 1. */
  readonly box: readonly BoxAxis[];
  /** The store domain's parameters before the outer inames: the domain's, then other names the indices use. */
  readonly params: readonly string[];
  /** The iteration domain's dims, in its order (the outer inames among them follow `params`). */
  readonly domDims: readonly string[];
  /**
   * Per axis, the upper face by parameters alone that the box's top does not imply (a tile that
   * does not divide the extent: `index <= n - 1`), or undefined: the store keeps
   * `base + a_dim <= face` as the general route's gist does (`tileStoreRows`).
   */
  readonly faces: readonly (Aff | undefined)[];
}

/** What the route needs of the store request. */
export interface TileRequest {
  readonly name: string;
  readonly insnIds: readonly string[];
  readonly sweep: readonly string[];
  /** The array's shape, when known (the clip). */
  readonly shape: readonly Expr[] | undefined;
  /** The reads of the array in every instruction (findAccesses), when known. */
  readonly accesses?: readonly Access[] | undefined;
}

/**
 * The footprint of the reads of `req.name` in `req.insnIds` over `req.sweep`, by construction
 * (see the module comment), or undefined: the general route decides.
 */
export function tileFootprint(k: Kernel, req: TileRequest, kernelInames: ReadonlySet<string>): TileFootprint | undefined {
  if (!tileRoute.on) return undefined;
  let accesses: readonly Access[];
  if (req.accesses === undefined) accesses = findAccesses(k, req.name, req.insnIds);
  else {
    // (Kept by a loop, not filter(): see fetch-store.ts's `stored`.)
    const kept: Access[] = [];
    for (let x = 0; x < req.accesses.length; x++) if (req.insnIds.includes(req.accesses[x]!.insnId)) kept.push(req.accesses[x]!);
    accesses = kept;
  }
  if (accesses.length !== 1) return undefined;
  const acc = accesses[0]!;
  // Affine predicates narrow the points where the read runs: the general route knows how.
  // (The reader and the names of index variables looked up here: the kernel's facts, factsOf,
  // would be built for this one question of a kernel a fetch makes anew.)
  if ((insnById(k, acc.insnId)?.predicates.length ?? 1) !== 0) return undefined;
  const isIndexVar = (n: string): boolean => {
    const arg = findArg(k, n);
    return !arg || arg.kind === "value" ? !findTemporary(k, n) : false;
  };
  const sweep = req.sweep;
  // The inames the reads use beyond the reader's own (acc.inames, sorted), when any.
  let extra: string[] | undefined;
  const gs: Aff[] = [];
  const sweepOf: string[] = [];
  const affs: Aff[] = [];
  for (let x = 0; x < acc.indices.length; x++) {
    const a = exprToAff(acc.indices[x]!, isIndexVar);
    if (!a) return undefined;
    affs.push(a);
    let s: string | undefined;
    const g: Record<string, number> = {};
    for (const n in a.terms) {
      if (kernelInames.has(n) && !acc.inames.includes(n)) (extra ??= []).push(n);
      if (sweep.includes(n)) {
        // One sweep iname per axis, with coefficient 1, and each on one axis only.
        if (s !== undefined || a.terms[n] !== 1 || sweepOf.includes(n)) return undefined;
        s = n;
      } else g[n] = a.terms[n]!;
    }
    if (s === undefined) return undefined;
    sweepOf.push(s);
    gs.push(aff(g, a.constant));
  }
  const inames = extra === undefined ? acc.inames : [...new Set([...acc.inames, ...extra])].sort(naturalCompare);
  // Most reads run in every loop of one domain that no other nests in: that domain is the
  // iteration domain, no chain or projection asked.
  const sole = soleDomain(k, inames);
  const chain = sole !== undefined ? [sole] : domainChain(k, inames);
  const D = sole !== undefined ? k.domains[sole]! : iterationDomain(k, inames, chain);
  if (D.exists.length > 0) return undefined;
  const key = tileMemo.on ? rowsKey(k, D, chain, sweepOf, affs, req.shape, kernelInames) : undefined;
  if (key !== undefined) tileMemo.asked++;
  const fp = key === undefined
    ? fromRows(k, D, chain, sweepOf, gs, affs, req.shape, kernelInames)
    : memoized(tileAnswers, key, () => (tileMemo.read++, { fp: fromRows(k, D, chain, sweepOf, gs, affs, req.shape, kernelInames) })).fp;
  if (fp !== undefined) tileRoute.taken++;
  return fp;
}

/**
 * The index of the domain whose dims are exactly `inames` (distinct), where it is their chain
 * alone (no parameter of it is an iname, and no later domain defines one of them, as domainChain
 * finds owners): then `iterationDomain(k, inames)` is that domain itself. Else undefined.
 */
function soleDomain(k: Kernel, inames: readonly string[]): number | undefined {
  if (inames.length === 0) return undefined;
  let idx = -1;
  for (let d = k.domains.length - 1; d >= 0 && idx < 0; d--) if (k.domains[d]!.dims.includes(inames[0]!)) idx = d;
  if (idx < 0) return undefined;
  const D = k.domains[idx]!;
  if (D.dims.length !== inames.length) return undefined;
  for (let i = 0; i < inames.length; i++) if (!D.dims.includes(inames[i]!)) return undefined;
  for (let d = 0; d < k.domains.length; d++) {
    const o = k.domains[d]!;
    if (d > idx) for (let i = 0; i < o.dims.length; i++) if (D.dims.includes(o.dims[i]!)) return undefined;
    for (let i = 0; i < D.params.length; i++) if (o.dims.includes(D.params[i]!)) return undefined;
  }
  return idx;
}

const tileMemo = { on: true, asked: 0, read: 0 };

/** Tests: tile footprints remembered by the content they are read off (default), or each read anew. */
export function useTileMemo(on: boolean): void {
  tileMemo.on = on;
}

/** Tests: how many tile footprints were asked of the memo, and how many of those were read off the rows (the others were found). */
export function tileMemoCounts(): { readonly asked: number; readonly read: number } {
  return { asked: tileMemo.asked, read: tileMemo.read };
}

const tileAnswers = contentMemo<{ readonly fp: TileFootprint | undefined }>();

/**
 * The content `fromRows` reads, as a key, where the iteration domain `D` is its chain's one
 * domain (no parameter of it is an iname: one would bring its domain into the chain; and `D` has
 * points exactly when `isEmptyDomainUnder` says so): the rows of `D` over a sweep iname (the only
 * rows it reads), each name with whether it is an iname, `D`'s parameters and dims (which it
 * returns), the sweep inames, the indices and which of their names are inames, the shape and
 * which of its names are integers (clipIntNames), the assumptions, and whether `D` has points.
 * A sweep's variants that share the fetched array's tile share those rows (the i-and-k rows of a
 * tiled matmul are the same for every j tile size) and the answer. Undefined where `D` is not
 * its chain's one domain (the rows are read anew).
 */
function rowsKey(
  k: Kernel, D: BasicSet, chain: readonly number[], sweepOf: readonly string[], affs: readonly Aff[], shape: readonly Expr[] | undefined,
  kernelInames: ReadonlySet<string>,
): string | undefined {
  if (chain.length !== 1 || k.domains[chain[0]!] !== D) return undefined;
  const np = D.params.length;
  const cols = columnsOf(D);
  const sCol = columnsAt(cols, sweepOf);
  // Each column's name as the key writes it (an iname marked), once per key rather than per row.
  const labels: string[] = [];
  for (let j = 0; j < cols.length; j++) labels.push(kernelInames.has(cols[j]!) ? `${cols[j]!}!:` : `${cols[j]!}:`);
  let key = `${D.params.join(",")}|${D.dims.join(",")}|${sweepOf.join(",")}|`;
  for (let x = 0; x < D.constraints.length; x++) {
    const con = D.constraints[x]!;
    let over = false;
    for (let j = 0; j < sCol.length; j++) if (sCol[j]! >= np && con.coeffs[sCol[j]!] !== 0) over = true;
    if (!over) continue;
    let row = con.eq ? "=" : ">";
    for (let j = 0; j < cols.length; j++) if (con.coeffs[j] !== 0) row += `${labels[j]}${con.coeffs[j]},`;
    key += `${row}${con.constant};`;
  }
  key += "|";
  for (const a of affs) {
    key += `${affKey(a)}:`;
    for (const n in a.terms) key += kernelInames.has(n) ? "1" : "0";
    key += ";";
  }
  if (shape !== undefined) {
    key += `|${shapeText(shape)}:`;
    for (const n of shapeNames(shape)) key += isClipIntName(k, kernelInames, n) ? "1" : "0";
  }
  // Asked before the rows are read (fromRows asks it last, where the faces hold): a refusal here
  // would refuse a fetch the general route makes, so it leaves the answer to fromRows.
  let empty: boolean;
  try {
    empty = isEmptyDomainUnder(D, k.assumptions);
  } catch (e) {
    if (e instanceof LoomError) return undefined;
    throw e;
  }
  return `${key}|${setContentId(k.assumptions)}|${empty ? "e" : "p"}`;
}

/** An array's shape as text, and the names it uses, per frozen shape (an argument's: the same object in every variant). */
const shapeFacts = new WeakMap<readonly Expr[], { readonly text: string; readonly names: readonly string[] }>();

function shapeFactsOf(shape: readonly Expr[]): { readonly text: string; readonly names: readonly string[] } {
  let f = shapeFacts.get(shape);
  if (f === undefined) {
    const names = new Set<string>();
    for (const e of shape) freeVariables(e, names);
    f = { text: JSON.stringify(shape), names: [...names] };
    if (Object.isFrozen(shape)) shapeFacts.set(shape, f);
  }
  return f;
}

const shapeText = (shape: readonly Expr[]): string => shapeFactsOf(shape).text;
const shapeNames = (shape: readonly Expr[]): readonly string[] => shapeFactsOf(shape).names;

/** The footprint read off the rows of `D` over the sweep inames (see the module comment), or undefined. */
function fromRows(
  k: Kernel, D: BasicSet, chain: readonly number[], sweepOf: readonly string[], gs: readonly Aff[], affs: readonly Aff[],
  shape: readonly Expr[] | undefined, kernelInames: ReadonlySet<string>,
): TileFootprint | undefined {
  const np = D.params.length;
  const cols = columnsOf(D);
  const sCol = columnsAt(cols, sweepOf);
  const lowers: Aff[][] = [];
  const uppers: Aff[][] = [];
  for (let x = 0; x < sCol.length; x++) {
    if (sCol[x]! < np) return undefined;
    lowers.push([]);
    uppers.push([]);
  }
  for (let x0 = 0; x0 < D.constraints.length; x0++) {
    const con = D.constraints[x0]!;
    let r = -1;
    for (let x = 0; x < sCol.length; x++) {
      if (con.coeffs[sCol[x]!] === 0) continue;
      if (r >= 0) return undefined;
      r = x;
    }
    if (r < 0) continue;
    const c = con.coeffs[sCol[r]!]!;
    if (con.eq || (c !== 1 && c !== -1)) return undefined;
    // The row is c*s + t >= 0; with s = index - g: c*index + rest >= 0, rest = t - c*g. Either t
    // uses no iname (a bound of s itself: a face g + lo of the box), or rest uses none (a bound of
    // index = s + g by parameters alone: a split's 0 <= 16*i_outer + i_inner < n).
    const terms: Record<string, number> = {};
    for (let j = 0; j < cols.length; j++) if (j !== sCol[r] && con.coeffs[j] !== 0) terms[cols[j]!] = con.coeffs[j]!;
    const t = aff(terms, con.constant);
    const rest = affSub(t, affScale(gs[r]!, c));
    if (usesIname(t, kernelInames) && usesIname(rest, kernelInames)) return undefined;
    // c = 1: index >= -rest; c = -1: index <= rest.
    if (c === 1) lowers[r]!.push(affSub(aff({}), rest));
    else uppers[r]!.push(rest);
  }
  const box: BoxAxis[] = [];
  for (let r = 0; r < sweepOf.length; r++) {
    const axis = boxAxisOf(gs[r]!, lowers[r]!, uppers[r]!);
    if (axis === undefined) return undefined;
    box.push(axis);
  }
  const faces = otherFaces(k, box, kernelInames);
  if (faces === undefined) return undefined;
  if (shape !== undefined && shape.length === box.length && !clipByFaces(k, shape, box, kernelInames)) return undefined;
  // The general route refuses a footprint of no point (no access runs): it decides that one. D
  // projects its chain; a chain of one domain has points when that domain has (asked of the
  // domain it was split from, whose content a sweep's variants share).
  if (chain.length === 1 ? isEmptyDomainUnder(k.domains[chain[0]!]!, k.assumptions) : isEmpty(k.assumptions.constraints.length > 0 ? intersect(D, k.assumptions) : D)) return undefined;
  const dependsOn = new Set<string>();
  for (let r = 0; r < box.length; r++) {
    const fs = box[r]!.lowers;
    for (let x = 0; x < fs.length; x++) for (const n in fs[x]!.terms) if (kernelInames.has(n)) dependsOn.add(n);
    const us = box[r]!.uppers;
    for (let x = 0; x < us.length; x++) for (const n in us[x]!.terms) if (kernelInames.has(n)) dependsOn.add(n);
  }
  const params = [...D.params];
  for (const a of affs) for (const n in a.terms) if (!D.dims.includes(n) && !params.includes(n)) params.push(n);
  return Object.freeze({ dependsOn: Object.freeze([...dependsOn].sort(naturalCompare)), box: Object.freeze(box), params: Object.freeze(params), domDims: D.dims, faces: Object.freeze(faces) });
}

/** A set's columns: its parameters, then its dims (built by push: see fetch-store.ts's `stored`). */
function columnsOf(D: BasicSet): string[] {
  const cols: string[] = [];
  for (let j = 0; j < D.params.length; j++) cols.push(D.params[j]!);
  for (let j = 0; j < D.dims.length; j++) cols.push(D.dims[j]!);
  return cols;
}

/** The column of each name (-1: none). */
function columnsAt(cols: readonly string[], names: readonly string[]): number[] {
  const out: number[] = [];
  for (let j = 0; j < names.length; j++) out.push(cols.indexOf(names[j]!));
  return out;
}

/**
 * The box axis of faces `lowers` / `uppers` (index >= L, index <= U) as the general route picks it
 * (footprint.ts's boxAxis): the pair of least constant size. Undefined unless that pair is one and
 * only one, made of the sweep iname's own bounds (`g + lo`, `g + hi`), of size > 1.
 */
function boxAxisOf(g: Aff, lowers: readonly Aff[], uppers: readonly Aff[]): BoxAxis | undefined {
  let best: { L: Aff; U: Aff; size: number } | undefined;
  let ties = 0;
  for (const L of lowers) {
    for (const U of uppers) {
      const size = affAdd(affSub(U, L), aff({}, 1));
      if (!affIsConstant(size)) continue;
      if (best === undefined || size.constant < best.size) {
        best = { L, U, size: size.constant };
        ties = 0;
      } else if (size.constant === best.size) ties++;
    }
  }
  if (best === undefined || ties > 0 || best.size <= 1) return undefined;
  // The pair must be g's: its difference from g is a constant (the sweep iname's constant bounds).
  if (!affIsConstant(affSub(best.L, g)) || !affIsConstant(affSub(best.U, g))) return undefined;
  return {
    base: affToExpr(best.L, NATURAL_ORDER), baseAff: best.L,
    extent: best.size, extentAff: affAdd(affSub(best.U, best.L), aff({}, 1)),
    lowers, uppers,
  };
}
