/**
 * Prefetch (loopy's add_prefetch): copy the footprint of an array's reads into a temporary and
 * read from it instead, through the core shared with precompute (transforms/fetch-store.ts).
 */
import { TransformError } from "../src/errors.js";
import { exprToAff } from "../src/analysis/index.js";
import {
  allInames, assigneeName, exprToString, findArg, findTemporary, freeVariables, insnWrites, mapExpr, naturalCompare, sub, uniqueName, withKernel,
  type AddressSpace, type Expr, type Instruction, type Kernel,
} from "../src/ir/index.js";
import { affIsConstant, affSub } from "../src/poly/index.js";
import { dependencyClosure, insnById, matchInsns, takenNames, type InsnMatch, checkKernel, checkOptions } from "./common.js";
import { parseTemplate } from "./template.js";
import { useFilter } from "./subst-use.js";
import { accessesOrThrow, nameList, storeFootprint } from "./fetch-store.js";
import { checkStoreRace } from "./fetch-races.js";
import { fetchMemo } from "./fetch-memo.js";
import { expandRulesIn, rulesReaching } from "./subst.js";
import type { FetchTagSpec } from "./fetch-tags.js";

export interface PrefetchOptions {
  /** Inames whose whole range the footprint covers (`"i_inner,k_inner"` or a list). Default: none. */
  readonly sweepInames?: string | readonly string[];
  /** Names of the fetch inames, one per stored axis (default `a_dim_0`, `a_dim_1`, …). */
  readonly dimArgNames?: string | readonly string[];
  /** Default `${var}_fetch`. */
  readonly temporaryName?: string;
  /**
   * Default as loopy's: local when a fetch iname ends up on work-items (an l tag, as the default
   * tag "l.auto" puts them), else private (a fetch of one element, or with defaultTag null).
   */
  readonly temporaryAddressSpace?: AddressSpace;
  /**
   * Tag of the fetch inames. Default "l.auto" for a local (or global) temporary, null (sequential
   * loops) for a private one, whose store runs within one work-item (l/g tags on it are an error).
   * "l.auto": the axis of the array that varies fastest goes on
   * l.0, the next on l.1, …; an iname longer than the work-group's size on that axis is split by
   * that size and its inner part tagged (as loopy's automatic local axes do).
   */
  readonly defaultTag?: FetchTagSpec;
  /** Inames the fetch instruction runs within (default: the non-swept inames the footprint depends on). */
  readonly fetchOuterInames?: string | readonly string[];
  /** Fetch the footprint's bounding box even when the footprint is not a box (default false). */
  readonly fetchBoundingBox?: boolean;
  /** Id of the fetch instruction (default `${var}_fetch_rule`). */
  readonly prefetchInsnId?: string;
  /** Only the reads in these instructions (a match expression or a list) read the fetched copy; the others still read the array. */
  readonly within?: InsnMatch;
}

export const PREFETCH_OPTIONS: Readonly<Record<keyof PrefetchOptions, true>> = { sweepInames: true, dimArgNames: true, temporaryName: true, temporaryAddressSpace: true, defaultTag: true, fetchOuterInames: true, fetchBoundingBox: true, prefetchInsnId: true, within: true };

/**
 * loopy's add_prefetch: copy the footprint of the reads of `varName` (`"a"`, `"a[:, k]"`, or
 * `"a$x"` for only the reads tagged `a$x[…]`) swept over `sweepInames`
 * into a temporary (`a_fetch`, local by default) with a fetch instruction `a_fetch_rule` over new
 * inames `a_dim_0…`, and read from it instead. The readers depend on the fetch; the scheduler
 * inserts the barriers.
 *
 *   addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] })
 *   // a_fetch[a_dim_0, a_dim_1] = a[a_dim_0 + 16*i_outer, a_dim_1 + 16*k_outer]   {id=a_fetch_rule}
 *   // c[…] = sum((k_outer, k_inner), a_fetch[i_inner, k_inner]*b[…])
 */
export function addPrefetch(k: Kernel, varName: string, opts: PrefetchOptions = {}): Kernel {
  checkKernel(k, "addPrefetch");
  // A pure function of the kernel's content and the arguments: a sweep asks again and again.
  return fetchMemo("addPrefetch", k, [varName, opts], () => prefetchOnce(k, varName, opts));
}

