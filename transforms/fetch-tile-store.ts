/**
 * The store domain of a fetch whose footprint is known by construction (fetch-tile.ts): its
 * parameters once the store's outer inames are chosen, its rows (the new inames' bounds and the
 * faces the box's top does not imply), and the domain itself, remembered by content.
 */
import type { Expr, Kernel } from "../src/ir/index.js";
import { aff, affKey, affSub, addConstraints, contentMemo, memoized, universe, type Aff, type BasicSet } from "../src/poly/index.js";
import type { TileFootprint } from "./fetch-tile.js";
import { moveLoopTies } from "./fetch-domain.js";

/**
 * The rows of a tile store's domain (tileStoreDomain's `bounds`): each new iname's bounds
 * `boundsOf(j)`, then `base + a_dim <= face` for each axis whose upper face is not implied.
 */
export function tileStoreRows(
  tile: TileFootprint, dimNames: readonly string[], stored: readonly number[], boundsOf: (j: number) => { aff: Aff; eq: boolean }[],
): { aff: Aff; eq: boolean }[] {
  // (Built by push, not flatMap(): see fetch-store.ts's `stored`.)
  const rows: { aff: Aff; eq: boolean }[] = [];
  for (let j = 0; j < dimNames.length; j++) {
    const b = boundsOf(j);
    for (let x = 0; x < b.length; x++) rows.push(b[x]!);
  }
  for (let j = 0; j < dimNames.length; j++) {
    const r = stored[j]!;
    const face = tile.faces[r];
    if (face !== undefined) rows.push({ aff: affSub(affSub(face, tile.box[r]!.baseAff), aff({ [dimNames[j]!]: 1 })), eq: false });
  }
  return rows;
}

/**
 * The store domain's parameters once the store's outer inames are known, or undefined: unless
 * they are exactly the inames the footprint depends on, the general route decides. (Its domain is
 * then the new inames' bounds over these: the footprint's parameters, the outer inames in the
 * domain's order, the assumptions' others.)
 */
export function tileStoreParams(k: Kernel, tile: TileFootprint, outer: readonly string[], kernelInames: ReadonlySet<string>): string[] | undefined {
  if (outer.length !== tile.dependsOn.length) return undefined;
  for (let i = 0; i < tile.dependsOn.length; i++) if (!outer.includes(tile.dependsOn[i]!)) return undefined;
  const outerSet = new Set(outer);
  const params = [...tile.params];
  for (let i = 0; i < tile.domDims.length; i++) if (outerSet.has(tile.domDims[i]!)) params.push(tile.domDims[i]!);
  const ap = k.assumptions.params;
  if (k.assumptions.constraints.length > 0) for (let i = 0; i < ap.length; i++) if (!params.includes(ap[i]!)) params.push(ap[i]!);
  // A parameter that is an iname but not an outer one: the general route projects it out.
  if (params.some((p) => kernelInames.has(p) && !outerSet.has(p))) return undefined;
  return params;
}

/**
 * The store domain over `params` (tileStoreParams): the new inames' bounds alone. Remembered by
 * the names and the bounds (a sweep's variants that share a tile ask again): one object for one
 * content, which the tags of the new inames then find by identity (fetch-tags.ts).
 */
export function tileStoreDomain(params: readonly string[], dimNames: readonly string[], bounds: readonly { aff: Aff; eq: boolean }[]): BasicSet {
  let key = `${params.join(",")}|${dimNames.join(",")}|`;
  for (const b of bounds) key += `${b.eq ? "=" : ">"}${affKey(b.aff)};`;
  return memoized(storeDomains, key, () => addConstraints(universe(params, dimNames), bounds));
}

const storeDomains = contentMemo<BasicSet>();

/**
 * The store domain of a tile fetch (fetch-tile.ts) over `params`: the new inames' bounds, and the
 * faces the box's top does not imply, whose rows that tie a new iname to an outer loop become
 * predicates (moveLoopTies), as the general route's are.
 */
export function tileStore(
  k: Kernel, tile: TileFootprint, params: readonly string[], dimNames: readonly string[], stored: readonly number[], outer: readonly string[],
  boundsOf: (j: number) => { aff: Aff; eq: boolean }[],
): { dom: BasicSet; clip: Expr[]; predicates: Expr[] } {
  const dom = tileStoreDomain(params, dimNames, tileStoreRows(tile, dimNames, stored, boundsOf));
  let faces = false;
  for (let r = 0; r < tile.faces.length; r++) if (tile.faces[r] !== undefined) faces = true;
  if (!faces) return { dom, clip: [], predicates: [] };
  // A function of the domain (one object per content: its rows are the bounds re-added) and of
  // which outer inames are loops: a sweep's variants that share the tile ask again.
  const loops = outer.filter((o) => k.inameTags[o]?.kind !== "g").join(",");
  let byLoops = tieMemo.get(dom);
  if (byLoops === undefined) tieMemo.set(dom, (byLoops = new Map()));
  let moved = byLoops.get(loops);
  if (moved === undefined) byLoops.set(loops, (moved = moveLoopTies(k, dom, outer, dimNames.flatMap((_, j) => boundsOf(j)))));
  return { dom: moved.dom, predicates: [...moved.predicates], clip: [] };
}

const tieMemo = new WeakMap<BasicSet, Map<string, { dom: BasicSet; predicates: Expr[] }>>();
