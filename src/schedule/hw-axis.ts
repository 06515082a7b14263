/**
 * Hardware axes (device.ts): the base and size of a g/l iname's axis, read off its domain — the
 * rows of a split or of its own domain where they say it, else its factor projected to the
 * parameters. Asked by the tag checks, the barrier pass and each device kernel, of one domain
 * list in turn.
 */
import { ScheduleError } from "../errors.js";
import { affToExpr, arith, boundToExpr, c, chainDomain, domainChain, type Expr, type Kernel } from "../ir/index.js";
import { affKey, contentMemo, dimBounds, factorOf, memoized as cached, setContentId, type Aff, type BasicSet, type Bound } from "../poly/index.js";
import { chainWitnessedRange } from "./chain-witness.js";
import { ownerRanges, ownerWitnessedRange, witnessedRange } from "./row-bounds.js";
import { splitBounds } from "./split-axes.js";
import type { HwAxis } from "./types.js";
const shift = (a: Aff, k: number): Aff => ({ terms: a.terms, constant: a.constant + k });
const isConst = (b: Bound): boolean => {
  // (A for-in that stops at the first term: no array of keys.)
  for (const _ in b.aff.terms) return false;
  return true;
};
const ceilOf = (b: Bound) => Math.ceil(b.aff.constant / b.denom);
const floorOf = (b: Bound) => Math.floor(b.aff.constant / b.denom);


export function extremum(fn: "max" | "min", es: Expr[]): Expr {
  return es.length === 1 ? es[0]! : { kind: "call", fn, args: es };
}

/** The hardware axis of `iname` (tagged g.N or l.N): base and size from its domain projected to the parameters. */
export function hwAxis(k: Kernel, iname: string, tag: "g" | "l", axis: number): HwAxis {
  // The axis is a function of the domain list (errors aside, which name the kernel and are not
  // remembered): asked by preprocessing's checks and again per device kernel, of one list.
  const ds = k.domains;
  if (lastAxes.domains !== ds) {
    if (!Object.isFrozen(ds) || !allFrozen(ds)) return hwAxisOfDomains(k, iname, tag, axis);
    lastAxes = { domains: ds, axes: new Map() };
  }
  // Keyed by the iname alone (no key printed per question): a kernel tags an iname one way, and an
  // axis asked with another tag or number is computed, not remembered.
  const ax = lastAxes.axes.get(iname);
  if (ax === undefined) {
    const made = hwAxisOfDomains(k, iname, tag, axis);
    lastAxes.axes.set(iname, made);
    return made;
  }
  return ax.tag === tag && ax.axis === axis ? ax : hwAxisOfDomains(k, iname, tag, axis);
}

/**
 * Whether every entry of `xs` is frozen. Indexed loops here and below: the kernel's arrays are
 * frozen, and a for-of, every() or filter() over a frozen array takes V8's slow generic path (an
 * object per element of a for-of; a callback call through a builtin for the others).
 */
export function allFrozen(xs: readonly object[]): boolean {
  for (let x = 0; x < xs.length; x++) if (!Object.isFrozen(xs[x])) return false;
  return true;
}

/**
 * `hwAxis` of the domain list last asked about (frozen: a list and its sets cannot change): one
 * kernel's passes ask of one list in turn, and one entry (no WeakMap for the collector to trace)
 * is all they need.
 */
let lastAxes: { readonly domains: readonly BasicSet[] | undefined; readonly axes: Map<string, HwAxis> } = { domains: undefined, axes: new Map() };