function prefetchOnce(k: Kernel, varName: string, opts: PrefetchOptions): Kernel {
  const who = "addPrefetch";
  opts = checkOptions(opts, who, PREFETCH_OPTIONS);
  if (typeof varName !== "string") throw new TransformError(`${who}: the variable must be a name; got ${JSON.stringify(varName)}`);
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\$([A-Za-z_][A-Za-z0-9_]*))?\s*(?:\[(.*)\])?\s*$/s.exec(varName);
  if (!m) throw new TransformError(`${who}: "${varName}" is not an array name (as "a", "a$x", "a[:,:]" or "f[ifeat,:,:]")`);
  const name = m[1]!;
  const subscript = m[3];
  const arg = findArg(k, name);
  const tmp = findTemporary(k, name);
  if (!(arg?.kind === "array") && !tmp) {
    const arrays = [...k.args.filter((a) => a.kind === "array").map((a) => a.name), ...k.temporaries.map((t) => t.name)];
    throw new TransformError(`${who}: no array "${name}" in kernel "${k.name}"; arrays are ${arrays.join(", ") || "(none)"}`);
  }
  // Reads inside substitution rules are fetched too (as loopy's): the rules that reach a read of
  // the array are expanded where the selected instructions call them.
  const readingRules = k.substitutions.length === 0 ? [] : rulesReaching(k, (n) => (n.kind === "subscript" || n.kind === "linear") && n.array === name);
  if (readingRules.length > 0) k = expandRulesIn(k, readingRules, opts.within === undefined ? undefined : [...matchInsns(k, opts.within, who)]);
  const all = accessesOrThrow(k, name, who);
  if (all.length === 0) throw new TransformError(`${who}: no instruction of kernel "${k.name}" reads ${name}`);
  // "a$x": only the reads tagged x (loopy's tagged variables); the others still read the array.
  const select = m[2] === undefined ? undefined : useFilter({ name, forms: [{ text: `${name}$${m[2]}`, tag: m[2] }] }, all, `array ${name}`, "[]", who);
  const accesses = select ? all.filter(select) : all;
  let insnIds = readerIds(accesses);
  if (opts.within !== undefined) {
    const selected = matchInsns(k, opts.within, who);
    insnIds = insnIds.filter((id) => selected.has(id));
    if (insnIds.length === 0) throw new TransformError(`${who}: no instruction that within ${JSON.stringify(opts.within)} selects (${[...selected].join(", ")}) reads ${name}; readers are ${[...new Set(accesses.map((a) => a.insnId))].join(", ")}`);
  }
  let sweep = nameList(opts.sweepInames, "sweepInames", who) ?? [];
  // loopy's footprint subscripts: "d[:, :]" names the whole footprint of its ":" axes (swept over
  // every iname their indices use), even with no sweep inames given.
  if (subscript !== undefined) {
    ({ insnIds, sweep } = partialSubscript(k, name, subscript, insnIds, sweep, who, m[2]));
  }
  const after = writersBefore(k, name, insnIds, who);
  const renewed = renewedInames(k, after, insnIds, sweep);
  const outerGiven = nameList(opts.fetchOuterInames, "fetchOuterInames", who);
  const missing = renewed.filter((n) => outerGiven !== undefined && !outerGiven.includes(n));
  if (missing.length > 0) {
    throw new TransformError(`${who}: ${name} is written anew in every iteration of ${missing.join(", ")} (by ${after.map((w) => `"${w}"`).join(", ")}, in the same loop as its readers), so the fetch must run within ${missing.length > 1 ? "them" : "it"}; add ${missing.join(", ")} to fetchOuterInames or sweepInames`);
  }
  const space = opts.temporaryAddressSpace ?? "auto";
  if (!["auto", "private", "local", "global"].includes(space)) throw new TransformError(`${who}: temporaryAddressSpace must be private, local or global; got ${JSON.stringify(space)}`);
  // The kernel's names, once: the store's own names are picked from the same set (storeFootprint's `taken`).
  const taken = takenNames(k);
  const tempName = opts.temporaryName ?? uniqueName(`${name}_fetch`, taken);
  const insnId = opts.prefetchInsnId ?? freshInsnId(k, `${name}_fetch_rule`);
  const out = storeFootprint(k, {
    who, name, insnIds,
    valueAt: (idx) => sub(name, ...idx),
    sweep,
    outer: outerGiven, outerOption: "fetchOuterInames",
    extraOuter: renewed,
    tempName, dimNames: nameList(opts.dimArgNames, "dimArgNames", who), dimBase: `${name}_dim`, insnId,
    // A temporaryName that names an existing temporary reuses it when it fits, as precompute does.
    reuseTemporary: opts.temporaryName !== undefined,
    space, tag: opts.defaultTag === undefined ? (space === "private" ? null : "l.auto") : opts.defaultTag,
    boundingBox: opts.fetchBoundingBox === true,
    dtype: (arg?.kind === "array" ? arg.dtype : tmp?.dtype),
    order: arg?.kind === "array" ? arg.order : tmp?.order ?? "C",
    shape: arg?.kind === "array" ? arg.shape : tmp?.shape,
    select,
    accesses: select === undefined ? all : undefined,
    after,
    taken,
    resolveSpace: fetchSpaceOf,
  });
  return space === "auto" ? resolveFetchSpace(out, tempName, insnId, name, who) : out;
}

