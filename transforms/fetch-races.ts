/**
 * What a fetch store (transforms/fetch-store.ts) must not break: no write race on a shared
 * temporary, and the nosync promises of the readers it stands in for.
 */
import { TransformError } from "../src/errors.js";
import { freeVariables, type Instruction, type Kernel } from "../src/ir/index.js";

/** The nosync entries of `readers` that name one of `writers` (deduplicated). */
export function noSyncOf(k: Kernel, readers: readonly string[], writers: readonly string[]): Instruction["noSyncWith"] {
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
  const store = k.instructions.find((i) => i.id === insnId);
  if (store === undefined || store.kind !== "assign") return;
  const indexed = new Set<string>();
  if (store.lhs.kind === "subscript") for (const e of store.lhs.indices) freeVariables(e, indexed);
  const value = freeVariables(store.rhs);
  for (const p of store.predicates) freeVariables(p, value);
  // The lanes of an ilp, ilp.seq or vec iname are parallel (loopy's ILP; realizeIlp treats all
  // three as lanes): the store may run for all lanes before a reader runs for any (it does when the reader sits in a reduction loop, which
  // nests outside the lanes), so one cell written within them is a race too, unless the
  // temporary is one work-item's own (a local one that no work-item shares, as no instruction
  // using it runs on work-items), which realizeIlp gives one copy per lane, as a private one.
  const onWorkItems = space === "local" && k.instructions.some((i) => (i.id === insnId || i.dependsOn.includes(insnId)) &&
    i.withinInames.some((n) => k.inameTags[n]?.kind === "l" || k.inameTags[n]?.kind === "l.auto"));
  const racing = store.withinInames.filter((o) => {
    const t = k.inameTags[o]?.kind;
    const lanes = (t === "ilp" || t === "ilp.seq" || t === "vec") && (space === "global" || onWorkItems);
    const parallel = t === "l" || t === "l.auto" || lanes || (space === "global" && t === "g");
    return parallel && !indexed.has(o) && value.has(o);
  });
  if (racing.length > 0) {
    throw new TransformError(`${who}: temporary "${tempName}" cannot be made ${space} because a write race across the iname(s) ${racing.join(", ")} would emerge: ` +
      `instruction "${insnId}" runs within ${racing.length > 1 ? "them" : "it"} (the footprint of ${name} depends on ${racing.length > 1 ? "them" : "it"}) but does not index ${tempName} by ${racing.length > 1 ? "them" : "it"}; ` +
      `add ${racing.join(", ")} to the sweep inames, or use the private address space`);
  }
}

