/**
 * Renaming, duplicating and removing inames (loopy's rename_iname, duplicate_inames,
 * remove_unused_inames).
 */
import { LoomError, TransformError } from "../src/errors.js";
import {
  allInames, dependencyClosure, domainChain, domainIndexOf, freeVariables, insnReadsWithBounds, insnWrites, iterationDomain, uniqueName, v, withKernel,
  type Expr, type Instruction, type Kernel,
} from "../src/ir/index.js";
import { intersect, isEqualSet, projectOut, rename, reorderDims, substitute, aff, type BasicSet } from "../src/poly/index.js";
import { checkIname, inameList, matchInsns, takenNames, type InsnMatch, checkKernel, checkOptions } from "./common.js";
import { checkIdentifier, nameList, reductionsOf, rewriteKernel, usedInames } from "./rewrite.js";

export interface RenameOptions {
  /** Merge into an existing iname `newIname` (their domains must be equal). */
  readonly existingOk?: boolean;
  /**
   * Rename only in the instructions this match expression (or list) selects (loopy's within):
   * a fresh `newIname` is a copy of the old one with its tag (loopy's duplicate_inames with
   * preserve_tags), an existing one takes over those instructions; the old iname is removed when
   * nothing uses it any more.
   */
  readonly within?: InsnMatch;
}

export const RENAME_OPTIONS: Readonly<Record<keyof RenameOptions, true>> = { existingOk: true, within: true };

/**
 * Rename an iname everywhere (loopy's rename_iname): domains, instructions, reductions, rules,
 * tags, priorities. With `existingOk` and an existing iname `newIname`, the two are merged
 * (loopy: they must iterate over the same domain); `oldIname` then disappears.
 *
 *   renameIname(k, "i", "row")
 *   renameIname(fused, "i2", "i1", { existingOk: true })   // loop fusion
 */
export function renameIname(k: Kernel, oldIname: string, newIname: string, opts: RenameOptions = {}): Kernel {
  const who = "renameIname";
  checkKernel(k, who);
  opts = checkOptions(opts, who, RENAME_OPTIONS);
  checkIname(k, oldIname, who);
  checkIdentifier(newIname, `${who}: newIname`);
  if (newIname === oldIname) return k;
  if (opts.within !== undefined) return renameWithin(k, oldIname, newIname, opts, who);
  const taken = takenNames(k);
  const values = new Map<string, Expr>([[oldIname, v(newIname)]]);
  const r = { values, inames: new Map([[oldIname, [newIname]]]) };
  if (!taken.has(newIname)) {
    const domains = k.domains.map((d) => (d.dims.includes(oldIname) || d.params.includes(oldIname) ? rename(d, { [oldIname]: newIname }) : d));
    const renamed = rewriteKernel(k, r);
    const move = <T>(rec: Readonly<Record<string, T>> | undefined) =>
      Object.fromEntries(Object.entries(rec ?? {}).map(([i, t]) => [i === oldIname ? newIname : i, t]));
    return withKernel(renamed, { domains, inameTags: move(k.inameTags), inameSlabs: move(k.inameSlabs) });
  }
  if (!allInames(k).includes(newIname)) throw new TransformError(`${who}: "${newIname}" is already a name in kernel "${k.name}" (not an iname); choose another`);
  if (opts.existingOk !== true) throw new TransformError(`${who}: iname "${newIname}" already exists in kernel "${k.name}"; pass { existingOk: true } to merge "${oldIname}" into it`);
  checkMergeable(k, oldIname, newIname, who);
  const merged = rewriteKernel(k, r);
  const domains = merged.domains.map((d) => (d.params.includes(oldIname) ? substitute(d, oldIname, aff({ [newIname]: 1 })) : d));
  const oldIdx = domainIndexOf(k, oldIname);
  return dropDims(withKernel(merged, { domains }), oldIdx, [oldIname]);
}

