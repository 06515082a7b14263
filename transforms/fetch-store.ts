/**
 * The shared core of addPrefetch (transforms/prefetch.ts) and precompute (transforms/precompute.ts):
 * store the footprint of an array's reads (or of a substitution rule's uses) over some sweep
 * inames into a temporary, and read from it instead.
 *
 * Implemented directly rather than as loopy's extract_subst + precompute: both share one core
 * (`storeFootprint`) that differs only in what is stored (the array's element, or the rule's
 * value) and what is replaced (subscripts, or calls).
 */
import { TransformError } from "../src/errors.js";
import {
  accessFootprint, exprToAff, findAccesses, FootprintError, instructionInames, type Access, type Footprint, type FootprintOptions, type UseFilter,
} from "../src/analysis/index.js";
import {
  affToExpr, c, findArg, findSubstitution, findTemporary, insnDefaults, insnInames, NATURAL_ORDER, naturalCompare, sameInsnInames, sub, uniqueName, v, withKernel,
  type AddressSpace, type Assignment, type Expr, type Instruction, type Kernel, type Temporary,
} from "../src/ir/index.js";
import { aff, affAdd, affSub, type Aff } from "../src/poly/index.js";
import { checkStoresInStep, inameList, rememberTakenNames, takenNames } from "./common.js";
import { checkSharedFetchUniform, checkStoreRace, noSyncOf } from "./fetch-races.js";
import { redirectReads } from "./fetch-reads.js";
import { checkIlpOuter, placeStore } from "./fetch-nesting.js";
import { existingTemporary } from "./reuse-temporary.js";
import { applyTags, perInameTags, tagStoreAlone, tagStrings, type FetchTagSpec } from "./fetch-tags.js";
import { checkPrivateStaysInWorkItem } from "./iname.js";
import { storeDomain } from "./fetch-domain.js";
import { tileFootprint } from "./fetch-tile.js";
import { tileStore, tileStoreParams } from "./fetch-tile-store.js";

export const nameList = (x: string | readonly string[] | undefined, what: string, who: string): string[] | undefined => {
  if (x === undefined) return undefined;
  const list = typeof x === "string" ? x.split(",").map((s) => s.trim()).filter((s) => s.length > 0) : x;
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string")) {
    throw new TransformError(`${who}: ${what} must be "i,j" or a list of names; got ${JSON.stringify(x)}`);
  }
  return [...list];
};

/** What the core stores and replaces. */
export interface StoreRequest {
  readonly who: string;
  /** The array or rule name. */
  readonly name: string;
  /** The stored value at footprint point `idx` (one expression per axis). */
  readonly valueAt: (idx: readonly Expr[]) => Expr;
  readonly insnIds: readonly string[];
  readonly sweep: readonly string[];
  readonly outer: readonly string[] | undefined;
  /** The option that gave `outer` (for messages): "fetchOuterInames" or "precomputeOuterInames". */
  readonly outerOption?: string;
  readonly tempName: string;
  readonly dimNames: readonly string[] | undefined;
  readonly dimBase: string;
  readonly insnId: string;
  readonly space: AddressSpace | "auto";
  readonly tag: FetchTagSpec;
  readonly boundingBox: boolean;
  readonly dtype: Temporary["dtype"];
  readonly order: "C" | "F";
  /** The array's shape, when known: the store never reads outside it. */
  readonly shape?: readonly Expr[] | undefined;
  /** The indices that span the footprint at a use (default: its subscript or arguments). */
  readonly axesOf?: (indices: readonly Expr[]) => Expr[];
  /** A name per footprint axis, the keys of `axisTags`. */
  readonly axisKeys?: readonly string[];
  readonly axisTags?: Readonly<Record<string, string | null>>;
  /** Inames the store runs within besides those the footprint depends on (default outer inames only). */
  readonly extraOuter?: readonly string[];
  /** The reads of `name` in the kernel (findAccesses, every instruction), when the caller has them. */
  readonly accesses?: readonly Access[];
  /** Whether an "auto" temporary whose extent is a parameter becomes global (precompute); otherwise only an explicit "global" allows it. */
  readonly autoGlobal?: boolean;
  /** Only these uses are replaced (tagged uses, uses inside an invocation's footprint); default every use in the instructions. */
  readonly select?: UseFilter | undefined;
  /**
   * Where the footprint comes from when not from the replaced uses: the uses `uses` keeps and the
   * `invocations` (precompute's footprint generators, which every replaced use lies inside).
   */
  readonly generators?: { readonly uses: UseFilter; readonly invocations: readonly Access[] };
  /**
   * Every name in use in `k` (takenNames), when the caller has them: a fresh set, which the core
   * grows with the names it picks.
   */
  readonly taken?: Set<string>;
  /** Instructions the store runs after (the writers of a fetched array that come before its readers). */
  readonly after?: readonly string[];
  /** Whether `tempName` may name an existing temporary, which is then reused if it fits (precompute's temporaryName). */
  readonly reuseTemporary?: boolean;
  /**
   * The address space of an "auto" temporary once its store's inames are tagged (addPrefetch's
   * loopy default), from the store and the kernel's tags: decided here, before the kernel is
   * built, where the store is tagged alone (the caller then finds the temporary's space set, and
   * builds nothing again). A private answer is left to the caller (the kernel is built with
   * "auto", as without this).
   */
  readonly resolveSpace?: (store: Instruction, tags: Kernel["inameTags"]) => AddressSpace;
}

