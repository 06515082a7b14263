/**
 * The range of a local iname read off the rows of its chain of domains (issue 21), where its own
 * domain's rows use a parent iname: a fetch's `a_dim_0 < n - 12*i_outer` when the i tile does
 * not divide n (the last tile's bound, kept in the store's domain where i_outer is a g iname).
 * The own-domain route (row-bounds.ts `ownerWitnessedRange`) stops there, and the chain's factor
 * would be built and projected for every variant of a sweep. The same witness argument on the
 * chain instead: `[lo, hi]` from the iname's rows over it alone, and a point of the chain at
 * each end (the iname at `lo`, then at `hi`, every other dim 0, every parameter that is no
 * iname WITNESS_PARAM). The chain's factor of the iname holds those rows and (restricted) those
 * points, so the constant bounds its projection has are `lo` and `hi`: the axis hwAxisOfChain
 * reads off it (test/schedule/hw-axis-own-factor.test.ts compares both).
 */
import type { BasicSet } from "../poly/index.js";
import { rowBounds } from "./row-bounds.js";

const taken = { ranges: 0 };

/** How many local ranges were read off a chain's rows (tests: the route is taken). */
export function chainWitnessRanges(): number {
  return taken.ranges;
}

/** The value every parameter takes in a witness (as row-bounds.ts's: `i < n` holds for small i). */
const WITNESS_PARAM = 1 << 20;

/**
 * `[lo, hi]` of `iname` (see the module comment), or undefined where it does not hold: `owners`
 * is each dim's domain (null where several domains name it), `chain` the domains of the iname's
 * chain (its own and its parents'). Every dim of the chain named by one domain, no existentials.
 */
export function chainWitnessedRange(owners: ReadonlyMap<string, BasicSet | null>, chain: readonly BasicSet[], iname: string): [number, number] | undefined {
  const owner = owners.get(iname);
  if (!owner) return undefined;
  // Indexed loops: domains, dims and rows are frozen arrays (for-of and every() over one take
  // V8's slow generic paths, an object per element).
  for (let c = 0; c < chain.length; c++) {
    const d = chain[c]!;
    if (d.exists.length > 0) return undefined;
    for (let x = 0; x < d.dims.length; x++) if (owners.get(d.dims[x]!) !== d) return undefined;
    // A parameter that is an iname is a dim of the chain (domainChain brings its domain in).
    for (let x = 0; x < d.params.length; x++) {
      const o = owners.get(d.params[x]!);
      if (o === null || (o !== undefined && !chain.includes(o))) return undefined;
    }
  }
  const r = rowBounds(owner, iname);
  if (r === undefined) return undefined;
  const [lo, hi] = r;
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) return undefined;
  if (!holdsOnChain(owners, chain, owner, iname, lo) || !holdsOnChain(owners, chain, owner, iname, hi)) return undefined;
  taken.ranges++;
  return [lo, hi];
}

/** Whether the witness with `iname` at `value` (see the module comment) satisfies every row of `chain`. */
function holdsOnChain(owners: ReadonlyMap<string, BasicSet | null>, chain: readonly BasicSet[], owner: BasicSet, iname: string, value: number): boolean {
  for (let c = 0; c < chain.length; c++) {
    const d = chain[c]!;
    const np = d.params.length;
    const at = d === owner ? np + d.dims.indexOf(iname) : -1;
    const rows = d.constraints;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      let sum = row.constant;
      for (let x = 0; x < row.coeffs.length; x++) {
        const q = row.coeffs[x] ?? 0;
        if (q === 0) continue;
        // An iname parameter is a dim of the chain (0 in the witness), as every dim but `iname`.
        sum += q * (x === at ? value : x < np && !owners.has(d.params[x]!) ? WITNESS_PARAM : 0);
      }
      if (row.eq ? sum !== 0 : sum < 0) return false;
    }
  }
  return true;
}
