/**
 * What a fetch store (transforms/fetch-store.ts) must not break: no write race on a shared
 * temporary, one footprint for all the work-items that fill it, and the nosync promises of the
 * readers it stands in for.
 */
import { TransformError } from "../src/errors.js";
import { addressSpaceOf } from "../src/analysis/index.js";
import { findTemporary, freeVariables, insnReadsWithBounds, type Instruction, type Kernel } from "../src/ir/index.js";
import { insnById } from "./common.js";

/** The nosync entries of `readers` that name one of `writers` (deduplicated). */
export function noSyncOf(k: Kernel, readers: readonly string[], writers: readonly string[]): Instruction["noSyncWith"] {
  if (writers.length === 0) return [];
  const out = new Map<string, Instruction["noSyncWith"][number]>();
  for (const r of readers) {
    for (const ns of k.instructions.find((i) => i.id === r)?.noSyncWith ?? []) if (writers.includes(ns.id)) out.set(`${ns.id}/${ns.scope}`, ns);
  }
  return [...out.values()];
}

/**
 * Write races of a fetch store into a shared (local or global) temporary: the store runs within a
 * parallel iname (l, ilp, ilp.seq, vec; g for global) that does not index the temporary and its value depends on
 * that iname, so work-items write different values to one cell. Redundant writes of one value (the
 * value does not use the iname) are no race, as in loopy (a warning there).
 */
export function checkStoreRace(k: Kernel, insnId: string, tempName: string, space: "local" | "global", name: string, who: string): void {
  const store = insnById(k, insnId);
  if (store === undefined || store.kind !== "assign") return;
  const indexed = new Set<string>();
  if (store.lhs.kind === "subscript") for (let i = 0; i < store.lhs.indices.length; i++) freeVariables(store.lhs.indices[i]!, indexed);
  const value = freeVariables(store.rhs);
  for (let i = 0; i < store.predicates.length; i++) freeVariables(store.predicates[i]!, value);
  // The lanes of an ilp, ilp.seq or vec iname are parallel (loopy's ILP; realizeIlp treats all
  // three as lanes): the store may run for all lanes before a reader runs for any (it does when the reader sits in a reduction loop, which
  // nests outside the lanes), so one cell written within them is a race too, unless the
  // temporary is one work-item's own (a local one that no work-item shares, as no instruction
  // using it runs on work-items), which realizeIlp gives one copy per lane, as a private one.
  let onWorkItems = false;
  for (let x = 0; space === "local" && x < k.instructions.length && !onWorkItems; x++) {
    const i = k.instructions[x]!;
    if (i.id !== insnId && !i.dependsOn.includes(insnId)) continue;
    for (let j = 0; j < i.withinInames.length && !onWorkItems; j++) {
      const t = k.inameTags[i.withinInames[j]!]?.kind;
      onWorkItems = t === "l" || t === "l.auto";
    }
  }
  const racing: string[] = [];
  for (let x = 0; x < store.withinInames.length; x++) {
    const o = store.withinInames[x]!;
    const t = k.inameTags[o]?.kind;
    const lanes = (t === "ilp" || t === "ilp.seq" || t === "vec") && (space === "global" || onWorkItems);
    const parallel = t === "l" || t === "l.auto" || lanes || (space === "global" && t === "g");
    if (parallel && !indexed.has(o) && value.has(o)) racing.push(o);
  }
  if (racing.length > 0) {
    throw new TransformError(`${who}: temporary "${tempName}" cannot be made ${space} because a write race across the iname(s) ${racing.join(", ")} would emerge: ` +
      `instruction "${insnId}" runs within ${racing.length > 1 ? "them" : "it"} (the footprint of ${name} depends on ${racing.length > 1 ? "them" : "it"}) but does not index ${tempName} by ${racing.length > 1 ? "them" : "it"}; ` +
      `add ${racing.join(", ")} to the sweep inames, or use the private address space`);
  }
}

/**
 * A fetch into local or global memory is filled by work-items together, each storing some cells
 * of one footprint. Its bounds and guards must be the same for all of them: a private temporary
 * read there (a loop bound `[s] -> {[r]: r < s}` set per work-item) gives each work-item its own
 * footprint, and the cells some of them need are filled by none (the fuzzer's privateBounds
 * kernel: NaN on the interpreter and every target). Refused, naming the temporary.
 */
export function checkSharedFetchUniform(k: Kernel, storeId: string, tempName: string, who: string): void {
  // Only a private temporary is refused: where no other temporary can be one (every space given,
  // none private: a sweep's second fetch beside the first), the store's reads are not walked.
  let shared = true;
  for (let i = 0; i < k.temporaries.length && shared; i++) {
    const t = k.temporaries[i]!;
    shared = t.name === tempName || (t.addressSpace !== "auto" && t.addressSpace !== "private");
  }
  if (shared) return;
  const store = insnById(k, storeId);
  if (store === undefined) return;
  for (const n of insnReadsWithBounds(k, store)) {
    const t = findTemporary(k, n);
    if (t === undefined || t.name === tempName || addressSpaceOf(k, t) !== "private") continue;
    throw new TransformError(`${who}: the fetch into "${tempName}" is filled by work-items together, but its bounds or guards read the private temporary "${n}", ` +
      `which each work-item sets for itself: each would fetch its own footprint, and cells others need would stay unfilled. ` +
      `Fetch into private memory (temporaryAddressSpace "private"), or bound the loops by arguments instead of "${n}"`);
  }
}
