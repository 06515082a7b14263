/**
 * Precompute (loopy's precompute): evaluate a substitution rule over the footprint of its uses
 * into a temporary and read from it instead, through the core shared with addPrefetch
 * (transforms/fetch-store.ts); the storage axes, the choice of uses and the global barrier.
 */
import { TransformError } from "../src/errors.js";
import { accessesInside, type Access, type UseFilter } from "../src/analysis/index.js";
import {
  allInames, exprToString, isHardwareIname, findSubstitution, findTemporary, freeVariables, mapExpr, naturalCompare, parseDtype, substitute as substituteExpr, uniqueName, v,
  type AddressSpace, type Dtype, type Expr, type Kernel, type SubstitutionRule,
} from "../src/ir/index.js";
import { checkKernel, checkOptions, matchInsns, takenNames, type InsnMatch } from "./common.js";
import { expandRulesIn, rulesReaching } from "./subst.js";
import { addBarrier } from "./instruction.js";
import { invocationCandidates, invocations, listUses, parseUses, sameExpr, useFilter, type UseRequest } from "./subst-use.js";
import { accessesOrThrow, nameList, orTransformError, storeFootprint, type StoreRequest } from "./fetch-store.js";
import type { FetchTagSpec } from "./fetch-tags.js";
import { fetchMemo } from "./fetch-memo.js";

export interface PrecomputeOptions {
  /** Default `${rule}_0`. */
  readonly temporaryName?: string;
  /** Names of the precompute inames, one per stored axis (default `${rule}_dim_0`, …). */
  readonly precomputeInames?: string | readonly string[];
  /** Inames the compute instruction runs within (default: the non-swept inames the footprint depends on). */
  readonly precomputeOuterInames?: string | readonly string[];
  /** Default "auto" (local when a precompute iname is `l`-tagged, else private). */
  readonly temporaryAddressSpace?: AddressSpace | "auto";
  /** Default null: sequential loops. "l.auto" as in addPrefetch. */
  readonly defaultTag?: FetchTagSpec;
  readonly fetchBoundingBox?: boolean;
  /** Id of the compute instruction (default `compute_${rule}`). */
  readonly computeInsnId?: string;
  /** Only replace the uses in the instructions this selects (a match expression, as "id:s* or writes:out", or a list of them). */
  readonly within?: InsnMatch;
  /**
   * loopy's storage_axes: the axes of the temporary, in order (the first varies slowest). Each is
   * an argument of the rule (by name, or by position: `0`), or an iname of the instructions that
   * use the rule (its value at each use indexes the temporary). An argument left out is not
   * stored: it must be the same expression at every use, and not vary with the sweep. Default
   * (as loopy's): the swept inames that the rule's value uses, then every argument. Axes of
   * extent 1 are dropped.
   */
  readonly storageAxes?: string | readonly (string | number)[];
  /** Tags of the precompute inames by storage axis (`{ x: "l.0" }`); the others get defaultTag. */
  readonly storageAxisToTag?: Readonly<Record<string, string | null>>;
  /**
   * loopy's dtype: the temporary's type (`"float64"`, `"double"`, …); the compute instruction
   * converts the rule's value to it as C's assignment does. Default: inferred from the rule's value.
   */
  readonly dtype?: string;
}

export const PRECOMPUTE_OPTIONS: Readonly<Record<keyof PrecomputeOptions, true>> = { temporaryName: true, precomputeInames: true, precomputeOuterInames: true, temporaryAddressSpace: true, defaultTag: true, fetchBoundingBox: true, computeInsnId: true, within: true, storageAxes: true, storageAxisToTag: true, dtype: true };