/** The ids of the instructions of `accesses`, each once, in order. */
function readerIds(accesses: readonly { readonly insnId: string }[]): string[] {
  const out: string[] = [];
  for (const a of accesses) if (out.length === 0 || (out[out.length - 1] !== a.insnId && !out.includes(a.insnId))) out.push(a.insnId);
  return out;
}

/** `base`, or uniqueName's pick from it where an instruction of `k` has that id (no set of ids built where none has). */
function freshInsnId(k: Kernel, base: string): string {
  if (insnById(k, base) === undefined) return base;
  const ids = new Set<string>();
  for (const i of k.instructions) ids.add(i.id);
  return uniqueName(base, ids);
}

/**
 * The writers of `name` (an array written in the kernel, a temporary) that the fetch must follow:
 * those the readers depend on. A writer that depends on the readers comes after them and needs
 * nothing; a reader that writes it, or a writer in no fixed order with the readers, is refused.
 */
function writersBefore(k: Kernel, name: string, readers: readonly string[], who: string): string[] {
  const writers: Instruction[] = [];
  // (An assignment writes its left-hand side's variable: no array of written names per instruction.)
  for (let x = 0; x < k.instructions.length; x++) {
    const i = k.instructions[x]!;
    if (i.kind === "assign" ? assigneeName(i.lhs) === name : insnWrites(i).includes(name)) writers.push(i);
  }
  // (An array nothing writes, as most fetched arrays: no dependency closure to walk.)
  if (writers.length === 0) return [];
  const self = writers.filter((w) => readers.includes(w.id));
  if (self.length > 0) {
    throw new TransformError(`${who}: instruction(s) ${self.map((w) => `"${w.id}"`).join(", ")} read and write ${name}; a fetched copy would miss their own updates (select the readers with within)`);
  }
  const before = new Set(readers.flatMap((r) => [...dependencyClosure(k, r)]));
  const out: string[] = [];
  for (const w of writers) {
    if (before.has(w.id)) out.push(w.id);
    else if (!readers.some((r) => dependencyClosure(k, w.id).has(r))) {
      throw new TransformError(`${who}: instruction "${w.id}" writes ${name} in no fixed order with its readers ${readers.map((r) => `"${r}"`).join(", ")}, so the fetch cannot know which values to copy; add a dependency (dep=) or select the readers with within`);
    }
  }
  return out;
}

/**
 * The inames a writer of `name` that comes before the readers shares with a reader, not swept: the
 * values the reader sees are written anew in every iteration of those loops, so the fetch must run
 * within them (its footprint need not depend on them: a temporary that saveAndReloadTemporaries
 * indexes by a g iname of extent 1 is read at one cell, written once per host-loop iteration).
 */
function renewedInames(k: Kernel, writers: readonly string[], readers: readonly string[], sweep: readonly string[]): string[] {
  const inames = (id: string) => k.instructions.find((i) => i.id === id)!.withinInames;
  const out = new Set<string>();
  for (const w of writers) for (const r of readers) for (const n of inames(w)) if (inames(r).includes(n) && !sweep.includes(n)) out.add(n);
  return [...out].sort(naturalCompare);
}

/** The address space resolveFetchSpace gives the store's temporary under `tags` (see there). */
function fetchSpaceOf(store: Instruction | undefined, tags: Kernel["inameTags"]): AddressSpace {
  const indexed = new Set<string>();
  if (store?.kind === "assign" && store.lhs.kind === "subscript") for (const e of store.lhs.indices) freeVariables(e, indexed);
  const on = (kind: string) => [...indexed].some((i) => tags[i]?.kind === kind);
  return on("l") ? "local" : on("g") ? "global" : "private";
}

