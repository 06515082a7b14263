/** The domain forest: which domains an instruction's inames come from, and their intersection. */
import { LoomError } from "../errors.js";
import { intersect, moveToDims, projectOut, universe, type BasicSet } from "../poly/index.js";
import { allInames, type Kernel } from "./kernel.js";

/**
 * Indices of the domains needed to define `inames`: the domains that define them and, transitively,
 * the domains defining inames those use as parameters (their parents), outermost first.
 */
export function domainChain(k: Kernel, inames: Iterable<string>): number[] {
  const owner = new Map<string, number>();
  k.domains.forEach((d, idx) => {
    for (const name of d.dims) owner.set(name, idx);
  });
  const needed = new Set<number>();
  const visit = (iname: string): void => {
    const idx = owner.get(iname);
    if (idx === undefined) {
      throw new LoomError(`unknown iname "${iname}" in kernel "${k.name}"; inames are ${[...owner.keys()].join(", ") || "(none)"}`);
    }
    if (needed.has(idx)) return;
    needed.add(idx);
    for (const p of k.domains[idx]!.params) if (owner.has(p)) visit(p);
  };
  for (const i of inames) visit(i);
  return [...needed].sort((a, b) => a - b);
}

/**
 * The iteration domain of a tuple of inames: the intersection of the domains in their chain, with
 * parent inames turned from parameters into dimensions, projected onto `inames` (exactly).
 * Parameters that are not inames (value args, scalar temporaries) stay parameters.
 */
export function iterationDomain(k: Kernel, inames: readonly string[]): BasicSet {
  const chain = domainChain(k, inames);
  const inameSet = new Set(allInames(k));
  let set: BasicSet = universe([], []);
  for (const idx of chain) {
    const d = k.domains[idx]!;
    const parentInames = d.params.filter((p) => inameSet.has(p));
    set = intersect(set, parentInames.length > 0 ? moveToDims(d, parentInames) : d);
  }
  const drop = set.dims.filter((name) => !inames.includes(name));
  return drop.length > 0 ? projectOut(set, drop) : set;
}
