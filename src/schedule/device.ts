/**
 * Device mapping: global barriers split the schedule into device kernels (`name`, `name_0`, …)
 * and the host program launching them (host loops where a global barrier is inside a sequential
 * loop), and each device kernel's g/l inames become hardware axes with a base and a size.
 */
import { ScheduleError } from "../errors.js";
import {
  addFreeVariables, affToExpr, arith, blockExprs, boundToExpr, c, chainDomain, domainChain,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import {
  contentMemo, dimBounds, factorOf, memoized as cached, projectOut, setContentId,
  type Aff, type BasicSet, type Bound,
} from "../poly/index.js";
import { chainWitnessedRange } from "./chain-witness.js";
import { shareAxis } from "./device-axes.js";
import { inamesOf } from "./insn-inames.js";
import { ownerRanges, ownerWitnessedRange, witnessedRange } from "./row-bounds.js";
import type { DeviceKernel, HostNode, HwAxis, Schedule, ScheduleNode } from "./types.js";

export { axisRows } from "./device-axes.js";

const shift = (a: Aff, k: number): Aff => ({ terms: a.terms, constant: a.constant + k });
const isConst = (b: Bound) => Object.keys(b.aff.terms).length === 0;
const ceilOf = (b: Bound) => Math.ceil(b.aff.constant / b.denom);
const floorOf = (b: Bound) => Math.floor(b.aff.constant / b.denom);


function extremum(fn: "max" | "min", es: Expr[]): Expr {
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
  const key = `${tag}${axis}|${iname}`;
  let ax = lastAxes.axes.get(key);
  if (ax === undefined) lastAxes.axes.set(key, (ax = hwAxisOfDomains(k, iname, tag, axis)));
  return ax;
}

/**
 * Whether every entry of `xs` is frozen. Indexed loops here and below: the kernel's arrays are
 * frozen, and a for-of, every() or filter() over a frozen array takes V8's slow generic path (an
 * object per element of a for-of; a callback call through a builtin for the others).
 */
function allFrozen(xs: readonly object[]): boolean {
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
  const b = dimBounds(own, iname, []);
  const where = `${tag}.${axis} iname "${iname}" of kernel "${k.name}"`;
  if (b.lower.length === 0 || b.upper.length === 0) throw new ScheduleError(`${where} is unbounded; hardware axes need a lower and an upper bound`);
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
      throw new ScheduleError(`${where}: the size of a local axis must be a constant or an affine expression of the parameters; its bounds use ${[...new Set(uses)].map((u) => `"${u}"`).join(", ")} (split the iname by a constant and tag the inner part)`);
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

function insnIds(nodes: readonly ScheduleNode[], out: string[] = []): string[] {
  for (let x = 0; x < nodes.length; x++) {
    const n = nodes[x]!;
    if (n.kind === "insn") out.push(n.id);
    else if (n.kind === "loop") insnIds(n.body, out);
  }
  return out;
}

/** One device kernel from its body: hardware axes of the g/l inames its instructions use, and its arguments. */
function deviceKernel(k: Kernel, byId: ReadonlyMap<string, Instruction>, name: string, body: readonly ScheduleNode[], hostInames: readonly string[]): DeviceKernel {
  // Plain loops and arrays: a sweep makes the device kernels of every variant anew.
  const insns: Instruction[] = [];
  for (const id of insnIds(body)) insns.push(byId.get(id)!);
  const inames: string[] = [];
  const seen = new Set<string>();
  for (const insn of insns) {
    const own = inamesOf(insn);
    for (let x = 0; x < own.length; x++) {
      if (seen.has(own[x]!)) continue;
      seen.add(own[x]!);
      inames.push(own[x]!);
    }
  }
  // An insertion sort (sort()'s order for strings, by UTF-16 code units): no buffer for a few names.
  if (inames.length > 16) inames.sort();
  else {
    for (let i = 1; i < inames.length; i++) {
      const x = inames[i]!;
      let j = i - 1;
      for (; j >= 0 && inames[j]! > x; j--) inames[j + 1] = inames[j]!;
      inames[j + 1] = x;
    }
  }
  const onAxis = new Map<string, HwAxis[]>();
  for (const iname of inames) {
    const t = k.inameTags[iname];
    if (t?.kind === "l.auto") throw new ScheduleError(`iname "${iname}" of kernel "${k.name}" is still tagged l.auto; preprocessing assigns it an axis`);
    if (t?.kind !== "g" && t?.kind !== "l") continue;
    const key = `${t.kind}.${t.axis}`;
    const ax = hwAxis(k, iname, t.kind, t.axis);
    const list = onAxis.get(key);
    if (list === undefined) onAxis.set(key, [ax]);
    else list.push(ax);
  }
  const groupAxes: HwAxis[] = [];
  const localAxes: HwAxis[] = [];
  for (const [key, list] of onAxis) {
    const ax = shareAxis(k, name, key, list);
    (ax.tag === "g" ? groupAxes : localAxes).push(ax);
  }
  byAxis(groupAxes);
  byAxis(localAxes);
  const used = new Set<string>();
  // Each expression asked once: walked, not remembered (addFreeVariables).
  for (const insn of insns) {
    if (insn.kind === "assign") {
      addFreeVariables(insn.lhs, used);
      addFreeVariables(insn.rhs, used);
    }
    if (insn.kind === "block") for (const e of blockExprs(insn.body)) addFreeVariables(e, used);
    for (let x = 0; x < insn.predicates.length; x++) addFreeVariables(insn.predicates[x]!, used);
  }
  for (const d of domainChain(k, inames)) {
    const params = k.domains[d]!.params;
    for (let x = 0; x < params.length; x++) used.add(params[x]!);
  }
  for (const ax of groupAxes) (addFreeVariables(ax.base, used), addFreeVariables(ax.size, used));
  for (const ax of localAxes) (addFreeVariables(ax.base, used), addFreeVariables(ax.size, used));
  const args: string[] = [];
  for (let x = 0; x < k.args.length; x++) if (used.has(k.args[x]!.name)) args.push(k.args[x]!.name);
  for (let x = 0; x < k.temporaries.length; x++) {
    const t = k.temporaries[x]!;
    if (t.addressSpace === "global" && used.has(t.name)) args.push(t.name);
  }
  const out: DeviceKernel = { name, body, groupAxes, localAxes, args };
  return hostInames.length > 0 ? Object.assign(out, { hostInames }) : out;
}

/** `axes` sorted by axis number, in place (stable, as sort()): an insertion sort, a few axes. */
function byAxis(axes: HwAxis[]): void {
  for (let i = 1; i < axes.length; i++) {
    const x = axes[i]!;
    let j = i - 1;
    for (; j >= 0 && axes[j]!.axis > x.axis; j--) axes[j + 1] = axes[j]!;
    axes[j + 1] = x;
  }
}

/** The ids of the global barriers of `k`. */
function globalBarrierIds(k: Kernel): Set<string> {
  const out = new Set<string>();
  for (let x = 0; x < k.instructions.length; x++) {
    const insn = k.instructions[x]!;
    if (insn.kind === "barrier" && insn.scope === "global") out.add(insn.id);
  }
  return out;
}

/**
 * The bounds of host loop `iname` inside host loops `outer`: its domain's constraints on it may
 * use only value arguments and the outer host inames; a bound on a g/l iname, an inner iname or
 * a value computed in the kernel would make the launches differ between work-items.
 */
function hostLoopBounds(k: Kernel, iname: string, outer: readonly string[], gbarrier: string): { lower: Expr; upper: Expr } {
  const set = chainDomain(k, [iname]);
  const cols = [...set.params, ...set.dims, ...set.exists];
  const at = cols.indexOf(iname);
  const where = `kernel "${k.name}": global barrier "${gbarrier}" is inside sequential loop "${iname}", which runs on the host (launching device kernels)`;
  const accepted = "a host loop's bounds may use only value arguments and enclosing host loops' inames (loopy's host loops are over parameters)";
  for (const con of set.constraints) {
    if ((con.coeffs[at] ?? 0) === 0) continue;
    cols.forEach((name, x) => {
      if (x === at || (con.coeffs[x] ?? 0) === 0 || outer.includes(name)) return;
      const tag = k.inameTags[name];
      if (set.exists.includes(name)) throw new ScheduleError(`${where}, but its bounds are not affine in the parameters (a division or modulo); ${accepted}`);
      if (set.dims.includes(name)) {
        const what = tag?.kind === "g" || tag?.kind === "l" ? `the ${tag.kind}.${tag.axis} iname "${name}" (a hardware id, different per work-item)` : `iname "${name}", which is not an enclosing host loop`;
        throw new ScheduleError(`${where}, but its bounds depend on ${what}; ${accepted}`);
      }
      if (!k.args.some((a) => a.kind === "value" && a.name === name)) {
        throw new ScheduleError(`${where}, but its bounds depend on "${name}", a value computed in the kernel (not a value argument): the host cannot know it before launching; ${accepted}`);
      }
    });
  }
  const others = set.dims.filter((d) => d !== iname && !outer.includes(d));
  const own = others.length > 0 ? projectOut(set, others) : set;
  const b = dimBounds(own, iname, outer.filter((o) => own.dims.includes(o)));
  if (b.lower.length === 0 || b.upper.length === 0) throw new ScheduleError(`${where}, but it is unbounded; a host loop needs a lower and an upper bound`);
  return { lower: extremum("max", b.lower.map((x) => boundToExpr(x, true))), upper: extremum("min", b.upper.map((x) => boundToExpr(x, false))) };
}

/** The host program of `s`: `s.hostProgram`, or each device kernel launched once in order. */
export function hostProgramOf(s: Schedule): readonly HostNode[] {
  return s.hostProgram ?? s.deviceKernels.map((_, kernel) => ({ kind: "launch", kernel }));
}

/** Whether the host program of `s` has a host loop (not the trivial launch sequence). */
export function hasHostLoops(s: Schedule): boolean {
  return hostProgramOf(s).some((n) => n.kind === "loop");
}

/**
 * Split a schedule at its global barriers into device kernels named `name`, `name_0`,
 * `name_1`, … and the host program launching them: a sequential loop holding a global barrier
 * becomes a host loop (loopy's `test_kernel_splitting_with_loop`); the device kernels inside it
 * take its iname as a value parameter.
 */
export function deviceKernels(k: Kernel, nodes: readonly ScheduleNode[]): { deviceKernels: DeviceKernel[]; hostProgram: HostNode[] } {
  const globalBarriers = globalBarrierIds(k);
  const isGbarrier = (n: ScheduleNode) => n.kind === "insn" && globalBarriers.has(n.id);
  const firstGbarrier = (ns: readonly ScheduleNode[]): string | undefined => {
    if (globalBarriers.size === 0) return undefined;
    for (let x = 0; x < ns.length; x++) {
      const n = ns[x]!;
      if (isGbarrier(n)) return (n as { id: string }).id;
      if (n.kind === "loop") {
        const inner = firstGbarrier(n.body);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  const dks: DeviceKernel[] = [];
  const byId = new Map<string, Instruction>();
  for (let x = 0; x < k.instructions.length; x++) byId.set(k.instructions[x]!.id, k.instructions[x]!);
  const split = (ns: readonly ScheduleNode[], host: readonly string[]): HostNode[] => {
    const program: HostNode[] = [];
    let piece: ScheduleNode[] = [];
    // (A kernel without global barriers is one device kernel: its nodes as they are.)
    if (globalBarriers.size === 0) {
      piece = ns.slice();
      ns = [];
    }
    const flush = () => {
      if (piece.length === 0) return;
      const name = dks.length === 0 ? k.name : `${k.name}_${dks.length - 1}`;
      program.push({ kind: "launch", kernel: dks.push(deviceKernel(k, byId, name, piece, host)) - 1 });
      piece = [];
    };
    for (const n of ns) {
      const gb = n.kind === "loop" ? firstGbarrier(n.body) : undefined;
      if (isGbarrier(n)) flush();
      else if (n.kind === "loop" && gb) {
        flush();
        const bounds = hostLoopBounds(k, n.iname, host, gb);
        const body = split(n.body, [...host, n.iname]);
        if (body.length > 0) program.push({ kind: "loop", iname: n.iname, ...bounds, body });
      } else piece.push(n);
    }
    flush();
    return program;
  };
  const hostProgram = split(nodes, []);
  if (dks.length === 0 && !firstGbarrier(nodes)) {
    dks.push(deviceKernel(k, byId, k.name, [], []));
    hostProgram.push({ kind: "launch", kernel: 0 });
  }
  return { deviceKernels: dks, hostProgram };
}