/**
 * loopy's default address space of a fetch (find_temporary_address_space): local when the store
 * indexes the temporary by a work-item (l) iname, so that the work-group shares it; global when by
 * a group (g) iname; else private (each work-item its own).
 */
function resolveFetchSpace(k: Kernel, tempName: string, insnId: string, name: string, who: string): Kernel {
  const t = findTemporary(k, tempName);
  // Decided by storeFootprint already (resolveSpace) where it tagged the store alone.
  if (t === undefined || t.addressSpace !== "auto") return k;
  const space = fetchSpaceOf(k.instructions.find((i) => i.id === insnId), k.inameTags);
  if (space !== "private") checkStoreRace(k, insnId, tempName, space, name, who);
  return withKernel(k, { temporaries: k.temporaries.map((x) => (x.name === tempName ? { ...x, addressSpace: space } : x)) });
}

/**
 * A partial subscript `f[ifeat,:,:]` (loopy's footprint subscripts): the readers are the
 * instructions whose every read of `name` has the given index expressions on the fixed axes (an
 * instruction that also reads `name` elsewhere is refused), and the `:` axes are swept over every
 * iname their indices use, so the fixed axes are not stored and the fetch runs once per value of
 * the inames the fixed indices use. (loopy sweeps a `:` axis over its whole extent; the part the
 * reads touch is fetched here, which is all of it when they cover the axis.)
 */
function partialSubscript(
  k: Kernel, name: string, text: string, insnIds: readonly string[], sweep: readonly string[], who: string, tag?: string,
): { insnIds: string[]; sweep: string[] } {
  const items = text.split(",").map((x) => x.trim());
  const arr = findArg(k, name);
  const rank = arr?.kind === "array" ? arr.shape?.length : findTemporary(k, name)?.shape.length;
  if (rank !== undefined && items.length !== rank) throw new TransformError(`${who}: "${name}[${text}]" has ${items.length} indices, but ${name} has ${rank} axes`);
  const fixed = items.map((x, r) => {
    if (x === ":") return undefined;
    if (x === "") throw new TransformError(`${who}: index ${r} of "${name}[${text}]" is empty; use ":" for an axis to fetch`);
    return parseTemplate(x, who);
  });
  const inames = new Set(allInames(k));
  const fixedInames = new Set(fixed.flatMap((e) => (e ? [...freeVariables(e)].filter((x) => inames.has(x)) : [])));
  const same = (a: Expr, b: Expr): boolean => {
    const [x, y] = [exprToAff(a, () => true), exprToAff(b, () => true)];
    return x && y ? affIsConstant(affSub(x, y)) && affSub(x, y).constant === 0 : JSON.stringify(a) === JSON.stringify(b);
  };
  const readers: string[] = [];
  const swept = new Set(sweep);
  for (const id of insnIds) {
    const insn = k.instructions.find((i) => i.id === id)!;
    const reads: Expr[][] = [];
    const collect = (e: Expr) => mapExpr(e, (n) => ((n.kind === "subscript" && n.array === name && (tag === undefined || n.tag === tag) && reads.push([...n.indices])), undefined));
    insn.predicates.forEach(collect);
    if (insn.kind === "assign") {
      collect(insn.rhs);
      if (insn.lhs.kind === "subscript") insn.lhs.indices.forEach(collect);
    }
    const matching = reads.filter((idx) => fixed.every((f, r) => f === undefined || same(f, idx[r]!)));
    if (matching.length === 0) continue;
    if (matching.length < reads.length) {
      const other = reads.find((idx) => !matching.includes(idx))!;
      throw new TransformError(`${who}: instruction "${id}" reads ${name}[${other.map(exprToString).join(", ")}] besides reads matching ${name}[${text}]; it can read only one of them from the fetched copy (select the instruction out with within)`);
    }
    readers.push(id);
    for (const idx of matching) fixed.forEach((f, r) => {
      if (f !== undefined) return;
      for (const x of freeVariables(idx[r]!)) if (inames.has(x) && !fixedInames.has(x)) swept.add(x);
    });
  }
  if (readers.length === 0) throw new TransformError(`${who}: no read of ${name} matches ${name}[${text}] in instructions ${insnIds.join(", ")}`);
  const clash = [...swept].filter((x) => fixedInames.has(x));
  if (clash.length > 0) throw new TransformError(`${who}: ${clash.join(", ")} ${clash.length > 1 ? "are" : "is"} used by a fixed index of ${name}[${text}] and cannot be swept`);
  return { insnIds: readers, sweep: [...swept] };
}
