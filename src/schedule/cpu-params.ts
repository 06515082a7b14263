/**
 * Private temporaries read as domain parameters on CPU targets (src/schedule/cpu.ts). A loop whose
 * bounds read a private value (`for (r = s; r < e; ...)` with `@exclusive int s, e`) reads it per
 * work-item; once such a value has one slot per work-item (cpu-privatize.ts) the domain's parameter
 * `s` names an array. The domains then read a scalar copy `s_item`, loaded from `s[n]` right before
 * each loop whose bounds need it, inside the loops over the work-items.
 */
import { InternalError, ScheduleError } from "../errors.js";
import {
  arith, arrayDomainParam, arrayDomainParamProblem, c, exprEquals, freeVariables, insnDefaults, insnWrites, sub, uniqueName, v,
  type Expr, type Instruction, type Kernel, type Temporary,
} from "../ir/index.js";
import { rename, type BasicSet } from "../poly/index.js";
import { quoted } from "./source-places.js";
import type { HwAxis, ScheduleNode } from "./types.js";

/** Per domain list (kernels are immutable): each iname's domain's parameters. */
const paramsMemo = new WeakMap<readonly BasicSet[], Map<string, readonly string[]>>();

function paramsByIname(k: Kernel): Map<string, readonly string[]> {
  let m = paramsMemo.get(k.domains);
  if (m === undefined) {
    m = new Map();
    for (const d of k.domains) for (const x of d.dims) if (!m.has(x)) m.set(x, d.params);
    paramsMemo.set(k.domains, m);
  }
  return m;
}

/** The parameters of the domains of an instruction's inames: the values its loops' bounds read. */
export function domainParamsOf(k: Kernel, insn: Instruction): readonly string[] {
  const m = paramsByIname(k);
  const inames = insn.withinInames;
  // One iname, or none: its domain's parameters as they are (no set, no copy).
  if (inames.length <= 1) return inames.length === 0 ? [] : m.get(inames[0]!) ?? [];
  const out = new Set<string>();
  for (const i of inames) for (const p of m.get(i) ?? []) out.add(p);
  return [...out];
}

/** A work-item's slot in a privatized temporary: its local ids (`iname - base`), the highest axis first. */
export function workItemIndex(localAxes: readonly HwAxis[]): Expr[] {
  return [...localAxes].sort((a, b) => b.axis - a.axis)
    .map((ax) => (ax.base.kind === "const" && ax.base.value === 0 ? v(ax.iname) : arith("-", v(ax.iname), ax.base)));
}

/** What `loadDomainParams` changes: new instructions, temporaries and domains, and the body with the loads. */
export interface ParamLoads {
  readonly instructions: readonly Instruction[];
  readonly temporaries: readonly Temporary[];
  readonly domains: readonly BasicSet[];
  readonly body: readonly ScheduleNode[];
  /**
   * Instructions `<t>_item = 0`, to run first in each work-group: the loop over the work-items
   * around a load may take bounds from the domains that read the copy (`i < e_item - s_item`, the
   * range where the inner loop is not empty), joined with the load's whole range, so the copy
   * must hold a value there too (C may not read an unassigned scalar).
   */
  readonly inits: readonly string[];
}

/** Whether a barrier is among `nodes` or inside their loops. */
export function hasBarrier(nodes: readonly ScheduleNode[]): boolean {
  return nodes.some((n) => n.kind === "barrier" || (n.kind === "loop" && hasBarrier(n.body)));
}

/**
 * Where privatized temporaries `temps` (now one slot per work-item along `localAxes`) are parameters
 * of domains: those read `<t>_item` instead, a private scalar assigned `t[local ids]` right before
 * each loop (of device kernel `dkName`'s `body`) over an iname of such a domain. `fields` are the
 * kernel's instructions and temporaries after privatizing; `ids` the device kernel's instructions.
 * Refused (ScheduleError) where the loop holds a barrier (CPU targets run it outside the loops over
 * the work-items, so it cannot have per-work-item bounds; `notUniform` says why a temporary could not
 * be computed once per work-group, cpu-hoist.ts) or where an instruction of another device
 * kernel runs within such a domain.
 */