/** renameIname in the instructions `within` selects: duplicate (fresh name) or merge (existing), then drop the old iname if unused. */
function renameWithin(k: Kernel, oldIname: string, newIname: string, opts: RenameOptions, who: string): Kernel {
  const ids = matchInsns(k, opts.within!, who);
  const users = [...ids].filter((id) => {
    const insn = k.instructions.find((i) => i.id === id)!;
    return [insn.withinInames, ...reductionsOf(insn)].some((u) => u.includes(oldIname));
  });
  if (users.length === 0) throw new TransformError(`${who}: no instruction that within ${JSON.stringify(opts.within)} selects (${[...ids].join(", ")}) uses "${oldIname}"`);
  const rule = k.substitutions.find((r) => !r.params.includes(oldIname) && freeVariables(r.expr).has(oldIname));
  if (rule) throw new TransformError(`${who}: substitution rule "${rule.name}" uses "${oldIname}"; with within, expand it first (expandSubst)`);
  const taken = takenNames(k);
  let out: Kernel;
  if (!taken.has(newIname)) {
    out = duplicateInames(k, oldIname, users, [newIname]);
    const tag = k.inameTags[oldIname];
    if (tag !== undefined) out = withKernel(out, { inameTags: { ...out.inameTags, [newIname]: tag } });
  } else {
    if (!allInames(k).includes(newIname)) throw new TransformError(`${who}: "${newIname}" is already a name in kernel "${k.name}" (not an iname); choose another`);
    if (opts.existingOk !== true) throw new TransformError(`${who}: iname "${newIname}" already exists in kernel "${k.name}"; pass { existingOk: true } to merge "${oldIname}" into it`);
    const userSet = new Set(users);
    checkMergeable(withKernel(k, { instructions: k.instructions.filter((i) => userSet.has(i.id)) }), oldIname, newIname, who);
    out = rewriteKernel(k, { values: new Map<string, Expr>([[oldIname, v(newIname)]]), inames: new Map([[oldIname, [newIname]]]) }, userSet);
  }
  const stillUsed = out.domains.some((d) => d.params.includes(oldIname)) || out.instructions.some((insn) => [insn.withinInames, ...reductionsOf(insn)].some((u) => u.includes(oldIname)));
  return stillUsed ? out : removeUnusedInames(out, [oldIname]);
}

/** Merging two inames is sound only where they iterate alike and no instruction uses both. */
function checkMergeable(k: Kernel, a: string, b: string, who: string): void {
  for (const insn of k.instructions) {
    const sets = [insn.withinInames, ...reductionsOf(insn)];
    if (sets.some((s) => s.includes(a)) && sets.some((s) => s.includes(b))) {
      throw new TransformError(`${who}: instruction "${insn.id}" uses both "${a}" and "${b}"; merging them would change what it computes`);
    }
  }
  const others = allInames(k).filter((i) => i !== a && i !== b);
  const chain = new Set(domainChain(k, [a, b]));
  const context = others.filter((i) => chain.has(domainIndexOf(k, i)));
  let same: boolean;
  try {
    const both = iterationDomain(k, [...context, a, b]);
    same = isEqualSet(rename(projectOut(both, [b]), { [a]: b }), projectOut(both, [a]));
  } catch (e) {
    if (!(e instanceof LoomError) || e instanceof TransformError) throw e;
    throw new TransformError(`${who}: cannot decide whether "${a}" and "${b}" iterate over the same domain (${e.message})`);
  }
  if (!same) throw new TransformError(`${who}: inames "${a}" and "${b}" do not iterate over the same domain; only equal domains can be merged`);
}

/** Project `names` out of domain `idx` exactly; a domain left without inames is dropped. */
function dropDims(k: Kernel, idx: number, names: readonly string[]): Kernel {
  const d = projectOut(k.domains[idx]!, names);
  const domains = d.dims.length === 0 ? k.domains.filter((_, i) => i !== idx) : k.domains.map((x, i) => (i === idx ? d : x));
  const gone = (i: string) => names.includes(i);
  const inameTags = Object.fromEntries(Object.entries(k.inameTags).filter(([i]) => !gone(i)));
  const inameSlabs = Object.fromEntries(Object.entries(k.inameSlabs ?? {}).filter(([i]) => !gone(i)));
  const loopPriority = k.loopPriority.map((p) => p.filter((i) => !gone(i))).filter((p) => p.length > 0);
  return withKernel(k, { domains, inameTags, inameSlabs, loopPriority });
}