/**
 * loopy's precompute: evaluate the substitution rule `substRule` over the footprint of its uses
 * swept over `sweepInames` into a temporary (`${rule}_0`), computed by instruction
 * `compute_${rule}` over new inames `${rule}_dim_0…`, and replace the uses by reads of it.
 * Supported: uses whose arguments are affine in the inames and parameters; a rule without
 * arguments (stored in a scalar); a rule used inside other rules (those are expanded where they
 * are called first, so that the uses are in instructions); `storageAxes` (loopy's storage_axes:
 * which arguments and inames index the temporary, in order); an extent that is a parameter (the
 * temporary is then global, with a global barrier after the compute when work-items or groups
 * read it). The rule stays in the kernel (unused rules are harmless).
 *
 * `substUse` is loopy's subst_use (transforms/subst-use.ts): the rule's name (every use),
 * `"f$tag"` (the uses written `f$tag(…)`), an invocation `"f(i, j+1)"`, or a list of those; the
 * uses not selected keep calling the rule. Invocations are loopy's footprint generators: the
 * footprint is that of their arguments swept over `sweepInames`, and the uses (of their tag)
 * whose own footprint lies inside it are replaced; one equal to a use selects that use. A
 * `temporaryName` that names an existing temporary reuses it when its shape, dtype and address
 * space fit (transforms/reuse-temporary.ts).
 *
 *   precompute(k, "f", ["i_inner"], { defaultTag: "l.auto" })
 *   precompute(k, "f", ["i", "j"], { storageAxes: "y, x" })   // f_0[y, x], global of shape (m, n)
 *   precompute(k, ["f$one", "f(i, j+1)"], ["i"])              // only those uses read f_0
 *   precompute(k, "f(i, k)", ["j", "k"])                      // the uses inside the footprint of f(i, k) read f_0
 */
export function precompute(k: Kernel, substUse: string | readonly string[], sweepInames: string | readonly string[] = [], opts: PrecomputeOptions = {}): Kernel {
  checkKernel(k, "precompute");
  // A pure function of the kernel's content and the arguments: a sweep asks again and again.
  return fetchMemo("precompute", k, [substUse, sweepInames, opts], () => precomputeOnce(k, substUse, sweepInames, opts));
}

function precomputeOnce(k: Kernel, substUse: string | readonly string[], sweepInames: string | readonly string[], opts: PrecomputeOptions): Kernel {
  const who = "precompute";
  opts = checkOptions(opts, who, PRECOMPUTE_OPTIONS);
  const asked = parseUses(substUse, who);
  const name = asked.name;
  const rule = findSubstitution(k, name);
  if (!rule) {
    const rules = k.substitutions.map((s) => s.name).join(", ") || "(none)";
    throw new TransformError(`${who}: no substitution rule "${name}" in kernel "${k.name}"; rules are ${rules} (use extractSubst first, or addPrefetch for an array)`);
  }
  // A rule used inside other rules: those rules are expanded where they are called (in the
  // selected instructions), so that every use is a call in an instruction.
  const callers = rulesReaching(k, (n) => n.kind === "call" && n.fn === name);
  const within = opts.within === undefined ? undefined : [...matchInsns(k, opts.within, who)];
  k = expandRulesIn(k, callers, within);
  const accesses = accessesOrThrow(k, name, who);
  let insnIds = [...new Set(accesses.map((a) => a.insnId))];
  if (within) insnIds = insnIds.filter((id) => within.includes(id));
  if (insnIds.length === 0) throw new TransformError(`${who}: no instruction${within ? " of those in within" : ""} uses rule "${name}"`);
  const space = opts.temporaryAddressSpace ?? "auto";
  if (!["auto", "private", "local", "global"].includes(space)) throw new TransformError(`${who}: temporaryAddressSpace must be auto, private, local or global; got ${JSON.stringify(space)}`);
  const tempName = opts.temporaryName ?? uniqueName(`${name}_0`, takenNames(k));
  const insnId = opts.computeInsnId ?? uniqueName(`compute_${name}`, new Set(k.instructions.map((i) => i.id)));
  const sweep = nameList(sweepInames, "sweepInames", who) ?? [];
  const { select, uses, plan, generators } = chooseUses(k, rule, asked, accesses.filter((a) => insnIds.includes(a.insnId)), sweep, opts.storageAxes, who);
  insnIds = insnIds.filter((id) => uses.some((u) => u.insnId === id));
  if (opts.storageAxisToTag !== undefined && (opts.storageAxisToTag === null || typeof opts.storageAxisToTag !== "object" || Array.isArray(opts.storageAxisToTag))) {
    throw new TransformError(`${who}: storageAxisToTag must be a record of tags by storage axis ({ x: "l.0" }); got ${JSON.stringify(opts.storageAxisToTag)}`);
  }
  const out = storeFootprint(k, {
    who, name, insnIds,
    valueAt: plan.valueAt,
    sweep,
    outer: nameList(opts.precomputeOuterInames, "precomputeOuterInames", who), outerOption: "precomputeOuterInames",
    tempName, dimNames: nameList(opts.precomputeInames, "precomputeInames", who), dimBase: `${name}_dim`, insnId,
    space, tag: opts.defaultTag === undefined ? null : opts.defaultTag,
    boundingBox: opts.fetchBoundingBox === true,
    dtype: precomputeDtype(opts.dtype, who), order: "C",
    ...(plan.axesOf ? { axesOf: plan.axesOf } : {}),
    axisKeys: plan.keys,
    ...(opts.storageAxisToTag !== undefined ? { axisTags: opts.storageAxisToTag } : {}),
    extraOuter: plan.extraOuter,
    autoGlobal: true,
    select,
    ...(generators ? { generators } : {}),
    reuseTemporary: opts.temporaryName !== undefined,
  });
  return globalBarrierAfter(out, tempName, insnId, insnIds, who);
}