export function loadDomainParams(
  k: Kernel, fields: Pick<Kernel, "instructions" | "temporaries" | "domains">, temps: readonly string[], ids: ReadonlySet<string>,
  body: readonly ScheduleNode[], groupAxes: readonly HwAxis[], localAxes: readonly HwAxis[], dkName: string,
  notUniform: ReadonlyMap<string, string> = new Map(),
): ParamLoads | undefined {
  const used = new Set(temps.filter((t) => fields.domains.some((d) => d.params.includes(t))));
  if (used.size === 0) return undefined;
  const taken = new Set([
    ...fields.domains.flatMap((d) => [...d.params, ...d.dims]), ...k.args.map((a) => a.name),
    ...fields.temporaries.map((t) => t.name), ...fields.instructions.map((x) => x.id),
  ]);
  const item = new Map<string, string>();
  const temporaries = [...fields.temporaries];
  const instructions = [...fields.instructions];
  for (const t of used) {
    const name = uniqueName(`${t}_item`, taken);
    taken.add(name);
    item.set(t, name);
    const tt = fields.temporaries.find((x) => x.name === t)!;
    temporaries.push({ name, dtype: tt.dtype, shape: [], addressSpace: "private", order: "C", dimTags: undefined });
  }
  const map = Object.fromEntries([...item]);
  const domains = fields.domains.map((d) => {
    const rn = d.params.filter((p) => item.has(p));
    if (rn.length === 0) return d;
    // A barrier reads and writes nothing (an explicit one is a barrier node of the body, not an id in `ids`).
    const other = fields.instructions.find((x) => !ids.has(x.id) && x.kind !== "barrier" && x.withinInames.some((i) => d.dims.includes(i)));
    if (other) {
      throw new ScheduleError(
        `lowerForCpu: the bounds of ${d.dims.map((x) => quoted(k, x)).join(", ")} read private temporary ${quoted(k, rn[0]!)}, which device kernel "${dkName}" gives one slot per work-item, ` +
        `but instruction ${quoted(k, other.id)} of another device kernel runs within them; keep the bound in a local (@shared) array or compute it in each device kernel`);
    }
    return rename(d, Object.fromEntries(rn.map((p) => [p, map[p]!])));
  });
  const paramsOf = new Map<string, readonly string[]>();
  for (const d of domains) for (const x of d.dims) paramsOf.set(x, d.params);
  const idx = workItemIndex(localAxes);
  // The load runs within the loops around it and the work-item loops; not within a group iname
  // of a domain that reads the copy (`r_outer` tagged g.1 in `r`'s domain), which would bound the
  // work-item loop by the copy it loads.
  const copies = new Set(item.values());
  const free = (i: string) => !(paramsOf.get(i) ?? []).some((p) => copies.has(p));
  const hw = [...groupAxes, ...localAxes].map((ax) => ax.iname).filter(free);
  const inits: string[] = [];
  for (const name of copies) {
    const id = uniqueName(`${name}_init`, taken);
    taken.add(id);
    const within = groupAxes.map((ax) => ax.iname).filter(free).sort();
    instructions.push(Object.assign(insnDefaults(id), { kind: "assign" as const, lhs: v(name), rhs: c(0), atomicity: "none" as const, withinInames: within }));
    inits.push(id);
  }
  const byId = new Map(instructions.map((x) => [x.id, x]));
  const walk = (nodes: readonly ScheduleNode[], outer: readonly string[], loaded: ReadonlySet<string>): ScheduleNode[] => {
    const out: ScheduleNode[] = [];
    for (const n of nodes) {
      if (n.kind !== "loop") {
        out.push(n);
        continue;
      }
      const need = [...used].filter((t) => !loaded.has(t) && (paramsOf.get(n.iname) ?? []).includes(item.get(t)!));
      if (need.length > 0 && hasBarrier(n.body)) {
        const why = notUniform.get(need[0]!);
        throw new ScheduleError(
          `lowerForCpu: loop ${quoted(k, n.iname)} of device kernel "${dkName}" holds a barrier and its bounds read private temporary ${quoted(k, need[0]!)}, ` +
          `which CPU targets cannot prove to be one value for the whole work-group${why === undefined ? "" : ` (${why})`}; ` +
          `CPU targets run such a loop outside the loops over the work-items, so its bounds must be one value per work-group: assign the bound once, in no loop but the group's and ` +
          `work-items' (@outer, @inner), from value arguments, group (@outer) indices and arrays the kernel only reads, or keep it in a local (@shared) array or a kernel argument`);
      }
      const predicates = need.length > 0 ? sharedGuards(n, byId, copies) : [];
      for (const t of need) {
        const id = uniqueName(`${item.get(t)!}_load`, taken);
        taken.add(id);
        const within = [...new Set([...outer, ...hw])].sort();
        instructions.push(Object.assign(insnDefaults(id), {
          kind: "assign" as const, lhs: v(item.get(t)!), rhs: sub(t, ...idx), atomicity: "none" as const, withinInames: within, predicates,
        }));
        out.push({ kind: "insn", id });
      }
      const now = need.length > 0 ? new Set([...loaded, ...need]) : loaded;
      out.push({ ...n, body: walk(n.body, [...outer, n.iname], now) });
    }
    return out;
  };
  const newBody = walk(body, [], new Set());
  return { instructions, temporaries, domains, body: newBody, inits };
}

