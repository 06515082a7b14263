/** The domain forest: which domains an instruction's inames come from, and their intersection. */
import { LoomError } from "../errors.js";
import { factorOf, intersect, moveToDims, projectOut, setContentId, universe, type BasicSet } from "../poly/index.js";
import type { Kernel } from "./kernel.js";

/**
 * Indices of the domains needed to define `inames`: the domains that define them and, transitively,
 * the domains defining inames those use as parameters (their parents), outermost first.
 */
export function domainChain(k: Kernel, inames: Iterable<string>): number[] {
  const owner = ownersOf(k.domains);
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

const ownersMemo = new WeakMap<readonly BasicSet[], ReadonlyMap<string, number>>();

/** Which domain defines each iname (the last one naming it), once per frozen domain list. */
function ownersOf(domains: readonly BasicSet[]): ReadonlyMap<string, number> {
  let owner = ownersMemo.get(domains);
  if (owner !== undefined) return owner;
  const m = new Map<string, number>();
  domains.forEach((d, idx) => {
    for (const name of d.dims) m.set(name, idx);
  });
  if (Object.isFrozen(domains) && domains.every((d) => Object.isFrozen(d) && Object.isFrozen(d.dims))) ownersMemo.set(domains, m);
  return m;
}

/**
 * The iteration domain of a tuple of inames: the intersection of the domains in their chain, with
 * parent inames turned from parameters into dimensions, projected onto `inames` (exactly).
 * Parameters that are not inames (value args, scalar temporaries) stay parameters.
 * `chain`: `domainChain(k, inames)`, when the caller has it.
 */
export function iterationDomain(k: Kernel, inames: readonly string[], chain: readonly number[] = domainChain(k, inames)): BasicSet {
  return chainMemoized(k, chain, `|${[...new Set(inames)].sort().join(",")}`, (chain) => {
    const set = chainSet(k, chain);
    // (Built by push, not filter(): an optimized caller's inlined filter() makes arrays of another
    // elements kind than the builtin's, and the functions handed them then deoptimize.)
    const drop: string[] = [];
    for (let i = 0; i < set.dims.length; i++) if (!inames.includes(set.dims[i]!)) drop.push(set.dims[i]!);
    return drop.length > 0 ? projectByFactors(set, drop) : set;
  });
}

/**
 * `projectOut(set, drop)`, one independent factor at a time (factorOf): the factor holding the
 * kept dims loses its dropped ones, and the other factors, whose dims all go, leave only what
 * they say about the parameters (`n >= 1`). The same set: where `set` is `P ∧ F(x, y) ∧ R(z)`
 * with no dim or existential shared between F and R, `∃y,z: set` is `(∃y: P ∧ F) ∧ (∃z: P ∧ R)`.
 * Each factor's projection is remembered by its content, which repeats across a sweep of tiling
 * variants (the i factor of a tiled matmul is the same whenever the i tile size is), so a
 * never-seen variant projects only what is new in it.
 */
function projectByFactors(set: BasicSet, drop: readonly string[]): BasicSet {
  const keep: string[] = [];
  for (let i = 0; i < set.dims.length; i++) if (!drop.includes(set.dims[i]!)) keep.push(set.dims[i]!);
  const mine = factorOf(set, keep);
  if (mine === set || keep.length === 0) return projectOut(set, drop);
  // The other factors one at a time: each one's projection (what it says of the parameters) is
  // remembered by its own content, and they mostly say the same (`n >= 1`), so the intersection
  // repeats too, whatever the other tile sizes are.
  let said: BasicSet | undefined;
  const seen = new Set<string>(mine.dims);
  for (const d of set.dims) {
    if (seen.has(d)) continue;
    const f = factorOf(set, d);
    for (const x of f.dims) seen.add(x);
    const p = projectOut(f, f.dims);
    said = said === undefined || setContentId(said) === setContentId(p) ? p : intersect(said, p);
  }
  const dropMine: string[] = [];
  for (let i = 0; i < drop.length; i++) if (mine.dims.includes(drop[i]!)) dropMine.push(drop[i]!);
  const kept = dropMine.length > 0 ? projectOut(mine, dropMine) : mine;
  return said === undefined ? kept : intersect(kept, said);
}

/**
 * The domain of the chain of `inames`, not projected: every iname of the chain's domains is a
 * dimension (`iterationDomain` of all of them). Questions about one iname ask its factor
 * (`factorOf`) of this set rather than a projection of it.
 */
export function chainDomain(k: Kernel, inames: readonly string[]): BasicSet {
  return chainMemoized(k, domainChain(k, inames), "", (chain) => chainSet(k, chain));
}

/**
 * `compute(chain)`, remembered: the answer depends only on the chain's domains (a parameter of one
 * that is an iname is a dimension of another in the chain) and on `what`. Remembered per first
 * domain, so the kernels of a pipeline, which share most domain objects, ask once.
 */
function chainMemoized(k: Kernel, chain: readonly number[], what: string, compute: (chain: readonly number[]) => BasicSet): BasicSet {
  if (chain.length === 0) return compute(chain);
  const first = k.domains[chain[0]!]!;
  let byKey = chainMemo.get(first);
  if (byKey === undefined) chainMemo.set(first, (byKey = new Map()));
  let key = "";
  for (let j = 1; j < chain.length; j++) key += `${domainId(k.domains[chain[j]!]!)},`;
  key += what;
  let hit = byKey.get(key);
  if (hit === undefined) byKey.set(key, (hit = compute(chain)));
  return hit;
}

const chainMemo = new WeakMap<BasicSet, Map<string, BasicSet>>();
const ids = new WeakMap<BasicSet, number>();
let nextId = 0;

/** A number standing for the identity of a domain object (never reused). */
function domainId(d: BasicSet): number {
  let id = ids.get(d);
  if (id === undefined) ids.set(d, (id = nextId++));
  return id;
}

/** The intersection of the chain's domains, the parents' inames as dimensions. */
function chainSet(k: Kernel, chain: readonly number[]): BasicSet {
  // The parents' inames are the dims of the chain's domains (domainChain visits every domain that
  // defines a parameter which is an iname).
  const chainDims = new Set(chain.flatMap((idx) => k.domains[idx]!.dims));
  let set: BasicSet | undefined;
  for (const idx of chain) {
    const d0 = k.domains[idx]!;
    const parentInames = d0.params.filter((p) => chainDims.has(p));
    const d = parentInames.length > 0 ? moveToDims(d0, parentInames) : d0;
    set = set === undefined ? d : intersect(set, d);
  }
  return set ?? universe([], []);
}
