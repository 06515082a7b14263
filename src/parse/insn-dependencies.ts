/**
 * Dependencies between instructions: loopy's single-writer heuristic (a read of a variable that
 * exactly one other instruction writes depends on that writer), explicit `dep=` lists with
 * fnmatch wildcards (`dep=*…` is exhaustive), `nosync=` and `seqDependencies`.
 */
import { globMatch, type NoSync } from "../ir/insn.js";
import { naturalCompare } from "../ir/print.js";
import type { Pattern } from "./attributes.js";
import type { InsnFacts } from "./inames.js";

/** The dependency-related facts of one instruction, in textual order. */
export interface DepFacts extends InsnFacts {
  readonly deps: readonly Pattern[];
  readonly depsFinal: boolean;
  readonly noSync: readonly (Pattern & { readonly scope: NoSync["scope"] })[];
}

/** Ids matched by `p` (an exact id, or a wildcard that may match several, never `self`). */
function resolve(p: Pattern, self: string, ids: readonly string[], attr: string): string[] {
  if (ids.includes(p.pattern)) {
    if (p.pattern === self) p.fail(`instruction "${self}" cannot depend on itself`, p.at);
    return [p.pattern];
  }
  const hits = ids.filter((id) => id !== self && globMatch(p.pattern, id));
  if (hits.length === 0) {
    p.fail(`unknown instruction id "${p.pattern}" in ${attr}=; ids are ${ids.join(", ") || "(none)"}`, p.at);
  }
  return hits;
}

/**
 * `dependsOn` and `noSyncWith` of every instruction. `variables` are the names that count for the
 * heuristic (arguments and temporaries).
 *
 *   dependencies(facts, new Set(["a", "t"]), false)  // Map { id => { dependsOn, noSyncWith } }
 */
export function dependencies(
  insns: readonly DepFacts[],
  variables: ReadonlySet<string>,
  seqDependencies: boolean,
): Map<string, { dependsOn: string[]; noSyncWith: NoSync[] }> {
  const ids = insns.map((f) => f.id);
  const writers = new Map<string, string[]>();
  for (const f of insns) if (f.writes !== undefined) writers.set(f.writes, [...(writers.get(f.writes) ?? []), f.id]);
  const out = new Map<string, { dependsOn: string[]; noSyncWith: NoSync[] }>();
  insns.forEach((f, idx) => {
    const deps = new Set<string>();
    if (!f.depsFinal) {
      for (const v of f.reads) {
        const ws = writers.get(v);
        if (variables.has(v) && ws?.length === 1 && ws[0] !== f.id) deps.add(ws[0]!);
      }
    }
    for (const p of f.deps) for (const id of resolve(p, f.id, ids, "dep")) deps.add(id);
    if (seqDependencies && idx > 0) deps.add(ids[idx - 1]!);
    const noSync: NoSync[] = [];
    for (const p of f.noSync) {
      for (const id of resolve(p, f.id, ids, "nosync")) {
        if (!noSync.some((n) => n.id === id && n.scope === p.scope)) noSync.push({ id, scope: p.scope });
      }
    }
    out.set(f.id, { dependsOn: [...deps].sort(naturalCompare), noSyncWith: noSync });
  });
  return out;
}