/**
 * The uses precompute replaces, the storage plan, and where the footprint comes from. Without
 * invocations the selected uses are the footprint (loopy: "the uses generate the footprint").
 * Invocations are loopy's footprint generators: the footprint is theirs (with the uses a name or
 * tag names), and a use of their tag is replaced where it lies inside their footprint (swept over
 * `sweep`, the other inames fixed) and its unstored arguments are the stored ones; the others
 * keep calling the rule. Invocations that cover no use are a TransformError listing the uses.
 */
function chooseUses(
  k: Kernel, rule: SubstitutionRule, asked: UseRequest, inScope: readonly Access[], sweep: readonly string[],
  storageAxes: PrecomputeOptions["storageAxes"], who: string,
): { select: UseFilter | undefined; uses: Access[]; plan: StoragePlan; generators?: StoreRequest["generators"] } {
  const what = `rule "${rule.name}"`;
  const select0 = useFilter(asked, inScope, what, "()", who);
  const gens = invocations(k, asked, who);
  if (gens.length === 0) {
    const uses = inScope.filter((a) => !select0 || select0(a));
    return { select: select0, uses, plan: storagePlan(k, rule, uses, sweep, storageAxes, who) };
  }
  const named = select0 ?? (() => false);
  const candidates = invocationCandidates(asked, inScope, what, "()", who);
  const isGen = new Set<RuleUse>(gens);
  const where = (u: RuleUse) => (isGen.has(u) ? `the invocation ${u.insnId}` : inInstruction(u));
  const plan = storagePlan(k, rule, [...gens, ...inScope.filter(named)], sweep, storageAxes, who, where, candidates);
  const inside = orTransformError(who, () =>
    accessesInside(k, rule.name, gens, candidates, { sweepInames: sweep, ...(plan.axesOf ? { mapIndices: (a: Access) => plan.axesOf!(a.indices) } : {}) }));
  const covered = candidates.filter((u, x) => inside[x] && [...plan.fixedArgs].every(([j, e]) => sameExpr(u.indices[j]!, e)));
  if (covered.length === 0) {
    const texts = gens.map((g) => g.insnId);
    throw new TransformError(`${who}: the invocation${texts.length > 1 ? "s" : ""} ${texts.join(", ")} cover${texts.length > 1 ? "" : "s"} no use of ${what}: ` +
      `no use's arguments${sweep.length > 0 ? `, swept over ${sweep.join(", ")},` : ""} lie inside ${texts.length > 1 ? "their" : "its"} footprint; the uses are ${listUses(rule.name, candidates, "()")}`);
  }
  const key = (u: Pick<Access, "insnId" | "indices" | "tag">) => `${u.insnId}|${u.tag ?? ""}|${u.indices.map(exprToString).join(", ")}`;
  const keys = new Set(covered.map(key));
  const select: UseFilter = (u) => (select0 !== undefined && select0(u)) || keys.has(key(u));
  return { select, uses: inScope.filter(select), plan, generators: { uses: named, invocations: gens } };
}

function precomputeDtype(d: unknown, who: string): Dtype | undefined {
  if (d === undefined || d === null) return undefined;
  if (typeof d !== "string") throw new TransformError(`${who}: dtype must be a dtype name such as "float64"; got ${JSON.stringify(d)}`);
  try {
    return parseDtype(d);
  } catch (e) {
    throw new TransformError(`${who}: ${(e as Error).message}`);
  }
}