/** `f()`, a FootprintError (a footprint that cannot be computed) becoming a TransformError of `who`. */
export function orTransformError<T>(who: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof FootprintError) throw new TransformError(`${who}: ${e.message}`);
    throw e;
  }
}

/** The footprint options of a store's reads but for the sweep (one object: the full footprint reuses the lean one's pieces when its options are the same). */
function footprintOptions(req: StoreRequest): Omit<FootprintOptions, "sweepInames"> {
  const { axesOf, select, generators } = req;
  // Fields set one by one, not spread from fresh objects (V8's slow path, see src/parse/make-kernel.ts).
  const o: { -readonly [K in keyof FootprintOptions]?: FootprintOptions[K] } = { insnIds: req.insnIds };
  if (axesOf) o.mapIndices = (a: Access) => axesOf(a.indices);
  if (generators) {
    o.select = generators.uses;
    o.invocations = generators.invocations;
  } else if (select) o.select = select;
  return o;
}

/** `base` with a sweep and more options (Object.assign: spreading the fresh `base` is V8's slow path). */
const withSweep = (base: Omit<FootprintOptions, "sweepInames">, more: Partial<FootprintOptions> & Pick<FootprintOptions, "sweepInames">): FootprintOptions =>
  Object.assign({}, base, more);

function footprintOrThrow(k: Kernel, who: string, name: string, opts: FootprintOptions): Footprint {
  return orTransformError(who, () => accessFootprint(k, name, opts));
}

/** The reads of `name` (findAccesses), a FootprintError becoming a TransformError of `who`. */
export function accessesOrThrow(k: Kernel, name: string, who: string): Access[] {
  return orTransformError(who, () => findAccesses(k, name));
}

/**
 * The full footprint over every iname of the readers (and the generators) but the store's outer
 * ones: the general route, where the footprint is not known by construction (`from`: the lean one).
 */
function fullFootprint(
  k: Kernel, req: StoreRequest, base: Omit<FootprintOptions, "sweepInames">, readerInames: ReadonlySet<string>, outer: readonly string[], from: Footprint | undefined,
): Footprint {
  // The readers' inames in the order of the readers, each one's sorted, then the generators'.
  const ordered = new Set([
    ...req.insnIds.flatMap((id) => instructionInames(k.instructions.find((i) => i.id === id)!)),
    ...(req.generators?.invocations ?? []).flatMap((g) => g.inames),
  ]);
  const projected = [...ordered].filter((n) => readerInames.has(n) && !outer.includes(n));
  return footprintOrThrow(k, req.who, req.name, withSweep(base, { sweepInames: projected, ...(from !== undefined ? { from } : {}) }));
}