/**
 * The conditions every instruction inside `loop` runs under that read nothing the loop sets (its
 * iname, the inames inside it, what its instructions write, the copies `copies`): a load of a bound
 * of the loop runs under them too. Where they do not hold, nothing in the loop runs, so its bounds do
 * not matter; where the schedule gave a loop uniform bounds (uniform-bounds.ts), the per-work-item
 * value exists only under them (`lo[t]` of a row `r` that work-item `t` has not got), and an
 * unconditional load read a slot nothing had written. Also, a loop over the work-items whose
 * instructions all share a condition is bounded by it in C.
 */
function sharedGuards(loop: ScheduleNode & { kind: "loop" }, byId: ReadonlyMap<string, Instruction>, copies: ReadonlySet<string>): Expr[] {
  const insns: Instruction[] = [];
  const set = new Set<string>([...copies]);
  const visit = (n: ScheduleNode): void => {
    if (n.kind === "loop") {
      set.add(n.iname);
      n.body.forEach(visit);
    } else if (n.kind === "insn") {
      const insn = byId.get(n.id);
      if (insn) insns.push(insn);
    }
  };
  visit(loop);
  if (insns.length === 0) return [];
  for (const insn of insns) for (const w of insnWrites(insn)) set.add(w);
  return insns[0]!.predicates.filter((p) =>
    ![...freeVariables(p)].some((x) => set.has(x)) && insns.every((insn) => insn.predicates.some((q) => exprEquals(p, q))));
}

/**
 * Belt: after privatizing, `loadDomainParams` reads per-work-item values through a scalar copy, so
 * a domain parameter still naming a temporary array (`fields`: the lowered kernel's, before it is
 * made) is a bug of this lowering (InternalError). A user's kernel cannot hold one: building or
 * changing a kernel refuses it (src/ir/domain-params.ts).
 */
export function checkScalarBounds(k: Kernel, fields: Pick<Kernel, "domains" | "temporaries">): void {
  const bad = arrayDomainParam(fields);
  if (bad !== undefined) throw new InternalError(`lowerForCpu: ${arrayDomainParamProblem(k.name, bad)}, after privatizing; please report the kernel`);
}