/**
 * As loopy's precompute into a global temporary: when its readers run across work-items or
 * work-groups, a global barrier (`${compute}_barrier`) after the compute instruction makes every
 * value visible to all of them (the kernel is split there). It must be outside every loop.
 */
function globalBarrierAfter(k: Kernel, tempName: string, insnId: string, readers: readonly string[], who: string): Kernel {
  if (findTemporary(k, tempName)?.addressSpace !== "global") return k;
  const hw = (n: string) => isHardwareIname(k, n);
  const byId = new Map(k.instructions.map((i) => [i.id, i]));
  if (!readers.some((id) => byId.get(id)!.withinInames.some(hw))) return k;
  const loops = byId.get(insnId)!.withinInames.filter((n) => !hw(n) && readers.some((id) => byId.get(id)!.withinInames.includes(n)));
  if (loops.length > 0) {
    throw new TransformError(`${who}: the global temporary "${tempName}" is read across work-items, so a global barrier must follow its compute instruction "${insnId}", ` +
      `but that runs within the loop(s) ${loops.join(", ")} of its readers, and a global barrier must be outside every loop; sweep ${loops.join(", ")} too, or use a local or private temporary`);
  }
  const id = uniqueName(`${insnId}_barrier`, new Set(k.instructions.map((i) => i.id)));
  return addBarrier(k, `id:${insnId}`, readers.map((r) => `id:${r}`).join(" or "), "global", { id });
}

/** Where a storage axis of precompute's temporary comes from: an argument of the rule (by position), or an iname. */
type AxisSource = { readonly arg: number } | { readonly iname: string };

interface StoragePlan {
  readonly keys: readonly string[];
  /** Undefined when the axes are the rule's arguments in order. */
  readonly axesOf: ((args: readonly Expr[]) => Expr[]) | undefined;
  readonly valueAt: (idx: readonly Expr[]) => Expr;
  readonly extraOuter: readonly string[];
  /** The arguments that are not stored, by position: the same expression at every use. */
  readonly fixedArgs: ReadonlyMap<number, Expr>;
}

type RuleUse = { readonly insnId: string; readonly indices: readonly Expr[]; readonly inames: readonly string[] };

/** Where a use is, for messages: `instruction "u"`. */
const inInstruction = (u: RuleUse): string => `instruction "${u.insnId}"`;

/** `e` with every call of a substitution rule replaced by the rule's body, recursively. */
function expandRules(k: Kernel, e: Expr, who: string, depth = 0): Expr {
  return mapExpr(e, (n) => {
    if (n.kind !== "call") return undefined;
    const r = findSubstitution(k, n.fn);
    if (!r || r.params.length !== n.args.length) return undefined;
    if (depth > 64) throw new TransformError(`${who}: substitution rule "${n.fn}" expands without end`);
    const args = n.args.map((a) => expandRules(k, a, who, depth + 1));
    return expandRules(k, substituteExpr(r.expr, new Map(r.params.map((p, j) => [p, args[j]!]))), who, depth + 1);
  });
}

/**
 * The storage axes of precompute (loopy's storage_axes): which arguments of the rule and which
 * inames index the temporary, what spans the footprint at a use, and the value at a point of it.
 */