/** The shared core of addPrefetch and precompute. */
export function storeFootprint(k: Kernel, req: StoreRequest): Kernel {
  const { who, name } = req;
  const readers = req.insnIds;
  // The inames of the readers, and those the footprint generators mention (invocations).
  const readerInames = new Set<string>();
  // (Indexed loops over the kernel's frozen arrays: V8 takes a slow generic path for for-of,
  // some(), find(), map() and filter() over frozen arrays.)
  const insns = k.instructions;
  for (let i = 0; i < insns.length; i++) {
    if (!readers.includes(insns[i]!.id)) continue;
    const names = insnInames(insns[i]!);
    for (let j = 0; j < names.length; j++) readerInames.add(names[j]!);
  }
  if (req.generators !== undefined) for (const g of req.generators.invocations) for (const n of g.inames) readerInames.add(n);
  const kernelInames = new Set<string>();
  for (let i = 0; i < k.domains.length; i++) {
    const dims = k.domains[i]!.dims;
    for (let j = 0; j < dims.length; j++) kernelInames.add(dims[j]!);
  }
  for (const s of req.sweep) {
    if (!kernelInames.has(s)) throw new TransformError(`${who}: sweep iname "${s}" is not an iname of kernel "${k.name}"; inames are ${inameList(k)}`);
    if (!readerInames.has(s)) throw new TransformError(`${who}: sweep iname "${s}" is not an iname of the instructions that read ${name} (${readers.join(", ")}); their inames are ${[...readerInames].sort(naturalCompare).join(", ") || "(none)"}`);
  }
  // The footprint with every non-swept iname fixed tells which of them it depends on.
  const base = footprintOptions(req);
  // The footprint by construction where the reads fit its case (fetch-tile.ts), else the general route.
  const tile = req.outer === undefined && req.generators === undefined && req.axesOf === undefined && req.select === undefined && !req.boundingBox
    ? tileFootprint(k, { name, insnIds: readers, sweep: req.sweep, shape: req.shape, accesses: req.accesses }, kernelInames)
    : undefined;
  const first = tile ?? footprintOrThrow(k, who, name, withSweep(base, { sweepInames: req.sweep, dependsOnly: true }));
  let outer: string[];
  if (req.outer !== undefined) {
    for (const o of req.outer) if (!kernelInames.has(o)) throw new TransformError(`${who}: outer iname "${o}" is not an iname of kernel "${k.name}"; inames are ${inameList(k)}`);
    outer = [...req.outer];
  } else {
    outer = [];
    for (let i = 0; i < first.dependsOn.length; i++) if (!req.sweep.includes(first.dependsOn[i]!)) outer.push(first.dependsOn[i]!);
    for (const n of req.extraOuter ?? []) if (!outer.includes(n) && !req.sweep.includes(n)) outer.push(n);
  }
  // Where the store runs: its outer inames and the loop priorities that nest the readers' other
  // loops inside them (transforms/fetch-nesting.ts).
  const placed = placeStore(k, { who, name, insnId: req.insnId, readers, sweep: req.sweep, outer, explicit: req.outer !== undefined, outerOption: req.outerOption ?? "the outer inames" });
  outer = placed.outer;
  const priorities = placed.priorities;
  const tileParams = tile === undefined ? undefined : tileStoreParams(k, tile, outer, kernelInames);
  const fp: Pick<Footprint, "box"> = tileParams !== undefined ? tile! : fullFootprint(k, req, base, readerInames, outer, tile === undefined ? first as Footprint : undefined);

  // Shape: constant extents, or (in a global temporary) extents in the kernel's parameters; axes
  // of extent 1 are not stored (loopy drops them).
  let space = req.space;
  const box = fp.box;
  const parametric: boolean[] = [];
  const extents: number[] = [];
  for (let r = 0; r < box.length; r++) {
    const e = box[r]!.extent;
    parametric.push(typeof e !== "number");
    extents.push(typeof e === "number" ? e : Number.POSITIVE_INFINITY);
  }
  for (let r = 0; r < box.length; r++) {
    const b = box[r]!;
    if (typeof b.extent === "number") continue;
    const inames = Object.keys(b.extentAff.terms).filter((n) => kernelInames.has(n));
    const why = `axis ${r} of the footprint of ${name} has extent ${printExpr(b.extent)}, which is not a constant ` +
      `(base ${printExpr(b.base)}; the footprint's bounds along that axis depend on ${Object.keys(b.extentAff.terms).join(", ")})`;
    if (inames.length > 0) {
      throw new TransformError(`${who}: ${why}; a temporary's shape cannot depend on the iname(s) ${inames.join(", ")}: ` +
        `sweep fewer inames, or split them so that the swept range has a constant size`);
    }
    if (space === "auto" && req.autoGlobal === true) space = "global";
    if (space !== "global") {
      throw new TransformError(`${who}: ${why}; only a global temporary (temporaryAddressSpace "global") may have a parametric shape, not a ${space === "auto" ? "local or private" : space} one: ` +
        `sweep fewer inames, or split them so that the swept range has a constant size`);
    }
  }
  // (Arrays built by push, here and below, not by map() or filter(): an optimized caller's inlined
  // map() makes arrays of another elements kind than the builtin's, and the functions handed them
  // then deoptimize on a map they never saw, again and again, for thousands of variants.)
  const stored: number[] = [];
  for (let r = 0; r < extents.length; r++) if (extents[r] !== 1) stored.push(r);
  // `0 <= n <= extent - 1` for the new iname `n` of footprint axis `r`.
  const dimBoundsOf = (n: string, r: number): { aff: Aff; eq: boolean }[] => [
    { aff: aff({ [n]: 1 }), eq: false },
    parametric[r] ? { aff: affSub(fp.box[r]!.extentAff, aff({ [n]: 1 }, 1)), eq: false } : { aff: aff({ [n]: -1 }, extents[r]! - 1), eq: false },
  ];

  // Names.
  const taken = req.taken ?? takenNames(k);
  const shape: Expr[] = [];
  for (let j = 0; j < stored.length; j++) {
    const r = stored[j]!;
    shape.push(parametric[r] ? affToExpr(fp.box[r]!.extentAff, NATURAL_ORDER) : c(extents[r]!));
  }
  // An existing temporary is reused when asked by name and it fits (loopy's precompute does so).
  const reused = req.reuseTemporary === true && findTemporary(k, req.tempName)
    ? existingTemporary(k, req.tempName, { shape, dtype: req.dtype, value: req.valueAt(fp.box.map((b) => affToExpr(b.baseAff, NATURAL_ORDER))), space, readers }, who)
    : undefined;
  if (reused) space = reused.addressSpace;
  else if (findArg(k, req.tempName) || findTemporary(k, req.tempName) || findSubstitution(k, req.tempName) || kernelInames.has(req.tempName)) {
    throw new TransformError(`${who}: temporary name "${req.tempName}" is already used in kernel "${k.name}"`);
  }
  taken.add(req.tempName);
  let dimNames: string[];
  if (req.dimNames !== undefined) {
    if (req.dimNames.length !== stored.length) {
      throw new TransformError(`${who}: ${req.dimNames.length} iname names given for ${stored.length} stored axes (extents ${fp.box.map((b) => printExpr(b.extent)).join(" x ")}; axes of extent 1 are not stored)`);
    }
    for (const n of req.dimNames) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new TransformError(`${who}: iname name must be an identifier; got ${JSON.stringify(n)}`);
      if (taken.has(n)) throw new TransformError(`${who}: iname name "${n}" is already a name in kernel "${k.name}"`);
      taken.add(n);
    }
    dimNames = [...req.dimNames];
  } else {
    dimNames = [];
    for (let j = 0; j < stored.length; j++) {
      const n = uniqueName(`${req.dimBase}_${j}`, taken);
      taken.add(n);
      dimNames.push(n);
    }
  }
  const insnId = req.insnId;
  for (let i = 0; i < insns.length; i++) if (insns[i]!.id === insnId) throw new TransformError(`${who}: instruction id "${insnId}" is already used`);

  // A private temporary belongs to one work-item: its store must not be spread across work-items.
  if (space === "private") {
    const hw = [...tagStrings(req.tag), ...tagStrings(req.axisTags ?? null)].filter((t) => /^(l|g)(\.|$)/.test(t));
    if (hw.length > 0) {
      throw new TransformError(`${who}: temporary "${req.tempName}" is private, so its store "${insnId}" runs within one work-item; ` +
        `the hardware tag(s) ${[...new Set(hw)].join(", ")} would spread it across work-items (each would fill only its part); ` +
        `use the local address space, or sequential fetch loops (defaultTag null)`);
    }
  }

  const { dom, clip, predicates } = tileParams !== undefined
    ? tileStore(k, tile!, tileParams, dimNames, stored, outer, (j) => dimBoundsOf(dimNames[j]!, stored[j]!))
    : storeDomain(k, fp as Footprint, {
      boundingBox: req.boundingBox, taken, dimNames, stored, bounds: dimBoundsOf, outer, shape: req.shape, kernelInames,
    });

  checkIlpOuter(k, dom, dimNames, req);

  // The store instruction.
  const srcIdx: Expr[] = [];
  for (let r = 0; r < box.length; r++) {
    const j = stored.indexOf(r);
    srcIdx.push(affToExpr(j >= 0 ? affAdd(box[r]!.baseAff, aff({ [dimNames[j]!]: 1 })) : box[r]!.baseAff, NATURAL_ORDER));
  }
  // (Object.assign, not a spread of the fresh defaults: V8's slow path, see src/parse/make-kernel.ts.)
  const store: Assignment = Object.assign(insnDefaults(insnId), {
    kind: "assign" as const,
    dependsOn: reused?.after === undefined && (req.after === undefined || req.after.length === 0) ? [] : [...new Set([...(reused?.after ?? []), ...(req.after ?? [])])],
    // The store reads what its readers read from those writers: it keeps their nosync with them.
    noSyncWith: noSyncOf(k, readers, req.after ?? []),
    lhs: dimNames.length > 0 ? sub(req.tempName, ...dimVars(dimNames)) : v(req.tempName),
    rhs: req.valueAt(srcIdx),
    atomicity: "none" as const,
    withinInames: [...new Set([...outer, ...dimNames])].sort(naturalCompare),
    predicates: [...predicates, ...clip],
  });

  const sameInames: [Instruction, Instruction][] = [];
  const instructions = redirectReads(k, { who, name, tempName: req.tempName, readers, axesOf: req.axesOf, select: req.select }, fp.box, stored, insnId, sameInames);
  const readerSet = new Set(readers);
  // The store goes before its first reader.
  const at = instructions.findIndex((i) => readerSet.has(i.id));
  instructions.splice(at < 0 ? instructions.length : at, 0, store);

  let tags: (string | null)[] | undefined;
  if (dimNames.length > 0) {
    tags = perInameTags(req.tag, dimNames, who);
    if (req.axisTags !== undefined) {
      const keys = stored.map((r) => req.axisKeys?.[r] ?? String(r));
      for (const key of Object.keys(req.axisTags)) {
        if (!req.axisKeys?.includes(key)) throw new TransformError(`${who}: storageAxisToTag names "${key}", which is not a storage axis; storage axes are ${req.axisKeys?.join(", ") || "(none)"}`);
      }
      tags = tags.map((t, j) => (Object.hasOwn(req.axisTags!, keys[j]!) ? req.axisTags![keys[j]!] ?? null : t));
    }
  }
  const tagExtents: number[] = [];
  for (let j = 0; j < stored.length; j++) tagExtents.push(extents[stored[j]!]!);
  // The new inames tagged on the store alone, before the kernel is built (fetch-tags.ts), where that holds.
  // The store's domain has points, known by construction (no emptiness test for its local tags):
  // accessFootprint keeps only pieces with points, and every point x of a piece lies in the box
  // (its faces hold in every piece), so base + a_dim with 0 <= a_dim <= extent - 1 reaches it:
  // the shifted piece (or the box set, or a piece without its strides, which hold more) with the
  // new inames' bounds has a point p. gist keeps every point of dom within ctx (gist(s, c) ∩ c =
  // s ∩ c), and p is in ctx: its parameters are a reader's fixed inames and parameters, inside
  // the outer inames' domain (the reader's chain holds theirs) and the assumptions (the piece
  // holds them). Moving rows to predicates and projecting strays out only add points.
  // (`taken` is not read after this: the store domain's parameters join it in place, not in a copy.)
  for (let i = 0; i < dom.params.length; i++) taken.add(dom.params[i]!);
  let untagged = true;
  for (let j = 0; tags !== undefined && j < tags.length; j++) if (tags[j] !== null) untagged = false;
  const alone = untagged || tags === undefined ? undefined
    : tagStoreAlone(k, dom, store, dimNames, tagExtents, tags, req.order, who, taken, true);
  if (alone !== undefined) instructions[instructions.indexOf(store)] = alone.store;
  // The space of an "auto" temporary, decided now that the store's tags are known (resolveSpace).
  const resolved = space === "auto" && alone !== undefined && req.resolveSpace !== undefined ? req.resolveSpace(alone.store, alone.inameTags) : undefined;
  const decided = resolved === "local" || resolved === "global" ? resolved : undefined;
  const temp: Temporary = reused?.temporary ?? { name: req.tempName, dtype: req.dtype, shape, addressSpace: decided ?? space, order: "C", dimTags: undefined };
  const temporaries = reused ? k.temporaries.map((t) => (t.name === req.tempName ? temp : t)) : [...k.temporaries, temp];
  // (Fields set one by one, not spread from fresh objects: V8's slow path, see src/parse/make-kernel.ts.)
  const changes: { -readonly [K in keyof Kernel]?: Kernel[K] } = { domains: [...k.domains, alone?.dom ?? dom], instructions, temporaries };
  if (priorities.length > 0) changes.loopPriority = [...k.loopPriority, ...priorities];
  if (alone !== undefined) changes.inameTags = alone.inameTags;
  if (alone?.inameSlabs !== undefined) changes.inameSlabs = alone.inameSlabs;
  let out = withKernel(k, changes);
  // The readers' inames, known: those of the readers they were made from (the next fetch asks them).
  for (let i = 0; i < sameInames.length; i++) sameInsnInames(sameInames[i]![0], sameInames[i]![1]);
  // (Only a private temporary can be refused there: the tags' new inames are listed where there is one.)
  if (alone !== undefined) {
    let priv = false;
    for (let i = 0; i < out.temporaries.length && !priv; i++) priv = out.temporaries[i]!.addressSpace === "private";
    if (priv) checkPrivateStaysInWorkItem(out, Object.keys(alone.inameTags).filter((n) => k.inameTags[n] === undefined), who);
  }
  else if (tags !== undefined) out = applyTags(out, dimNames, tagExtents, tags, req.order, insnId, who);
  if (space === "local" || space === "global") checkStoreRace(out, insnId, req.tempName, space, name, who);
  if ((decided ?? space) === "local" || (decided ?? space) === "global") checkSharedFetchUniform(out, store.id, req.tempName, who);
  checkStoresInStep(out, who);
  // The caller's check of a space it resolves, in the same order (after the loop nesting's).
  if (decided !== undefined) checkStoreRace(out, insnId, req.tempName, decided, name, who);
  // The new kernel's names, known by construction: `k`'s, the temporary's, and the store domain's
  // parameters (all in `taken` now) and dims (the new inames as tagged: a split one replaced by
  // its parts).
  if (alone !== undefined) {
    for (const n of dimNames) taken.delete(n);
    for (let i = 0; i < alone.dom.dims.length; i++) taken.add(alone.dom.dims[i]!);
    rememberTakenNames(out, taken);
  }
  return out;
}

/** The variables `names` (a store's left-hand side indices), built by push (see `stored`). */
function dimVars(names: readonly string[]): Expr[] {
  const out: Expr[] = [];
  for (let j = 0; j < names.length; j++) out.push(v(names[j]!));
  return out;
}

function printExpr(e: Expr | number): string {
  if (typeof e === "number") return String(e);
  const a = exprToAff(e);
  if (!a) return "(non-affine)";
  const parts = Object.entries(a.terms).sort((x, y) => naturalCompare(x[0], y[0])).map(([n, k]) => (k === 1 ? n : `${k}*${n}`));
  if (a.constant !== 0 || parts.length === 0) parts.push(String(a.constant));
  return parts.join(" + ").replace(/\+ -/g, "- ");
}
