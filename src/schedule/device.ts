/**
 * Device mapping: global barriers split the schedule into device kernels (`name`, `name_0`, …)
 * and the host program launching them (host loops where a global barrier is inside a sequential
 * loop), and each device kernel's g/l inames become hardware axes with a base and a size.
 */
import { ScheduleError } from "../errors.js";
import {
  addFreeVariables, blockExprs, boundToExpr, chainDomain, domainChain,
  type Expr, type Instruction, type Kernel,
} from "../ir/index.js";
import { dimBounds, projectOut, type BasicSet } from "../poly/index.js";
import { shareAxis } from "./device-axes.js";
import { allFrozen, extremum, hwAxis } from "./hw-axis.js";
import { inamesIn } from "./insn-inames.js";
import type { DeviceKernel, HostNode, HwAxis, Schedule, ScheduleNode } from "./types.js";

export { axisRows } from "./device-axes.js";
export { hwAxis, hwAxisOfChain } from "./hw-axis.js";


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
    const own = inamesIn(k.instructions, insn);
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
  addChainParams(k, inames, used);
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

/**
 * The parameters of the domains in `domainChain(k, inames)` added to `used`: the domains that
 * define the inames (the last naming each) and, transitively, their parents. Indexed walks of
 * the (frozen) domain list, its owners found once per list (domainChain's for-of and every()
 * over frozen arrays take V8's slow paths, per device kernel of every variant).
 */
function addChainParams(k: Kernel, inames: readonly string[], used: Set<string>): void {
  const ds = k.domains;
  const owner = domainIndexByName(ds);
  const needed: boolean[] = [];
  const stack: number[] = [];
  for (let x = 0; x < inames.length; x++) {
    const at = owner.get(inames[x]!);
    // An unknown iname: domainChain's error.
    if (at === undefined) return void domainChain(k, inames);
    stack.push(at);
  }
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (needed[at]) continue;
    needed[at] = true;
    const ps = ds[at]!.params;
    for (let x = 0; x < ps.length; x++) {
      const p = owner.get(ps[x]!);
      if (p !== undefined) stack.push(p);
    }
  }
  for (let at = 0; at < ds.length; at++) {
    if (!needed[at]) continue;
    const ps = ds[at]!.params;
    for (let x = 0; x < ps.length; x++) used.add(ps[x]!);
  }
}

/** The frozen domain list last asked about and the index of the last domain naming each dim (domainChain's owners). */
let lastIndex: { readonly ds: readonly BasicSet[] | undefined; readonly owner: ReadonlyMap<string, number> } = { ds: undefined, owner: new Map() };

function domainIndexByName(ds: readonly BasicSet[]): ReadonlyMap<string, number> {
  if (lastIndex.ds === ds) return lastIndex.owner;
  const owner = new Map<string, number>();
  for (let e = 0; e < ds.length; e++) {
    const dims = ds[e]!.dims;
    for (let x = 0; x < dims.length; x++) owner.set(dims[x]!, e);
  }
  if (Object.isFrozen(ds) && allFrozen(ds)) lastIndex = { ds, owner };
  return owner;
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