/**
 * Give the instructions `within` selects their own copies of `inames` (loopy's duplicate_inames):
 * each copy is a new iname of the same domain with the same constraints. Default names are
 * uniquified from the old ones (`i` → `i_0`). The copies are untagged; the originals stay.
 *
 *   duplicateInames(k, "i", "id:store")          // store loops over i_0, the rest over i
 *   duplicateInames(k, ["i", "j"], ["a", "b"], ["ii", "jj"])
 */
export function duplicateInames(k: Kernel, inames: string | readonly string[], within: InsnMatch, newNames?: string | readonly string[]): Kernel {
  const who = "duplicateInames";
  checkKernel(k, who);
  const list = nameList(inames, `${who}: inames`);
  for (const i of list) checkIname(k, i, who);
  const ids = matchInsns(k, within, who);
  const taken = takenNames(k);
  const given = newNames === undefined ? undefined : nameList(newNames, `${who}: newNames`);
  if (given !== undefined && given.length !== list.length) {
    throw new TransformError(`${who}: newNames must have one name per iname (${list.length}); got ${given.length}`);
  }
  const copies = list.map((i, n) => {
    const name = given === undefined ? uniqueName(i, taken) : checkIdentifier(given[n], `${who}: newNames[${n}]`);
    if (given !== undefined && taken.has(name)) throw new TransformError(`${who}: new iname "${name}" is already a name in kernel "${k.name}"; choose another`);
    taken.add(name);
    return name;
  });
  const dependent = k.domains.findIndex((d) => d.params.some((p) => list.includes(p)));
  if (dependent >= 0) {
    throw new TransformError(`${who}: domain ${dependent} depends on ${list.filter((p) => k.domains[dependent]!.params.includes(p)).join(", ")}; duplicate the inames of that domain too is not supported yet`);
  }
  checkNoValueCarried(k, list, ids, who);
  const domains = k.domains.map((d) => duplicateAxes(d, list, copies));
  const r = { values: new Map<string, Expr>(list.map((i, n) => [i, v(copies[n]!)])), inames: new Map(list.map((i, n) => [i, [copies[n]!]])) };
  return withKernel(rewriteKernel(k, r, ids), { domains });
}

/**
 * Duplicating `iname` for some instructions splits its loop in two. A value written once per
 * iteration (its assignee not indexed by the iname, as a private scalar `t`) and read in the same
 * iteration must stay in one loop instance with its reader. Refused, naming the variable and the
 * instructions (loopy leaves this to the user; here it was a silent wrong result), where
 * - the writer and the reader fall on different sides of the copy, or
 * - they fall on the same side, but an instruction that depends on the writer, and the reader on
 *   it, falls on the other: the scheduler must close the loop around the writer, run the other
 *   loop, and open the loop again for the reader, which then reads only the last value.
 */