function storagePlan(
  k: Kernel, rule: { readonly name: string; readonly params: readonly string[]; readonly expr: Expr },
  uses: readonly RuleUse[], sweep: readonly string[], given: PrecomputeOptions["storageAxes"], who: string,
  where: (u: RuleUse) => string = inInstruction, others: readonly RuleUse[] = [],
): StoragePlan {
  const params = rule.params;
  const kernelInames = new Set(allInames(k));
  for (const u of [...uses, ...others]) {
    if (u.indices.length !== params.length) {
      throw new TransformError(`${who}: rule "${rule.name}" takes ${params.length} argument(s) (${params.join(", ")}) but ${where(u)} calls it with ${u.indices.length}`);
    }
  }
  // The inames the rule's value uses besides its arguments (through other rules too).
  const body = expandRules(k, rule.expr, who);
  const valueInames = [...freeVariables(body)].filter((n) => kernelInames.has(n) && !params.includes(n)).sort(naturalCompare);
  let sources: AxisSource[];
  if (given === undefined) {
    // loopy's default: the swept inames the value uses (slowest), then every argument.
    sources = [...sweep.filter((s) => valueInames.includes(s)).map((s) => ({ iname: s })), ...params.map((_, j) => ({ arg: j }))];
  } else {
    const list: unknown = typeof given === "string" ? given.split(",").map((x) => x.trim()).filter((x) => x.length > 0) : given;
    if (!Array.isArray(list)) throw new TransformError(`${who}: storageAxes must be "x,j" or a list of argument names, argument positions and inames; got ${JSON.stringify(given)}`);
    const useInames = new Set([...uses, ...others].flatMap((u) => u.inames));
    sources = list.map((x: unknown): AxisSource => {
      if (typeof x === "number") {
        if (!Number.isInteger(x) || x < 0 || x >= params.length) {
          throw new TransformError(`${who}: storage axis ${x} is not an argument position of rule "${rule.name}", which takes ${params.length} argument(s) (${params.join(", ") || "none"})`);
        }
        return { arg: x };
      }
      if (typeof x !== "string") throw new TransformError(`${who}: a storage axis must be an argument name, an argument position or an iname; got ${JSON.stringify(x)}`);
      const p = params.indexOf(x);
      if (p >= 0) return { arg: p };
      if (useInames.has(x)) return { iname: x };
      throw new TransformError(`${who}: storage axis "${x}" is neither an argument of rule "${rule.name}" (${params.join(", ") || "none"}) ` +
        `nor an iname of the instructions that use it (${[...useInames].sort(naturalCompare).join(", ") || "none"})`);
    });
  }
  const keys = sources.map((s) => ("arg" in s ? params[s.arg]! : s.iname));
  const dup = keys.find((x, j) => keys.indexOf(x) !== j);
  if (dup !== undefined) throw new TransformError(`${who}: storage axis "${dup}" is given twice in ${JSON.stringify(given)}`);
  const storedArgs = new Set(sources.flatMap((s) => ("arg" in s ? [s.arg] : [])));
  const inameAxes = new Set(sources.flatMap((s) => ("iname" in s ? [s.iname] : [])));
  for (const s of sweep) {
    if (valueInames.includes(s) && !inameAxes.has(s)) {
      throw new TransformError(`${who}: the value of rule "${rule.name}" uses the swept iname ${s}, which is not a storage axis (storage axes are ${keys.join(", ") || "none"}); add ${s} to storageAxes, or do not sweep it`);
    }
  }
  // An argument without storage is fixed: one expression at every use, not varying with the sweep.
  const fixed = new Map<string, Expr>();
  params.forEach((p, j) => {
    if (storedArgs.has(j)) return;
    const first = uses[0]!.indices[j]!;
    const other = uses.find((u) => !sameExpr(u.indices[j]!, first));
    if (other) {
      throw new TransformError(`${who}: argument ${p} of rule "${rule.name}" is not a storage axis, so it must be the same at every use; ` +
        `it is ${exprToString(first)} in ${where(uses[0]!)} and ${exprToString(other.indices[j]!)} in ${where(other)}; add ${p} to storageAxes`);
    }
    const swept = [...freeVariables(first)].filter((n) => sweep.includes(n));
    if (swept.length > 0) {
      throw new TransformError(`${who}: argument ${p} of rule "${rule.name}" is not a storage axis, but its value ${exprToString(first)} varies with the swept iname(s) ${swept.join(", ")}; add ${p} to storageAxes`);
    }
    fixed.set(p, first);
  });
  const extraOuter = [...new Set([
    ...valueInames.filter((n) => !sweep.includes(n)),
    ...[...fixed.values()].flatMap((e) => [...freeVariables(e)].filter((n) => kernelInames.has(n))),
  ])].sort(naturalCompare);
  const identity = sources.length === params.length && sources.every((s, j) => "arg" in s && s.arg === j);
  const valueBody = inameAxes.size > 0 ? body : rule.expr;
  return {
    keys,
    axesOf: identity ? undefined : (args) => sources.map((s) => ("arg" in s ? args[s.arg]! : v(s.iname))),
    valueAt: (idx) => substituteExpr(valueBody, new Map<string, Expr>([
      ...sources.map((s, r): [string, Expr] => ["arg" in s ? params[s.arg]! : s.iname, idx[r]!]),
      ...fixed,
    ])),
    extraOuter,
    fixedArgs: new Map([...fixed].map(([p, e]) => [params.indexOf(p), e])),
  };
}