function hwAxisOfDomains(k: Kernel, iname: string, tag: "g" | "l", axis: number): HwAxis {
  if (tag === "l" && ownerRanges.on) {
    // The range on the rows of the iname's domain itself, where that says it: no factor is built.
    const owners = dimOwners(k.domains);
    const r = ownerWitnessedRange(owners, iname) ?? chainWitnessedRange(owners, domainChain(k, [iname]).map((x) => k.domains[x]!), iname);
    if (r !== undefined) return { iname, tag, axis, base: c(r[0]), size: c(Math.max(0, r[1] - r[0] + 1)) };
  }
  if (tag === "g") {
    // A split's outer iname: its bounds read off the split's rows (split-axes.ts), no factor built.
    const owners = dimOwners(k.domains);
    const owner = owners.get(iname);
    const b = owner ? splitBounds(owner, owners, iname) : undefined;
    // One answer per split shape (the tile size, offsets and parameter part): variants of a
    // sweep that share a tile size build the axis's expressions once.
    if (b !== undefined) return cached(axisMemo, `split|${iname}|${axis}|${b.lower[0]!.aff.constant}|${b.upper[0]!.denom}|${affKey(b.upper[0]!.aff)}`, () => axisOfBounds(k, b, iname, tag, axis));
  }
  const own = ownFactor(k, iname);
  if (own !== undefined && tag === "l") {
    // A split's inner iname, a fetch's dims: the range is on the rows, no projection is asked.
    const r = witnessedRange(own, iname);
    if (r !== undefined) return { iname, tag, axis, base: c(r[0]), size: c(Math.max(0, r[1] - r[0] + 1)) };
  }
  // Read off the iname's own factor alone: the same factor (`(i_outer, i_inner)` of an i tile
  // size, a fetch's `0 <= a_dim_0 < 16`) is one answer for every variant of a sweep that has it.
  if (own !== undefined) return cached(axisMemo, `own|${iname}|${tag}|${axis}|${k.name}|${setContentId(own)}`, () => axisOf(k, own, iname, tag, axis));
  return hwAxisOfChain(k, iname, tag, axis);
}

/**
 * `hwAxis` from the factor of the iname's whole chain of domains (its own and its parents', which
 * define inames its bounds use): the route the own factor's answer is checked against (tests).
 */
export function hwAxisOfChain(k: Kernel, iname: string, tag: "g" | "l", axis: number): HwAxis {
  // The axis is a function of the domains alone (and the names in it): memoize by the domains'
  // content, which variants in a sweep rebuild as new objects again and again.
  return cached(axisMemo, `${iname}|${tag}|${axis}|${k.name}|${domainsKey(k)}`, () => axisOf(k, factorOf(chainDomain(k, [iname]), iname), iname, tag, axis));
}

/**
 * The factor of `iname` in the one domain that names it, where no row of it uses an iname of
 * another domain (a parent's, as a parameter) and no other domain names one of its inames: then
 * the chain's other domains add no row to it (the prefetch's `0 <= a_dim_0 < 16` under the tiled
 * domain's `i_outer`, `k_outer`, which it does not use), and intersecting them, the costly part,
 * is not needed. Else undefined.
 */
function ownFactor(k: Kernel, iname: string): BasicSet | undefined {
  const owners = dimOwners(k.domains);
  const owner = owners.get(iname);
  if (!owner) return undefined;
  const f = factorOf(owner, iname);
  // Each dim of the factor named by its domain alone; no row over a parameter that is an iname.
  for (let x = 0; x < f.dims.length; x++) if (owners.get(f.dims[x]!) !== owner) return undefined;
  const np = f.params.length;
  const rows = f.constraints;
  for (let at = 0; at < np; at++) {
    if (!owners.has(f.params[at]!)) continue;
    for (let r = 0; r < rows.length; r++) if ((rows[r]!.coeffs[at] ?? 0) !== 0) return undefined;
  }
  return f;
}

/**
 * The frozen domain list last asked about and each of its dims' domain (null where several
 * domains name it): one kernel's passes ask of one list in turn (one entry, no WeakMap entry per
 * variant of a sweep).
 */
let lastOwners: { readonly ds: readonly BasicSet[] | undefined; readonly owners: ReadonlyMap<string, BasicSet | null> } = { ds: undefined, owners: new Map() };

function dimOwners(ds: readonly BasicSet[]): ReadonlyMap<string, BasicSet | null> {
  if (lastOwners.ds === ds) return lastOwners.owners;
  const out = new Map<string, BasicSet | null>();
  for (let e = 0; e < ds.length; e++) {
    const d = ds[e]!;
    for (let x = 0; x < d.dims.length; x++) out.set(d.dims[x]!, out.has(d.dims[x]!) ? null : d);
  }
  if (Object.isFrozen(ds)) lastOwners = { ds, owners: out };
  return out;
}

/** Per domain list (a frozen value): its domains' content ids. */
const keysMemo = new WeakMap<readonly BasicSet[], string>();