function checkNoValueCarried(k: Kernel, inames: readonly string[], ids: ReadonlySet<string>, who: string): void {
  const perIteration = (insn: Instruction, iname: string): boolean => {
    if (insn.kind !== "assign") return true;
    const index = insn.lhs.kind === "subscript" ? insn.lhs.indices : insn.lhs.kind === "linear" ? [insn.lhs.index] : [];
    return !index.some((e) => freeVariables(e).has(iname));
  };
  const deps = dependencyClosure(k.instructions);
  for (const iname of inames) {
    const inLoop = k.instructions.filter((insn) => insn.withinInames.includes(iname));
    for (const w of inLoop) {
      if (!perIteration(w, iname)) continue;
      for (const name of insnWrites(w)) {
        // A value read as a loop's bound (`[t] -> {[r]: 0 <= r < t}`) is read as much as one in an expression.
        const readers = inLoop.filter((x) => x !== w && insnReadsWithBounds(k, x).has(name));
        const r = readers.find((x) => ids.has(x.id) !== ids.has(w.id));
        if (r !== undefined) {
          const [moved, kept] = ids.has(w.id) ? [w, r] : [r, w];
          throw new TransformError(`${who}: instruction "${w.id}" writes "${name}" once per iteration of "${iname}" (its assignee does not use ${iname}) and "${r.id}" reads it in the same iteration; giving "${moved.id}" its own copy of "${iname}" but not "${kept.id}" would split them into two loops, and "${r.id}" would read only the last value. Duplicate "${iname}" for both (within "id:${w.id} or id:${r.id}"), or make "${name}" an array indexed by ${iname}`);
        }
        for (const r2 of readers) {
          const mid = inLoop.find((d) => ids.has(d.id) !== ids.has(w.id) && deps.get(d.id)!.has(w.id) && deps.get(r2.id)!.has(d.id));
          if (mid === undefined) continue;
          const side = ids.has(mid.id) ? `giving "${mid.id}" its own copy of "${iname}" but not "${w.id}" and "${r2.id}"` : `giving "${w.id}" and "${r2.id}" their own copy of "${iname}" but not "${mid.id}"`;
          throw new TransformError(`${who}: instruction "${w.id}" writes "${name}" once per iteration of "${iname}" (its assignee does not use ${iname}) and "${r2.id}" reads it in the same iteration; "${mid.id}" lies between them (it depends on "${w.id}", and "${r2.id}" on it), so ${side} would split the loop around "${mid.id}", and "${r2.id}" would read only the last value. Duplicate "${iname}" for all three (within "id:${w.id} or id:${mid.id} or id:${r2.id}") or for none of them, or make "${name}" an array indexed by ${iname}`);
        }
      }
    }
  }
}

/** `d` with a copy of each of its dims among `olds` (same constraints), after the original. */
export function duplicateAxes(d: BasicSet, olds: readonly string[], news: readonly string[]): BasicSet {
  const map: Record<string, string> = {};
  olds.forEach((o, n) => {
    if (d.dims.includes(o)) map[o] = news[n]!;
  });
  if (Object.keys(map).length === 0) return d;
  const both = intersect(d, rename(d, map));
  return reorderDims(both, d.dims.flatMap((x) => (map[x] !== undefined ? [x, map[x]!] : [x])));
}

/**
 * Remove inames that no instruction loops or reduces over (loopy's remove_unused_inames): they
 * are projected out of their domains exactly (constraints they imply on other inames stay, as
 * existentials where needed). Inames another domain depends on are kept. `inames` limits the
 * candidates.
 *
 *   removeUnusedInames(k)            // after duplicateInames(k, "i", "*"), i is gone
 */
export function removeUnusedInames(k: Kernel, inames?: string | readonly string[]): Kernel {
  const who = "removeUnusedInames";
  checkKernel(k, who);
  const candidates = inames === undefined ? allInames(k) : nameList(inames, `${who}: inames`);
  for (const i of candidates) checkIname(k, i, who);
  const used = usedInames(k);
  // Parents of used inames stay: a domain's parameters must stay defined.
  const needed = new Set(used.size === 0 ? [] : domainChain(k, [...used].filter((i) => domainIndexOf(k, i) >= 0)));
  const keep = (i: string) => used.has(i) || k.domains.some((d, idx) => needed.has(idx) && d.params.includes(i));
  const unused = candidates.filter((i) => !keep(i));
  if (unused.length === 0) return k;
  let out = k;
  for (let idx = k.domains.length - 1; idx >= 0; idx--) {
    const here = unused.filter((i) => k.domains[idx]!.dims.includes(i));
    if (here.length > 0) out = dropDims(out, idx, here);
  }
  const left = new Set(allInames(out));
  const dangling = out.domains.findIndex((d) => d.params.some((p) => allInames(k).includes(p) && !left.has(p)));
  if (dangling >= 0) throw new TransformError(`${who}: internal: domain ${dangling} lost a parent iname; inames are ${inameList(out)}`);
  return out;
}