function domainsKey(k: Kernel): string {
  let doms = keysMemo.get(k.domains);
  if (doms === undefined) {
    doms = "";
    for (const d of k.domains) doms += `${setContentId(d)},`;
    // Kernels are frozen values; a domain list that is not is never remembered.
    if (Object.isFrozen(k.domains)) keysMemo.set(k.domains, doms);
  }
  return doms;
}

const axisMemo = contentMemo<HwAxis>();

/** The axis of `iname` from `own`, its factor (of its own domain or of its chain's). */
function axisOf(k: Kernel, own: BasicSet, iname: string, tag: "g" | "l", axis: number): HwAxis {
  // The bounds of the iname in its own factor, the other inames of the factor projected out (the
  // other factors can add no bound to it): in a tiled domain the factor of `i_inner` is
  // `(i_outer, i_inner)`, the same for every variant with the same i tile size.
  // (dimBounds projects the others out itself: the question `constRange` asks of the same
  // factor, so a local axis and its constant range are one answer of one memo.)
  return axisOfBounds(k, dimBounds(own, iname, []), iname, tag, axis);
}

/** The axis of `iname` from its bounds in its factor, the other dims projected out. */
function axisOfBounds(k: Kernel, b: { readonly lower: readonly Bound[]; readonly upper: readonly Bound[] }, iname: string, tag: "g" | "l", axis: number): HwAxis {
  // (The place, for errors only: printed where one is thrown.)
  const where = () => `${tag}.${axis} iname "${iname}" of kernel "${k.name}"`;
  if (b.lower.length === 0 || b.upper.length === 0) throw new ScheduleError(`${where()} is unbounded; hardware axes need a lower and an upper bound`);
  const cl = b.lower.filter(isConst);
  const cu = b.upper.filter(isConst);
  if (tag === "l" && cl.length > 0 && cu.length > 0) {
    const lo = Math.max(...cl.map(ceilOf));
    const hi = Math.min(...cu.map(floorOf));
    return { iname, tag, axis, base: c(lo), size: c(Math.max(0, hi - lo + 1)) };
  }
  if (tag === "l") {
    // A parametric work-group size (`0 <= j < n`): evaluated at launch, like a grid size. Its
    // bounds may use parameters only; other inames would make the size differ between groups.
    const inames = new Set(k.domains.flatMap((d) => d.dims));
    const uses = [...b.lower, ...b.upper].flatMap((x) => Object.keys(x.aff.terms)).filter((n) => inames.has(n));
    if (uses.length > 0) {
      throw new ScheduleError(`${where()}: the size of a local axis must be a constant or an affine expression of the parameters; its bounds use ${[...new Set(uses)].map((u) => `"${u}"`).join(", ")} (split the iname by a constant and tag the inner part)`);
    }
  }
  // Constant bounds dominate where present, as for local axes; the rest are guards of the box.
  const lower = cl.length > 0 ? [{ aff: { terms: {}, constant: Math.max(...cl.map(ceilOf)) }, denom: 1 }] : b.lower;
  const upper = cu.length > 0 ? [{ aff: { terms: {}, constant: Math.min(...cu.map(floorOf)) }, denom: 1 }] : b.upper;
  const base = extremum("max", lower.map((x) => boundToExpr(x, true)));
  let size: Expr;
  if (lower.length === 1 && upper.length === 1 && isConst(lower[0]!)) {
    // floor(a/d) - lo + 1 = floor((a + d·(1 - lo))/d): `(n + 15)//16`.
    const lo = ceilOf(lower[0]!);
    const u = upper[0]!;
    size = boundToExpr({ aff: shift(u.aff, u.denom * (1 - lo)), denom: u.denom }, false);
  } else if (lower.length === 1 && upper.length === 1 && lower[0]!.denom === 1 && upper[0]!.denom === 1) {
    const terms: Record<string, number> = { ...upper[0]!.aff.terms };
    for (const [n, x] of Object.entries(lower[0]!.aff.terms)) terms[n] = (terms[n] ?? 0) - x;
    for (const n of Object.keys(terms)) if (terms[n] === 0) delete terms[n];
    size = affToExpr({ terms, constant: upper[0]!.aff.constant - lower[0]!.aff.constant + 1 });
  } else {
    size = arith("+", arith("-", extremum("min", upper.map((x) => boundToExpr(x, false))), base), c(1));
  }
  return { iname, tag, axis, base, size };
}
